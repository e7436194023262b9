"""Trusted and public: name the misconception behind a wrong weight_tying value, in one place.

Used by the hidden suite (on evidence), by the students' self-check and by the notebook's visible test cells
(on live objects); ``scripts/build_notebook.py`` copies this file into the release. Every function returns None
when the value is right, else a message as a value (``Said``: a catalog id of messages.py and its
parameters) that names the misconception (the catalog's ``NAMES``) and the notebook section to reread; no
message prints the line of code that fixes it. The hidden suite keeps it as a value (the pages render it in
the reader's language); the self-check renders it at once (``render``). Imports torch only.
"""

from __future__ import annotations

import torch
from torch import Tensor

from autograder.protocol.said import Said, Text, render, verbatim

from . import messages  # noqa: F401 - registers the catalog every message below comes from

__all__ = [
    "SECTIONS",
    "reread",
    "see",
    "TOL",
    "TOL64",
    "GRAD_TOL",
    "SCALE_TOL",
    "grad_tol",
    "close",
    "tie_problem",
    "logits_problem",
    "logits_follow_table",
    "gradient_problem",
    "lookup_problem",
    "generated_ids_problem",
    "greedy_problem",
    "shape_mismatch",
]

TOL = {"rtol": 1e-4, "atol": 1e-5}  # float32 logits and losses of differently written (correct) code
TOL64 = {"rtol": 1e-7, "atol": 1e-9}  # the same in float64
GRAD_TOL = {"rtol": 1e-4, "atol": 1e-6}  # gradients and one SGD step (plus SCALE_TOL of their largest entry)
# float32 sums of many terms differ, between correct implementations, by ~1e-7 of the largest term: an
# absolute tolerance of this much times the largest expected entry keeps them apart from real mistakes.
SCALE_TOL = 1e-5
_RATIO_TOL = {"rtol": 1e-3, "atol": 1e-6}  # recognising "twice" / "half" / "one path" of a gradient

# The notebook's sections (assignments/source/weight_tying/weight_tying.ipynb, "## N. title"), by number.
# A test keeps them in step with the notebook's headings.
SECTIONS = {n: render(Said(f"section.{n}")) for n in (2, 4, 5, 6, 7, 8, 9)}


def _sections(numbers: tuple[int, ...]) -> Said:
    sections = Said("diag.reread.section", number=numbers[0], heading=Said(f"section.{numbers[0]}"))
    for n in numbers[1:]:
        sections = (
            sections + Said("diag.reread.and") + Said("diag.reread.section", number=n, heading=Said(f"section.{n}"))
        )
    return sections


def reread(*numbers: int) -> Said:
    """' (reread section 7, "Gradients from both ends add up")': where the notebook explains the point."""
    return Said("diag.reread", sections=_sections(numbers))


def see(*numbers: int) -> Said:
    """' (the task is in section 6, "Exercise 1: ...")': where the notebook sets the task, for code not written
    yet (the starter code is no mistake: there is nothing to reread)."""
    return Said("diag.see", sections=_sections(numbers))


def grad_tol(expected: Tensor) -> dict:
    """GRAD_TOL, with the absolute part grown by SCALE_TOL times the largest entry of `expected`."""
    scale = float(expected.detach().abs().max()) if expected.numel() else 0.0
    return {"rtol": GRAD_TOL["rtol"], "atol": GRAD_TOL["atol"] + SCALE_TOL * scale}


def close(actual: Tensor, expected: Tensor, *, rtol: float = TOL["rtol"], atol: float = TOL["atol"]) -> bool:
    """allclose in float64, False when the shapes differ."""
    if tuple(actual.shape) != tuple(expected.shape):
        return False
    return bool(torch.allclose(actual.double(), expected.double(), rtol=rtol, atol=atol))


def tie_problem(
    *,
    head_shape: tuple[int, ...],
    table_shape: tuple[int, ...],
    follows: bool,
    same_object: bool,
    same_storage: bool,
    follows_after_forward: bool = False,
    equal_values: bool = False,
    pos_shape: tuple[int, ...] | None = None,
    flag_off: bool = False,
) -> Said | None:
    """None when the head behaves as tied; otherwise the misconception behind it.

    `follows`: an in-place change of token_embed.weight shows in lm_head.weight (before any forward call);
    `same_object`: lm_head.weight is token_embed.weight; `same_storage`: they start at one address;
    `follows_after_forward`: the head shows the table only after a forward call; `equal_values`: the two
    hold equal values now; `pos_shape`: the positional table's shape, when there is one; `flag_off`: the head
    belongs to a dnnlpy MiniGPT built with weight_tying=False (or without the flag, which is the same).
    """

    def say(key: str, section: int, **params) -> Said:
        return Said(f"diag.tie.{key}", **params) + reread(section)

    if follows and same_object:
        return None
    if follows and same_storage:
        return say("data_sharing", 6)
    if follows:
        return say("not_same_object", 6)
    if pos_shape is not None and tuple(head_shape) == tuple(pos_shape) != tuple(table_shape):
        return say("positional", 4)
    if tuple(head_shape) != tuple(table_shape):
        return say("shape", 6, got=tuple(head_shape), want=tuple(table_shape))
    if flag_off and not follows_after_forward:
        return say("flag_off", 9)
    if follows_after_forward:
        return say("after_forward", 6)
    if equal_values:
        return say("copied", 6)
    return say("untied", 6)


