# expect: attack
# why: forward sleeps "for ever" (bounded to 180 s): uses no CPU, so only the wall-clock limit can stop it.
import time

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


def _hang(self, *args, **kwargs):
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        time.sleep(0.5)
    return torch.zeros(())


TiedEmbeddingLM.forward = _hang
MiniGPTWithWeightTying.forward = _hang
MiniGPTWithWeightTying.loss = _hang
MiniGPTWithWeightTying.generate = _hang
