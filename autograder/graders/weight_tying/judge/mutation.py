"""Trusted: what the mutation run of weight_tying mutates, and the mutants it shows to be equivalent.

Sources: the reference solution (every method), the by-parts calibration file (its `__init__`, where
every layer constructor of the contract is called: nn.Embedding, nn.Linear, nn.LayerNorm, nn.Dropout) and
the hand-written loss of c04 (slices, the target shapes, F.cross_entropy's keywords).

Left alone (a `Scope.skip`, with the reason): generate's mode bookkeeping (the contract defines generate
on a model in eval mode: the runner calls it so, and greedy decoding is only deterministic there; saving
and restoring `self.training` is a courtesy it does not grade), and c04's error branch for target shapes
outside the contract.

An equivalence is claimed only with its argument (`proof`) and a mechanical check that the mutant has the
shape the argument needs (`applies`); a mutant with full marks and no claim is reported as *survived*.
"""

from __future__ import annotations

import ast
import inspect

import torch
import torch.nn.functional as F

import dnnlpy.nn as dnn
from autograder.graders.weight_tying.spec import SPEC
from autograder.qa.mutants import Mutant, Scope
from autograder.qa.mutation_score import Equivalence
from dnnlpy.models import gpt

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
    (
        SPEC.calibration_dir / "correct" / "c04_einsum_manual_loss.py",
        Scope(
            functions=("MiniGPTWithWeightTying.loss",),
            skip={"raise ValueError(": "the error branch: the contract gives loss() only its three target forms"},
        ),
    ),
)
# The callables the sources construct or call, by the name they are written with.
_CALLEES = {
    "nn.Embedding": torch.nn.Embedding,
    "nn.Linear": torch.nn.Linear,
    "dnn.Linear": dnn.Linear,
    "nn.LayerNorm": torch.nn.LayerNorm,
    "nn.Dropout": torch.nn.Dropout,
    "gpt.MiniGPT": gpt.MiniGPT,
    "F.cross_entropy": F.cross_entropy,
}


def _parse(text: str) -> ast.Module:
    """One statement as written in a Mutant (a compound statement's first line gets an empty body)."""
    return ast.parse(text + " pass" if text.rstrip().endswith(":") else text)


def _stmt(text: str) -> ast.stmt:
    return _parse(text).body[0]


def _calls(text: str) -> list[ast.Call]:
    return [n for n in ast.walk(_parse(text)) if isinstance(n, ast.Call)]


def _changed_call(m: Mutant) -> tuple[ast.Call, ast.Call] | None:
    """(before, after) of the one call the mutant changes, when it changes exactly one call's arguments."""
    before, after = _calls(m.before), _calls(m.after)
    if len(before) != len(after):
        return None
    changed = [(b, a) for b, a in zip(before, after, strict=True) if ast.dump(b) != ast.dump(a)]
    if not changed:
        return None
    b, a = changed[0]  # the outermost changed call (ast.walk is breadth-first)
    return (b, a) if ast.dump(b.func) == ast.dump(a.func) else None


def _bound(call: ast.Call, callee) -> dict[str, str] | None:
    """{parameter: source of its value, defaults included} for `call` on `callee`'s real signature."""
    sig = inspect.signature(callee)
    try:
        args = sig.bind(*[ast.unparse(a) for a in call.args], **{k.arg: ast.unparse(k.value) for k in call.keywords})
    except TypeError:
        return None
    out = {name: repr(p.default) for name, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
    out.update(args.arguments)
    return out


def _same_arguments(m: Mutant) -> bool:
    """The changed call binds exactly the arguments it had (a keyword added or dropped at its default)."""
    pair = _changed_call(m)
    callee = _CALLEES.get(ast.unparse(pair[0].func)) if pair else None
    if callee is None:
        return False
    before, after = _bound(pair[0], callee), _bound(pair[1], callee)
    return before is not None and before == after


def _added(m: Mutant) -> dict[str, str]:
    pair = _changed_call(m)
    if pair is None or len(pair[1].args) != len(pair[0].args):
        return {}
    b = {k.arg: ast.unparse(k.value) for k in pair[0].keywords}
    return {k.arg: ast.unparse(k.value) for k in pair[1].keywords if b.get(k.arg) != ast.unparse(k.value)}


def _cpu_device(m: Mutant) -> bool:
    return _added(m) == {"device": "'cpu'"}


def _function_of(m: Mutant) -> ast.FunctionDef:
    """The mutated function, in the mutant's own code."""
    cls_name, _, fn_name = m.function.partition(".")
    cls = next(c for c in ast.parse(m.code).body if isinstance(c, ast.ClassDef) and c.name == cls_name)
    return next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == fn_name)


