"""Helpers for the students' local self-check (`pytest` in a released assignment folder).

They load a submission the way the grader does (a fresh namespace, cells top to bottom, test cells skipped)
and turn a wrong answer into a sentence that names the misconception, instead of a bare ``assert False``.
"""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any, Iterable

import torch
from torch import Tensor

from dnnlpy.notebook import NotebookNamespace, exec_source, load_notebook

__all__ = [
    "find_submission",
    "load_submission",
    "missing_names_message",
    "diagnose_tie",
    "diagnose_logits",
    "diagnose_generate",
]

_HOW_TO_TIE = "assign the Parameter itself: self.lm_head.weight = self.token_embed.weight"


def find_submission(folder: str | os.PathLike, *, default_name: str, env_var: str) -> Path:
    """The file to check: ``$env_var`` if set (a .ipynb or .py), else ``folder/default_name``."""
    override = os.environ.get(env_var, "").strip()
    path = Path(override).expanduser() if override else Path(folder) / default_name
    if not path.is_file():
        where = f"${env_var}={override!r}" if override else f"the default {str(path)!r}"
        raise FileNotFoundError(f"no submission at {where}: set {env_var}=path/to/your.ipynb (or .py)")
    if path.suffix not in (".ipynb", ".py"):
        raise ValueError(f"{str(path)!r} is neither a .ipynb nor a .py file: point {env_var} at your notebook")
    return path


def load_submission(path: str | os.PathLike, *, quiet: bool = True) -> NotebookNamespace:
    """Run a .ipynb or .py submission and return what it defined (plus the errors of failing cells).

    With ``quiet``, what the cells print is discarded: the self-check's report is about the checks.
    """
    path = Path(path)
    if path.suffix not in (".py", ".ipynb"):
        raise ValueError(f"cannot load {str(path)!r}: expected a .ipynb or .py file")
    # A notebook's plt.show() must not open a window (and block) on a desktop: draw off-screen.
    os.environ.setdefault("MPLBACKEND", "Agg")
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext(), \
            contextlib.redirect_stderr(sink) if quiet else contextlib.nullcontext():
        if path.suffix == ".py":
            return exec_source(path.read_text(encoding="utf-8"), str(path))
        return load_notebook(path)


def missing_names_message(result: NotebookNamespace, names: Iterable[str], source: str) -> str | None:
    """None if every name is defined, else what is missing and which cells raised."""
    missing = [name for name in names if name not in result.namespace]
    if not missing:
        return None
    lines = [f"{source} does not define {', '.join(missing)} after running all its cells."]
    if result.errors:
        lines.append("Cells that raised (cell numbers count from 0, markdown included):")
        lines += [f"  cell {index}: {message}" for index, message in result.errors]
    else:
        lines.append("No cell raised: check the class names (they must be spelt exactly like this).")
    return "\n".join(lines)


def diagnose_tie(embed_weight: Any, head_weight: Any) -> str | None:
    """None when the head's weight *is* the embedding's Parameter, else the misconception in words."""
    if head_weight is embed_weight:
        return None
    if not isinstance(head_weight, Tensor) or not isinstance(embed_weight, Tensor):
        return (f"lm_head.weight ({type(head_weight).__name__}) and token_embed.weight "
                f"({type(embed_weight).__name__}) must both be the one shared nn.Parameter: {_HOW_TO_TIE}")
    e_shape, h_shape = tuple(embed_weight.shape), tuple(head_weight.shape)
    if h_shape != e_shape:
        hint = (" (that is the embedding transposed: a Linear(D, V) already stores its weight as (V, D))"
                if h_shape == e_shape[::-1] else "")
        return f"lm_head.weight has shape {h_shape} but token_embed.weight has {e_shape}{hint}: {_HOW_TO_TIE}"
    if head_weight.data_ptr() == embed_weight.data_ptr():
        return ("`.data` sharing: lm_head.weight and token_embed.weight share memory but are two different "
                "Parameters (e.g. nn.Parameter(token_embed.weight.data)). Their gradients go to two separate "
                ".grad tensors instead of adding up, an optimizer counts the table twice, and the tie breaks "
                f"on .to(...) or load_state_dict. Instead, {_HOW_TO_TIE}")
    if torch.equal(head_weight.detach(), embed_weight.detach()):
        return ("copied table: lm_head.weight holds a copy of token_embed.weight (same values, separate memory, "
                "e.g. .clone() or copy_()). The two copies drift apart after the first optimizer step. "
                f"Instead, {_HOW_TO_TIE}")
    return f"not tied: lm_head.weight and token_embed.weight are two independent tables. {_HOW_TO_TIE}"


