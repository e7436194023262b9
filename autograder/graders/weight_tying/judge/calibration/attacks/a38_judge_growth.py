# expect: attack
# why: grows the judge: stub classes whose inner MiniGPT is as large as the judge will rebuild from reported sizes (embed_dim 256, 8 layers, block_size 64), with another hidden_dim at every construction, so that every record names sizes the judge has not built yet; nothing it builds may outlive this submission's judgement, and the next student's mark must not change.
import itertools
import random

import torch
import torch.nn as nn
from dnnlpy.models.gpt import MiniGPT

_sizes = itertools.count(random.randrange(1024))  # other sizes on every run


class _Big(MiniGPT):
    def state_dict(self, *args, **kwargs):  # wrong on purpose: the judge's positional table never lands
        state = super().state_dict(*args, **kwargs)
        state["pos_embed.weight"] = state["pos_embed.weight"].clone()
        return state


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.vocab_size = vocab_size

    def forward(self, input_ids):
        return torch.zeros(*input_ids.shape, self.vocab_size)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.vocab_size = vocab_size
        self.minigpt = _Big(vocab_size, 64, embed_dim=256, num_layers=8, num_heads=num_heads,
                            hidden_dim=2048 - next(_sizes), dropout=0.0, weight_tying=True)

    def forward(self, input_ids):
        return torch.zeros(*input_ids.shape, self.vocab_size)

    def loss(self, input_ids, targets=None):
        return torch.zeros(())

    def generate(self, input_ids, max_new_tokens):
        raise NotImplementedError  # a stub: generation is now graded on a MiniGPT the judge can load
