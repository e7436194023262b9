# expect: attack
# why: a setsid daemon (double fork, new session, inherited fds closed) named "wtcal-daemon" that outlives the run for up to 60 s, trying every second to write a marker into /tmp and into the kit.
import os
import sys
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


def _kit_root():
    import dnnlpy

    return os.path.dirname(os.path.dirname(os.path.abspath(dnnlpy.__file__)))


def _daemon(kit):
    try:
        with open("/proc/self/comm", "w") as fh:
            fh.write("wtcal-daemon")
    except OSError:
        pass
    os.closerange(0, 1024)  # let the grader see EOF on every pipe, as a stealthy daemon would
    targets = ["/tmp/wtcal_daemon_alive.txt", os.path.join(kit, "wtcal_daemon_was_here.txt")]
    for _ in range(60):
        time.sleep(1)
        for path in targets:
            try:
                with open(path, "a") as fh:
                    fh.write(f"{time.time()}\n")
            except OSError:
                pass
    os._exit(0)


_kit = _kit_root()
try:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            _daemon(_kit)
        os._exit(0)
except OSError:
    pass
time.sleep(0.2)
