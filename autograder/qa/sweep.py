"""Trusted: the seed sweep: every correct and wrong calibration file graded on many plans.

A plan is random; a grade must not be. Over every seed of the sweep each correct file (and the reference
solution) gets full marks, and each wrong file loses points, fails the tests its `# fails:` header names,
names its misconception, and gets the same mark every time: two students with the same mistake get the
same grade whatever seed their run drew. ``python -m autograder calibrate --seeds 25`` runs it in the
sandbox; ``--in-process`` runs the experiments in this process (trusted files only, much faster).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograder.qa.calibrate import Expectation, calibration_files, judge_verdict

__all__ = ["SweepRow", "sweep", "sweep_json", "seeds_from", "run_sweep", "render"]


@dataclass
class SweepRow:
    file: str
    expected: str
    scores: dict[int, float]  # seed -> score
    max_score: float
    ok: bool
    note: str
    failing_everywhere: list[str] = field(default_factory=list)  # tests that failed on every seed


def seeds_from(count: int, first: int = 1) -> list[int]:
    """The sweep's seeds: `count` consecutive seeds from `first` (the same list every run)."""
    if count < 1:
        raise ValueError(f"a sweep needs at least one seed, got {count}")
    return list(range(first, first + count))


def _grade_seed_in_process(args: tuple[str, int, list[tuple[str, str]]]) -> dict[str, tuple[float, dict]]:
    """{file: (score, {failing test: its marked outcome})} for one seed, graded in this (worker) process."""
    from autograder.qa.inprocess import worker_grader

    assignment, seed, files = args
    grader = worker_grader(assignment)
    plan = grader.spec.make_plan(seed)
    out = {}
    for name, path in files:
        score, results = grader.grade(Path(path), plan)
        out[name] = (score, {test: outcome for test, outcome in results.items() if not outcome.passed})
    return out


def _grade_seed_sandboxed(assignment, seed, files, limits, workers, progress, hide, executor, scheduler) -> dict:
    from autograder.grading.executors import grade_batch

    results = grade_batch(
        assignment=assignment,
        submissions={name: Path(path) for name, path in files},
        seed=seed,
        limits=limits,
        workers=workers,
        progress=progress,
        hide=hide,
        executor=executor,
        scheduler=scheduler,
    )
    return {name: (r.score, {t.name.rpartition("::")[2]: t for t in r.failing()}) for name, r in results.items()}


def _row(name: str, exp: Expectation, graded: dict[int, tuple[float, dict]], max_score: float) -> SweepRow:
    scores = {seed: score for seed, (score, _) in graded.items()}
    notes = []
    for seed, (score, failing) in sorted(graded.items()):
        ok, note = judge_verdict(exp, failing, score, max_score)
        if not ok:
            notes.append(f"seed {seed}: {note[:300]}")
    if exp.kind == "wrong" and len(set(scores.values())) > 1:
        notes.append(f"the mark depends on the seed: {sorted(set(scores.values()))}")
    failing_sets = [set(failing) for _, failing in graded.values()]
    everywhere = sorted(set.intersection(*failing_sets)) if failing_sets else []
    expected = f"{exp.kind} {exp.names}".strip()
    return SweepRow(name, expected, scores, max_score, not notes, "; ".join(notes), everywhere)


def sweep(
    *,
    assignment: str,
    seeds: Sequence[int],
    in_process: bool = True,
    workers: int | None = None,
    limits=None,
    progress: bool = False,
    calibration_dir: str | Path | None = None,
    executor: str = "pool",
    scheduler: str | None = None,
) -> list[SweepRow]:
    """Grade the reference solution and every correct and wrong calibration file on every seed.

    In process, seeds are spread over `workers` processes (default: the cores); sandboxed, each seed is one
    `grade_batch` of all files.
    """
    from autograder.graders import get_assignment

    spec = get_assignment(assignment)
    folder = Path(calibration_dir if calibration_dir is not None else spec.calibration_dir)
    corpus = {n: (p, e) for n, (p, e) in calibration_files(folder).items() if e.kind in ("correct", "wrong")}
    corpus = {"reference solution": (spec.solution_path, Expectation("correct", "")), **corpus}
    files = [(name, str(path)) for name, (path, _) in corpus.items()]
    graded: dict[str, dict[int, tuple[float, dict]]] = {name: {} for name in corpus}
    start = time.monotonic()
    if in_process:
        from autograder.qa.inprocess import map_seeds

        tasks = [(assignment, seed, files) for seed in seeds]
        outcomes = map_seeds(_grade_seed_in_process, tasks, workers)
        for seed, outcome in zip(seeds, outcomes, strict=True):
            for name, result in outcome.items():
                graded[name][seed] = result
            if progress:
                print(f"seed {seed} graded ({time.monotonic() - start:.0f} s)", flush=True)
    else:
        from autograder.sandbox import Limits

        for seed in seeds:
            outcome = _grade_seed_sandboxed(
                assignment,
                seed,
                files,
                limits or Limits(wall_seconds=30),
                workers,
                progress,
                (folder,),
                executor,
                scheduler,
            )
            for name, result in outcome.items():
                graded[name][seed] = result
    max_score = _max_score(spec)
    return [_row(name, corpus[name][1], graded[name], max_score) for name in corpus]


def _max_score(spec) -> float:
    from autograder.qa.inprocess import InProcessGrader

    return InProcessGrader(spec).max_score


def sweep_json(rows: list[SweepRow], seeds: Sequence[int], seconds: float) -> dict:
    return {
        "ok": all(r.ok for r in rows),
        "seeds": list(seeds),
        "seconds": round(seconds, 1),
        "rows": [asdict(r) for r in rows],
    }


def run_sweep(*, assignment: str, seeds: Sequence[int], **kwargs) -> tuple[dict, list[SweepRow]]:
    """sweep() and its JSON summary (what `calibrate --seeds` prints)."""
    start = time.monotonic()
    rows = sweep(assignment=assignment, seeds=seeds, **kwargs)
    return sweep_json(rows, seeds, time.monotonic() - start), rows


def render(rows: list[SweepRow], seeds: Sequence[int], seconds: float, *, in_process: bool) -> str:
    """One line per file (its verdict, the marks it got over the seeds), then the total."""
    lines = []
    for row in rows:
        marks = sorted(set(row.scores.values()))
        lines.append(f"{'ok  ' if row.ok else 'FAIL'} {row.file:45} {row.expected:40} marks {marks} {row.note}")
    bad = sum(not r.ok for r in rows)
    where = "in process" if in_process else "in the sandbox"
    verdict = "every verdict holds on every seed" if not bad else f"{bad} files FAIL"
    lines.append(f"{len(rows)} files x {len(seeds)} seeds graded {where} in {seconds:.0f} s: {verdict}")
    return "\n".join(lines)
