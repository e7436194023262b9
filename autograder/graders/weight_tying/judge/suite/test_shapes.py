"""Trusted: hidden suite, shape flow: (B, T) -> (B, T, D) -> (B, T, V), plain tensors with the right values."""

from __future__ import annotations

from functools import partial

import torch

from autograder.graders.weight_tying.diagnosis import TOL, TOL64, close, logits_problem, lookup_problem
from autograder.graders.weight_tying.judge.layouts import before_head, layout_of, scores_positions
from autograder.graders.weight_tying.judge.models import judge_logits
from autograder.graders.weight_tying.judge.reference import (
    judge_model,
    layer_norm_eps,
    max_norm_rewrite,
    other_heads,
    skipped_part,
    tied_lm_logits,
)
from autograder.graders.weight_tying.judge.sealed import entry, need
from autograder.graders.weight_tying.judge.words import before_reread, reread, say
from autograder.graders.weight_tying.runner.evidence import (
    ForwardCase,
    GptFloat64,
    GptShapes,
    LmFloat64,
    LmShapeCase,
    LmShapes,
)
from autograder.grading.findings import named_in
from autograder.grading.judge.suite_api import Failed, plain_tensor, raised_where, shape_dict

AREA = "shape flow"
# The parts a forward may skip (reference.skipped_part), by their catalog ids.
_PARTS = {
    "the positional embedding": "note.the_positional_embedding",
    "the decoder blocks": "note.the_decoder_blocks",
    "the final LayerNorm": "note.the_final_layernorm",
    "the positional embedding and the decoder blocks": "note.parts.positions_and_blocks",
}
# The float32 shape tests: a float64 forward that raises waits on them (the same forward, other sizes).
_LM_SHAPES = "test_tied_lm_shapes_and_values"
_WRAPPER_SHAPES = "test_wrapper_shapes_and_values"
# diagnosis.logits_problem's message when the values are wrong in a way it cannot name.
_WRONG_VALUES = "diag.logits.values"


def _wrong_values(problem) -> bool:
    return problem is not None and problem.first().key == _WRONG_VALUES


_LAYOUT_WORDS = {
    "every position flattened into rows": "judge.layout.flat",
    "the last position only": "judge.layout.last",
    "the first position only": "judge.layout.first",
    "positions and vocabulary swapped": "judge.layout.swapped",
    "the batch dimension squeezed": "judge.layout.squeezed",
    "the ids of the largest logits": "judge.layout.ids",
    "the vectors before the head": "judge.layout.hidden",
}


def _logits(rec, expected, hidden, dtype, what, *, tol, key=ForwardCase.logits, model=None, ids=None):
    """The logits forward returned, as a plain tensor of `expected`'s shape (B, T, V). Another shape is named
    `logits_shape` only when it holds the right logits (or the vectors `hidden` before the head) in another
    layout, `positional_tied` when it holds the scores of a head tied to the positional table (`model`, `ids`),
    and nothing when no model gives it: then it costs this test's points. `hidden` may be a function giving
    them, called only for another shape (a MiniGPT's run to its final LayerNorm is worth sparing)."""
    got = plain_tensor(rec, key, what=say("judge.label.logits", what=what))
    want = tuple(expected.shape)
    if tuple(got.shape) != want:
        layout = layout_of(got, expected, hidden() if callable(hidden) else hidden, tol=tol)
        if layout is not None:
            said = say(
                "judge.shapes.logits_shape",
                what=what,
                got=tuple(got.shape),
                want=want,
                layout=say(_LAYOUT_WORDS[layout]),
            )
            raise AssertionError(said + reread(6))
        if model is not None and got.dim() == 3 and scores_positions(got, model, ids, tol=tol):
            problem = say("diag.logits.scores_positions", got=tuple(got.shape), want=want) + reread(4)
            raise AssertionError(say("judge.what_problem", what=what, problem=problem))
        raise AssertionError(say("judge.shapes.other_shape", what=what, got=tuple(got.shape), want=want) + reread(6))
    return plain_tensor(rec, key, dtype=dtype, what=say("judge.label.logits", what=what))


