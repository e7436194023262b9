# expect: attack
# why: stub classes whose errors and output carry terminal escape sequences (ANSI colour and screen clear, an OSC 8 link, a window title, 8-bit CSI, a bell, a carriage return that overwrites the line, a bidi override): none may reach the instructor's terminal through the readable table, the "Run:" line or the batch table.
# %%
import sys

import torch
import torch.nn as nn

_ESC = ("\x1b[31;1mALL TESTS PASSED\x1b[0m \x1b]8;;https://wtcal.invalid/\x07click me\x1b]8;;\x07 "
        "\x1b]0;wtcal window title\x07 \x9b2J\x07 \rwtcal overwrote this line \u202ewtcal reversed")
print(_ESC)
print(_ESC, file=sys.stderr)


# Stub classes: wrong on purpose, so that any point this file earns is a grader defect.
class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.vocab_size = vocab_size

    def forward(self, input_ids):
        raise ValueError(_ESC)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.vocab_size = vocab_size

    def forward(self, input_ids):
        raise RuntimeError(_ESC)

    def loss(self, input_ids, targets=None):
        raise RuntimeError(_ESC)

    def generate(self, input_ids, max_new_tokens):
        raise RuntimeError(_ESC)


# %%
raise RuntimeError("while loading " + _ESC)  # a cell that raises: its message reaches the "Run:" line
