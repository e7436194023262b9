# expect: attack
# why: correct classes, but each experiment record also carries one value plain evidence never holds: nesting 500 deep, a 5000-digit int, a 64 KiB string, one 8000-char string referenced 300 times, tuple and float dict keys, sparse, quantized, meta, complex, nested tensors, an nn.Parameter, a set, bytes, a 9-dimensional tensor. Any experiment whose value is let through earns its points.
import io
import os
import struct
import sys
import warnings

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


def _saved(name, record):
    buf = io.BytesIO()
    torch.save({"name": name, "record": record}, buf)
    return buf.getvalue()


def _reencode_every_experiment(hostile):
    """Patch the runner's frame writer: every experiment's frame becomes hostile(name, record) (bytes)."""
    emit = _find_local("emit")
    if emit is None:
        return
    original = type(emit).__call__

    def call(self, name, record):
        if name.startswith("__"):  # the run's own records (__load__, __done__) go out as they are
            return original(self, name, record)
        _write(self.fd, hostile(name, record))

    type(emit).__call__ = call


def _deep(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def _odd_tensor(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quantized and nested tensors are prototypes: they warn
        if kind == "quantized":
            return torch.quantize_per_tensor(torch.ones(4), 0.1, 0, torch.qint8)
        if kind == "nested":
            return torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    return {
        "sparse": lambda: torch.ones(2, 2).to_sparse(),
        "meta": lambda: torch.ones(3, device="meta"),
        "complex": lambda: torch.ones(2, dtype=torch.complex64),
        "parameter": lambda: nn.Parameter(torch.ones(2)),
        "nine_dims": lambda: torch.zeros([1] * 9),
    }[kind]()


_SHARED_TEXT = "wtcal" * 1600  # 8000 characters, one object: the pickle refers to it 300 times
_HOSTILE = {
    "lm_identity": lambda: _deep(500),
    "lm_reload": lambda: 10**5000,
    "lm_float64": lambda: "w" * 65536,
    "lm_shapes": lambda: [_SHARED_TEXT] * 300,
    "lm_grad": lambda: {(1, 2): "a tuple key"},
    "gpt_identity": lambda: {1.5: "a float key"},
    "gpt_reload": lambda: _odd_tensor("sparse"),
    "gpt_float64": lambda: _odd_tensor("quantized"),
    "gpt_shapes": lambda: _odd_tensor("complex"),
    "gpt_heads": lambda: _odd_tensor("parameter"),
    "gpt_counts": lambda: _odd_tensor("meta"),
    "gpt_dropout": lambda: _odd_tensor("nested"),
    "gpt_grad": lambda: {1, 2, 3},
    "gpt_loss": lambda: b"wtcal bytes",
    "gpt_generate": lambda: _odd_tensor("nine_dims"),
}


def _hostile(name, record):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))  # torch.save walks the 500-deep list
    make = _HOSTILE.get(name)
    return _saved(name, record if make is None else dict(record, zz_hostile=make()))


_reencode_every_experiment(_hostile)
