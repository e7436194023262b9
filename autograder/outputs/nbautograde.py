"""Trusted: the course's guard on nbgrader's own ``autograde``, which runs each hand-in outside any sandbox.

``nbgrader autograde`` executes a student's notebook in a Jupyter kernel as the grader's own user (root on a
course server): the notebook's code can read whatever that user can, the reference solution and the kit's
hidden suite among it, and print it into the notebook that ``generate_feedback`` turns into the student's page.
The kit's ``python -m autograder grade ... --nbgrader-course COURSE`` grades the
same hand-ins in its sandbox and fills nbgrader's gradebook and feedback folders itself. The course's
``nbgrader_config.py`` makes ``refuse_autograde`` the Autograde converter's pre-convert hook, so ``nbgrader
autograde`` (the formgrader's Autograde button too) stops on the kit's assignments before any notebook runs,
and says what to run instead; ``OVERRIDE`` on its command line runs it anyway, for notebooks you trust.
"""

from __future__ import annotations

__all__ = ["refuse_autograde", "OVERRIDE"]

OVERRIDE = "--Autograde.pre_convert_hook=None"


def refuse_autograde(*, assignment: str, student: str, notebooks: list) -> None:
    """nbgrader's pre-convert hook: SystemExit, with why and the kit's command, for an assignment this kit grades
    (nbgrader logs and ignores any Exception a hook raises, and would run the notebook after it)."""
    from autograder.graders import ASSIGNMENTS, get_assignment

    if assignment not in ASSIGNMENTS:  # an assignment of the course's own: nbgrader's business
        return
    raise SystemExit(
        f"nbgrader autograde is turned off for {assignment!r} in this course: it runs each student's notebook "
        "outside any sandbox, as you, so a hand-in can read the reference solution and the hidden tests and print "
        "them into its own feedback page. Grade with the kit instead, from the course folder (sandboxed; it fills "
        "nbgrader's gradebook and feedback folders):\n\n"
        f"    python -m autograder grade --assignment {get_assignment(assignment).name} submitted --out graded "
        "--nbgrader-course .\n\n"
        f"For notebooks you trust, nbgrader autograde {assignment} {OVERRIDE} runs nbgrader's own anyway."
    )
