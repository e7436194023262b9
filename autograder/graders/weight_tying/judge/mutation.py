"""Trusted: what the mutation run of weight_tying mutates, and the mutants it shows to be equivalent.

Sources: the reference solution (every method), the by-parts calibration file (its `__init__`, where
every layer constructor of the contract is called: nn.Embedding, nn.Linear, nn.LayerNorm, nn.Dropout) and
the hand-written loss of c04 (slices, the target shapes, F.cross_entropy's keywords).

Left alone (a `Scope.skip`, with the reason): generate's mode bookkeeping. The contract defines generate
on a model in eval mode (the runner calls it so, and greedy decoding is only deterministic there); saving
and restoring `self.training` is a courtesy the contract does not grade.

An equivalence is claimed only with its argument and a mechanical check that the mutant has the shape the
argument needs; a mutant with full marks and no claim is reported as *survived*.
"""

from __future__ import annotations

import ast
import inspect

import torch

from autograder.graders.weight_tying.spec import SPEC
from autograder.mutants import Mutant, Scope
from autograder.mutation import Equivalence

__all__ = ["SOURCES", "EQUIVALENCES"]

_MODE = "mode bookkeeping around generate: the contract grades generate in eval mode only"
SOURCES = (
    (
        SPEC.solution_path,
        Scope(
            skip={
                "was_training = self.training": _MODE,
                "self.eval()": _MODE,
                "self.train(was_training)": _MODE,
                "block_size = self.minigpt.block_size": "an int read from the model: a change can only crash",
            }
        ),
    ),
    (
        SPEC.calibration_dir / "correct" / "c13_minigpt_by_parts.py",
        Scope(functions=("MiniGPTWithWeightTying.__init__",)),
    ),
    (SPEC.calibration_dir / "correct" / "c04_einsum_manual_loss.py", Scope(functions=("MiniGPTWithWeightTying.loss",))),
)


def _calls(text: str) -> list[ast.Call]:
    return [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)]


def _added_keyword(m: Mutant) -> tuple[str, str, str] | None:
    """(called name, keyword, value) when the mutant only adds one keyword argument to one call."""
    before, after = _calls(m.before), _calls(m.after)
    if len(before) != len(after):
        return None
    for b, a in zip(before, after, strict=True):
        if ast.dump(b) == ast.dump(a):
            continue
        added = {k.arg: ast.unparse(k.value) for k in a.keywords}.items() - {
            k.arg: ast.unparse(k.value) for k in b.keywords
        }.items()
        if len(added) != 1 or ast.dump(b.func) != ast.dump(a.func) or len(a.args) != len(b.args):
            return None
        name = ast.unparse(a.func)
        key, value = next(iter(added))
        return name, key, value
    return None


def _is_default(m: Mutant) -> bool:
    """The added keyword is the callee's own default (checked on the real signature)."""
    added = _added_keyword(m)
    if added is None:
        return False
    name, key, value = added
    callee = {"nn.Embedding": torch.nn.Embedding, "nn.Linear": torch.nn.Linear}.get(name)
    if callee is None:
        return False
    default = inspect.signature(callee).parameters[key].default
    return default is not inspect.Parameter.empty and repr(default) == value


def _cpu_device(m: Mutant) -> bool:
    added = _added_keyword(m)
    return added is not None and added[1:] == ("device", "'cpu'")


def _dropout_inplace_on_fresh_sum(m: Mutant) -> bool:
    added = _added_keyword(m)
    return added is not None and added[0] == "nn.Dropout" and added[1:] == ("inplace", "True")


EQUIVALENCES = (
    Equivalence(
        "device='cpu' on a constructor",
        "the grader runs on the CPU only, so every tensor is already created on the CPU: the argument changes "
        "nothing (checked: the mutant only adds device='cpu' to one call).",
        _cpu_device,
    ),
    Equivalence(
        "a keyword argument equal to its default",
        "the call receives exactly the arguments it had (checked on the constructor's real signature).",
        _is_default,
    ),
    Equivalence(
        "nn.Dropout(..., inplace=True) on the embedding sum",
        "MiniGPT feeds embed_dropout a fresh tensor (token + position vectors) that nothing else reads, and "
        "F.dropout draws the same mask in place as out of place; eval mode and p = 0 return the input "
        "untouched either way (checked: the mutant only adds inplace=True to the nn.Dropout call).",
        _dropout_inplace_on_fresh_sum,
    ),
)
