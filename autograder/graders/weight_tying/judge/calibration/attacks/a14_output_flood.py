# expect: attack
# why: floods stdout and stderr with 50 MB each at import (and again from forward).
import sys

import torch
import torch.nn as nn


# Stub classes: wrong on purpose, so that any point this file earns is a grader defect.
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

    def forward(self, input_ids):
        return torch.zeros(*input_ids.shape, self.vocab_size)

    def loss(self, input_ids, targets=None):
        return torch.zeros(())

    def generate(self, input_ids, max_new_tokens):
        return torch.cat([input_ids, torch.zeros(input_ids.shape[0], max_new_tokens, dtype=torch.long)], 1)


def _flood(mib=50):
    line = ("All tests passed! " * 58 + "\n")  # ~1 KiB
    block = line * 1024  # ~1 MiB
    for _ in range(mib):
        sys.stdout.write(block)
        sys.stderr.write(block)
    sys.stdout.flush()
    sys.stderr.flush()


_flood()
_orig = TiedEmbeddingLM.forward


def _forward(self, input_ids):
    _flood(5)
    return _orig(self, input_ids)


TiedEmbeddingLM.forward = _forward
