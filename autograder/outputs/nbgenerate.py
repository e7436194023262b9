"""Trusted: the course's guard on nbgrader's ``generate_assignment``: a kit assignment is released only as the
build makes it.

Every kit assignment's source folders hold files that ``scripts/build_notebook.py --assignment NAME`` writes and the
repository never commits (the notebooks, the release's catalog and diagnosis): in a fresh clone they are missing,
and after an edit of their sources they are stale. The course's ``nbgrader_config.py`` makes ``built_first(SOURCE)``
the GenerateAssignment converter's pre-convert hook, so a release of any kit assignment stops, naming the build
command, unless its source folder is what a fresh build makes; an assignment the build cannot make (a grader
without a student side) stops too, saying what it lacks: nothing of the kit's is released unchecked.

A built README.md ends with a note to maintainers (``noted``: which source to edit); students have no such file,
so ``released_plain(RELEASE)``, the converter's post-convert hook, leaves the note out of the released copy.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from autograder.graders.kit import KIT_ROOT

__all__ = ["built_first", "refusal", "noted", "without_note", "released_plain", "BUILD_COMMAND", "CANNOT_BUILD"]

BUILD_COMMAND = "python scripts/build_notebook.py"
CANNOT_BUILD = 2  # the build's exit status for an assignment it cannot make (what is missing on its stderr)
NOTE = ("<!-- ", " -->")  # a built README's last paragraph, one line: the note to maintainers, an HTML comment
README = "README.md"


def built_first(source: str | Path) -> Callable[..., None]:
    """nbgrader's pre-convert hook for the course whose source folder is `source`: SystemExit, with the build
    command, for a kit assignment whose own source folder is missing a built file or holds a stale one, or which
    the build cannot make (nbgrader logs and ignores any Exception a hook raises, and would release what is
    there)."""
    root = Path(source)

    def hook(*, assignment: str, student: str, notebooks: list) -> None:
        from autograder.graders import ASSIGNMENTS

        if assignment not in ASSIGNMENTS:  # an assignment of the course's own: nbgrader's business
            return
        build = [sys.executable, str(KIT_ROOT / "scripts" / "build_notebook.py"), "--assignment", assignment]
        proc = subprocess.run([*build, "--check", "--copy", str(root)], capture_output=True, text=True, timeout=600)
        why = refusal(assignment, root, proc.returncode, proc.stderr)
        if why is not None:
            raise SystemExit(why)

    return hook


def refusal(assignment: str, root: Path, returncode: int, stderr: str) -> str | None:
    """Why kit assignment `assignment` of the course's source folder `root` is not released, from what
    ``build_notebook.py --assignment NAME --check --copy ROOT`` said (its exit status and stderr); None: released."""
    if returncode == CANNOT_BUILD:
        return (
            f"{assignment!r} is not released: the kit cannot build its source folder, so nothing would check what "
            f"is there ({stderr.strip()[-600:]})"
        )
    folder = f"{Path(root) / assignment}/"  # the build checks the other editions too: this release needs its own
    stale = [line for line in stderr.splitlines() if line.startswith(folder)]
    if stale or returncode not in (0, 1):
        return (
            f"{assignment!r} is not released: its source folder is not what the build makes "
            f"({len(stale)} file(s) missing or out of date, first {stale[0] if stale else stderr[-300:]}). "
            f"Run `{BUILD_COMMAND} --assignment {assignment}` in the kit ({KIT_ROOT}), then release again."
        )
    return None


def noted(text: str, note: str) -> str:
    """`text`, a README the build writes, with `note` to maintainers as its last paragraph (``NOTE``'s HTML
    comment, one line: a rendered README hides it, ``without_note`` takes it out). ValueError when `text`
    itself ends with such a line, which the release would take for the note."""
    if "\n" in note or NOTE[1].strip() in note:
        raise ValueError(f"a README's note {note!r} is one line without {NOTE[1].strip()!r}: shorten it")
    if without_note(text) != text:
        last = text.rstrip("\n").rpartition("\n")[2]
        raise ValueError(f"the README ends with {last!r}, which its release would drop as a note: end it with prose")
    return f"{text.rstrip(chr(10))}\n\n{NOTE[0]}{note}{NOTE[1]}\n"


def without_note(text: str) -> str:
    """`text` without the note ``noted`` gave it; `text` itself when it has none."""
    body, blank, last = text.rstrip("\n").rpartition("\n\n")
    if blank and "\n" not in last and last.startswith(NOTE[0]) and last.endswith(NOTE[1]):
        return body + "\n"
    return text


def released_plain(release: str | Path) -> Callable[..., None]:
    """nbgrader's post-convert hook for the course whose release folder is `release`: a kit assignment's
    released README.md without the build's note to maintainers (``without_note``), which names files a student
    does not have. SystemExit naming the file when it cannot be rewritten (nbgrader ignores a hook's Exception)."""
    root = Path(release)

    def hook(*, assignment: str, student: str, notebooks: list) -> None:
        from autograder.graders import ASSIGNMENTS

        path = root / assignment / README
        if assignment not in ASSIGNMENTS or not path.is_file():  # the course's own: nbgrader's business
            return
        text = path.read_text(encoding="utf-8")
        try:
            path.write_text(without_note(text), encoding="utf-8")
        except OSError as err:
            raise SystemExit(
                f"{path} keeps the build's note to maintainers ({err}): make it writable, release again"
            ) from err

    return hook
