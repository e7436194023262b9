"""Trusted: the regrade record, and the released feedback pages a regrade made stale.

Each run that moves a mark, or runs with options changed (``options.settle``), appends one line to
``<out>/regrades.jsonl``: when, which options changed (from what, to what), and who moved::

    {"at": "2026-12-03T10:00:00Z", "options": ["--due: 2026-05-04 12:00:00 UTC in this folder, ..."],
     "moved": [{"student": "ann", "id": "ann", "from": {"score": 95, "penalty": 0, "final": 95},
                "to": {"score": 100, "penalty": 5, "final": 95}, "why": ["hand-in changed", "--due changed"]}]}

``why`` compares values, never text: each mark is recorded with what made it (``mark_of``'s inputs: the
hand-in's digest, the grader's and the marking scheme's digests, the seed and limits for the score; the due date,
late policy, the student's extension and the gradebook for the penalty), so a moved score names what changed
among the first (``hand-in changed``, ``marking scheme changed``, ``--seed changed``, ``grader or kit changed``,
else ``regraded (--force or --student)``) and a moved penalty among the second (``--due changed``, ...; else
``lateness changed``: a new ``timestamp.txt``, or the gradebook's due date). A mark survives a killed run (each
entry carries it until a new one replaces it), so a resume records what the killed run moved. A student graded for
the first time has not moved.

A page the kit placed for ``release_feedback`` (``outputs.nbrelease``) records what it showed (``placed``: its
mark and a digest of its tests' outcomes). When a later run changes what that student's page shows, the entry
says so (``stale_page``) and the report lists the page in *Needs a look*: the copy students fetched is old until
``nbgrader release_feedback`` sends the new one (or it is handed out again).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.atomic import write_text
from autograder.outputs.folder import now
from autograder.outputs.options import Change

__all__ = [
    "RECORD",
    "SCORE_INPUTS",
    "PENALTY_INPUTS",
    "mark_of",
    "why_moved",
    "record_regrades",
    "note_stale_pages",
    "placed_record",
    "record_marks",
]

RECORD = "regrades.jsonl"
_RECORD_BYTES = 64 << 20  # a record past this is rotated, not read whole (a term of weekly regrades is far below)


# What made a mark: the inputs of its score, and of its late penalty (mark_of's `inputs`), as the reasons say them.
SCORE_INPUTS = {
    "hand_in": "hand-in changed",
    "scheme": "marking scheme changed",
    "seed": "--seed changed",
    "timeout": "--timeout changed",
    "memory": "--memory changed",
    "grader": "grader or kit changed",
}
PENALTY_INPUTS = {
    "due": "--due changed",
    "late_penalty": "--late-penalty changed",
    "extension": "--extension changed",
    "gradebook": "--nbgrader-course or --gradebook changed",
}


def mark_of(result: Result | None, late: dict | None, inputs: dict) -> dict | None:
    """What a student's page shows (score, late penalty, final mark, and ``shows``: a digest of every test's
    outcome, its charge and finding included) and the `inputs` that made it; None without a usable result."""
    if result is None or result.status == GRADER_ERROR:
        return None
    penalty = float((late or {}).get("penalty") or 0.0)
    tests = json.dumps([t.to_wire() for t in result.tests], sort_keys=True, default=str)
    return {
        "score": result.score,
        "max": result.max_score,
        "penalty": penalty,
        "final": round(max(0.0, result.score - penalty), 6),
        "shows": hashlib.sha256(f"{result.score}|{penalty}|{tests}".encode()).hexdigest()[:16],
        "inputs": inputs,
    }


def why_moved(was: dict, now_: dict) -> list[str]:
    """Why a mark moved from `was` to `now_` (both ``mark_of``'s), from the inputs recorded with each."""
    before, after = was.get("inputs") or {}, now_.get("inputs") or {}
    why = []
    if was["score"] != now_["score"]:
        why += [said for name, said in SCORE_INPUTS.items() if before.get(name) != after.get(name)]
        why = why or ["regraded (--force or --student)"]
    if was["penalty"] != now_["penalty"]:
        lateness = [said for name, said in PENALTY_INPUTS.items() if before.get(name) != after.get(name)]
        why += lateness or ["lateness changed (timestamp.txt, or the gradebook's due date or extension)"]
    return why


def record_regrades(out: Path, was: dict[str, dict], entries: list[dict], changes: list[Change]) -> dict | None:
    """Append this run's line to ``regrades.jsonl`` when a mark moved or an option changed; the line, or None.
    `was`: uid -> the mark the folder held before this run; `entries`: this run's manifest entries (``mark``)."""
    moved = []
    for entry in entries:
        old, new = was.get(entry["uid"]), entry.get("mark")
        if old is None or new is None or (old["score"], old["final"]) == (new["score"], new["final"]):
            continue
        moved.append(
            {
                "student": entry.get("name"),
                "id": entry["uid"],
                "from": {k: old[k] for k in ("score", "penalty", "final")},
                "to": {k: new[k] for k in ("score", "penalty", "final")},
                "why": why_moved(old, new),
            }
        )
    if not moved and not changes:
        return None
    line = {"at": now(), "options": [c.words() for c in changes], "moved": moved}
    path = Path(out) / RECORD
    try:
        kept = path.read_text(encoding="utf-8") if path.stat().st_size <= _RECORD_BYTES else ""
    except OSError:
        kept = ""
    write_text(path, kept + json.dumps(line, ensure_ascii=True) + "\n")
    return line


def note_stale_pages(entries: list[dict]) -> list[str]:
    """Mark ``stale_page`` on each entry whose placed page (``placed``, carried from run to run) showed something
    else than its mark shows now; returns those students' names."""
    stale = []
    for entry in entries:
        placed, mark = entry.get("placed"), entry.get("mark")
        if isinstance(placed, dict) and mark is not None and placed.get("shows") != mark["shows"]:
            entry["stale_page"] = {
                "showed": placed.get("final"),
                "now": mark["final"],
                "placed": placed.get("at"),
                "how": placed.get("how"),
            }
            stale.append(str(entry.get("name") or entry["uid"]))
    return stale


def placed_record(entry: dict, how: str) -> dict | None:
    """What to remember of a page just placed for release (`how`: "exchange" or "by hand"), from its entry."""
    mark = entry.get("mark")
    if mark is None:
        return None
    return {"final": mark["final"], "shows": mark["shows"], "at": now(), "how": how}


def record_marks(manifest, outcome, was: dict[str, dict], changes: list[Change], *, inputs: dict[str, dict]):
    """Each student's mark, with what made it (`inputs`: uid -> ``mark_of``'s), into their manifest entry (a
    student without a result keeps the mark they had); the regrade record appended; pages placed for release that
    now show something else marked stale (``outcome.stale_pages``). Returns the record's new line, or None."""
    for entry in manifest.students:
        mark = mark_of(outcome.results.get(entry["uid"]), entry.get("late"), inputs.get(entry["uid"], {}))
        if mark is not None:
            entry["mark"] = mark
    line = record_regrades(outcome.out, was, manifest.students, changes)
    outcome.stale_pages = note_stale_pages(manifest.students)
    return line
