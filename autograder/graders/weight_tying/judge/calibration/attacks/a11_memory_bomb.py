# expect: attack
# why: first tries to lift its own limits (setrlimit to infinity), then allocates and touches memory in 128 MiB steps at import (bounded to 4 GiB in all, twice the default cap) and keeps it.
import resource

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


for _name in ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
    try:
        resource.setrlimit(getattr(resource, _name), (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print("lifted", _name, flush=True)
    except (ValueError, OSError):
        pass

_hoard = []
_step = 128 << 20
for _ in range(32):  # 32 x 128 MiB = 4 GiB at most
    _hoard.append(bytearray(b"\x01") * _step)  # written, so the pages are really used
print(f"holding {len(_hoard) * _step >> 20} MiB", flush=True)
