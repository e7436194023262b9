"""Trusted: how much evidence the grader agrees to decode, per frame and per run, and the refusal it raises.

Every number is a budget the decoder checks *before* the work it bounds (zip members before reading them,
pickle opcodes before anything is built, tensor sizes before anything is allocated), so a hostile frame
costs the grader a bounded time and memory and then counts as missing evidence.

The largest legitimate frames (the reference solution's records over 20 random plans, measured with
``python scripts/bench_hostile_evidence.py --legit 20``): 105 KB per frame, 194 zip members, a 19.6 KB pickle
of 5,873 opcodes, 3,955 values, depth 5, 58 KB of tensors; per run 668 members, 20,342 opcodes, 13,237
values, 0.3 MB of tensors. Strings are error texts, which the runner cuts to ~2,100 characters. Each bound
below leaves a margin of 3x (frames) to 5x (members) or more; raise one only after measuring a real record that
needs it. What the bounds cost at worst (seconds, peak memory) is measured by the same script without
--legit and written down in docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["EvidenceBounds", "DEFAULT_BOUNDS", "Refused", "ALLOWED_DTYPES"]

KiB, MiB = 1 << 10, 1 << 20

# Storage classes torch.save writes for the dtypes evidence may hold (name in the pickle -> dtype name).
# Complex, quantized, float8 and unsigned >8-bit storages are refused: no record needs them.
ALLOWED_DTYPES = {
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
    "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BoolStorage": "bool",
}


class Refused(ValueError):
    """A frame broke a bound or the format; the message says which (it becomes a note in the result)."""


@dataclass(frozen=True)
class EvidenceBounds:
    # one frame (the frame's size itself is capped by protocol.frames.MAX_FRAME_BYTES, 16 MiB)
    zip_members: int = 1024  # records in one torch.save archive (legit: <= 194)
    pickle_bytes: int = 1 * MiB  # its data.pkl (legit: <= 20 KB)
    pickle_ops: int = 100_000  # opcodes in data.pkl (legit: <= 5,873)
    nodes: int = 50_000  # values in one record, each reference counted (legit: <= 3,955)
    depth: int = 32  # nesting of containers (legit: 5)
    string_chars: int = 8 * KiB  # one string (legit: error texts are cut to ~2,100 by the runner)
    total_chars: int = 1 * MiB  # all strings of one frame, each reference counted (legit: <= 6,867 + errors)
    tensor_dims: int = 8  # legit: <= 3
    tensor_bytes: int = 32 * MiB  # tensors of one frame once made plain, expansions included (legit: 58 KB)
    # one run (the channel itself is capped by the sandbox's Limits.evidence_bytes, 32 MiB). Work bounds
    # (members, opcodes) count every frame, refused or not; what is kept (values, bytes) counts accepted ones.
    frames: int = 64  # frames decoded per run (legit: 18)
    run_zip_members: int = 4096  # zip records read, all frames (legit: <= 668)
    run_pickle_ops: int = 250_000  # opcodes walked, all frames (legit: <= 20,342)
    run_tensor_bytes: int = 64 * MiB  # tensors kept, all frames, once made plain (legit: <= 0.3 MB)
    run_nodes: int = 200_000  # values kept, all frames (legit: <= 13,237)
    run_chars: int = 4 * MiB  # string characters kept, all frames (legit: ~0.1 MB)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or value <= 0:
                raise ValueError(f"EvidenceBounds.{f.name}={value!r}: give a positive int")


DEFAULT_BOUNDS = EvidenceBounds()
