"""Trusted: test the tests: grade every calibration submission and check each verdict.

Each file under ``<calibration_dir>/{correct,wrong,attacks}/`` says what it expects in its first lines (for a
notebook, its first code cell)::

    # expect: correct                      must get full marks
    # expect: wrong <misconception> ...    must not get full marks; a failing test shows each misconception
                                           named (its id in the grader's marking scheme), on every plan
    # why: <one line>                      what the file does
    # fails: test_a, test_b                (wrong files) suite tests that must fail, on every plan
    # marks: 60-80                         (wrong files) the band of marks (out of 100) a teacher would give
    # expect: attack                       must get 0, leave no process behind, write nothing into the kit
    # expect: trick                        must score no more than its twin: the same file without the trick

A trick file marks its trick line by line: a line ending in ``# trick`` is left out of the twin, and a line
``# plain: <code>`` is the twin's (``twin_source``); calibrate grades both. Without a header the folder
decides (correct/, wrong/, attacks/, tricks/). The reference solution is graded too,
and timed (target: under 5 s end to end). The same headers drive the kit's fast in-process tests of the
suite, so one corpus serves both.
"""

from __future__ import annotations

import json
import os
import re
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder.graders.kit import KIT_ROOT
from autograder.grading.executors import grade_batch
from autograder.grading.judge.kept import Kept
from autograder.grading.result import GRADER_ERROR, Result
from autograder.sandbox import Limits
from autograder.sandbox.slots import SANDBOX_UIDS

__all__ = [
    "Expectation",
    "Verdict",
    "read_expectation",
    "calibration_files",
    "calibrate",
    "kit_writes",
    "interpreter_dirs",
    "interpreter_writes",
    "sandbox_writes",
    "judge_verdict",
    "twin_source",
    "catalogue",
]

_HEADER = re.compile(r"#\s*expect:\s*(correct|wrong|attack|trick)\b[ \t]*(.*)", re.IGNORECASE)
_FAILS = re.compile(r"#\s*fails:\s*(.+)", re.IGNORECASE)
_WHY = re.compile(r"#\s*why:\s*(.+)", re.IGNORECASE)
_MARKS = re.compile(r"#\s*marks:\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$", re.IGNORECASE)
FOLDERS = {"correct": "correct", "wrong": "wrong", "attacks": "attack", "tricks": "trick"}
_TRICK_LINE = re.compile(r"#\s*trick\s*$")
_PLAIN_LINE = re.compile(r"^(\s*)#\s*plain:\s?(.*)$")
_REFERENCE = "(reference solution)"  # its key in the batch: no calibration file is named like this


@dataclass(frozen=True)
class Expectation:
    kind: str  # "correct" | "wrong" | "attack" | "trick"
    names: str  # the marking scheme's misconceptions failing tests must show, space-separated ("" if none)
    fails: tuple[str, ...] = ()  # suite test functions that must fail (wrong files)
    band: tuple[float, float] | None = None  # (lowest, highest) mark out of 100 a teacher would give (wrong files)
    why: str = ""  # what the file does, its `# why:` line


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
    twin_score: float | None = None  # a trick file's twin (the same file without the trick)


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
    """The `# expect:` header of a calibration file (and its `# fails:` line), or None."""
    lines = _first_lines(Path(path))
    fails: tuple[str, ...] = ()
    band: tuple[float, float] | None = None
    why = next((m.group(1).strip() for m in map(_WHY.search, lines) if m), "")
    for line in lines:
        match = _FAILS.search(line)
        if match:
            fails = tuple(name.strip() for name in match.group(1).split(",") if name.strip())
        match = _MARKS.search(line.strip())
        if match:
            low, high = float(match.group(1)), float(match.group(2))
            if not 0 <= low <= high <= 100:
                raise ValueError(f"{path}: '# marks: {low:g}-{high:g}' is not a band: write '# marks: LOW-HIGH', 0-100")
            band = (low, high)
    for line in lines:
        match = _HEADER.search(line)
        if match:
            return Expectation(match.group(1).lower(), match.group(2).strip(), fails, band, why)
    return None


def calibration_files(calibration_dir: Path) -> dict[str, tuple[Path, Expectation]]:
    """'<folder>/<file name>' -> (path, expectation) for every submission of a calibration corpus."""
    found = {}
    for folder, kind in FOLDERS.items():
        for path in sorted((Path(calibration_dir) / folder).glob("*")):
            if path.suffix not in (".py", ".ipynb") or path.name.startswith(("_", ".")):
                continue
            found[f"{folder}/{path.name}"] = (path, read_expectation(path) or Expectation(kind, ""))
    return found


