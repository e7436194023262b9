# expect: attack
# why: tries to tamper with the kit so later submissions pass: appends to the hidden suite, the solution, the judge, dnnlpy and the notebook reader (coursecheck), drops a new test file into the suite and a .pth file into site-packages (harmless content; the calibration test checks by hash that nothing changed).
import os
import site
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


def _kit_root():
    import dnnlpy

    return os.path.dirname(os.path.dirname(os.path.abspath(dnnlpy.__file__)))


_kit = _kit_root()
_grader = os.path.join(_kit, "autograder", "graders", "weight_tying")
_suite = os.path.join(_grader, "judge", "suite")
try:
    _names = os.listdir(_suite)
except OSError:  # hidden from us: guess the names instead
    _names = ["test_identity.py", "test_shapes.py", "test_counts.py", "test_gradients.py", "test_generation.py",
              "conftest.py"]
_appends = [os.path.join(_suite, name) for name in _names if name.endswith(".py")]
_appends += [os.path.join(_kit, "solutions", "weight_tying.py"),
             os.path.join(_kit, "autograder", "judge", "plugin.py"),
             os.path.join(_kit, "autograder", "engine.py"),
             os.path.join(_grader, "judge", "reference.py"),
             os.path.join(_grader, "runner", "experiments.py"),
             os.path.join(_kit, "dnnlpy", "models", "gpt.py"),
             os.path.join(_kit, "coursecheck", "notebook.py")]
_done = []
for _path in _appends:
    try:
        with open(_path, "a") as _fh:
            _fh.write("\n# wtcal-tamper\n")
        _done.append(_path)
    except OSError:
        pass
_creates = [(os.path.join(_suite, "test_wtcal_tamper.py"), "def test_wtcal_tamper():\n    pass\n")]
for _dir in site.getsitepackages() + [os.path.dirname(os.__file__)]:
    _creates.append((os.path.join(_dir, "wtcal_tamper.pth"), "# wtcal-tamper\n"))
for _path, _text in _creates:
    try:
        with open(_path, "x") as _fh:
            _fh.write(_text)
        _done.append(_path)
    except OSError:
        pass
print("tampered with:", _done, flush=True)
