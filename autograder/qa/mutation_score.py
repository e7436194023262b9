"""Trusted: mutation testing of a grader: grade every mutant of its correct sources on many seeds.

Each mutant (``autograder.qa.mutants``) ends in one class:

- **caught**: it loses points on every seed (and, ideally, the same points every time);
- **equivalent**: it gets full marks on every seed *and* an `Equivalence` of the grader claims it: a written
  argument that it behaves like the original on every input the contract allows, plus a mechanical check
  that the mutant has the shape the argument needs. A full mark alone proves nothing;
- **seed-dependent**: full marks on some seeds only. The grader is then not seed-proof: this class must
  be empty;
- **survived**: full marks everywhere and no equivalence shown: a hole in the grader, or a missing proof.

A grader opts in with a module ``autograder.graders.<name>.judge.mutation`` exporting ``SOURCES`` (path,
`Scope`) pairs and ``EQUIVALENCES``. ``python -m autograder mutate --assignment NAME --seeds 25`` runs it in
process (the mutants are the kit's own code) and prints a Markdown report.
"""

from __future__ import annotations

import importlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder.qa.mutants import Mutant, Scope, generate

__all__ = [
    "Equivalence",
    "MutantResult",
    "Scope",
    "mutants_of",
    "run_mutants",
    "report_markdown",
    "has_mutation",
    "results_json",
    "CLASSES",
]

CLASSES = ("caught", "equivalent", "seed-dependent", "survived")


@dataclass(frozen=True)
class Equivalence:
    """A class of mutants shown equivalent: `proof` says why, `applies` checks a mutant is of the class."""

    name: str
    proof: str
    applies: Callable[[Mutant], bool]


@dataclass
class MutantResult:
    mutant: Mutant
    scores: dict[int, float]
    kind: str  # one of CLASSES
    equivalence: str = ""  # the Equivalence that claims it
    failing: str = ""  # what failed on the first seed (a test and the start of its message)


def has_mutation(assignment: str) -> bool:
    """Whether the grader declares mutation sources (a judge/mutation.py)."""
    import importlib.util

    return importlib.util.find_spec(f"autograder.graders.{assignment}.judge.mutation") is not None


def results_json(results: list[MutantResult], seconds: float) -> dict:
    """ok (no seed-dependent, no survived mutant), counts per class, and one row per mutant."""
    rows = [
        {"id": r.mutant.id, "kind": r.kind, "scores": r.scores, "equivalence": r.equivalence, "after": r.mutant.after}
        for r in results
    ]
    counts = {kind: sum(r.kind == kind for r in results) for kind in CLASSES}
    ok = counts["seed-dependent"] == 0 and counts["survived"] == 0
    return {"ok": ok, "seconds": round(seconds, 1), "counts": counts, "mutants": rows}


def _config(assignment: str):
    return importlib.import_module(f"autograder.graders.{assignment}.judge.mutation")


def mutants_of(assignment: str) -> list[Mutant]:
    """Every mutant of the grader's mutation sources."""
    out = []
    for path, scope in _config(assignment).SOURCES:
        out += generate(Path(path).read_text(encoding="utf-8"), Path(path).stem, scope)
    return out


def _grade_seed(args: tuple[str, int, list[Mutant], dict[str, str]]) -> dict[str, tuple[float, str]]:
    """{mutant id: (score, first failing test and message)} on one seed, in a worker process.

    A mutant changes one function; experiments that never ran that function in the original source cannot
    see the change, so they keep the original's records and only the others run again (a large saving:
    most mutants touch one experiment out of fifteen)."""
    from autograder.qa.inprocess import worker_grader

    assignment, seed, mutants, originals = args
    grader = worker_grader(assignment)
    plan = grader.spec.make_plan(seed)
    base: dict[str, tuple[dict, dict[str, set[str]]]] = {}
    for name, code in originals.items():
        calls: dict[str, set[str]] = {}
        base[name] = (grader.evidence(code, plan, round_trip=False, calls=calls), calls)
    out = {}
    for mutant in mutants:
        evidence, calls = base[mutant.source]
        affected = {e for e, called in calls.items() if mutant.function in called} if calls else None
        try:
            # The mutants are the kit's own code: no round trip through the channel is needed.
            fresh = grader.evidence(mutant.code, plan, round_trip=False, only=affected)
            results = grader.judge(plan, {**evidence, **fresh})
            score = grader.score(results)
        except Exception as exc:  # the source itself fails to run: it earns nothing
            out[mutant.id] = (0.0, f"the source raised {type(exc).__name__}: {exc}"[:200])
            continue
        failing = next(((name, o) for name, o in results.items() if not o.passed), None)
        out[mutant.id] = (score, f"{failing[0]}: {failing[1].message('en')[:160]}" if failing else "")
    return out


