# expect: attack
# why: stub classes, and the runner's __load__ record replaced by a malformed one (a 3-item error entry, a bare string, `defined: 5`, an error message that is a list): the grader must read the runner's word whatever its shape and still give a result, never a grader error.
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


def _find_local(name):
    frame = sys._getframe(1)
    while frame is not None:
        if name in frame.f_locals:
            return frame.f_locals[name]
        frame = frame.f_back
    return None


_MALFORMED = {
    "errors": [[0, "SyntaxError: x", "a third item"], "a bare string", [1, ["a", "list"]], [True, "bool index"]],
    "defined": 5,
}
_emit = _find_local("emit")
if _emit is not None:
    _original = type(_emit).__call__

    def _call(self, name, record):
        if name == "__load__":
            record = _MALFORMED
        elif name != "__done__":
            record = {"error": [["not", "a", "string"] for _ in range(50)]}  # an experiment error that is not text
        return _original(self, name, record)

    type(_emit).__call__ = _call
