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

The list holds the mutations an audit found surviving once their tests were written, each guarded by the test
that now kills it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    breaks: str  # the behaviour's statement, which the edit makes false
    path: str  # the file edited, from the kit's root
    edits: tuple[tuple[str, str], ...]  # (text found exactly once, its replacement)
    guards: tuple[str, ...]  # pytest node ids or files of the first tier


_SECCOMP = ("autograder/sandbox/seccomp.py",)
_SECCOMP_GUARDS = ("tests/autograder/sandbox/test_seccomp.py",)
_REPORT = "autograder/outputs/templates/report.html.j2"
_PAGES = ("tests/autograder/outputs/test_hostile_pages.py",)
_TENSORS = "autograder/protocol/tensors.py"
_TENSOR_GUARDS = ("tests/autograder/protocol/test_tensors.py",)
_CLASSRUN_GUARDS = ("tests/autograder/outputs/test_classrun.py",)

MUTATIONS = (
    Mutation(
        "seccomp-bpf",
        "the sandbox refuses bpf, as Docker's default profile does",
        *_SECCOMP,
        (('    "bpf",\n', ""),),
        _SECCOMP_GUARDS,
    ),
    Mutation(
        "seccomp-perf_event_open",
        "the sandbox refuses perf_event_open, as Docker's default profile does",
        *_SECCOMP,
        (('    "perf_event_open",\n', ""),),
        _SECCOMP_GUARDS,
    ),
    Mutation(
        "marking-cap-at-the-area",
        "an area's mark is never below 0: no test is charged beyond its points",
        "autograder/grading/marking.py",
        (("take = min(left, points)", "take = left"),),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "marking-knock-on-stays-in-its-exercise",
        "a knock-on is free only behind a charged misconception of its own exercise",
        "autograder/grading/marking.py",
        (
            (
                "if waited is not None and self.exercise(waited) == self.exercise(name):",
                "if waited is not None:",
            ),
        ),
        ("tests/autograder/grading/test_marking.py",),
    ),
    Mutation(
        "report-escapes-the-slowest-status",
        "a run status reaches report.html escaped (slowest submissions)",
        _REPORT,
        (("<td>{{ status_of(row.result.status) }}</td>", "<td>{{ status_of(row.result.status)|safe }}</td>"),),
        _PAGES,
    ),
    Mutation(
        "report-escapes-the-students-status",
        "a run status reaches report.html escaped (the students' table)",
        _REPORT,
        ((">{{ s.status }}</td>", ">{{ s.status|safe }}</td>"),),
        _PAGES,
    ),
    Mutation(
        "report-escapes-the-sample-language",
        "the language of a misconception's sample reaches report.html escaped",
        _REPORT,
        (
            (
                "{{ w.other_edition.format(edition=edition_of(m.sample_language)) }}",
                "{{ w.other_edition.format(edition=edition_of(m.sample_language))|safe }}",
            ),
        ),
        _PAGES,
    ),
    Mutation(
        "report-escapes-why-a-page-was-not-written",
        "why a feedback page could not be written reaches report.html escaped",
        _REPORT,
        (('<td class="bad">{{ why }}</td>', '<td class="bad">{{ why|safe }}</td>'),),
        _PAGES,
    ),
    Mutation(
        "report-escapes-an-unwritten-pages-id",
        "the id of a feedback page that could not be written reaches report.html escaped",
        _REPORT,
        (('<tr><td>{{ uid }}</td><td class="bad">', '<tr><td>{{ uid|safe }}</td><td class="bad">'),),
        _PAGES,
    ),
    Mutation(
        "cachekey-reads-to-the-bound",
        "the grading key reads a file no further than its bound + 1, even one that grew after fstat",
        "autograder/outputs/cachekey.py",
        (("fh.read(min(_CHUNK, left))", "fh.read(_CHUNK)"),),
        ("tests/autograder/outputs/test_cachekey.py",),
    ),
    Mutation(
        "cachekey-keys-a-grown-file-by-the-reason",
        "a file that grew past the bound while read is keyed by the reason, not by its first bytes",
        "autograder/outputs/cachekey.py",
        (("return too_large if left <= 0 else digest.hexdigest()", "return digest.hexdigest()"),),
        ("tests/autograder/outputs/test_cachekey.py",),
    ),
    Mutation(
        "reader-refuses-a-huge-file-unread",
        "a hand-in over 64 MiB is refused unread: not even its first 64 MiB are read",
        "autograder/grading/safe_files.py",
        (
            (
                "        if after.st_size > limit:  # a sparse terabyte costs this fstat, "
                "not `limit` bytes of reading\n"
                '            raise OSError(errno.EFBIG, f"{shown} is over {limit} bytes")\n',
                "",
            ),
        ),
        (
            "tests/autograder/outputs/test_classrun.py::test_a_sparse_terabyte_hand_in_is_refused_unread_and_the_class_is_graded",
            "tests/autograder/grading/test_safe_files.py",
        ),
    ),
    Mutation(
        "tensors-table-length-bound",
        "a tensor table exactly at header_bytes is read",
        _TENSORS,
        (("if size > bounds.header_bytes:", "if size >= bounds.header_bytes:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-table-fills-the-file",
        "a tensor table may fill the file exactly",
        _TENSORS,
        (("if _LENGTH.size + size > len(data):", "if _LENGTH.size + size >= len(data):"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-count-bound",
        "a frame of exactly `tensors` tensors is read",
        _TENSORS,
        (("if len(table) > bounds.tensors:", "if len(table) >= bounds.tensors:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-dims-bound",
        "a tensor of exactly `tensor_dims` dimensions is read",
        _TENSORS,
        (("if len(shape) > bounds.tensor_dims:", "if len(shape) >= bounds.tensor_dims:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "tensors-bytes-bound",
        "a frame of exactly `tensor_bytes` bytes of tensors is read",
        _TENSORS,
        (("if facts.tensor_bytes > bounds.tensor_bytes:", "if facts.tensor_bytes >= bounds.tensor_bytes:"),),
        _TENSOR_GUARDS,
    ),
    Mutation(
        "dask-insecure-flag-is-tcp-only",
        "--insecure-plain-tcp allows tcp:// and no other protocol (ws:// stays refused)",
        "autograder/grading/pool/dask_tls.py",
        (('if protocol == "tcp" and insecure_plain_tcp:', "if insecure_plain_tcp:"),),
        ("tests/autograder/grading/pool/test_dask_tls.py",),
    ),
    Mutation(
        "seal-sees-rewritten-code",
        "a runner function whose __code__ was rewritten while student code ran marks the seal tampered",
        "autograder/graders/weight_tying/runner/seal.py",
        (("if now is not value or (code is not None and target.__code__ is not code):", "if now is not value:"),),
        ("tests/autograder/graders/weight_tying/test_seal.py",),
    ),
    Mutation(
        "lookalikes-maps-before-folding-case",
        'a capital drawn as a small letter of another script is seen as drawn: "Ьob" beside "bob" is flagged',
        "autograder/outputs/lookalikes.py",
        (
            (
                "return _skeleton(visible).casefold(), _skeleton(visible.casefold()).casefold()",
                "return _skeleton(visible.casefold()).casefold(), _skeleton(visible.casefold()).casefold()",
            ),
        ),
        ("tests/autograder/outputs/test_lookalikes.py",),
    ),
    Mutation(
        "selfcheck-runs-whole-when-a-class-is-missing",
        "a run without the demos that misses a class is replaced by the whole notebook's run",
        "assignments/source/weight_tying/weight_tying_checks/demos.py",
        (("        or any(c not in result.namespace for c in CLASSES)\n", ""),),
        (
            "tests/assignments/test_selfcheck_demos.py::"
            "test_a_class_defined_only_when_a_demo_ran_makes_the_whole_notebook_run",
        ),
    ),
    Mutation(
        "classrun-writes-each-result-as-it-arrives",
        "a class run writes each result the moment it arrives (a kill loses nothing graded)",
        "autograder/outputs/classrun.py",
        (
            (
                "        outcome.graded.append(uid)\n        folder.save_result(\n"
                "            todo[uid], result, grading_key=keys[uid], assignment=job.assignment, "
                "unreadable=unreadable[uid]\n        )\n",
                "        outcome.graded.append(uid)\n\n    def save_all() -> None:\n"
                "        for uid in outcome.graded:\n            folder.save_result(\n"
                "                todo[uid], outcome.results[uid], grading_key=keys[uid], assignment=job.assignment,\n"
                "                unreadable=unreadable[uid],\n            )\n",
            ),
            (
                '        outcome.batch_error = f"{type(exc).__name__}: {exc}"\n',
                '        outcome.batch_error = f"{type(exc).__name__}: {exc}"\n    save_all()\n',
            ),
        ),
        _CLASSRUN_GUARDS,
    ),
    Mutation(
        "classrun-writes-the-manifest-before-grading",
        "a class run's manifest, with its seed, is on disk before the first submission is graded",
        "autograder/outputs/classrun.py",
        (("        folder.write_manifest(manifest)  # the seed is on disk before anything is graded\n", ""),),
        _CLASSRUN_GUARDS,
    ),
)


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