def _classify(mutant: Mutant, graded: dict[int, tuple[float, str]], full: float, equivalences) -> MutantResult:
    scores = {seed: score for seed, (score, _) in graded.items()}
    failing = next((why for _, (_, why) in sorted(graded.items()) if why), "")
    if all(score < full for score in scores.values()):
        return MutantResult(mutant, scores, "caught", failing=failing)
    if any(score < full for score in scores.values()):
        return MutantResult(mutant, scores, "seed-dependent", failing=failing)
    for eq in equivalences:
        if eq.applies(mutant):
            return MutantResult(mutant, scores, "equivalent", equivalence=eq.name)
    return MutantResult(mutant, scores, "survived")


def run_mutants(
    *, assignment: str, seeds: Sequence[int], workers: int | None = None, progress: bool = False, limit: int = 0
) -> tuple[list[MutantResult], float]:
    """Grade every mutant on every seed and classify it; returns (results, seconds)."""
    from autograder.graders import get_assignment
    from autograder.qa.inprocess import InProcessGrader, map_seeds

    config = _config(assignment)
    mutants = mutants_of(assignment)
    if limit:
        mutants = mutants[:limit]
    start = time.monotonic()
    originals = {Path(path).stem: Path(path).read_text(encoding="utf-8") for path, _ in config.SOURCES}
    tasks = [(assignment, seed, mutants, originals) for seed in seeds]
    graded: dict[str, dict[int, tuple[float, str]]] = {m.id: {} for m in mutants}
    for seed, outcome in zip(seeds, map_seeds(_grade_seed, tasks, workers), strict=True):
        for mutant_id, result in outcome.items():
            graded[mutant_id][seed] = result
        if progress:
            print(f"seed {seed}: {len(mutants)} mutants graded ({time.monotonic() - start:.0f} s)", flush=True)
    full = InProcessGrader(get_assignment(assignment)).max_score
    results = [_classify(m, graded[m.id], full, config.EQUIVALENCES) for m in mutants]
    return results, time.monotonic() - start


def report_markdown(results: list[MutantResult], seeds: Sequence[int], seconds: float, *, examples: int = 3) -> str:
    """The mutants' summary: counts per class and per operator, examples, every equivalence with its proof."""
    counts = Counter(r.kind for r in results)
    lines = [
        f"{len(results)} mutants, each graded on {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}) in "
        f"{seconds / 60:.0f} min: " + ", ".join(f"{counts.get(kind, 0)} {kind}" for kind in CLASSES) + ".",
        "",
        "| operator | " + " | ".join(CLASSES) + " |",
        "|---|" + "---|" * len(CLASSES),
    ]
    for op in sorted({r.mutant.operator for r in results}):
        row = Counter(r.kind for r in results if r.mutant.operator == op)
        lines.append(f"| {op} | " + " | ".join(str(row.get(kind, 0)) for kind in CLASSES) + " |")
    caught = [r for r in results if r.kind == "caught"]
    varying = [r for r in caught if len(set(r.scores.values())) > 1]
    lines += [
        "",
        f"Caught mutants whose mark varies with the seed (still lose points on every seed): {len(varying)}.",
    ]
    for kind in CLASSES:
        members = [r for r in results if r.kind == kind]
        if not members:
            continue
        lines += ["", f"**{kind}** ({len(members)})" + (", examples:" if kind == "caught" else ":"), ""]
        shown = members[:examples] if kind == "caught" else members
        for r in shown:
            marks = sorted(set(r.scores.values()))
            extra = f" — {r.equivalence}" if r.equivalence else f" — first failure: {r.failing}" if r.failing else ""
            lines.append(f"- `{r.mutant.id}` `{r.mutant.before}` → `{r.mutant.after}`: marks {marks}{extra}")
    return "\n".join(lines) + "\n"