def _close(a: Tensor, b: Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-4, atol=1e-5)


def diagnose_logits(output: Any, expected: Tensor, *, what: str = "forward",
                    expected_desc: str = "token_embed(input_ids) @ W.T") -> str | None:
    """Compare a model's output with the expected logits (B, T, V); name the usual mistakes."""
    if not isinstance(output, Tensor):
        return f"{what} must return a tensor of logits, got {type(output).__name__}"
    output = output.detach()
    b, t, v = expected.shape
    shape = tuple(output.shape)
    if shape != (b, t, v):
        if shape == (b, t):
            return f"{what} returns token ids (an argmax?) of shape {shape}; it must return logits (B, T, V) = {(b, t, v)}"
        if len(shape) == 3 and shape[:2] == (b, t):
            return (f"{what} returns shape {shape}, not (B, T, V) = {(b, t, v)}: "
                    "are those embeddings that never went through the LM head?")
        if shape == (b * t, v):
            return f"{what} returns flattened logits {shape}: keep the (B, T, V) = {(b, t, v)} shape"
        return f"{what} must return logits of shape (B, T, V) = {(b, t, v)}, got {shape}"
    if not output.is_floating_point():
        return f"{what} must return floating-point logits, got dtype {output.dtype}"
    output, expected = output.to(expected.dtype), expected.detach()
    if _close(output, expected):
        return None
    if _close(output, expected.softmax(dim=-1)) or _close(output.sum(dim=-1), torch.ones(b, t, dtype=output.dtype)):
        return (f"{what} returns probabilities (softmax applied), not logits. Return the raw scores: "
                "cross-entropy applies log-softmax itself, and argmax does not need it")
    if _close(output, expected.log_softmax(dim=-1)):
        return f"{what} returns log-probabilities (log_softmax), not logits: return the raw scores"
    offset = output - expected  # the same vector added at every position looks like a bias
    if _close(offset, offset[:1, :1].expand_as(offset)):
        return f"{what} adds a bias to the logits: the tied head has none (dnn.Linear(..., bias=False))"
    gap = (output - expected).abs().max().item()
    return (f"{what}'s logits differ from {expected_desc} (max difference {gap:.3g}): apply the lookup, "
            "then the tied head, and nothing else (no positional embedding, scaling or extra layers)")


def diagnose_generate(output: Any, prompt: Tensor, expected: Tensor, *, again: Any = None) -> str | None:
    """Compare generate's output with the expected greedy continuation (prompt included)."""
    if not isinstance(output, Tensor):
        return f"generate must return a tensor of token ids, got {type(output).__name__}"
    b, t = prompt.shape
    n_new = expected.shape[1] - t
    if output.dtype != torch.int64:
        return f"generate must return int64 token ids, got dtype {output.dtype} (logits or probabilities?)"
    if tuple(output.shape) == (b, n_new) and n_new != t:
        return f"generate returns only the {n_new} new tokens: return the prompt followed by them, {tuple(expected.shape)}"
    if tuple(output.shape) != tuple(expected.shape):
        return (f"generate must return (B, T + max_new_tokens) = {tuple(expected.shape)}, got {tuple(output.shape)}: "
                "one new token per step, appended to the prompt")
    if not torch.equal(output[:, :t], prompt):
        return "the output must start with the prompt, unchanged"
    if isinstance(again, Tensor) and again.shape == output.shape and not torch.equal(again, output):
        return "generate gives different tokens on two calls: greedy decoding takes the argmax, it does not sample"
    if not torch.equal(output, expected):
        where = (output != expected).nonzero()[0].tolist()
        return (f"generate differs from greedy decoding at row {where[0]}, position {where[1]}: each step must run "
                "the model on the last block_size tokens and append the argmax of the LAST position's logits")
    return None
