# expect: attack
# why: correct classes, but every experiment frame's tensor references lie, a different way per experiment: a tensor referenced twice, a reference to a tensor the frame does not hold, a tensor no value refers to, a reference that is not a name. Any experiment whose frame is let through earns its points.
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


_KINDS = ("twice", "missing", "unreferenced", "not a name")


def _hostile(emit, name, record):
    text, table, data = _parts(emit, name, record)
    kind = _KINDS[sum(map(ord, name)) % len(_KINDS)]
    if kind == "twice" and table:
        return _blob(_with_value(text, json.dumps({"$tensor": next(iter(table))}).encode()), table, data)
    if kind == "unreferenced":
        zz = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
        return _blob(text, {**table, "zz": zz}, data + bytes(4))
    if kind == "not a name":
        return _blob(_with_value(text, b'{"$tensor":0}'), table, data)
    return _blob(_with_value(text, b'{"$tensor":"t999"}'), table, data)


_reencode_every_experiment(_hostile)
