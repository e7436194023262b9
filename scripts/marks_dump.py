"""Every mark and every message of a grader's calibration corpus at fixed seeds, as JSON; or two dumps compared.

    .venv/bin/python scripts/marks_dump.py dump before.json --seeds 7        # on the old tree
    .venv/bin/python scripts/marks_dump.py dump after.json --seeds 7         # on the new tree
    .venv/bin/python scripts/marks_dump.py diff before.json after.json       # exit 1 if anything moved

A change that should not alter grading (a faster library, a cheaper experiment) is checked with it: each
calibration file but the attacks (they need the sandbox: ``calibrate`` judges them) is graded in this process
(``autograder.qa.inprocess``, the pipeline's own marking) and its score and every test's verdict and message
are written down. ``diff`` prints each score and each message that differs, then a count.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def dump(out: Path, seeds: list[int], assignment: str) -> int:
    import torch

    from autograder.graders import get_assignment
    from autograder.qa.calibrate import calibration_files
    from autograder.qa.inprocess import InProcessGrader

    torch.set_num_threads(1)
    spec = get_assignment(assignment)
    grader = InProcessGrader(spec)
    marks: dict[str, object] = {}
    for seed in seeds:
        plan = spec.make_plan(seed)
        for key, (path, expected) in sorted(calibration_files(spec.calibration_dir).items()):
            if expected.kind == "attack":
                continue
            try:
                score, tests = grader.grade(path, plan)
            except Exception as exc:  # written down as it is: a grader error is a difference too
                marks[f"{seed}:{key}"] = f"grader error: {exc!r}"
                continue
            marks[f"{seed}:{key}"] = {"score": score, "tests": {name: _outcome(o) for name, o in tests.items()}}
    out.write_text(json.dumps(marks, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    n_tests = sum(len(m["tests"]) for m in marks.values() if isinstance(m, dict))
    print(f"{len(marks)} files, {n_tests} tests, seeds {seeds}: {out}")
    return 0


def _outcome(outcome) -> list:
    """A marked test as it is written down: verdict, English message, charge and what it is for, finding."""
    finding = outcome.finding
    kind = [finding.kind, finding.names, finding.waits_on] if finding is not None else []
    return [outcome.passed, outcome.message("en"), outcome.charged, outcome.charged_to, *kind]


def diff(before: Path, after: Path) -> int:
    old = json.loads(before.read_text(encoding="utf-8"))
    new = json.loads(after.read_text(encoding="utf-8"))
    moved = 0
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if not (isinstance(a, dict) and isinstance(b, dict)):
            if a != b:
                moved += 1
                print(f"{key}: {a!r} -> {b!r}")
            continue
        if a["score"] != b["score"]:
            moved += 1
            print(f"{key}: score {a['score']} -> {b['score']}")
        for test in sorted(a["tests"].keys() | b["tests"].keys()):
            if a["tests"].get(test) != b["tests"].get(test):
                moved += 1
                print(f"{key} {test}:\n  before: {a['tests'].get(test)}\n  after:  {b['tests'].get(test)}")
    print(f"{len(old)} files before, {len(new)} after: {moved} difference(s)")
    return 1 if moved else 0


def main(argv: list[str] | None = None) -> int:
    return command_line(argv, __doc__, dump, diff, what="grade the corpus and write every mark and message", seeds="7")


def command_line(argv: list[str] | None, doc: str, dump, diff, *, what: str, seeds: str) -> int:
    """`dump OUT [--seeds ...] [--assignment ...]` or `diff BEFORE AFTER`, for this script and records_dump.py."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help=what)
    d.add_argument("out", type=Path)
    d.add_argument("--seeds", default=seeds, help=f"comma-separated plan seeds (default {seeds})")
    d.add_argument("--assignment", default="weight_tying")
    c = sub.add_parser("diff", help="compare two dumps; exit 1 if anything moved")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "diff":
        return diff(args.before, args.after)
    try:
        chosen = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds {args.seeds!r}: give integers separated by commas, e.g. --seeds 7 or --seeds 1,2,3")
    return dump(args.out, chosen, args.assignment)


if __name__ == "__main__":
    sys.exit(main())
