"""What hostile evidence and hostile files cost the grader: seconds and peak memory of the trusted side.

    python scripts/bench_hostile_evidence.py            # every hostile case (about a minute)
    python scripts/bench_hostile_evidence.py --legit 20 # the largest legitimate frames over 20 plans

Each case is decoded (or read) in a fresh process: the channel is written to a file first, the process
resets its peak-RSS mark (/proc/self/clear_refs) after loading it, then decodes, and reports the time and
the rise of its peak resident memory. The --legit figures are where ``autograder.protocol.bounds`` took
its numbers from. Nothing here is asserted: these are measurements, printed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HEADER = struct.Struct(">Q")
VERSION = ("archive/version", b"3\n")


# ---------------------------------------------------------------- frames


def _saved(obj) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _framed(blob: bytes) -> bytes:
    return HEADER.pack(len(blob)) + blob


def _s(text: str) -> bytes:
    data = text.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def _frame_pickle(name: str, record_ops: bytes) -> bytes:
    return b"\x80\x02}(" + _s("name") + _s(name) + _s("record") + record_ops + b"u."


def _tensor_ops(numel: int, size: list[int], stride: list[int]) -> bytes:
    ints = lambda values: b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"  # noqa: E731
    pid = b"(" + _s("storage") + b"ctorch\nFloatStorage\n" + _s("0") + _s("cpu") + b"J" + struct.pack("<i", numel)
    hooks = b"ccollections\nOrderedDict\n)R"
    args = b"(" + pid + b"tQ" + b"J\x00\x00\x00\x00" + ints(size) + ints(stride) + b"\x89" + hooks + b"t"
    return b"ctorch._utils\n_rebuild_tensor_v2\n" + args + b"R"


def _zip(entries: list[tuple[str, bytes]], compression: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return out.getvalue()


def _deflate_bomb(zeros: int) -> bytes:
    """A frame claiming `zeros` bytes of float zeros, DEFLATE-compressed, written in 1 MiB steps."""
    out = io.BytesIO()
    pickle = _frame_pickle("lm_identity", b"}(" + _s("w") + _tensor_ops(zeros // 4, [zeros // 4], [1]) + b"u")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("archive/data.pkl", pickle)
        with zf.open("archive/data/0", "w", force_zip64=True) as member:
            chunk = bytes(1 << 20)
            for _ in range(zeros >> 20):
                member.write(chunk)
        zf.writestr("archive/version", b"3\n")
    return out.getvalue()


def _legit_channel(seed: int = 0) -> bytes:
    import torch

    from autograder.graders import get_assignment
    from autograder.graders.weight_tying.runner.experiments import run
    from autograder.protocol.frames import encode_frame
    from dnnlpy.notebook import exec_source

    torch.set_num_threads(1)
    spec = get_assignment("weight_tying")
    namespace = exec_source(spec.solution_path.read_text(), "solution.py").namespace
    frames: list[bytes] = []
    run(namespace, spec.make_plan(seed), lambda name, record: frames.append(encode_frame(name, record)))
    return b"".join(frames)


def _cases() -> dict[str, tuple[str, bytes]]:
    """name -> (kind: "evidence" or a submission file name, bytes)."""
    import torch

    legit = _legit_channel()
    dag: list = ["x"]
    for _ in range(60):
        dag = [dag, dag]
    expanded = {f"w{k}": torch.zeros(1).expand(10_000, 10_000) for k in range(16)}
    deep = 100_000
    ops = _frame_pickle("x", b"}(" + _s("v") + b"]" + b"q\x00" * 99_000 + b"u")
    many_ops = _zip([("archive/data.pkl", ops), ("archive/version", b"3\n")])
    members = [
        _zip(
            [("archive/data.pkl", _frame_pickle(f"m{n}", b"}")), VERSION]
            + [(f"archive/data/{k}", b"0") for k in range(1020)]
        )
        for n in range(64)
    ]
    largest = _framed(
        _zip(
            [
                ("archive/data.pkl", _frame_pickle("big", b"}(" + _s("w") + _tensor_ops(1, [8_000_000], [0]) + b"u")),
                ("archive/data/0", b"\0\0\0\0"),
                ("archive/version", b"3\n"),
            ]
        )
    )
    strings = [_saved({"name": f"s{n}", "record": {"e": ["w" * 8000 for _ in range(125)]}}) for n in range(30)]
    return {
        "legit run (reference solution, 15 records)": ("evidence", legit),
        "DEFLATE bomb: 2 GiB of zeros in one frame": ("evidence", _framed(_deflate_bomb(2 << 30)) + legit),
        "error = DAG of shared lists, depth 60": ("evidence", _framed(_saved({"name": "x", "record": {"error": dag}}))),
        "16 stride-0 state-dict entries of 10**8": ("evidence", _framed(_saved({"name": "s", "record": expanded}))),
        f"64 frames of lists nested {deep} deep": (
            "evidence",
            _framed(_zip([("archive/data.pkl", _nested(deep)), VERSION])) * 64,
        ),
        "largest accepted frame (32 MiB once plain)": ("evidence", largest),
        "64 frames of 99k opcodes each": ("evidence", _framed(many_ops) * 64),  # memo puts: no values
        "64 frames of 1,022 zip members each": ("evidence", b"".join(map(_framed, members))),
        "1 M characters of strings in each of 30 frames": ("evidence", b"".join(map(_framed, strings))),
        "notebook nested 100,000 deep": ("deep.ipynb", ("[" * 100_000 + "]" * 100_000).encode()),
        "notebook of 64 MiB of '[],'": ("wide.ipynb", b"[" + b"[]," * ((64 << 20) // 3 - 1) + b"[]]"),
        "notebook of 64 MiB of escaped quotes": ("quotes.ipynb", b'["' + b'\\",' * ((64 << 20) // 3 - 2) + b'"]'),
    }


def _nested(depth: int) -> bytes:
    return _frame_pickle("x", b"}(" + _s("v") + b"]" * depth + b"a" * (depth - 1) + b"u")


# ---------------------------------------------------------------- measuring, in a fresh process


def _child(kind: str, path: str) -> None:
    """Decode or read the file at `path`; print {"seconds", "peak_mib", "outcome"} as JSON."""
    import torch  # noqa: F401 - imported before the measurement, as in the grader

    from autograder.protocol.decode import decode_frames
    from autograder.submissions import SubmissionRefused, read_submission

    data = Path(path).read_bytes() if kind == "evidence" else b""
    rss = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # the peak-RSS mark starts again from here
    start = time.perf_counter()
    if kind == "evidence":
        evidence, notes = decode_frames(data)
        outcome = f"{len(evidence)} records kept, {len(notes)} notes; first: {notes[0][:110] if notes else '-'}"
    else:
        try:
            read_submission(Path(path))
            outcome = "read"
        except SubmissionRefused as exc:
            outcome = f"refused: {str(exc)[:110]}"
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mib": (_status("VmHWM") - rss) / 1024, "outcome": outcome}))


def _status(field: str) -> int:
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith(field + ":"))
    return int(line.split()[1])  # kB


def _measure() -> None:
    print(f"{'case':46} {'bytes':>12} {'seconds':>8} {'peak MiB':>9}  outcome")
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        for name, (kind, data) in _cases().items():
            path = Path(tmp) / (kind if kind != "evidence" else "channel.bin")
            path.write_bytes(data)
            proc = subprocess.run(
                [sys.executable, __file__, "--child", "evidence" if kind == "evidence" else "file", str(path)],
                capture_output=True,
                text=True,
                env=dict(os.environ, OMP_NUM_THREADS="1"),
            )
            if proc.returncode != 0:
                print(f"{name:46} failed: {proc.stderr[-500:]}")
                continue
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{name:46} {len(data):>12,} {got['seconds']:>8.2f} {got['peak_mib']:>9.1f}  {got['outcome']}")
            path.unlink()


def _legit(plans: int) -> None:
    """The largest legitimate frame and run over `plans` plans (the figures bounds.py quotes)."""
    from autograder.protocol.decode import decode_frame
    from autograder.protocol.frames import HEADER as FRAME_HEADER

    worst: dict[str, int] = {}
    for seed in range(plans):
        data, pos, run = _legit_channel(seed), 0, dict.fromkeys(("members", "ops", "nodes", "bytes"), 0)
        while pos < len(data):
            (size,) = FRAME_HEADER.unpack_from(data, pos)
            blob = data[pos + 8 : pos + 8 + size]
            pos += 8 + size
            facts, record, refused = decode_frame(blob)
            assert not refused, refused
            pickle = zipfile.ZipFile(io.BytesIO(blob)).read("archive/data.pkl")
            frame = {"blob": len(blob), "members": facts.members, "pickle": len(pickle), "ops": facts.ops}
            frame |= {"nodes": facts.nodes, "chars": facts.chars, "tensor_bytes": facts.tensor_bytes}
            frame |= {"depth": _depth(record), "longest_string": _longest(record)}
            for key, value in frame.items():
                worst[key] = max(worst.get(key, 0), value)
            for key, fact in (("members", "members"), ("ops", "ops"), ("nodes", "nodes"), ("bytes", "tensor_bytes")):
                run[key] += getattr(facts, fact)
        for key, value in run.items():
            worst["run_" + key] = max(worst.get("run_" + key, 0), value)
    print(f"largest legitimate values over {plans} plans:")
    for key, value in worst.items():
        print(f"  {key:18} {value:>12,}")


def _depth(value, depth: int = 1) -> int:
    if isinstance(value, dict):
        return max([depth, *(_depth(v, depth + 1) for v in value.values())])
    if isinstance(value, (list, tuple)):
        return max([depth, *(_depth(v, depth + 1) for v in value)])
    return depth - 1


def _longest(value) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max([0, *map(_longest, value.keys()), *map(_longest, value.values())])
    if isinstance(value, (list, tuple)):
        return max([0, *map(_longest, value)])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--legit", type=int, metavar="PLANS", help="measure legitimate frames over PLANS plans")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
    elif args.legit:
        _legit(args.legit)
    else:
        _measure()


if __name__ == "__main__":
    main()
