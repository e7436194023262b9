"""Every experiment record of a calibration corpus at fixed seeds, tensor bytes included; or two dumps compared.

    .venv/bin/python scripts/records_dump.py dump /tmp/before.pt --seeds 7,11     # on the old tree
    .venv/bin/python scripts/records_dump.py dump /tmp/after.pt --seeds 7,11      # on the new tree
    .venv/bin/python scripts/records_dump.py diff /tmp/before.pt /tmp/after.pt    # exit 1 if one byte moved

A change to how the runner measures (fewer forward passes, a model shared between records) must not change what
the judge receives: ``marks_dump`` shows the marks held, this shows the evidence did, record by record. Each
file runs in a forked child (``autograder.qa.inprocess``: no sandbox), the reference solution and the correct,
wrong and trick files, and the attacks that do nothing to the machine (the others need the sandbox).
"""

from __future__ import annotations

import multiprocessing
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # marks_dump's command line

# Attacks that only lie, forge or read what the process holds: the rest exit, hang, fork, flood or reach out.
_IN_PROCESS_ATTACKS = (
    "a04",
    "a05",
    "a06",
    "a07",
    "a08",
    "a18",
    "a19",
    "a20",
    "a23",
    "a30",
    "a31",
    "a32",
    "a33",
    "a34",
    "a35",
    "a37",
    "a39",
)
_CHILD_SECONDS = 120


def _files(assignment: str) -> dict[str, Path]:
    from autograder.graders import get_assignment
    from autograder.qa.calibrate import calibration_files

    spec = get_assignment(assignment)
    found = {"solution": spec.solution_path}
    for key, (path, expected) in sorted(calibration_files(spec.calibration_dir).items()):
        if expected.kind != "attack" or path.name[:3] in _IN_PROCESS_ATTACKS:
            found[key] = path
    return found


def _records(assignment: str, seed: int, path: Path, out: str) -> None:
    import torch

    from autograder.qa.inprocess import worker_grader

    grader = worker_grader(assignment)
    records = grader.evidence(path, grader.spec.make_plan(seed), round_trip=False)
    torch.save(records, out)


def dump(out: Path, seeds: list[int], assignment: str) -> int:
    import torch

    from autograder.qa.inprocess import worker_grader

    worker_grader(assignment)  # loaded once: every child inherits it
    context = multiprocessing.get_context("fork")
    dumped: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            for key, path in _files(assignment).items():
                where = f"{tmp}/r.pt"
                child = context.Process(target=_records, args=(assignment, seed, path, where))
                child.start()
                child.join(_CHILD_SECONDS)
                if child.is_alive():
                    child.kill()
                    child.join()
                name = f"{seed}:{key}"
                if child.exitcode == 0 and Path(where).exists():  # an attack may end its child as if it were done
                    dumped[name] = torch.load(where, weights_only=False)
                    Path(where).unlink()
                else:
                    dumped[name] = f"child ended with {child.exitcode}"
    torch.save(dumped, out)
    print(f"{len(dumped)} runs, seeds {seeds}: {out}")
    return 0


def _bytes(t) -> bytes:
    import torch

    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _differences(a, b, where: str) -> list[str]:
    import torch

    if type(a) is not type(b):
        return [f"{where}: {type(a).__name__} -> {type(b).__name__}"]
    if isinstance(a, torch.Tensor):
        same = a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
        if same and a.numel():
            same = _bytes(a) == _bytes(b)
        return [] if same else [f"{where}: tensor {a.dtype}{tuple(a.shape)} -> {b.dtype}{tuple(b.shape)} (or bytes)"]
    if isinstance(a, dict):
        out = [f"{where}: keys {sorted(map(str, a.keys() ^ b.keys()))}"] if a.keys() != b.keys() else []
        for k in a.keys() & b.keys():
            out += _differences(a[k], b[k], f"{where}.{k}")
        return out
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items -> {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{where}[{i}]")]
    if isinstance(a, float) and a != a and b != b:  # noqa: PLR0124 - NaN equals NaN here
        return []
    return [] if a == b else [f"{where}: {a!r:.120} -> {b!r:.120}"]


def diff(before: Path, after: Path) -> int:
    import torch

    old, new = torch.load(before, weights_only=False), torch.load(after, weights_only=False)
    moved = _differences(old, new, "")
    for line in moved:
        print(line)
    print(f"{len(old)} runs before, {len(new)} after: {len(moved)} difference(s)")
    return 1 if moved else 0


def main(argv: list[str] | None = None) -> int:
    from marks_dump import command_line

    what = "run the experiments on the corpus and save every record"
    return command_line(argv, __doc__, dump, diff, what=what, seeds="7,11")


if __name__ == "__main__":
    raise SystemExit(main())