def catalogue(calibration_dir: Path) -> str:
    """The corpus as Markdown, one table a folder, read from the files' own headers (`# expect:`, `# marks:`,
    `# why:`): what the calibration README would list, derived, so that adding a file touches that file only."""
    out = []
    by_folder: dict[str, list[tuple[str, Expectation]]] = {}
    for key, (_, exp) in calibration_files(calibration_dir).items():
        folder, name = key.split("/", 1)
        by_folder.setdefault(folder, []).append((name, exp))
    for folder, rows in by_folder.items():
        out += [
            f"## {folder}/ ({len(rows)} files)",
            "",
            "| file | misconception(s) | band | why |",
            "|---|---|---|---|",
        ]
        for name, exp in rows:
            band = f"{exp.band[0]:g}-{exp.band[1]:g}" if exp.band else ""
            why = exp.why.replace("|", "\\|")
            out.append(f"| `{name}` | {exp.names or ('—' if exp.kind == 'wrong' else '')} | {band} | {why} |")
        out.append("")
    return "\n".join(out)


def twin_source(text: str) -> str:
    """A trick file's twin: its ``# trick`` lines left out, its ``# plain: <code>`` lines made code."""
    out = []
    for line in text.splitlines():
        plain = _PLAIN_LINE.match(line)
        if plain:
            out.append(plain.group(1) + plain.group(2))
        elif not _TRICK_LINE.search(line):
            out.append(line)
    return "\n".join(out) + "\n"


def kit_writes(kit: Path, since: float) -> list[str]:
    """Files in the kit that a sandbox could have written (see ``sandbox_writes``), its venv and .git aside
    (``interpreter_writes`` covers the venv)."""
    return sandbox_writes(kit, since, skip=(".venv", ".git", "__pycache__", "node_modules"))


