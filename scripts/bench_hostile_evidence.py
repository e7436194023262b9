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


# ---------------------------------------------------------------- frames of the former format (torch.save zips)


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


# ---------------------------------------------------------------- frames of the channel's format (JSON + safetensors)


def _blob(text: bytes, table: bytes = b"{}", data: bytes = b"", table_size: int | None = None) -> bytes:
    """A blob from a JSON text and a safetensors table (JSON bytes) over `data`; `table_size` may lie."""
    size = len(table) if table_size is None else table_size
    return struct.pack("<Q", len(text)) + text + struct.pack("<Q", size) + table + data


def _json_frame(name: str, value_json: bytes, table: bytes = b"{}", data: bytes = b"") -> bytes:
    """A frame whose record is {"v": <value_json>} (any text, hostile or not)."""
    return _framed(_blob(b'{"name":"' + name.encode() + b'","record":{"v":' + value_json + b"}}", table, data))


def _table(entries: dict) -> bytes:
    return json.dumps(entries, separators=(",", ":")).encode()


def _legit_channel(seed: int = 0) -> bytes:
    import torch

    from autograder.graders import get_assignment
    from autograder.graders.weight_tying.runner.experiments import run
    from autograder.protocol.frames import encode_frame
    from coursecheck.notebook import exec_source

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
    ref = b'{"$tensor":"t0"}'
    big = (16 << 20) - 4096  # the largest frame's tensor bytes
    largest = _json_frame(
        "big", ref, _table({"t0": {"dtype": "U8", "shape": [big], "data_offsets": [0, big]}}), bytes(big)
    )
    lying = {
        f"t{k}": {"dtype": "F32", "shape": [10_000, 10_000], "data_offsets": [4 * k, 4 * k + 4]} for k in range(16)
    }
    lying_refs = b"[" + b",".join(b'{"$tensor":"t%d"}' % k for k in range(16)) + b"]"
    many = {f"t{k}": {"dtype": "U8", "shape": [1], "data_offsets": [k, k + 1]} for k in range(1024)}
    many_refs = b"[" + b",".join(b'{"$tensor":"t%d"}' % k for k in range(1024)) + b"]"
    strings = b"[" + b",".join([b'"' + b"w" * 8000 + b'"'] * 125) + b"]"
    quotes = b'["' + b'\\"' * ((1 << 20) // 2 - 64) + b'"]'
    return {
        "legit run (reference solution, 15 records)": ("evidence", legit),
        "former format: DEFLATE bomb, 2 GiB of zeros": ("evidence", _framed(_deflate_bomb(2 << 30)) + legit),
        "former format: DAG of shared lists, depth 60": (
            "evidence",
            _framed(_saved({"name": "x", "record": {"error": dag}})),
        ),
        "former format: 16 stride-0 tensors of 10**8": ("evidence", _framed(_saved({"name": "s", "record": expanded}))),
        "tensor table length 2**60, then legit": (
            "evidence",
            _framed(_blob(b'{"name":"x","record":{}}', b"{}", b"", 1 << 60)) + legit,
        ),
        "16 tensors claiming 10**8 floats over 4 B": (
            "evidence",
            _json_frame("s", lying_refs, _table(lying), bytes(64)),
        ),
        f"64 frames of JSON nested {deep} deep": ("evidence", _json_frame("x", b"[" * deep + b"]" * deep) * 64),
        "64 frames of 1 MiB of '[],'": ("evidence", _json_frame("x", b"[" + b"[]," * 349_000 + b"[]]") * 64),
        "64 frames of 49,990 values each": ("evidence", _json_frame("x", b"[" + b"0," * 49_990 + b"0]") * 64),
        "64 frames of 1 MiB of escaped quotes": ("evidence", _json_frame("x", quotes) * 64),
        "64 frames of 1,024 tensors each": ("evidence", _json_frame("m", many_refs, _table(many), bytes(1024)) * 64),
        "largest accepted frame (16 MiB of tensor)": ("evidence", largest),
        "1 M characters of strings in each of 30 frames": (
            "evidence",
            b"".join(_json_frame(f"s{n}", strings) for n in range(30)),
        ),
        "notebook nested 100,000 deep": ("deep.ipynb", ("[" * 100_000 + "]" * 100_000).encode()),
        "notebook of 64 MiB of '[],'": ("wide.ipynb", b"[" + b"[]," * ((64 << 20) // 3 - 1) + b"[]]"),
        "notebook of 64 MiB of escaped quotes": ("quotes.ipynb", b'["' + b'\\",' * ((64 << 20) // 3 - 2) + b'"]'),
    }


# ---------------------------------------------------------------- measuring, in a fresh process


def _child(kind: str, path: str) -> None:
    """Decode or read the file at `path`; print {"seconds", "peak_mib", "outcome"} as JSON."""
    import torch  # noqa: F401 - imported before the measurement, as in the grader

    from autograder.grading.submissions import SubmissionRefused, read_submission
    from autograder.protocol.decode import decode_frames

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
    from autograder.protocol.frames import JSON_LENGTH

    worst: dict[str, int] = {}
    for seed in range(plans):
        data, pos, run = _legit_channel(seed), 0, dict.fromkeys(("tensors", "values_read", "nodes", "bytes"), 0)
        while pos < len(data):
            (size,) = FRAME_HEADER.unpack_from(data, pos)
            blob = data[pos + 8 : pos + 8 + size]
            pos += 8 + size
            facts, record, refused = decode_frame(blob)
            assert not refused, refused
            (json_size,) = JSON_LENGTH.unpack_from(blob)
            (table_size,) = JSON_LENGTH.unpack_from(blob, 8 + json_size)
            frame = {"blob": len(blob), "json_bytes": json_size, "header_bytes": table_size, "tensors": facts.tensors}
            frame |= {"values_read": facts.values_read, "nodes": facts.nodes, "chars": facts.chars}
            frame |= {"tensor_bytes": facts.tensor_bytes, "depth": _depth(record), "longest_string": _longest(record)}
            for key, value in frame.items():
                worst[key] = max(worst.get(key, 0), value)
            for key, fact in (("tensors",) * 2, ("values_read",) * 2, ("nodes",) * 2, ("bytes", "tensor_bytes")):
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
