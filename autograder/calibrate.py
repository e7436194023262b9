"""Test the tests: grade every calibration submission and check each verdict.

Each file under ``<calibration_dir>/{correct,wrong,attacks}/`` says what it expects in one of its first
lines (for a notebook, its first code cell):

    # expect: correct                      must get full marks
    # expect: wrong <misconception>        must not get full marks; ideally a failing test names it
    # expect: attack                       must get 0, leave no process behind, write nothing into the kit

Without a header the folder decides (correct/, wrong/, attacks/). The reference solution is graded too,
and timed (target: under 5 s end to end).
"""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder.batch import grade_batch
from autograder.sandbox import Limits

__all__ = ["Expectation", "Verdict", "read_expectation", "calibrate", "kit_writes"]

_HEADER = re.compile(r"#\s*expect:\s*(correct|wrong|attack)\b[ \t]*(.*)", re.IGNORECASE)
_FOLDERS = {"correct": "correct", "wrong": "wrong", "attacks": "attack"}
_SANDBOX_UIDS = range(60000, 61000)


@dataclass(frozen=True)
class Expectation:
    kind: str  # "correct" | "wrong" | "attack"
    keyword: str  # the misconception a failing test should name ("" if none)


@dataclass
class Verdict:
    file: str
    expected: str
    score: float
    max_score: float
    status: str  # run status
    ok: bool
    note: str
    seconds: float


def _first_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        try:
            cells = [c for c in json.loads(text).get("cells", []) if c.get("cell_type") == "code"]
            source = cells[0].get("source", "") if cells else ""
            text = "".join(source) if isinstance(source, list) else source
        except (ValueError, AttributeError):
            return []
    return text.splitlines()[:10]


def read_expectation(path: Path) -> Expectation | None:
    """The `# expect:` header of a calibration file, or None."""
    for line in _first_lines(Path(path)):
        match = _HEADER.search(line)
        if match:
            return Expectation(match.group(1).lower(), match.group(2).strip())
    return None


def _files(calibration_dir: Path) -> dict[str, tuple[Path, Expectation]]:
    found = {}
    for folder, kind in _FOLDERS.items():
        for path in sorted((calibration_dir / folder).glob("*")):
            if path.suffix not in (".py", ".ipynb") or path.name.startswith(("_", ".")):
                continue
            found[f"{folder}/{path.name}"] = (path, read_expectation(path) or Expectation(kind, ""))
    return found


def kit_writes(kit: Path, since: float) -> list[str]:
    """Files in the kit that a sandbox could have written: owned by a sandbox uid (root grader), or
    modified after `since` (non-root grader: student code runs as you, so any recent change counts)."""
    root_mode = os.geteuid() == 0
    hits = []
    for dirpath, dirnames, filenames in os.walk(kit):
        dirnames[:] = [d for d in dirnames if d not in (".venv", ".git", "__pycache__", "node_modules")]
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if (st.st_uid in _SANDBOX_UIDS) if root_mode else (st.st_mtime > since and name in filenames
                                                                 and not name.endswith(".pyc")):
                hits.append(os.path.relpath(path, kit))
    return hits


def _verdict(name: str, exp: Expectation, result: dict) -> Verdict:
    score, max_score = result["score"], result["max_score"]
    run = result.get("extra_data", {}).get("run", {})
    status = run.get("status", "grader error")
    failing = [t for t in result["tests"] if t["status"] != "passed"]
    if "grader_error" in result.get("extra_data", {}):
        ok, note = False, result["output"]
    elif exp.kind == "correct":
        ok = max_score > 0 and score == max_score
        note = "" if ok else "lost points: " + "; ".join(f"{t['name']}: {t['output'][:160]}" for t in failing)
    elif exp.kind == "wrong":
        ok = score < max_score
        named = bool(exp.keyword) and any(exp.keyword.lower() in t["output"].lower() for t in failing)
        note = "got full marks" if not ok else (
            f"named '{exp.keyword}'" if named else
            f"'{exp.keyword}' not named in feedback" if exp.keyword else "")
    else:
        survived = any("survived" in n for n in run.get("notes", []))
        ok = score == 0 and not survived and bool(run.get("status"))
        note = "; ".join(filter(None, [f"earned {score:g}" if score else "",
                                       "processes survived" if survived else "", f"status {status}"]))
    return Verdict(name, f"{exp.kind} {exp.keyword}".strip(), score, max_score, status, ok, note,
                   float(result.get("execution_time", 0.0)))


def calibrate(*, assignment: str, limits: Limits = Limits(wall_seconds=20), workers: int | None = None,
              seed: int | None = None, progress: bool = True,
              calibration_dir: str | Path | None = None) -> tuple[list[Verdict], float]:
    """Grade the reference solution and every calibration file; returns (verdicts, reference seconds).

    `calibration_dir` replaces the assignment's own (e.g. to try new calibration files before adding them).
    """
    from autograder.assignments import get_assignment
    from autograder.engine import grade_submission

    spec = get_assignment(assignment)
    folder = Path(calibration_dir if calibration_dir is not None else spec.calibration_dir)
    files = _files(folder)
    if not files:
        raise FileNotFoundError(f"no calibration files under {str(folder)!r}/{{correct,wrong,attacks}}")
    start = time.monotonic()
    reference = grade_submission(spec=spec, path=spec.solution_path, seed=seed, limits=limits)
    reference_seconds = time.monotonic() - start
    verdicts = [_verdict("reference solution", Expectation("correct", ""), reference)]
    kit = Path(__file__).resolve().parents[1]
    since = time.time()
    results = grade_batch(assignment=assignment, submissions={n: p for n, (p, _) in files.items()}, seed=seed,
                          limits=limits, workers=workers, progress=progress, hide=(folder,))
    verdicts += [_verdict(name, files[name][1], results[name]) for name in files]
    writes = kit_writes(kit, since)
    if writes:
        verdicts.append(Verdict("(kit files)", "attack", 0, 0, "-", False,
                                "written by a sandbox: " + ", ".join(writes[:10]), 0.0))
    return verdicts, reference_seconds


def verdicts_json(verdicts: list[Verdict], reference_seconds: float) -> dict:
    return {"ok": all(v.ok for v in verdicts), "reference_seconds": round(reference_seconds, 3),
            "verdicts": [asdict(v) for v in verdicts]}
