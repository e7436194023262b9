# expect: attack
# why: walks /proc/self/mountinfo and reads every folder bound into its sandbox that is neither the system, the interpreter nor the kit's runner allow-list (the grader's working folder, a course folder, PYTHONPATH, classmates' hand-ins), and lists the kit's root for anything beyond it; prints what it read and raises with it, so that it would reach the feedback.
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


def _inside(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _expected():
    """What the sandbox is meant to show: the system, the interpreter, and of the kit its runner's packages."""
    system = ["/proc", "/dev", "/sys", "/usr", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin"]
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    python |= {os.path.realpath(p) for p in python}
    kit = None
    runner = sys.modules.get("autograder.runner")
    if runner is not None and getattr(runner, "__file__", None):
        kit = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(runner.__file__))))
    allowed = []
    if kit:  # the runner's own packages, dnnlpy, the venv, a grader's runner/ and its parents' __init__.py
        allowed = [kit + "/.venv", kit + "/dnnlpy", kit + "/coursecheck", kit + "/autograder/runner", kit + "/autograder/protocol"]
        allowed += [kit + "/autograder/__init__.py", kit + "/autograder/graders/__init__.py"]
    return system, sorted(python), kit, allowed


def _read_folder(folder, budget):
    """Up to `budget` files under `folder`: their names and first bytes (empty when nothing is readable)."""
    read = []
    for here, _dirs, files in os.walk(folder):
        for name in files:
            if len(read) >= budget:
                return read
            path = os.path.join(here, name)
            try:
                with open(path, "rb") as fh:
                    head = fh.read(200)
            except OSError:
                continue
            read.append(f"{path}: {head[:80]!r}")
    return read


def _walk():
    system, python, kit, allowed = _expected()
    leaks = []
    mounts = []
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) > 4:
                mounts.append(fields[4].replace("\\040", " "))
    for mount in mounts:
        if mount == "/" or any(_inside(mount, s) for s in system + python):
            continue
        if kit and (mount == kit or any(_inside(mount, a) for a in allowed)):
            continue
        if kit and _inside(mount, kit + "/autograder/graders"):
            parts = mount[len(kit) + 1:].split("/")  # autograder/graders/<name>/{__init__.py,runner}
            if len(parts) >= 4 and parts[3] in ("__init__.py", "runner"):
                continue
        if os.path.isdir(mount):
            leaks += [f"mount {mount}: {entry}" for entry in _read_folder(mount, 20)]
        else:
            try:
                with open(mount, "rb") as fh:
                    head = fh.read(80)
            except OSError:
                continue
            if head:
                leaks.append(f"mount {mount}: {head!r}")
    if kit:
        try:
            extra = sorted(set(os.listdir(kit)) - {".venv", "autograder", "coursecheck", "dnnlpy"})
        except OSError:
            extra = []
        leaks += [f"kit root shows {name}" for name in extra]
    return mounts, leaks


_mounts, _leaks = _walk()
print("WTCAL mounts:", len(_mounts), "read outside the allow-list:", len(_leaks))
if _leaks:
    print("WTCAL_LEAK_OK", _leaks[:40])
    raise RuntimeError("WTCAL_LEAK_OK " + "; ".join(_leaks)[:1500])
