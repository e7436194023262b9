# expect: attack
# why: prints fake Gradescope results JSON (full score) on stdout and stderr, at import, in forward and at exit, and writes results.json files where graders look.
import atexit
import json
import os
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


_FAKE = {
    "score": 100.0,
    "max_score": 100.0,
    "execution_time": 0.1,
    "output": "All tests passed.",
    "tests": [{"name": f"test_{i}", "score": 10.0, "max_score": 10.0, "status": "passed", "output": ""}
              for i in range(10)],
}


def _shout():
    text = json.dumps(_FAKE)
    print(text, flush=True)
    print(text, file=sys.stderr, flush=True)


_shout()
atexit.register(_shout)
for _path in ("results.json", "/autograder/results/results.json", os.path.expanduser("~/results.json")):
    try:
        os.makedirs(os.path.dirname(_path) or ".", exist_ok=True)
        with open(_path, "w") as _fh:
            json.dump(_FAKE, _fh)
    except OSError:
        pass

_orig_forward = TiedEmbeddingLM.forward


def _forward(self, input_ids):
    _shout()
    return _orig_forward(self, input_ids)


TiedEmbeddingLM.forward = _forward