def logits_problem(
    logits: object, expected: Tensor, *, block_size: int | None = None, tol: dict | None = None
) -> Said | None:
    """None when `logits` equals `expected` (B, T, V) within `tol`; else the mistake it looks like."""

    def say(key: str, section: int | None, **params) -> Said:
        text = Said(f"diag.logits.{key}", **params)
        return text + reread(section) if section else text

    tol = tol or TOL
    if not isinstance(logits, Tensor):
        return say("not_tensor", None, kind=type(logits).__name__)
    logits = logits.detach()
    got, want = tuple(logits.shape), tuple(expected.shape)
    if got != want:
        b, t, v = want
        if block_size is not None and len(got) == 3 and got[-1] == block_size != v:
            return say("scores_positions", 4, got=got, want=want)
        if got == (b, t):
            return say("ids", 5, got=got, want=want)
        if got == (b * t, v):
            return say("flat", 6, got=got, want=want)
        return say("shape", 6, got=got, want=want)
    if not logits.is_floating_point():
        return say("dtype", 5, dtype=logits.dtype)
    if close(logits, expected, **tol):
        return None
    # Named only where the mistake's own output is what was returned: the softmax (or log_softmax) of the right
    # logits, not any rows that happen to sum to 1.
    if close(logits, expected.double().softmax(-1), rtol=1e-3, atol=1e-6):
        return say("probabilities", 5)
    if close(logits, expected.double().log_softmax(-1), **tol):
        return say("log_probabilities", 5)
    e, g = expected.double().flatten(), logits.double().flatten()
    scale = float((e @ g) / (e @ e)) if float(e @ e) > 0 else 0.0
    if abs(scale - 1) > 1e-3 and abs(scale) > 1e-6 and close(g, scale * e, rtol=1e-4, atol=1e-5):
        return say("scaled", 6, scale=f"{scale:.4g}")
    diff = (logits - expected).double()
    flat = diff.reshape(-1, diff.shape[-1])
    if flat.shape[0] > 1 and close(flat, flat[:1].expand_as(flat), atol=1e-4) and flat.abs().max() > 1e-4:
        return say("bias", 6)
    return say("values", None, diff=f"{float(diff.abs().max()):.3g}")


def logits_follow_table(logits: Tensor, expected: Tensor) -> bool:
    """True when `logits` is `expected` up to what shape flow judges separately: a per-token bias, a
    per-position offset or normalisation (softmax / log_softmax) and a positive scale.

    Lets the identity checks demand that the head really uses the shared table without failing a
    submission a second time for a bias or a softmax.
    """
    if logits.shape != expected.shape or logits.numel() == 0:
        return False
    x = logits.double().reshape(-1, logits.shape[-1])
    y = expected.double().reshape(-1, expected.shape[-1])
    if bool((x > 0).all()) and close(x.sum(-1), torch.ones(x.shape[0], dtype=x.dtype), atol=1e-4):
        x = x.log()  # probabilities -> log-probabilities (a per-position offset of the logits)

    def centred(m):
        return m - m.mean(0, keepdim=True) - m.mean(1, keepdim=True) + m.mean()

    xc, yc = centred(x), centred(y)
    norm = float(yc.norm())
    if norm == 0:
        return bool(float(xc.norm()) < 1e-6)
    scale = float((xc * yc).sum()) / norm**2
    return scale > 0 and float((xc - scale * yc).norm()) <= 1e-3 * norm * max(scale, 1e-12)


def _say(key: str, *sections: int, **params) -> Said:
    """Catalog message `key`, then where to reread (when `sections` are given)."""
    text = Said(key, **params)
    return text + reread(*sections) if sections else text


def _rows(rows: list[int]) -> Text:
    """Row numbers as a list in the reader's language: "1, 2, 7" or "1、2、7"."""
    said: Text = verbatim(str(rows[0]))
    for row in rows[1:]:
        said = said + Said("diag.rows.sep") + verbatim(str(row))
    return said


