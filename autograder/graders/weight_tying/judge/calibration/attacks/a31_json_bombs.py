# expect: attack
# why: correct classes, but every experiment frame's JSON is hostile, a different way per experiment: nesting 100,000 deep, 300,000 empty lists, a 5000-digit int, 2**64, a key given twice (the judged key too), bytes that are not UTF-8, trailing text, a length past the frame, a bare word, single quotes, a record that is a list, an extra frame key, a 1 MiB text. Any experiment whose frame is let through earns its points.
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


_RAW = {
    "lm_identity": b"[" * 100_000 + b"]" * 100_000,
    "lm_reload": b"[" + b"[]," * 300_000 + b"[]]",
    "lm_float64": b"1" * 5000,
    "lm_shapes": b"18446744073709551616",
    "lm_grad": b'1,"zz_hostile":2',
    "gpt_dropout": b"undefined",
    "gpt_grad": b"{'a': 1}",
    "gpt_shapes": json.dumps(["w" * 8000] * 140).encode(),
}


def _hostile(emit, name, record):
    text, table, data = _parts(emit, name, record)
    if name == "gpt_reload":
        return _blob(_with_value(text, b'"\xff\xfe"'), table, data)
    if name in _RAW:
        return _blob(_with_value(text, _RAW[name]), table, data)
    if name == "gpt_identity" and record:  # the first judged key again, with another value: which one wins?
        key = json.dumps(next(iter(record))).encode()
        return _blob(text[:-2] + b"," + key + b":0}}", table, data)
    if name == "gpt_heads":
        return _blob(text + b" [1]", table, data)
    if name == "gpt_counts":
        return struct.pack("<Q", 1 << 40) + text + _blob(b"{}", table, data)[8 + 2 :]
    if name == "gpt_loss":
        return _blob(b'{"name":' + json.dumps(name).encode() + b',"record":[' + text + b"]}", table, data)
    return _blob(text[:-1] + b',"zz":1}', table, data)


_reencode_every_experiment(_hostile)
