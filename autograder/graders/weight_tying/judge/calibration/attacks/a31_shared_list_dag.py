# expect: attack
# why: correct classes, but every experiment record also carries a DAG of shared lists ([l, l] nested 60 deep: 1.7 KB pickled, 2**60 leaves once printed or walked): the grader must refuse shared or cyclic structures before anything walks them.
import io
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


def _dag(depth):
    value = ["wtcal"]
    for _ in range(depth):
        value = [value, value]
    return value


_reencode_every_experiment(lambda name, record: _saved(name, dict(record, zz_shared=_dag(60))))
