"""Grade many submissions in parallel: one sandbox per submission, one crash never stops the batch.

``find_submissions`` understands nbgrader's ``submitted/<student>/<assignment>/*.ipynb`` layout, a flat
folder of ``.py``/``.ipynb`` files, or any mix (the student id is the first folder under the root, else
the file's name). ``grade_batch`` writes ``<out>/results/<student>.json`` and ``<out>/grades.csv``.
"""
from __future__ import annotations

import concurrent.futures as cf
import csv
import json
import multiprocessing
import os
import re
from pathlib import Path

from autograder.results import error_result
from autograder.sandbox import Limits

__all__ = ["find_submissions", "grade_batch", "write_outputs"]

_SKIP_PARTS = {".ipynb_checkpoints", "__pycache__", ".git"}


def find_submissions(paths: list[Path], *, assignment: str) -> dict[str, Path]:
    """student id -> submission file, for files and folders given on the command line."""
    found: dict[str, Path] = {}
    for root in map(Path, paths):
        if root.is_file():
            _add(found, root.stem, root)
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"{str(root)!r} is neither a submission file nor a folder of submissions")
        files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".ipynb") and p.is_file()
                       and not _SKIP_PARTS & set(p.relative_to(root).parts) and not p.name.startswith("."))
        # nbgrader layout (<student>/<assignment>/<file>): other assignments' folders are not this one's work.
        if any(len(p.relative_to(root).parts) >= 3 and p.relative_to(root).parts[1] == assignment for p in files):
            files = [p for p in files if len(p.relative_to(root).parts) < 3
                     or p.relative_to(root).parts[1] == assignment]
        per_student: dict[str, list[Path]] = {}
        for path in files:
            parts = path.relative_to(root).parts
            per_student.setdefault(parts[0] if len(parts) > 1 else path.stem, []).append(path)
        for student, group in per_student.items():
            if len(group) == 1:
                _add(found, student, group[0])
                continue
            # nbgrader layout: prefer the files inside <student>/<assignment>/, notebooks first.
            inside = [p for p in group if assignment in p.relative_to(root).parts[1:-1]] or group
            notebooks = [p for p in inside if p.suffix == ".ipynb"] or inside
            for path in notebooks:
                key = student if len(notebooks) == 1 else f"{student}/{path.stem}"
                _add(found, key, path)
    return found


def _add(found: dict[str, Path], key: str, path: Path) -> None:
    if key in found and found[key] != path:
        key = str(path.with_suffix(""))
    found[key] = path


def _grade_one(assignment: str, path: str, seed: int | None, limits: Limits, hide: tuple[str, ...]) -> dict:
    import torch

    from autograder.assignments import get_assignment
    from autograder.engine import grade_submission

    torch.set_num_threads(1)  # workers judge side by side: one thread each
    try:
        return grade_submission(spec=get_assignment(assignment), path=path, seed=seed, limits=limits, hide=hide)
    except Exception as exc:  # noqa: BLE001 - one broken submission or grader bug must not stop the batch
        return error_result(f"{type(exc).__name__}: {exc}")


def grade_batch(*, assignment: str, submissions: dict[str, Path], seed: int | None = None,
                limits: Limits = Limits(), workers: int | None = None, progress: bool = True,
                hide: tuple[str | Path, ...] = ()) -> dict[str, dict]:
    """Grade every submission; returns student -> results dict (grader failures become error results).

    `hide`: folders no submission may read (the batch's own folders: other students' work, the output).
    """
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers={workers}: give at least 1")
    results: dict[str, dict] = {}
    # spawn: workers start clean (no torch threads inherited from this process); each judges in-process.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(workers, max(1, len(submissions))), mp_context=ctx) as pool:
        futures = {pool.submit(_grade_one, assignment, str(path), seed, limits, tuple(map(str, hide))): student
                   for student, path in submissions.items()}
        bar = _progress(len(futures)) if progress else None
        for future in cf.as_completed(futures):
            student = futures[future]
            try:
                results[student] = future.result()
            except Exception as exc:  # noqa: BLE001 - a dead worker process, for instance
                results[student] = error_result(f"{type(exc).__name__}: {exc}")
            if bar:
                bar.update(student, results[student])
        if bar:
            bar.close()
    return dict(sorted(results.items()))


class _progress:
    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                 TextColumn("{task.description}"), console=Console(stderr=True))
        self.progress.start()
        self.task = self.progress.add_task("", total=total)

    def update(self, student: str, result: dict) -> None:
        self.progress.update(self.task, advance=1,
                             description=f"{student}: {result['score']:g}/{result['max_score']:g}")

    def close(self) -> None:
        self.progress.stop()


def _safe_name(student: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._") or "student"


def write_outputs(results: dict[str, dict], out: Path) -> Path:
    """<out>/results/<student>.json for each student and <out>/grades.csv; returns the CSV's path."""
    out = Path(out)
    (out / "results").mkdir(parents=True, exist_ok=True)
    areas: list[str] = []
    for result in results.values():
        for area in result.get("extra_data", {}).get("areas", {}):
            if area not in areas:
                areas.append(area)
    csv_path = out / "grades.csv"
    with csv_path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "score", "max_score", "status", *areas])
        for student, result in results.items():
            (out / "results" / f"{_safe_name(student)}.json").write_text(json.dumps(result, indent=2))
            run = result.get("extra_data", {}).get("run", {})
            status = run.get("status", "grader error" if "grader_error" in result.get("extra_data", {}) else "")
            per_area = result.get("extra_data", {}).get("areas", {})
            writer.writerow([student, result["score"], result["max_score"], status,
                             *[per_area.get(a, [0, 0])[0] for a in areas]])
    return csv_path
