"""Builders of evidence frames for the decoder's tests: honest ones (torch.save), and hostile ones written opcode
by opcode or by rewriting an honest archive (compressed members, patched sizes)."""

from __future__ import annotations

import io
import struct
import zipfile

import torch

from autograder.protocol.frames import HEADER


def saved(obj) -> bytes:
    """torch.save(obj) into bytes, as the runner writes a frame's blob."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def framed(blob: bytes) -> bytes:
    return HEADER.pack(len(blob)) + blob


def members(blob: bytes) -> list[tuple[str, bytes]]:
    zf = zipfile.ZipFile(io.BytesIO(blob))
    return [(info.filename, zf.read(info)) for info in zf.infolist()]


def rezip(entries: list[tuple[str, bytes]], compression: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return out.getvalue()


def archive(pickle: bytes, storages: dict[str, bytes] | None = None) -> bytes:
    """A torch.save-shaped archive around a hand-written pickle."""
    entries = [("archive/data.pkl", pickle), ("archive/byteorder", b"little")]
    entries += [(f"archive/data/{key}", data) for key, data in (storages or {}).items()]
    return rezip(entries + [("archive/version", b"3\n")])


# ---------------------------------------------------------------- a tiny pickle assembler (protocol 2)

PROTO, STOP, MARK = b"\x80\x02", b".", b"("
EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE = b"}", b"]", b")"
APPEND, APPENDS, SETITEM, SETITEMS, TUPLE, REDUCE, BINPERSID = b"a", b"e", b"s", b"u", b"t", b"R", b"Q"
NEWFALSE = b"\x89"


def s(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return b"X" + struct.pack("<I", len(data)) + data


def i(value: int) -> bytes:
    return b"J" + struct.pack("<i", value)


def put(index: int) -> bytes:
    return b"q" + bytes([index])


def get(index: int) -> bytes:
    return b"h" + bytes([index])


def glob(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def frame_pickle(name: str, record_ops: bytes) -> bytes:
    """{"name": name, "record": <record_ops>} as opcodes."""
    return PROTO + EMPTY_DICT + MARK + s("name") + s(name) + s("record") + record_ops + SETITEMS + STOP


def record(*pairs: tuple[str, bytes]) -> bytes:
    """A dict of str keys to values given as opcodes."""
    return EMPTY_DICT + MARK + b"".join(s(k) + v for k, v in pairs) + SETITEMS


def ints(values: list[int]) -> bytes:
    return MARK + b"".join(map(i, values)) + TUPLE


def tensor(key: str, numel: int, offset: int, size: list[int], stride: list[int], storage: str = "FloatStorage"):
    """_rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict()) as opcodes."""
    pid = MARK + s("storage") + glob("torch", storage) + s(key) + s("cpu") + i(numel) + TUPLE + BINPERSID
    hooks = glob("collections", "OrderedDict") + EMPTY_TUPLE + REDUCE
    args = MARK + pid + i(offset) + ints(size) + ints(stride) + NEWFALSE + hooks + TUPLE
    return glob("torch._utils", "_rebuild_tensor_v2") + args + REDUCE


def floats(n: int) -> bytes:
    return struct.pack(f"<{n}f", *range(n))


def dag_list(depth: int):
    """[l, l] nested `depth` times: 2**depth leaves once printed, a few hundred bytes pickled."""
    value: list = [1]
    for _ in range(depth):
        value = [value, value]
    return value