def _wrapped_in(m: Mutant, method: str) -> bool:
    """The mutant wraps a whole assigned (to a plain name) or returned value in `.method()`."""
    after, before = _stmt(m.after), _stmt(m.before)
    if not isinstance(after, (ast.Assign, ast.Return)) or type(after) is not type(before):
        return False
    if isinstance(after, ast.Assign) and not all(isinstance(t, ast.Name) for t in after.targets):
        return False
    value = after.value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == method
        and not value.args
        and ast.dump(value.func.value) == ast.dump(before.value)
    )


def _no_in_place_writes(m: Mutant) -> bool:
    """No method ending in `_` (torch's in-place convention) and no item assignment in the function."""
    fn = _function_of(m)
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_"):
            if not node.func.attr.startswith("__"):
                return False
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets):
            return False
    return True


def _clone_of_a_read_value(m: Mutant) -> bool:
    return _wrapped_in(m, "clone") and _no_in_place_writes(m)


def _detach_under_no_grad(m: Mutant) -> bool:
    fn = _function_of(m)
    no_grad = any(
        ast.unparse(d) in ("torch.no_grad()", "torch.no_grad", "torch.inference_mode()") for d in fn.decorator_list
    )
    return no_grad and _wrapped_in(m, "detach") and _no_in_place_writes(m)


def _name_used_only_by_argmax(fn: ast.FunctionDef, name: str) -> bool:
    parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            up = parents.get(id(node))
            while isinstance(up, ast.Subscript):  # logits[:, -1, :]
                up = parents.get(id(up))
            if not (isinstance(up, ast.Attribute) and up.attr == "argmax"):
                return False
    return True


def _float64_before_argmax(m: Mutant) -> bool:
    after = _stmt(m.after)
    return (
        _wrapped_in(m, "double")
        and isinstance(after, ast.Assign)
        and _name_used_only_by_argmax(_function_of(m), after.targets[0].id)
    )


def _argmax_axis_alias(m: Mutant) -> bool:
    """argmax over dim 1 instead of -1 on x[:, k, :] taken from a 3-D tensor: a 2-D tensor, the same axis."""
    pair = _changed_call(m)
    if pair is None or not isinstance(pair[1].func, ast.Attribute) or pair[1].func.attr != "argmax":
        return False
    dims = (
        {k.arg: ast.unparse(k.value) for k in pair[0].keywords},
        {k.arg: ast.unparse(k.value) for k in pair[1].keywords},
    )
    receiver = pair[1].func.value
    picks_one = (
        isinstance(receiver, ast.Subscript)
        and isinstance(receiver.slice, ast.Tuple)
        and len(receiver.slice.elts) == 3
        and not isinstance(receiver.slice.elts[1], ast.Slice)
    )
    return picks_one and {dims[0].get("dim"), dims[1].get("dim")} == {"-1", "1"}


def _head_weight_replaced(m: Mutant) -> bool:
    """A bias-free Linear head whose own weight the function replaces by the shared table right after: its
    sizes and dtype only ever shaped the weight that is thrown away (forward reads .weight and .bias only)."""
    pair = _changed_call(m)
    if pair is None or ast.unparse(pair[1].func) not in ("nn.Linear", "dnn.Linear"):
        return False
    if len(pair[0].args) != len(pair[1].args):  # a dropped size does not even build
        return False
    after = _stmt(m.after)
    if not isinstance(after, ast.Assign) or len(after.targets) != 1:
        return False
    if {k.arg: ast.unparse(k.value) for k in pair[1].keywords}.get("bias") != "False":
        return False
    head = ast.unparse(after.targets[0])
    fn = _function_of(m)
    ties = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == f"{head}.weight"]
    reads = [inspect.getsource(cls.forward) for cls in (torch.nn.Linear, dnn.Linear)]
    return bool(ties) and all("in_features" not in src and "out_features" not in src for src in reads)


def _sparse_lookup_of_a_tied_table() -> bool:
    """torch's accumulation rule, checked: a sparse lookup gradient plus a dense head gradient is a dense .grad
    equal to the dense lookup's."""
    grads = []
    for sparse in (False, True):
        torch.manual_seed(0)
        embed = torch.nn.Embedding(6, 3, sparse=sparse)
        head = torch.nn.Linear(3, 6, bias=False)
        head.weight = embed.weight
        ids = torch.tensor([[0, 5, 5, 2]])
        (head(embed(ids)) * torch.randn(1, 4, 6, generator=torch.Generator().manual_seed(1))).sum().backward()
        grads.append(embed.weight.grad)
    return not grads[1].is_sparse and torch.allclose(grads[0], grads[1])


