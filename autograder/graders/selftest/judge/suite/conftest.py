"""Trusted: pytest over this hidden suite: ``--evidence DIR`` runs it on a hand-in's kept evidence, with pytest's
own runner; without it each file is skipped, saying how (``autograder/grading/judge/pytest_suite.py``)."""

from autograder.grading.judge.pytest_suite import *  # noqa: F403 (its hooks and the fixtures plan, evidence, run)