def test_tied_lm_shapes_and_values(plan, evidence, run):
    """E[ids] (B, T, D) and E[ids] @ E.T (B, T, V) for random B, T, V, D (B = 1, T = 1 and V = D included)."""
    rec = need(evidence, LmShapes, run, what="TiedEmbeddingLM" + say("judge.shape_flow"))
    cases = rec.get(LmShapes.cases)
    if not (isinstance(cases, list) and len(cases) == len(plan["lm"]["shapes"])):
        raise Failed(say("judge.malformed_record", name="lm_shapes"), owed=True)
    problems, one_position = [], []
    for c, got in zip(plan["lm"]["shapes"], cases, strict=True):
        v, d = c["vocab_size"], c["embed_dim"]
        b, t = c["ids"].shape
        what = say("judge.shapes.lm_case", v=v, d=d, shape=(b, t))
        problems.append(_problem_of(lambda c=c, got=got, what=what: _lm_case_problem(c, entry(got, what), what)))
        one_position.append(b * t == 1)
    _report(_bias_on_one_position(problems, one_position))


def _bias_on_one_position(problems: list, one_position: list) -> list:
    """The problems, where another case names a bias on the head, without the one-position cases whose values
    are only wrong: one row of logits cannot show a bias (its whole difference is one vector, which is what a
    bias adds), so the bias's model gives what such a case returned, and it is no mistake of its own."""
    if not any(p is not None and named_in(p) == "head_bias" for p in problems):
        return problems
    return [
        None if one and p is not None and named_in(p) is None and _WRONG_VALUES in {s.key for s in p.walk()} else p
        for p, one in zip(problems, one_position, strict=True)
    ]


def _problem_of(check):
    """What check() found wrong in one case (returned, or the message it failed with), None when nothing: what
    the student's code did in one case, which the other cases may explain. Evidence owed fails the test at once."""
    try:
        return check()
    except Failed as failed:
        if failed.finding.owed:
            raise
        return failed.finding.said
    except AssertionError as failed:
        return failed.args[0]


def _lm_case_problem(c, got, what):
    """What is wrong in one TiedEmbeddingLM shape case, or None."""
    v, d = c["vocab_size"], c["embed_dim"]
    b, t = c["ids"].shape
    label = say("judge.what_label", what=what, name="token_embed.weight")
    table = plain_tensor(got, LmShapeCase.embed_weight, shape=(v, d), dtype=torch.float32, what=label)
    if not close(table, c["W"], rtol=0, atol=0):
        return say("judge.what_problem", what=what, problem=say("suite.identity.write_did_not_take"))
    label = say("judge.what_label", what=what, name="lm_head.weight")
    head = plain_tensor(got, LmShapeCase.head_weight, dtype=torch.float32, what=label)
    if tuple(head.shape) != (v, d):
        key = "judge.shapes.head_transposed" if tuple(head.shape) == (d, v) else "judge.shapes.head_shape"
        return say(key, what=what, got=tuple(head.shape), want=(v, d)) + reread(6)
    label = say("judge.what_label", what=what, name="token_embed(input_ids)")
    hidden = plain_tensor(got, LmShapeCase.hidden, shape=(b, t, d), dtype=torch.float32, what=label)
    problem = lookup_problem(hidden, c["W"], c["ids"])
    if problem is not None:
        return say("judge.what_problem", what=what, problem=problem)
    expected = tied_lm_logits(c["W"], c["ids"])  # (B, T, D) @ (D, V) -> (B, T, V)
    logits = _logits(got, expected, c["W"][c["ids"]], torch.float32, what, tol=TOL)
    # Values follow the student's own head (identity is judged elsewhere), or the table itself.
    with_head = c["W"][c["ids"]] @ head.T
    if close(logits, expected, **TOL) or close(logits, with_head, **TOL):
        return None
    if v == d and close(logits, c["W"][c["ids"]] @ c["W"], **TOL):  # x @ W: it runs only where V = D
        return say("judge.shapes.transposed_values", what=what) + reread(6)
    layout = _same_shape_layout(logits, expected, c["W"][c["ids"]], TOL, what)  # the vectors before the head
    return layout or say("judge.what_problem", what=what, problem=logits_problem(logits, expected))


