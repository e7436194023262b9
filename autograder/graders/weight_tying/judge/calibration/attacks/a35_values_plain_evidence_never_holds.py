# expect: attack
# why: correct classes, but each experiment record also carries one value plain evidence never holds, sent as JSON the runner's writer would refuse to write: nesting 500 deep, a 5000-digit int, 2**63, a 64 KiB string, one 8000-char string 300 times, a key of 9000 characters, 60,000 values, a 9-dimensional tensor, a bool tensor of 10**9 elements over 1 byte, a tensor of 33 MiB claimed over 4 bytes, a size of 2**64, and more. Any experiment whose value is let through earns its points.
import json
import os
import struct
import sys

import torch
import torch.nn as nn

import dnnlpy.models.gpt as gpt


# Correct classes (the chapter's way): the honest records would earn full marks, so any point this file
# earns means the grader accepted a frame it should have refused.
class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout, weight_tying=True)

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        for _ in range(max_new_tokens):
            logits = self(input_ids[:, -self.minigpt.block_size:])
            input_ids = torch.cat([input_ids, logits[:, -1, :].argmax(dim=-1, keepdim=True)], dim=1)
        return input_ids


def _find_local(name):
    frame = sys._getframe(1)
    while frame is not None:
        if name in frame.f_locals:
            return frame.f_locals[name]
        frame = frame.f_back
    return None


def _write(fd, blob):
    view = memoryview(struct.pack(">Q", len(blob)) + blob)
    while view:
        view = view[os.write(fd, view):]


def _parts(emit, name, record):
    """The runner's own frame for (name, record), split: the JSON text, the tensor table, the tensor bytes."""
    frame = sys.modules[type(emit).__module__].encode_frame(name, record)
    blob = frame[8:]
    (size,) = struct.unpack_from("<Q", blob)
    tensors = blob[8 + size :]
    (table_size,) = struct.unpack_from("<Q", tensors)
    return blob[8 : 8 + size], json.loads(tensors[8 : 8 + table_size]), tensors[8 + table_size :]


def _blob(text, table, data=b""):
    """A frame's blob from a JSON text (bytes) and a tensor table (a dict, or its JSON bytes) over `data`."""
    table = table if isinstance(table, bytes) else json.dumps(table).encode()
    return struct.pack("<Q", len(text)) + text + struct.pack("<Q", len(table)) + table + data


def _with_value(text, raw):
    """The record's JSON text with one more key, "zz_hostile", whose value is the JSON text `raw`."""
    return text[:-2] + b',"zz_hostile":' + raw + b"}}"


def _reencode_every_experiment(hostile):
    """Patch the runner's frame writer: every experiment's frame becomes hostile(emit, name, record) (a blob)."""
    emit = _find_local("emit")
    if emit is None:
        return
    original = type(emit).__call__

    def call(self, name, record):
        if name.startswith("__"):  # the run's own records (__load__, __done__) go out as they are
            return original(self, name, record)
        _write(self.fd, hostile(self, name, record))

    type(emit).__call__ = call


_VALUES = {
    "lm_identity": b"[" * 500 + b"]" * 500,
    "lm_reload": b"1" * 5000,
    "lm_float64": json.dumps("w" * 65536).encode(),
    "lm_shapes": json.dumps(["wtcal" * 1600] * 300).encode(),
    "lm_grad": json.dumps({"k" * 9000: 1}).encode(),
    "gpt_identity": json.dumps([0] * 60_000).encode(),
    "gpt_reload": b"9223372036854775808",
    "gpt_float64": json.dumps([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]).encode(),
}
_TENSORS = {  # name -> (dtype, shape, bytes sent) of one extra tensor "zz" the record refers to
    "gpt_shapes": ("F32", [1] * 9, 4),
    "gpt_heads": ("BOOL", [10**9], 1),
    "gpt_counts": ("F32", [33 << 18], 4),
    "gpt_dropout": ("I64", [2, 2], 16),
    "gpt_grad": ("F32", [1 << 40, 1 << 40], 4),
    "gpt_loss": ("F64", [3], 16),
    "gpt_generate": ("F32", [1 << 64], 4),
}


def _hostile(emit, name, record):
    text, table, data = _parts(emit, name, record)
    if name in _VALUES:
        return _blob(_with_value(text, _VALUES[name]), table, data)
    dtype, shape, nbytes = _TENSORS.get(name, _TENSORS["gpt_shapes"])
    zz = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + nbytes]}
    if name == "gpt_dropout":  # two extra tensors over the same bytes as the first of the record
        zz = {**zz, "data_offsets": [0, nbytes]}
    return _blob(_with_value(text, b'{"$tensor":"zz"}'), {**table, "zz": zz}, data + bytes(nbytes))


_reencode_every_experiment(_hostile)
