"""The selftest checks, shared by the `pytest` self-check and the notebook's practice cell::

    from selftest_checks import practice
    practice("add", add=add)

A preview of the hidden suite, worth no points; the machinery is ``coursecheck``'s (in the course's wheel).
"""

from __future__ import annotations

from . import checks  # noqa: F401 - importing it declares the checks, in order
from .self_check import SELF_CHECK

__all__ = ["SELF_CHECK", "CHECKS", "practice"]

CHECKS = SELF_CHECK.checks
practice = SELF_CHECK.practice