def _same_shape_layout(logits, expected, hidden, tol, what):
    """Output of the right shape that is another layout of the right values (the vectors before the head where
    V = D, positions and vocabulary swapped where T = V): logits_shape's, as any other shape would be."""
    layout = layout_of(logits, expected, hidden, tol=tol)
    if layout is None:
        return None
    words = say(_LAYOUT_WORDS[layout])
    shape = tuple(logits.shape)
    return say("judge.shapes.logits_shape", what=what, got=shape, want=shape, layout=words) + reread(6)


# What the student's code raised in a case (``suite_api.entry``): a model may predict it (x @ W raises where V != D).
_RAISED = ("judge.failed_your_code_raised", "judge.starter_code")


def _report(problems: list) -> None:
    """Fail with the most telling problem of the cases' (None: a case without one). A case whose values no model
    explains makes the test cost its points, whatever the others show; otherwise a named misconception beats a
    case that raised (a transposed product is named by the square case where the other cases raise, a swapped
    num_heads by the cases it divides where the others refuse to build)."""
    problems = [p for p in problems if p is not None]
    if problems:
        named = [p for p in problems if named_in(p) is not None]
        unexplained = [p for p in problems if named_in(p) is None and p.first().key not in _RAISED]
        first = (unexplained or named or problems)[0]
        if len(problems) > 1:
            first = before_reread(first, say("suite.case.more", n=len(problems) - 1))
        raise AssertionError(first)


def test_tied_lm_float64(plan, evidence, run):
    """After .to(torch.float64) the logits are float64 and still E[ids] @ E.T."""
    p = plan["lm"]
    rec = need(evidence, LmFloat64, run, what="TiedEmbeddingLM" + say("suite.to_torch_float64"))
    b, t = p["ids"].shape
    what = "TiedEmbeddingLM" + say("suite.case.after_float64")
    if rec.get(LmFloat64.logits) is None and rec.get(LmFloat64.forward_error):  # judged on the other sizes
        error, at = raised_where(str(rec[LmFloat64.forward_error])[:600])
        raise Failed(say("judge.shapes.forward_raised", what=what, error=error, at=at), waits_on=_LM_SHAPES)
    table = p["W3"]
    expected = tied_lm_logits(table, p["ids"])
    logits = _logits(rec, expected, table[p["ids"]], torch.float64, what, tol=TOL64)
    problem = logits_problem(logits, expected, tol=TOL64)
    if _wrong_values(problem) and max_norm_rewrite(rec, table, logits, p["ids"]) is not None:
        cap = float(rec[LmFloat64.head_after_forward][p["ids"]].norm(dim=-1).max())
        problem = say("diag.lookup.max_norm", cap=f"{cap:.3g}") + reread(2)  # the forward rewrote the table
    head = rec.get(LmFloat64.head_after_inplace)
    if _wrong_values(problem) and type(head) is torch.Tensor:
        follows = head.shape == table.shape and close(head, table, rtol=0, atol=0)
        # A head that does not follow the table is the tie's mistake (parameter identity charges it), not the dtype's.
        if not follows:
            raise Failed(
                say("judge.what_problem", what=what, problem=say("note.float64_not_checked")),
                waits_on="test_tied_lm_tie_survives_to_float64",
            )
    assert problem is None, say("judge.what_problem", what=what, problem=problem)


def _matches(logits, tol, other) -> bool:
    return logits_problem(logits, other, tol=tol) is None