def interpreter_dirs() -> list[Path]:
    """Where the grader's own Python finds code outside the kit: the venv whole (bin/, pyvenv.cfg,
    site-packages), or site-packages; and the standard library. A file planted there (a .pth, a module, a
    .pyc) runs in every later process, the grader's included."""
    paths = sysconfig.get_paths()
    found = {Path(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    if sys.prefix != sys.base_prefix:  # a venv: small besides its site-packages, and all of it matters
        found.add(Path(sys.prefix))
    return sorted(d for d in found if d.is_dir() and not any(o != d and o in d.parents for o in found))


def interpreter_writes(since: float) -> list[str]:
    """Files in ``interpreter_dirs()`` that a sandbox could have written (see ``sandbox_writes``)."""
    return [hit for folder in interpreter_dirs() for hit in sandbox_writes(folder, since, absolute=True)]


def sandbox_writes(folder: Path, since: float, *, skip: tuple[str, ...] = (), absolute: bool = False) -> list[str]:
    """Entries under `folder` a sandbox could have written, whatever their name: owned by a sandbox uid
    (root grader: sandboxes run as those uids and cannot give a file away), or, for a non-root grader
    (student code runs as you), files whose inode changed after `since` (ctime: unlike mtime, the writer
    cannot set it back), .pyc files aside (the grader itself compiles modules as it imports them)."""
    root_mode = os.geteuid() == 0
    hits = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if root_mode:
                suspect = st.st_uid in SANDBOX_UIDS
            else:
                suspect = st.st_ctime > since and name in filenames and not name.endswith(".pyc")
            if suspect:
                hits.append(path if absolute else os.path.relpath(path, folder))
    return hits


def judge_verdict(exp: Expectation, failing: dict, score: float, max_score: float) -> tuple[bool, str]:
    """(ok, note) for a correct or wrong file, from its failing tests (function name -> marked TestOutcome).

    Shared by ``calibrate`` and the kit's in-process tests of the suite.
    """
    if exp.kind == "correct":
        ok = max_score > 0 and score == max_score
        lost = "; ".join(f"{n}: {o.message('en')[:160]}" for n, o in failing.items())
        return ok, "" if ok else "lost points: " + lost
    if score >= max_score:
        return False, "got full marks"
    if exp.band is not None:
        mark = 100 * score / max_score if max_score > 0 else 0.0
        low, high = exp.band
        if not low <= mark <= high:
            return False, f"mark {mark:g} outside its band {low:g}-{high:g} (# marks: header)"
    passed = [name for name in exp.fails if name not in failing]
    if passed:
        return False, f"expected to fail but passed: {', '.join(passed)}"
    unshown = [name for name in exp.names.split() if not any(_shows(o, name) for o in failing.values())]
    if unshown:
        shown = sorted({o.finding.names for o in failing.values() if o.finding is not None and o.finding.names})
        return False, f"no failing test shows {' or '.join(map(repr, unshown))} (shown: {', '.join(shown) or 'none'})"
    return True, "shows " + ", ".join(map(repr, exp.names.split())) if exp.names else ""


def _shows(outcome, misconception: str) -> bool:
    """The failing test names the misconception, or carries its charge (it names one that one covers)."""
    finding = outcome.finding
    return finding is not None and (
        finding.names == misconception or outcome.charged_to == f"misconception:{misconception}"
    )


def _verdict(name: str, exp: Expectation, result: Result, twin: Result | None = None) -> Verdict:
    run = result.run
    if result.status == GRADER_ERROR:
        ok, note = False, result.output
    elif exp.kind == "trick":
        if twin is None or twin.status == GRADER_ERROR:
            ok, note = False, "its twin was not graded" + (f": {twin.output}" if twin is not None else "")
        else:
            ok = result.score <= twin.score
            note = f"{result.score:g} with the trick, {twin.score:g} without" + ("" if ok else ": the trick paid")
    elif exp.kind in ("correct", "wrong"):
        failing = {t.name.rpartition("::")[2]: t for t in result.failing()}
        ok, note = judge_verdict(exp, failing, result.score, result.max_score)
    else:
        survived = run is not None and any("survived" in n for n in run.notes)
        ok = result.score == 0 and not survived and run is not None
        parts = [f"earned {result.score:g}" if result.score else "", "processes survived" if survived else ""]
        note = "; ".join(filter(None, [*parts, f"status {result.status}"]))
    expected = f"{exp.kind} {exp.names}".strip()
    twin_score = twin.score if twin is not None else None
    return Verdict(
        name, expected, result.score, result.max_score, result.status, ok, note, result.execution_time, twin_score
    )


def calibrate(
    *,
    assignment: str,
    limits: Limits = Limits(wall_seconds=20),
    workers: int | None = None,
    seed: int | None = None,
    progress: bool = True,
    calibration_dir: str | Path | None = None,
    executor: str = "pool",
    scheduler: str | None = None,
    keep: Callable[[str, Kept], None] | None = None,
) -> tuple[list[Verdict], float]:
    """Grade the reference solution and every calibration file; returns (verdicts, reference seconds).

    `calibration_dir` replaces the assignment's own (e.g. to try new calibration files before adding them).
    `keep(where, kept)`: what the judge read and decided for each (``judge.kept``), `where` naming it as a
    relative folder: ``reference``, ``wrong/w01_x.py``, a trick's twin ``tricks/t01_x.py.twin``; the pool only.
    """
    if keep is not None and executor != "pool":
        raise ValueError(f"keeping evidence with executor {executor!r}: the pool's judges run here, use the pool")
    from autograder.graders import get_assignment
    from autograder.grading.fresh import grade_submission

    spec = get_assignment(assignment)
    folder = Path(calibration_dir if calibration_dir is not None else spec.calibration_dir)
    files = calibration_files(folder)
    if not files:
        raise FileNotFoundError(f"no calibration files under {str(folder)!r}/{{correct,wrong,attacks}}")
    since = time.time()
    submissions = {n: p for n, (p, _) in files.items()}
    where = {_REFERENCE: "reference", **{n: n for n in files}, **{_twin(n): f"{n}.twin" for n in files}}
    kept = None if keep is None else lambda name, one: keep(where[name], one)
    twins = tempfile.TemporaryDirectory(prefix="wtcal-twins-")
    for name, (path, exp) in files.items():
        if exp.kind == "trick":
            twin = Path(twins.name) / path.name
            twin.write_text(twin_source(path.read_text(encoding="utf-8")), encoding="utf-8")
            submissions[_twin(name)] = twin
    if executor == "fresh":  # the reference alone first: its time is the fresh path's cost per submission
        start = time.monotonic()
        reference = grade_submission(spec=spec, path=spec.solution_path, seed=seed, limits=limits)
        reference_seconds = time.monotonic() - start
    else:  # warm workers: the reference is one more submission of the batch
        submissions = {_REFERENCE: spec.solution_path, **submissions}
    with twins:
        results = grade_batch(
            assignment=assignment,
            submissions=submissions,
            seed=seed,
            limits=limits,
            workers=workers,
            progress=progress,
            hide=(folder, Path(twins.name)),
            executor=executor,
            scheduler=scheduler,
            keep=kept,
        )
    if executor != "fresh":
        reference = results.pop(_REFERENCE)
        reference_seconds = reference.execution_time
    verdicts = [_verdict("reference solution", Expectation("correct", ""), reference)]
    verdicts += [_verdict(name, files[name][1], results[name], results.get(_twin(name))) for name in files]
    for label, writes in (("(kit files)", kit_writes(KIT_ROOT, since)), ("(venv, stdlib)", interpreter_writes(since))):
        if writes:
            note = "written by a sandbox: " + ", ".join(writes[:10])
            verdicts.append(Verdict(label, "attack", 0, 0, "-", False, note, 0.0))
    return verdicts, reference_seconds


def _twin(name: str) -> str:
    return f"{name} (twin)"


def verdicts_json(verdicts: list[Verdict], reference_seconds: float) -> dict:
    return {
        "ok": all(v.ok for v in verdicts),
        "reference_seconds": round(reference_seconds, 3),
        "verdicts": [asdict(v) for v in verdicts],
    }
