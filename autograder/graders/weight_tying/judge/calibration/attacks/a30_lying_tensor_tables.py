# expect: attack
# why: correct classes, but every experiment frame carries one more tensor whose safetensors table lies, a different lie per experiment: a table length of 2**60 or past the frame, two entries over the same bytes, a shape of 10**10 elements over 4 bytes, complex, float8 and uint64 dtypes, 9 dimensions, an extra key, metadata, a gap in the data, offsets as strings, a nested table, a name given twice, a negative size. Any experiment whose frame is let through earns its points.
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



def _lie(kind, table, data):
    """(table JSON bytes or dict, data) with one more tensor "zz" that lies in the way `kind` says."""
    end = len(data)
    zz = {"dtype": "F32", "shape": [1], "data_offsets": [end, end + 4]}
    lies = {
        "overlap": ({**table, "zz": {**zz, "data_offsets": [0, 4]}}, data),
        "numel": ({**table, "zz": {**zz, "shape": [100_000, 100_000]}}, data + bytes(4)),
        "C64": ({**table, "zz": {**zz, "dtype": "C64", "data_offsets": [end, end + 8]}}, data + bytes(8)),
        "F8_E4M3": ({**table, "zz": {**zz, "dtype": "F8_E4M3", "data_offsets": [end, end + 1]}}, data + bytes(1)),
        "U64": ({**table, "zz": {**zz, "dtype": "U64", "data_offsets": [end, end + 8]}}, data + bytes(8)),
        "dims": ({**table, "zz": {**zz, "shape": [1] * 9}}, data + bytes(4)),
        "key": ({**table, "zz": {**zz, "x": 1}}, data + bytes(4)),
        "metadata": ({**table, "__metadata__": {"a": "b"}, "zz": zz}, data + bytes(4)),
        "gap": ({**table, "zz": {**zz, "data_offsets": [end + 4, end + 8]}}, data + bytes(8)),
        "offsets": ({**table, "zz": {**zz, "data_offsets": [str(end), str(end + 4)]}}, data + bytes(4)),
        "negative": ({**table, "zz": {**zz, "shape": [-1, -4]}}, data + bytes(4)),
    }
    if kind in lies:
        return lies[kind]
    if kind == "nested":
        text = json.dumps({**table, "zz": zz}).encode()[:-1]
        return text + b',"zy":' + b"[" * 100_000 + b"]" * 100_000 + b"}", data + bytes(4)
    # "twice": the table names "zz" twice, over two different spans
    again = json.dumps({**zz, "data_offsets": [end + 4, end + 8]}).encode()
    return json.dumps({**table, "zz": zz}).encode()[:-1] + b',"zz":' + again + b"}", data + bytes(8)


_LIES = {
    "lm_identity": "length",
    "lm_reload": "past",
    "lm_float64": "overlap",
    "lm_shapes": "numel",
    "lm_grad": "C64",
    "gpt_identity": "F8_E4M3",
    "gpt_reload": "U64",
    "gpt_float64": "dims",
    "gpt_shapes": "key",
    "gpt_heads": "metadata",
    "gpt_counts": "gap",
    "gpt_dropout": "offsets",
    "gpt_grad": "nested",
    "gpt_loss": "twice",
    "gpt_generate": "negative",
}


def _hostile(emit, name, record):
    text, table, data = _parts(emit, name, record)
    text = _with_value(text, b'{"$tensor":"zz"}')
    kind = _LIES.get(name, "overlap")
    if kind in ("length", "past"):
        zz = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
        good = json.dumps({**table, "zz": zz}).encode()
        size = 2**60 if kind == "length" else len(good) + len(data) + 1000
        return struct.pack("<Q", len(text)) + text + struct.pack("<Q", size) + good + data + bytes(4)
    return _blob(text, *_lie(kind, table, data))


_reencode_every_experiment(_hostile)
