"""Untrusted: a notebook's practice cell: one group of an assignment's checks run on the classes it is given, one
line per check, in the student's language: ✓ passed, ✗ failed, – waits for an earlier check, ○ stopped at code
not written yet. In a notebook cell::

    from weight_tying_checks import practice
    practice("exercise 1", TiedEmbeddingLM=TiedEmbeddingLM)

The checks are a preview of the hidden suite and are worth no points.
"""

from __future__ import annotations

__all__ = ["PracticeFailed", "practice"]


class PracticeFailed(AssertionError):
    """A practice cell's checks did not all pass. Jupyter shows its message alone, in the student's language
    (IPython's ``_render_traceback_``), not a traceback into this package."""

    def _render_traceback_(self) -> list[str]:
        return str(self).splitlines()


def practice(checks, group: str, **classes) -> None:
    """Run one group of `checks` on the classes given; print one line per check; raise if any did not pass."""
    if group not in checks.groups:
        raise ValueError(f"unknown group {group!r}: choose one of {', '.join(checks.groups)}")
    tell = checks.words.tell
    session = checks.session(classes)
    marks, unwritten = [], []
    for chk in (c for c in checks.checks.values() if c.group == group):
        if chk.cls not in classes:
            raise ValueError(f"practice({group!r}, ...) needs {chk.cls}={chk.cls}: pass the class by keyword")
        outcome = session.outcome(chk.name)
        mark = "○" if outcome.unwritten else {"passed": "✓", "failed": "✗", "not checked": "–"}[outcome.status]
        print(f"{mark} {checks.title(chk)}")
        if not outcome.passed:
            print("    " + outcome.message.replace("\n", "\n    "))
            unwritten.append(session.unwritten(chk.name))
        marks.append(mark)
    failed, waiting = marks.count("✗"), marks.count("–")  # a check that waits did not fail, nor did a stub
    group_id, group = group, tell(checks.words.own(f"group.{group}"))  # its name in the student's language
    if unwritten and all(unwritten):  # only code not written yet: nothing to fix, something to write
        what = checks.words.listed(dict.fromkeys(unwritten))
        raise PracticeFailed(tell("check.group_unwritten", group=group, what=what))
    if failed and waiting:
        raise PracticeFailed(tell("check.group_failed_waiting", count=failed, waiting=waiting, group=group))
    if failed:
        raise PracticeFailed(tell("check.group_failed", count=failed, group=group))
    if waiting or unwritten:  # the rest waits on an earlier cell's failure, or is the stub its own line names
        earlier = _earlier_cells(checks, session, group_id)
        if earlier:
            raise PracticeFailed(tell("check.group_waiting", group=group, earlier=earlier))
        raise PracticeFailed(tell("check.group_not_run", group=group))
    print(tell("check.all_passed"))


def _earlier_cells(checks, session, group: str) -> str:
    """The other practice cells whose failed checks (marked ✗ there, not code still to write) keep `group`'s
    checks waiting, named in the student's language ("“exercise 1”"); "" when none is another cell's."""
    blockers = (session.blocker(c.name) for c in checks.checks.values() if c.group == group)
    cells = dict.fromkeys(
        checks.checks[b].group
        for b in blockers
        if b is not None and checks.checks[b].group != group and not session.outcome(b).unwritten
    )
    tell = checks.words.tell
    return checks.words.listed(tell("check.group_named", group=tell(checks.words.own(f"group.{g}"))) for g in cells)
