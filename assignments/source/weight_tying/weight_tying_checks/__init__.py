"""The weight-tying checks, shared by the `pytest` self-check and the notebook's practice cells.

Each check builds small models from your classes and, when something is off, names the misconception and
the notebook section to reread. In a notebook cell::

    from weight_tying_checks import practice
    practice("exercise 1", TiedEmbeddingLM=TiedEmbeddingLM)

The graded tests are the hidden suite's; these checks are a preview of it and are worth no points.
Messages follow this edition's language; WEIGHT_TYING_LANG=en or zh chooses another.
"""

from __future__ import annotations

from . import generation, tied, wrapper  # noqa: F401 - importing them declares their checks, in order
from .framework import CHECKS, Check, Outcome, Session, title
from .language import ENV_VAR, language, tell, unloadable

__all__ = [
    "CHECKS",
    "GROUPS",
    "Check",
    "Outcome",
    "Session",
    "ENV_VAR",
    "language",
    "tell",
    "unloadable",
    "title",
    "practice",
    "PracticeFailed",
]

GROUPS = tuple(dict.fromkeys(c.group for c in CHECKS.values()))  # the notebook's practice cells, in order


class PracticeFailed(AssertionError):
    """A practice cell's checks did not all pass. Jupyter shows its message alone, in the student's language
    (IPython's ``_render_traceback_``), not a traceback into this package."""

    def _render_traceback_(self) -> list[str]:
        return str(self).splitlines()


def practice(group: str, **classes) -> None:
    """Run one group of checks on the classes given; print one line per check; raise if any did not pass."""
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}: choose one of {', '.join(GROUPS)}")
    session = Session(classes)
    statuses = []
    for chk in (c for c in CHECKS.values() if c.group == group):
        if chk.cls not in classes:
            raise ValueError(f"practice({group!r}, ...) needs {chk.cls}={chk.cls}: pass the class by keyword")
        outcome = session.outcome(chk.name)
        mark = {"passed": "✓", "failed": "✗", "not checked": "–"}[outcome.status]
        print(f"{mark} {title(chk)}")
        if not outcome.passed:
            print("    " + outcome.message.replace("\n", "\n    "))
        statuses.append(outcome.status)
    failed, waiting = statuses.count("failed"), statuses.count("not checked")  # a check that waits did not fail
    group = tell(f"check.group.{group}")  # the group's name in the student's language
    if failed and waiting:
        raise PracticeFailed(tell("check.group_failed_waiting", count=failed, waiting=waiting, group=group))
    if failed:
        raise PracticeFailed(tell("check.group_failed", count=failed, group=group))
    if waiting:
        raise PracticeFailed(tell("check.group_waiting", group=group))
    print(tell("check.all_passed"))
