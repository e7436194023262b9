"""Trusted: a batch's output folder: its manifest, its lock, and each student's result written as it arrives.

    <out>/manifest.json          this run's students (uid, name, key, submission, grading key, state, when
                                 they handed in against the due date), the assignment, the options that shape a
                                 mark (``outputs.options``: seed, limits, due date, late policy, extensions,
                                 course, marking scheme; written before anything is graded, reused on resume),
                                 the kit version, start and end
    <out>/results/<uid>.json     one result per student in the kit's own wire form: {"format": RESULT_FORMAT,
                                 "batch": who and under which grading key, "result": Result.to_wire()}
    <out>/grades.csv, report.html, feedback/<uid>.html

The manifest is the only list of students: pages and CSV are built from it, never by globbing the folder,
so a reused folder cannot mix in last term's students. A result file is read back with ``Result.from_wire``,
never as Gradescope JSON (that is an output only), and carries what every output shows of it (rendered once,
when graded); a file of another format (an older kit wrote Gradescope's shape, or no rendering) is not reused:
its student is graded again. Every file is written atomically. One run at a time
holds ``<out>/.lock``; a second one stops with a clear message instead of interleaving writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from autograder.grading.result import GRADER_ERROR, Result
from autograder.outputs.atomic import remove_leftovers, write_text
from autograder.outputs.roster import Student

__all__ = ["OutputFolder", "Manifest", "FolderBusy", "MANIFEST", "RESULT_FORMAT", "OTHER_FORMAT", "now"]

MANIFEST = "manifest.json"
_FORMAT = 1
# results/<uid>.json: 3 is the kit's wire form with what every output shows (``Result.shown``); 2 lacked it,
# and files without "format" (Gradescope's shape) were 1
RESULT_FORMAT = 3
OTHER_FORMAT = "result file of another format"  # how load_result's reason starts for such a file


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FolderBusy(RuntimeError):
    """Another grading run holds the output folder's lock."""


