"""Benchmark (prints figures, asserts nothing): each experiment's CPU in this process, and the builds it makes.

    .venv/bin/python scripts/bench_experiments.py --reps 40 --seed 7
    PYTHONPATH=/tmp/old-tree .venv/bin/python /tmp/old-tree/scripts/bench_experiments.py   # an older tree

The reference solution is loaded once, with the dnnlpy a graded run imports (the grader's copy, without what it
withholds), then the whole plan runs `--reps` times as the runner runs it (``experiments.run``: one run's
shared builds, each record sealed). Each experiment's CPU is read between two records (the process's CPU clock,
median over the repetitions), with the builds of each class its record cost (its constructor's calls).
No sandbox: the sandboxed run's own figures are ``bench_breakdown.py``'s experiments column.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CLASSES = ("TiedEmbeddingLM", "MiniGPTWithWeightTying")


def _counting(namespace: dict, counts: Counter) -> None:
    """Each class's __init__ counts its calls (a subclass's own super().__init__ counts once: the outermost)."""
    for name in CLASSES:
        cls = namespace[name]
        init = cls.__init__

        def counted(self, *args, _init=init, _name=name, **kwargs):
            counts[_name] += 1
            _init(self, *args, **kwargs)

        cls.__init__ = counted


def measure(reps: int, seed: int) -> tuple[dict[str, list[float]], dict[str, Counter], list[float]]:
    import torch

    from autograder.graders import get_assignment
    from autograder.graders.weight_tying.runner import experiments
    from autograder.qa.inprocess import namespace_of
    from autograder.sandbox.library import imported, library_copy

    torch.set_num_threads(1)
    spec = get_assignment("weight_tying")
    plan = spec.make_plan(seed)
    per: dict[str, list[float]] = defaultdict(list)
    builds: dict[str, Counter] = defaultdict(Counter)
    totals: list[float] = []
    with imported(library_copy(spec.withheld)):
        namespace = namespace_of(spec.solution_path)
        counts: Counter = Counter()
        _counting(namespace, counts)
        for rep in range(reps + 1):  # the first run pays each path's first time: not counted
            mark = [time.process_time()]
            start = mark[0]

            def emit(name: str, record: dict, *, rep=rep, mark=mark) -> None:
                now = time.process_time()
                if rep:
                    per[name].append(now - mark[0])
                    builds[name] = Counter(counts)
                counts.clear()
                mark[0] = time.process_time()

            experiments.run(namespace, plan, emit)
            if rep:
                totals.append(time.process_time() - start)
    return per, builds, totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=40, help="runs of the whole plan measured (default 40)")
    parser.add_argument("--seed", type=int, default=7, help="the plan's seed (default 7)")
    args = parser.parse_args(argv)
    per, builds, totals = measure(args.reps, args.seed)
    print(f"weight_tying experiments on the solution, seed {args.seed}, median of {args.reps} runs (ms of CPU)")
    print(f"{'experiment':<14} {'ms':>7}  builds ({', '.join(CLASSES)})")
    for name, times in per.items():
        made = builds[name]
        print(f"{name:<14} {1000 * statistics.median(times):7.2f}  {made[CLASSES[0]]:>3} {made[CLASSES[1]]:>3}")
    made = Counter()
    for counter in builds.values():
        made.update(counter)
    total = 1000 * statistics.median(totals)
    per_file = sum(made.values())
    print(f"{'all':<14} {total:7.2f}  {made[CLASSES[0]]:>3} {made[CLASSES[1]]:>3}  (builds per file: {per_file})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
