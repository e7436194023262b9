"""Trusted: one hand-in's judgement inputs, kept in a folder (``grade FILE --keep-evidence DIR``) for pytest.

What the judge read, in the kit's own formats (no pickle), so that ``pytest <suite> --evidence DIR``
(``judge.pytest_suite``) judges it again the way the judge process did::

    DIR/evidence.frames   the run's evidence channel as the sandbox read it (``protocol.frames``; decoded again
                          by ``protocol.decode``, every bound checked)
    DIR/job.frame         the runner's job: the hand-in and the judge's plan, one frame (``pipeline.job``)
    DIR/kept.json         the assignment, the seed, the limits, the run as the sandbox reported it
                          (``SandboxResult.to_wire``) and what the kit's judge made of it: the run's facts and
                          each test's outcome (their wire forms)

The folder is checked before anything is graded (``folder_problem``): new, or empty; a file, a folder the
grader cannot write, or one holding anything (an earlier hand-in's evidence too) is refused by name, so
nothing is overwritten and no grading is wasted.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder.grading.result import TestOutcome
from autograder.sandbox.limits import Limits
from autograder.sandbox.runs import SandboxResult

__all__ = ["Kept", "FILES", "FORMAT", "folder_problem", "read_kept"]

FORMAT = 1  # kept.json's "format": another value is another kit's folder
EVIDENCE, JOB, FACTS = "evidence.frames", "job.frame", "kept.json"
FILES = (EVIDENCE, JOB, FACTS)  # kept.json last: a folder with it is whole
_MAX_FACTS = 16 << 20  # kept.json: the run's stdout and stderr tails and ~50 outcomes are well under this


@dataclass(frozen=True)
class Kept:
    """What one judgement read, and what the kit's judge made of it."""

    assignment: str  # the grader (``graders.get_assignment``)
    seed: int  # the plan's seed: the judge draws the same plan again from it
    limits: Limits  # the run's and the judge's limits (the run facts name them)
    job: bytes  # the runner's job frame: the hand-in and the plan it was measured on
    box: SandboxResult  # the sandbox's report, its evidence channel's bytes included
    outcomes: tuple[dict, ...]  # the kit's judge: each test's ``TestOutcome.to_wire()``, as decided
    run: dict | None = None  # the kit's judge: the run's facts it judged with (``RunFacts.to_dict()``)
    judge_limit: str | None = None  # where the kit's judge stopped ("time", "memory", "died"), when it did

    def to_files(self) -> dict[str, bytes]:
        """The folder's files (name -> bytes), kept.json last."""
        facts = {
            "format": FORMAT,
            "assignment": self.assignment,
            "seed": self.seed,
            "limits": asdict(self.limits),
            "box": self.box.to_wire(),
            "judge": {"limit": self.judge_limit, "run": self.run, "outcomes": list(self.outcomes)},
        }
        text = json.dumps(facts, indent=1, ensure_ascii=False)
        return {EVIDENCE: self.box.evidence, JOB: self.job, FACTS: text.encode("utf-8", "backslashreplace")}

    def write(self, folder: Path) -> None:
        """The files into `folder` (made by ``folder_problem``), each whole or not at all, kept.json last."""
        for name, data in self.to_files().items():
            temp = folder / f".{name}.{secrets.token_hex(4)}.partial"
            try:
                temp.write_bytes(data)
                os.replace(temp, folder / name)
            finally:
                temp.unlink(missing_ok=True)


def folder_problem(folder: Path) -> str | None:
    """Why `folder` cannot take a hand-in's evidence (the sentence names it and the fix), or None: then it
    exists (made now if new) and is empty."""
    shown = repr(str(folder))
    if folder.is_file() or (folder.exists() and not folder.is_dir()):
        return f"--keep-evidence {shown} is a file: give a folder (it is made if it does not exist)"
    if folder.is_dir():
        try:
            there = sorted(p.name for p in folder.iterdir())
        except OSError as exc:
            return f"--keep-evidence {shown} cannot be read ({exc.strerror}): give a folder you can write"
        if there:
            what = "evidence kept before" if FACTS in there else ", ".join(there[:3]) + (", ..." if there[3:] else "")
            return (
                f"--keep-evidence {shown} already holds {what}: give a new or empty folder "
                "(nothing in it is overwritten)"
            )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe.{secrets.token_hex(4)}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return f"--keep-evidence {shown} cannot be written ({exc.strerror or exc}): give a folder you can write"
    return None


def read_kept(folder: Path) -> Kept:
    """The evidence kept in `folder`; ValueError naming the file that is missing or not what it should be, and
    the fix."""
    again = "keep it again: python -m autograder grade FILE --keep-evidence NEW_DIR"
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        what = f"holds no {', '.join(missing)}" if folder.is_dir() else "is not a folder"
        raise ValueError(
            f"{str(folder)!r} {what}: keep a hand-in's evidence there first: python -m autograder grade FILE "
            f"--keep-evidence {folder}"
        )
    if (folder / FACTS).stat().st_size > _MAX_FACTS:
        raise ValueError(f"{str(folder / FACTS)!r} is over {_MAX_FACTS >> 20} MiB: it is not the kit's; {again}")
    try:
        facts = json.loads((folder / FACTS).read_bytes())
        if not isinstance(facts, dict) or facts.get("format") != FORMAT:
            found = facts.get("format") if isinstance(facts, dict) else type(facts).__name__
            raise ValueError(f"format {found!r}, this kit reads format {FORMAT}")
        judge = facts["judge"]
        outcomes = judge["outcomes"]
        if not isinstance(outcomes, list):
            raise ValueError("its judge's outcomes are not a list of outcomes")
        for outcome in outcomes:
            TestOutcome.from_wire(outcome)  # ValueError naming the field
        if not isinstance(facts["assignment"], str) or type(facts["seed"]) is not int:
            raise ValueError("its assignment is not a name or its seed not an integer")
        kept = Kept(
            assignment=facts["assignment"],
            seed=facts["seed"],
            limits=Limits(**facts["limits"]),
            job=(folder / JOB).read_bytes(),
            box=SandboxResult.from_wire(facts["box"], (folder / EVIDENCE).read_bytes()),
            outcomes=tuple(outcomes),
            run=judge.get("run"),
            judge_limit=judge.get("limit"),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{str(folder / FACTS)!r} is not what the kit keeps ({exc}); {again}") from None
    return kept
