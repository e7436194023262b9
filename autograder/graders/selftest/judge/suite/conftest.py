"""Trusted: pytest over this hidden suite: ``--evidence DIR`` runs it on a hand-in's kept evidence, with pytest's
own runner; without it each file is skipped, saying how (``autograder/grading/judge/pytest_suite.py``)."""

from autograder.grading.judge.pytest_suite import (  # noqa: F401 (pytest finds hooks and fixtures by name)
    evidence,
    plan,
    pytest_addoption,
    pytest_configure,
    pytest_pycollect_makemodule,
    run,
)