@dataclass
class Manifest:
    assignment: str
    seed: int
    kit_version: str
    started: str = field(default_factory=now)
    finished: str | None = None
    students: list[dict] = field(default_factory=list)  # in roster order; see OutputFolder.entry
    due: str | None = None  # --due, kept for the next run as the seed is (outputs.lateness)
    late_penalty: str | None = None  # --late-penalty, kept likewise
    late_policy: str = ""  # the policy this run applied, in English words (an older kit's only record of it)
    late_rule: dict | None = None  # the same as values (lateness.LatePolicy.rule): the report words it
    options: dict | None = None  # outputs.options.MarkOptions.to_dict(): what shaped the marks (None: an older kit's)

    def to_json(self) -> str:
        data = {"format": _FORMAT, **self.__dict__}
        return json.dumps(data, indent=1, ensure_ascii=True) + "\n"  # ASCII: a surrogate in a key round-trips

    @classmethod
    def from_dict(cls, data: object) -> Manifest | None:
        """A manifest read back, or None when the file is not one of ours (hand-edited, truncated)."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return None
        seed, students = data.get("seed"), data.get("students")
        if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(students, list):
            return None
        return cls(
            assignment=str(data.get("assignment", "")),
            seed=seed,
            kit_version=str(data.get("kit_version", "")),
            started=str(data.get("started", "")),
            finished=data.get("finished") if isinstance(data.get("finished"), str) else None,
            students=[s for s in students if isinstance(s, dict) and isinstance(s.get("uid"), str)],
            due=data.get("due") if isinstance(data.get("due"), str) else None,
            late_penalty=data.get("late_penalty") if isinstance(data.get("late_penalty"), str) else None,
            late_policy=str(data.get("late_policy") or ""),
            late_rule=data.get("late_rule") if isinstance(data.get("late_rule"), dict) else None,
            options=data.get("options") if isinstance(data.get("options"), dict) else None,
        )

    def known_uids(self) -> dict[str, str]:
        """student key -> the uid recorded for it, so a student keeps their file names from run to run."""
        return {s["key"]: s["uid"] for s in self.students if isinstance(s.get("key"), str)}


class OutputFolder:
    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)

    # ------------------------------------------------------------------ paths

    @property
    def manifest_path(self) -> Path:
        return self.out / MANIFEST

    def result_path(self, uid: str) -> Path:
        return self.out / "results" / f"{uid}.json"

    # ------------------------------------------------------------------ lock

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder for this run; FolderBusy if another run holds it. Leftover temporary files of a
        killed run are removed once the lock is held."""
        self.out.mkdir(parents=True, exist_ok=True)
        with open(self.out / ".lock", "a+") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "?"
                raise FolderBusy(
                    f"another grading run (pid {holder}) is writing to {str(self.out)!r}: wait for it to finish, "
                    "or give a different --out folder"
                ) from None
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            try:
                remove_leftovers(self.out)
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    # ------------------------------------------------------------------ manifest

    def read_manifest(self) -> Manifest | None:
        try:
            return Manifest.from_dict(json.loads(self.manifest_path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None

    def write_manifest(self, manifest: Manifest) -> Path:
        return write_text(self.manifest_path, manifest.to_json())

    @staticmethod
    def entry(student: Student, grading_key: str, state: str, unreadable: str = "") -> dict:
        """One student's manifest entry; `state`: "pending", "graded", "up to date" or "grader error"."""
        return {
            "uid": student.uid,
            "name": student.name,
            "key": student.key,
            "nbgrader_id": student.nbgrader_id,
            "submission": str(student.path),
            "grading_key": grading_key,
            "state": state,
            "result": f"results/{student.uid}.json",
            "feedback": f"feedback/{student.uid}.html",
            "unreadable": unreadable,
            "edition": student.edition,
            "note": student.note,  # what else was in the student's folder, not graded
            "edition_note": student.edition_note,  # several editions handed in: which was graded and why
            "edition_rule": student.edition_rule,  # how (grading.handins: "later", "same time", "no time")
        }

    # ------------------------------------------------------------------ results

    def save_result(
        self, student: Student, result: Result, *, grading_key: str, assignment: str, unreadable: str = ""
    ) -> Path:
        """results/<uid>.json, atomically, with who it belongs to and the key it was graded under."""
        batch = {
            "student": student.name,
            "id": student.uid,
            "nbgrader_id": student.nbgrader_id,
            "submission": str(student.path),
            "assignment": assignment,
            "grading_key": grading_key,
            "graded_at": now(),
            "unreadable": unreadable,
        }
        data = {"format": RESULT_FORMAT, "batch": batch, "result": result.to_wire()}
        text = json.dumps(data, indent=1, ensure_ascii=True)  # a student's lone surrogate stays valid JSON
        return write_text(self.result_path(student.uid), text + "\n")

    def load_result(self, uid: str) -> tuple[Result | None, dict, str]:
        """(Result or None, its batch record, why it could not be read: "" when it was)."""
        path = self.result_path(uid)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None, {}, "no result file (not graded yet: run the same command again)"
        except (OSError, ValueError) as exc:
            return None, {}, f"unreadable result file ({type(exc).__name__}: {exc})"
        found = data.get("format") if isinstance(data, dict) else None
        if found != RESULT_FORMAT:
            shape = "Gradescope's shape, from an older kit" if found is None else f"format {found!r}"
            return (
                None,
                {},
                (
                    f"{OTHER_FORMAT} ({shape}; this kit reads format {RESULT_FORMAT}): "
                    "run the same command again to grade it afresh"
                ),
            )
        try:
            result = Result.from_wire(data.get("result"))
        except ValueError as exc:
            return None, {}, f"unreadable result file (ValueError: {exc})"
        batch = data.get("batch") if isinstance(data.get("batch"), dict) else {}
        return result, batch, ""

    def reusable(self, uid: str, grading_key: str) -> tuple[Result | None, str]:
        """(the stored result when it was graded under `grading_key`, else None; why it is not reused, "" when
        there is nothing to say). A grader error is never reused."""
        result, batch, why = self.load_result(uid)
        if result is None:
            return None, why
        if batch.get("grading_key") != grading_key or result.status == GRADER_ERROR:
            return None, ""
        return result, ""

    def cached(self, uid: str, grading_key: str) -> Result | None:
        """The stored result when it was graded under `grading_key` (a grader error is never reused)."""
        return self.reusable(uid, grading_key)[0]
