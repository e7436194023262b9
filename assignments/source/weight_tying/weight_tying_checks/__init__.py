"""The weight-tying checks, shared by the `pytest` self-check and the notebook's practice cells.

Each check builds small models from your classes and, when something is off, names the misconception and
the notebook section to reread. In a notebook cell::

    from weight_tying_checks import practice
    practice("exercise 1", TiedEmbeddingLM=TiedEmbeddingLM)

The graded tests are the hidden suite's; these checks are a preview of it and are worth no points.
Messages follow this edition's language; WEIGHT_TYING_LANG=en or zh chooses another. The machinery (running
each check once, after the checks it needs; time budgets; which cells run) is ``coursecheck``'s, which the
course's wheel installs with dnnlpy.
"""

from __future__ import annotations

from coursecheck.practice import PracticeFailed

from . import generation, tied, wrapper  # noqa: F401 - importing them declares their checks, in order
from .self_check import SELF_CHECK, language, tell

__all__ = ["SELF_CHECK", "CHECKS", "GROUPS", "practice", "PracticeFailed", "language", "tell", "title", "unloadable"]

CHECKS = SELF_CHECK.checks
GROUPS = SELF_CHECK.groups  # the notebook's practice cells, in order
practice = SELF_CHECK.practice
title = SELF_CHECK.title
unloadable = SELF_CHECK.words.unloadable