def _judge_wrapper_case(cfg, got, ids, values, what, *, gain=1.0, dtype=torch.float32, tables=()):
    """The logits must be the judge's MiniGPT's (the sizes the student's state shows, the judge's weights);
    `tables`: judge_table seeds written into token_embed (a tied head follows; an untied one may not)."""
    b, t = ids.shape
    shapes = shape_dict(got, ForwardCase.state_shapes, what=say("judge.label.state_shapes", what=what))
    if got.get(ForwardCase.logits) is None and got.get("forward_error"):  # float64: judged on the float32 cases
        error, at = raised_where(str(got["forward_error"])[:600])
        raise Failed(say("judge.shapes.forward_raised", what=what, error=error, at=at), waits_on=_WRAPPER_SHAPES)
    tol = TOL if dtype == torch.float32 else TOL64
    settings = [dict(gain=gain, dtype=dtype)]
    for seed in tables:  # the tie is judged by parameter identity; here either kind of head may be right
        settings = [dict(dtype=dtype, table=seed, head_follows=f) for f in (True, False)]
    expected = [judge_logits(cfg, shapes, values, ids, **s) for s in settings]  # kept for the plan
    model = judge_model(cfg, shapes, values, **settings[0])
    logits = _logits(got, expected[0], partial(before_head, model, ids), dtype, what, tol=tol, model=model, ids=ids)
    if any(logits_problem(logits, want, tol=tol) is None for want in expected):
        return shapes
    problem = logits_problem(logits, expected[0], block_size=cfg["block_size"], tol=tol)
    pos, token = shapes.get("pos_embed.weight"), shapes.get("token_embed.weight")
    if _wrong_values(problem) and pos is not None and pos == token and pos[0] != cfg["block_size"]:
        problem = say("suite.identity.positions_token_shape") + reread(4)  # positions read off the token table
    elif _wrong_values(problem):
        part = skipped_part(model, ids, logits, tol=tol)
        eps = None if part else layer_norm_eps(model, ids, logits, tol=tol)
        if part:
            problem = say("note.logits_skip_parts", parts=say(_PARTS[part])) + reread(9)
        elif eps is not None:
            problem = say("note.logits_layernorm_eps", got=f"{eps:g}", want="1e-05") + reread(9)
        # A num_heads not passed on (the counts tests name it too): the logits of a MiniGPT with another one.
        elif heads := other_heads(cfg, shapes, values, ids, partial(_matches, logits, tol), **settings[0]):
            problem = say("suite.counts.num_heads_other", want=cfg["num_heads"], got=heads) + reread(9)
    raise AssertionError(say("judge.what_problem", what=what, problem=problem))


def test_wrapper_shapes_and_values(plan, evidence, run):
    """Logits equal the judge's MiniGPT with the same hyper-parameters and the judge's weights."""
    rec = need(evidence, GptShapes, run, what="MiniGPTWithWeightTying" + say("judge.shape_flow"))
    cases = rec.get(GptShapes.cases)
    if not (isinstance(cases, list) and len(cases) == len(plan["gpt"]["shapes"])):
        raise Failed(say("judge.malformed_record", name="gpt_shapes"), owed=True)
    problems = []
    for c, got in zip(plan["gpt"]["shapes"], cases, strict=True):
        args = ", ".join(f"{k}={v}" for k, v in c["cfg"].items())
        key = "judge.shapes.gpt_case" if c["gain"] == 1.0 else "judge.shapes.gpt_case_tiny"
        what = say(key, args=args, shape=tuple(c["ids"].shape))
        problems.append(_problem_of(lambda c=c, got=got, what=what: _wrapper_case_problem(c, entry(got, what), what)))
    _report(problems)


def _wrapper_case_problem(c, got, what):
    """What is wrong in one MiniGPTWithWeightTying shape case, or None."""
    cfg, ids = c["cfg"], c["ids"]
    shapes = _judge_wrapper_case(cfg, got, ids, c["values"], what, gain=c["gain"])
    d = shapes["token_embed.weight"][1]
    label = say("judge.what_label", what=what, name="token_embed(input_ids)")
    hidden = plain_tensor(got, ForwardCase.hidden, shape=(*ids.shape, d), dtype=torch.float32, what=label)
    table = judge_model(cfg, shapes, c["values"], gain=c["gain"]).token_embed.weight
    problem = lookup_problem(hidden, table, ids)
    return None if problem is None else say("judge.what_problem", what=what, problem=problem)


def test_wrapper_float64(plan, evidence, run):
    """After .to(torch.float64) the logits are float64 and still the judge's MiniGPT's."""
    p = plan["gpt"]
    rec = need(evidence, GptFloat64, run, what="MiniGPTWithWeightTying" + say("suite.to_torch_float64"))
    what = "MiniGPTWithWeightTying" + say("suite.case.after_float64")
    _judge_wrapper_case(
        p["cfg"], rec, p["ids"], p["values"]["float64"], what, dtype=torch.float64, tables=(p["tables"]["float64"],)
    )
