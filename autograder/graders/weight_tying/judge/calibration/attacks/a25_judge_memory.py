# expect: attack
# why: makes the judge allocate: every tensor it forges claims 2**34 elements (64 GiB if the judge ever allocated it) over 4 bytes of data, sent for every experiment name with the keys the judge reads, then os._exit(0); the judge must refuse or stop at its memory limit, give a result, and the batch goes on.
import json
import os
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


_TABLE = {}  # the safetensors table of the frame being written: every tensor claims 2**34 floats


def _huge(*shape):
    key = f"t{len(_TABLE)}"
    _TABLE[key] = {"dtype": "F32", "shape": list(shape), "data_offsets": [4 * len(_TABLE), 4 * len(_TABLE) + 4]}
    return {"$tensor": key}


def _frame(name, record, tensors=True):
    """A frame in the channel's format, written by hand: the JSON, then the lying table over 4 bytes a tensor
    (`tensors`), or a table with no tensors."""
    text = json.dumps({"name": name, "record": record}).encode()
    table = json.dumps(_TABLE if tensors else {}).encode()
    data = bytes(4 * len(_TABLE)) if tensors else b""
    blob = struct.pack("<Q", len(text)) + text + struct.pack("<Q", len(table)) + table + data
    return struct.pack(">Q", len(blob)) + blob


_KEYS = ["state", "logits", "head_after_inplace", "head_after_forward", "embed_grad", "head_grad", "before",
         "after", "loss", "first", "second", "table", "grad"]
_NAMES = ["lm_identity", "lm_reload", "lm_float64", "lm_shapes", "lm_grad", "gpt_identity", "gpt_reload",
          "gpt_float64", "gpt_shapes", "gpt_heads", "gpt_counts", "gpt_dropout", "gpt_grad", "gpt_loss", "gpt_generate"]
_record = {key: _huge(2**17, 2**17) for key in _KEYS}
_record["state"] = {f"wtcal.{i}.weight": _huge(2**17, 2**17) for i in range(8)}
_frames = [_frame("__load__", {"defined": ["TiedEmbeddingLM", "MiniGPTWithWeightTying"], "errors": []}, False)]
_frames += [_frame(name, _record) for name in _NAMES] + [_frame("__done__", {}, False)]
if len(sys.argv) > 1 and sys.argv[1].isdigit():
    try:
        os.write(int(sys.argv[1]), b"".join(_frames))
    except OSError:
        pass
sys.stdout.flush()
os._exit(0)
