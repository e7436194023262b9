"""Trusted: how much evidence the grader agrees to decode, per frame and per run, and the refusal it raises.

Every number is a budget the decoder checks *before* the work it bounds (JSON bytes, values and nesting
before parsing, a tensor table's entries, dtypes and sizes before safetensors reads a byte of data), so a
hostile frame costs the grader a bounded time and memory and then counts as missing evidence.

The largest legitimate frames (the reference solution's records over 20 random plans, measured with
``python scripts/bench_hostile_evidence.py --legit 20``): 32 KB per frame, 8.6 KB of JSON, a 1.3 KB tensor
table of 20 tensors, 1,039 values parsed, 884 kept, depth 5, 6,293 characters, 30 KB of tensors; per run 93
tensors, 4,571 values parsed, 3,146 kept, 0.17 MB of tensors. Strings are error texts, which the runner cuts
to ~2,100 characters. Each bound leaves a margin of 10x or more over those; raise one only after measuring a
real record that needs it. What the bounds cost at worst (seconds, peak memory) is measured by the same script
without --legit and written down in docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["EvidenceBounds", "DEFAULT_BOUNDS", "Refused", "Facts", "ALLOWED_DTYPES"]

KiB, MiB = 1 << 10, 1 << 20

# safetensors dtype names evidence tensors may have -> (torch dtype name, bytes per element). Complex,
# float8, unsigned >8-bit and every other dtype are refused: no record needs them.
ALLOWED_DTYPES = {
    "F32": ("float32", 4),
    "F64": ("float64", 8),
    "F16": ("float16", 2),
    "BF16": ("bfloat16", 2),
    "I64": ("int64", 8),
    "I32": ("int32", 4),
    "I16": ("int16", 2),
    "I8": ("int8", 1),
    "U8": ("uint8", 1),
    "BOOL": ("bool", 1),
}


class Refused(ValueError):
    """A frame broke a bound or the format; the message says which (it becomes a note in the result)."""


class Facts:
    """What decoding one frame saw and spent: the record's name (as soon as it is readable), the JSON values
    and tensors read (work, counted even when the frame is refused), and what the record keeps: values,
    string characters, tensor bytes."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.values_read = self.tensors = self.nodes = self.chars = self.tensor_bytes = 0


@dataclass(frozen=True)
class EvidenceBounds:
    # one frame (the frame's size itself is capped by protocol.frames.MAX_FRAME_BYTES, 16 MiB)
    json_bytes: int = 1 * MiB  # the record's JSON text (legit: <= 8.6 KB)
    header_bytes: int = 256 * KiB  # the safetensors header, the table of tensors (legit: <= 1.3 KB)
    tensors: int = 1024  # tensors in the table (legit: <= 20)
    nodes: int = 50_000  # values and keys in one record, bounded before parsing (legit: <= 1,039)
    depth: int = 32  # nesting of containers, the frame's dict included (legit: 5)
    string_chars: int = 8 * KiB  # one string (legit: error texts are cut to ~2,100 by the runner)
    total_chars: int = 1 * MiB  # all strings of one frame, keys included (legit: <= 6,293 + errors)
    tensor_dims: int = 8  # legit: <= 3
    tensor_bytes: int = 32 * MiB  # tensors of one frame (a frame is at most 16 MiB; legit: 30 KB)
    # one run (the channel itself is capped by the sandbox's Limits.evidence_bytes, 32 MiB). Work bounds
    # (values parsed, tensors read) count every frame, refused or not; what is kept counts accepted ones.
    frames: int = 64  # frames decoded per run (legit: 17)
    run_values_read: int = 250_000  # JSON values parsed, records and tables (legit: <= 4,571)
    run_tensors: int = 4096  # tensors read, all frames (legit: <= 93)
    run_tensor_bytes: int = 64 * MiB  # tensors kept, all frames (legit: <= 0.17 MB)
    run_nodes: int = 200_000  # values kept, all frames (legit: <= 3,146)
    run_chars: int = 4 * MiB  # string characters kept, all frames (legit: ~0.1 MB)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or value <= 0:
                raise ValueError(f"EvidenceBounds.{f.name}={value!r}: give a positive int")


DEFAULT_BOUNDS = EvidenceBounds()
