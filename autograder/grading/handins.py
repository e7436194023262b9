"""Trusted: when a student handed in (nbgrader's ``timestamp.txt``), and which of their editions is graded.

nbgrader's exchange writes ``<student>/<assignment>/timestamp.txt`` when a student submits. It is read here as
nbgrader reads it (``nbgrader.utils.parse_utc``: "2026-05-04 09:30:00.123456 UTC", or any form dateutil reads,
with an offset or a zone name; a time without one is UTC), from a small regular file only (a link or a device
is not nbgrader's). A file that says no time nbgrader could read is a ``Stamp`` with a ``problem``, never a
silent "on time": nbgrader's own ``autograde`` refuses such a submission. So is one whose zone name nbgrader
does not know (it would read the time as UTC, silently); an instructor's times are read by ``outputs.times``.

A student who handed in several editions of one assignment (``weight_tying`` and ``weight_tying_zh``) is graded
on one, by this rule (``choose_edition``): the **later submission** by ``timestamp.txt``; when a time is missing
or unreadable, or the times are the same, the assignment's own edition (the first: English). Whatever was not
graded is said, with why, in ``grades.csv`` and the report's *Needs a look* (``outputs.roster``); a choice made
without a time to compare (``NO_TIME``) is listed apart, for the TA to check which edition was meant.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

__all__ = [
    "STAMP",
    "Stamp",
    "read_stamp",
    "parse_stamp",
    "EditionChoice",
    "BY_TIME",
    "SAME_TIME",
    "NO_TIME",
    "choose_edition",
    "holds_work",
    "when",
]

STAMP = "timestamp.txt"
_STAMP_BYTES = 1024  # one short line


@dataclass(frozen=True)
class Stamp:
    """What a ``timestamp.txt`` says: the time (aware, UTC) or, when it says none nbgrader reads, why not."""

    when: datetime | None
    text: str = ""  # the file's text, shortened (for messages)
    problem: str = ""  # why there is no time ("" when there is one)


def parse_stamp(text: str) -> datetime:
    """nbgrader's reading of a timestamp (``parse_utc``), as an aware UTC time; ValueError when it reads none."""
    import dateutil.parser
    import dateutil.tz

    parts = text.strip().split(" ")
    try:
        if len(parts) == 3:  # "date time zone": the zone an offset in seconds or a name
            try:
                zone = int(parts[2])
            except ValueError:
                zone = dateutil.tz.gettz(parts[2])
            if zone is None:  # nbgrader would take an unknown zone for UTC: a time read wrong, never said
                raise ValueError(f"{text.strip()[:60]!r} names a zone nbgrader does not know ({parts[2][:30]!r})")
            moment = dateutil.parser.parse(" ".join(parts[:2]) + " TZ", tzinfos={"TZ": zone})
        else:
            moment = dateutil.parser.parse(text)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{text.strip()[:60]!r} is not a time nbgrader can read") from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def read_stamp(folder: Path) -> Stamp | None:
    """``folder/timestamp.txt`` read (None when there is none)."""
    path = Path(folder) / STAMP
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return Stamp(None, problem=f"{STAMP} is not a regular file (a link or a folder): not nbgrader's")
    if info.st_size > _STAMP_BYTES:
        return Stamp(None, problem=f"{STAMP} is {info.st_size} bytes: not one of nbgrader's")
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        return Stamp(None, problem=f"{STAMP} cannot be read ({type(exc).__name__})")
    shown = text if len(text) <= 60 else text[:59] + "…"
    try:
        return Stamp(parse_stamp(text), shown)
    except ValueError:
        return Stamp(None, shown, f"{STAMP} says {shown!r}, not a time nbgrader can read")


def when(moment: datetime, *, fraction: bool = False) -> str:
    """'2026-05-04 09:30:07 UTC': a time as the pages and grades.csv show it, to the second (`fraction`: to the
    microsecond, for two times that only it tells apart)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC" if fraction else "%Y-%m-%d %H:%M:%S UTC")


# How an edition was chosen (``EditionChoice.rule``): by the later time, the same time, or with a time missing or
# unreadable (the TA must check: the outputs list it apart, never silently).
BY_TIME, SAME_TIME, NO_TIME = "later", "same time", "no time"


@dataclass(frozen=True)
class EditionChoice:
    graded: str  # the edition (nbgrader assignment) graded
    others: tuple[str, ...]  # the other editions handed in, not graded
    why: str  # for the TA: which rule chose it, with the times
    rule: str = ""  # BY_TIME, SAME_TIME or NO_TIME ("" when only one edition was handed in)

    @property
    def note(self) -> str:
        """'handed in weight_tying and weight_tying_zh: graded weight_tying_zh, the later submission (...)'; ""
        when only one edition was handed in."""
        if not self.others:
            return ""
        handed = " and ".join(sorted((self.graded, *self.others)))
        return f"handed in {handed}: graded {self.graded}, {self.why}"


def choose_edition(student: Path, editions: list[str]) -> EditionChoice:
    """Which of the editions `student` (its nbgrader folder) handed in is graded (see the module's rule);
    `editions` in the assignment's order, its own edition first."""
    if len(editions) < 2:
        return EditionChoice(editions[0], (), "")
    stamps = {edition: read_stamp(Path(student) / edition) for edition in editions}
    times = {edition: stamp.when for edition, stamp in stamps.items() if stamp is not None and stamp.when}
    fraction = len({when(t) for t in times.values()}) < len(set(times.values()))  # apart by less than a second
    said = ", ".join(f"{e} {when(times[e], fraction=fraction)}" if e in times else f"{e} no time" for e in editions)
    latest = max(times.values(), default=None)
    later = [e for e, t in times.items() if t == latest]
    own = "the assignment's own edition"
    if len(times) == len(editions) and len(later) == 1:
        graded, why, rule = later[0], f"the later submission ({said})", BY_TIME
    elif len(times) == len(editions):
        graded, why, rule = editions[0], f"submitted at the same time ({said}): {own}", SAME_TIME
    else:
        graded, why, rule = editions[0], f"no submission time to compare ({said}): {own}", NO_TIME
    return EditionChoice(graded, tuple(e for e in editions if e != graded), why, rule)


def holds_work(folder: Path, *, limit: int = 5000) -> bool:
    """Whether `folder` holds a notebook or a script (what ``find_submissions`` would take as a hand-in), looking
    at no more than `limit` entries (a folder of thousands of files is a student's, not a reason to stall)."""
    pending, seen = [str(folder)], 0
    while pending and seen < limit:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif entry.name.endswith((".ipynb", ".py")):
                return True
    return False