def _row_problem(grad: Tensor, g_in: Tensor, g_out: Tensor) -> Said | None:
    """The mistake behind a gradient right on some rows (ids) only, if it is one of the embedding options."""
    total = g_in + g_out
    tol = grad_tol(total)
    wrong = (~torch.isclose(grad.double(), total.double(), **tol)).any(dim=-1).nonzero().flatten().tolist()
    if not wrong or len(wrong) == grad.shape[0]:
        return None
    looked_up = [r for r in wrong if float(g_in[r].abs().max()) > 0]
    if looked_up and all(close(grad[r], g_out[r], **_RATIO_TOL) for r in looked_up):
        return _say("diag.grad.padding_idx", 7, 2, rows=_rows(looked_up[:5]))
    shares = [
        float((grad[r] - g_out[r]).double() @ g_in[r].double() / (g_in[r].double() @ g_in[r].double()))
        for r in looked_up
    ]
    if looked_up and all(s > 0 and abs(1 / s - round(1 / s)) < 1e-3 and round(1 / s) >= 2 for s in shares):
        return _say("diag.grad.scale_grad_by_freq", 7, 2, rows=_rows(looked_up[:5]))
    return None


def gradient_problem(grad: Tensor | None, g_in: Tensor, g_out: Tensor, *, same_object: bool) -> Said | None:
    """None when the shared .grad is g_in + g_out (lookup path + head path); else why not."""
    if grad is None:
        return _say("diag.grad.none", 7)
    if grad.is_sparse:
        grad = grad.to_dense()
    total = g_in + g_out
    if close(grad, total, **grad_tol(total)):
        return None
    if close(grad, 2 * total, **_RATIO_TOL):
        return _say("diag.grad.doubled", 7)
    if close(grad, 0.5 * total, **_RATIO_TOL):
        return _say("diag.grad.halved", 7)
    if close(grad, g_in, **_RATIO_TOL) or close(grad, g_out, **_RATIO_TOL):
        path = "embedding" if close(grad, g_in, **_RATIO_TOL) else "head"
        if not same_object:
            return _say(f"diag.grad.two_parameters.{path}", 7)
        return _say(f"diag.grad.one_path.{path}", 7)
    rows = _row_problem(grad, g_in, g_out)
    if rows is not None:
        return rows
    return _say("diag.grad.not_sum", 7)


def lookup_problem(hidden: Tensor, table: Tensor, ids: Tensor) -> Said | None:
    """None when `hidden` (B, T, D) is the rows table[ids]; else what the lookup did instead."""
    want = table[ids]
    if tuple(hidden.shape) != tuple(want.shape):
        return _say("diag.lookup.shape", 2, got=tuple(hidden.shape), want=tuple(want.shape))
    if close(hidden, want):
        return None
    h, w = hidden.double().reshape(-1, want.shape[-1]), want.double().reshape(-1, want.shape[-1])
    cos = (h * w).sum(-1) / (h.norm(dim=-1) * w.norm(dim=-1)).clamp_min(1e-12)
    cap = float(h.norm(dim=-1).max())
    if bool((cos > 1 - 1e-5).all()) and close(h.norm(dim=-1), w.norm(dim=-1).clamp(max=cap), rtol=1e-4, atol=1e-6):
        return _say("diag.lookup.max_norm", 2, cap=f"{cap:.3g}")
    return _say("diag.lookup.rows", 2)


def generated_ids_problem(
    seq: object, prompt: Tensor, max_new_tokens: int, *, check_prompt: bool = True
) -> Said | None:
    """None when `seq` is int64 of shape (B, T + max_new_tokens) starting with the prompt (unless not
    `check_prompt`); else what is off."""
    b, t = prompt.shape
    want = (b, t + max_new_tokens)
    if not isinstance(seq, Tensor):
        return _say("diag.generate.not_tensor", kind=type(seq).__name__)
    if seq.dtype != torch.int64:
        return _say("diag.generate.dtype", 9, dtype=seq.dtype)
    if tuple(seq.shape) != want:
        key = "only_new" if tuple(seq.shape) == (b, max_new_tokens) else "count"
        return _say(f"diag.generate.{key}", 9, got=tuple(seq.shape), want=want)
    if check_prompt and not torch.equal(seq[:, :t], prompt):
        return _say("diag.generate.prompt", 9)
    return None


def greedy_problem(seq: Tensor, expected: Tensor, *, again: Tensor | None = None) -> Said | None:
    """None when `seq` is the greedy decoding `expected` (and a second call `again` repeats it); else why not.

    Both are (B, T + n) int64 with the prompt in front (see generated_ids_problem).
    """
    if again is not None and (again.shape != seq.shape or not torch.equal(again, seq)):
        return _say("diag.generate.sampling", 9)
    if torch.equal(seq, expected):
        return None
    row, col = (seq != expected).nonzero()[0].tolist()
    return _say("diag.generate.greedy", 9, seq=row + 1, row=row, col=col)


def shape_mismatch(error: str) -> bool:
    """`error` is what logits and targets whose shapes do not pair up raise (cross_entropy, view, reshape): a
    loss target shift misread, not a loss that does not run at all. For the self-check, on the student's own
    machine: the hidden suite never reads what a student's code raised."""
    return any(word in error for word in ("shape", "size", "match"))
