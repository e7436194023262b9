# expect: attack
# why: memory per process is not memory per submission: four children named "wtcal-mem", each under the per-process cap, allocate and touch 640 MiB each (2.5 GiB together, over the default 2 GiB), hold it up to 20 s, then exit; only a limit on the whole process tree stops them.
import ctypes
import os
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


_kids = []
for _ in range(4):
    _pid = os.fork()
    if _pid == 0:
        ctypes.CDLL(None).prctl(15, b"wtcal-mem", 0, 0, 0)
        _block = bytearray(640 * 2**20)
        for _i in range(0, len(_block), 4096):
            _block[_i] = 1
        time.sleep(20)
        os._exit(0)
    _kids.append(_pid)
for _pid in _kids:
    try:
        os.waitpid(_pid, 0)
    except OSError:
        pass