def _sparse_tied(m: Mutant) -> bool:
    if _added(m) != {"sparse": "True"}:
        return False
    target = ast.unparse(_stmt(m.after).targets[0])
    fn = _function_of(m)
    tied = any(
        isinstance(n, ast.Assign)
        and ast.unparse(n.value) == f"{target}.weight"
        and ast.unparse(n.targets[0]).endswith(".weight")
        for n in ast.walk(fn)
    )
    return tied and _sparse_lookup_of_a_tied_table()


def _flag_of_replaced_ends(m: Mutant) -> bool:
    """c13: the weight_tying flag of a MiniGPT whose token embedding and head are both replaced afterwards."""
    pair = _changed_call(m)
    if pair is None or ast.unparse(pair[1].func) != "gpt.MiniGPT":
        return False
    before, after = _bound(pair[0], gpt.MiniGPT), _bound(pair[1], gpt.MiniGPT)
    if before is None or after is None or {k for k in before if before[k] != after.get(k)} != {"weight_tying"}:
        return False
    assigned = {ast.unparse(n.targets[0]) for n in ast.walk(_function_of(m)) if isinstance(n, ast.Assign)}
    return {"m.token_embed", "m.lm_head", "m.lm_head.weight"} <= assigned


def _dropout_inplace_on_fresh_sum(m: Mutant) -> bool:
    pair = _changed_call(m)
    return pair is not None and ast.unparse(pair[1].func) == "nn.Dropout" and _added(m) == {"inplace": "True"}


EQUIVALENCES = (
    Equivalence(
        "device='cpu' on a constructor",
        "the grader (and the contract) run on the CPU only, so every tensor is created on the CPU anyway "
        "(checked: the mutant only adds device='cpu' to one call).",
        _cpu_device,
    ),
    Equivalence(
        "a keyword argument at its default",
        "the call receives exactly the arguments it had (checked by binding both calls on the callee's real "
        "signature, defaults applied).",
        _same_arguments,
    ),
    Equivalence(
        ".clone() of a value that is only read",
        "clone() returns a new tensor with the same values and autograd passes its gradient through unchanged; "
        "only storage identity differs, which matters for an in-place write or a Parameter (checked: the clone "
        "wraps a value assigned to a plain name or returned, and the function writes nothing in place).",
        _clone_of_a_read_value,
    ),
    Equivalence(
        ".detach() under torch.no_grad()",
        "inside a @torch.no_grad() function no tensor carries a graph, so detach() returns the same values "
        "(checked: the function is decorated with torch.no_grad, the detach wraps a value assigned to a plain "
        "name or returned, and the function writes nothing in place).",
        _detach_under_no_grad,
    ),
    Equivalence(
        "float64 logits before an argmax",
        "float32 -> float64 is exact and monotone, so the argmax picks the same token (checked: the converted "
        "logits are used only through .argmax).",
        _float64_before_argmax,
    ),
    Equivalence(
        "argmax over dim 1 of a (B, V) slice",
        "x[:, k, :] of the (B, T, V) logits is (B, V): dims 1 and -1 are the same axis (checked: the argmax "
        "receiver indexes three axes and picks one position).",
        _argmax_axis_alias,
    ),
    Equivalence(
        "the sizes or dtype of a head Linear whose weight is replaced",
        "the next statements replace the head's weight by the shared table, and Linear.forward reads only "
        ".weight and .bias (no bias here), never in_features / out_features (checked on the forward's source).",
        _head_weight_replaced,
    ),
    Equivalence(
        "nn.Embedding(..., sparse=True) with a tied table",
        "the lookup path's gradient is sparse, the head path's dense: autograd accumulates the two into one "
        "dense .grad with the values of the dense lookup (checked on torch itself with a tied toy model, and "
        "that the mutated source ties this embedding's weight to a head).",
        _sparse_tied,
    ),
    Equivalence(
        "MiniGPT's weight_tying flag when both ends are replaced",
        "c13 replaces the token embedding and the head after building MiniGPT and ties the new pair itself, "
        "so the flag MiniGPT was built with never reaches the model (checked: the function assigns "
        "m.token_embed, m.lm_head and m.lm_head.weight).",
        _flag_of_replaced_ends,
    ),
    Equivalence(
        "nn.Dropout(..., inplace=True) on the embedding sum",
        "MiniGPT feeds embed_dropout a fresh tensor (token + position vectors) that nothing else reads, and "
        "dropout in place equals dropout out of place on it; eval mode and p = 0 return the input untouched "
        "(checked: the mutant only adds inplace=True to the nn.Dropout call).",
        _dropout_inplace_on_fresh_sum,
    ),
)
