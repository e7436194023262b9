"""Trusted: break each guarded behaviour of the kit alone and run the first-tier tests that claim to guard it.

    .venv/bin/python scripts/audit_mutations.py              # every mutation below (~10 min on 2 cores)
    .venv/bin/python scripts/audit_mutations.py seccomp-bpf  # only those named
    .venv/bin/python scripts/audit_mutations.py --list

Each mutation is one behaviour's statement and the smallest edit that breaks it (a call dropped from the
seccomp profile, ``|safe`` on a report field, ``>`` for ``>=`` at a bound, ...). The script applies it to the
working tree alone, runs its guards (first-tier tests: ``-m "not sweep and not e2e"``, one process, stopping
at the first failure), puts the file back byte for byte (and its time stamp, so that no stale bytecode is
reused), and prints which test killed it. Exit 1 if any mutation survived or could not be applied. It edits
the tree it runs from: run it on a tree nothing else is testing at the same time.

The list (``scripts/audit_guards.py``) holds the mutations an audit found surviving once their tests were
written, each guarded by the test that now kills it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _guards():
    """scripts/audit_guards.py, loaded by its path (scripts/ is no package) and registered under its name (its
    dataclass looks its module up)."""
    if "audit_guards" not in sys.modules:
        spec = importlib.util.spec_from_file_location("audit_guards", Path(__file__).with_name("audit_guards.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["audit_guards"] = module
        spec.loader.exec_module(module)
    return sys.modules["audit_guards"]


_CATALOGUE = _guards()
Mutation, MUTATIONS = _CATALOGUE.Mutation, _CATALOGUE.MUTATIONS


def applied(mutation: Mutation, text: str) -> str:
    """`text` with the mutation's edits made; ValueError when an edit's text is not there exactly once."""
    for old, new in mutation.edits:
        if text.count(old) != 1:
            raise ValueError(
                f"{mutation.name}: {old[:60]!r} is in {mutation.path} {text.count(old)} times, not once: "
                "update the mutation to the code as it is now"
            )
        text = text.replace(old, new)
    return text


_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def run(mutation: Mutation, root: Path = ROOT) -> tuple[str, str]:
    """(verdict, detail): "killed" with the tests that failed, "survived", or "error" with why."""
    path = root / mutation.path
    before = path.read_bytes()
    stamp = path.stat()
    try:
        path.write_text(applied(mutation, before.decode("utf-8")), encoding="utf-8")
    except ValueError as exc:
        return "error", str(exc)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    command = [sys.executable, "-m", "pytest", *mutation.guards, "-x", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "no:xdist", "-m", "not sweep and not e2e"]
    try:
        proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    finally:
        path.write_bytes(before)
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    failed = _FAILED.findall(proc.stdout)
    if proc.returncode == 1 and failed:
        return "killed", ", ".join(failed)
    if proc.returncode == 0:
        return "survived", proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return "error", f"pytest exited {proc.returncode}: {(proc.stdout + proc.stderr).strip()[-400:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and what each breaks")
    args = parser.parse_args(argv)
    known = {m.name: m for m in MUTATIONS}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        parser.error(f"no mutation named {', '.join(unknown)}: see --list")
    chosen = [known[n] for n in args.names] or list(MUTATIONS)
    if args.list:
        for m in chosen:
            print(f"{m.name}: {m.breaks}\n    {m.path}; guarded by {', '.join(m.guards)}")
        return 0
    bad = 0
    for m in chosen:
        start = time.monotonic()
        verdict, detail = run(m)
        bad += verdict != "killed"
        print(f"{verdict:8} {m.name} ({time.monotonic() - start:.0f} s): {detail}", flush=True)
    print(f"{len(chosen) - bad} of {len(chosen)} mutations killed by a first-tier test")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
