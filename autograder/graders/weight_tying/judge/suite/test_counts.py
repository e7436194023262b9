"""Trusted: hidden suite, parameter counts: one shared table, and every hyper-parameter really honoured."""

from __future__ import annotations

from functools import partial

import torch

from autograder.graders.weight_tying.diagnosis import close
from autograder.graders.weight_tying.judge.forward import (
    SIZES_TEST,
    construction_logits,
    recorded_logits,
    tie_diagnosis,
    waited_on,
)
from autograder.graders.weight_tying.judge.models import (
    cfg_model,
    for_model,
    judge_logits,
    memoised,
    tensor_key,
    training,
)
from autograder.graders.weight_tying.judge.reference import (
    after_head,
    build_minigpt,
    dropout_settings,
    judge_model,
    library_tied,
    other_heads,
    rewritten_by_forward,
    shape_cfg,
    sizes_ignored,
    span_residual,
    tied_lm_logits,
)
from autograder.graders.weight_tying.judge.sealed import entry, need
from autograder.graders.weight_tying.judge.words import reread, say, title_of
from autograder.graders.weight_tying.runner.evidence import (
    CountCase,
    DropoutRun,
    GptCounts,
    GptDropout,
    GptHeads,
    HeadsCase,
    LmIdentity,
)
from autograder.graders.weight_tying.runner.values import judge_table
from autograder.grading.judge.suite_api import Failed, plain_tensor, shape_dict
from autograder.protocol.said import Said, Text, verbatim
from dnnlpy.models.gpt import count_parameters

AREA = "parameter counts"
SPAN_TOL = 1e-4  # see test_identity.py
# The shape flow tests that judge each class's forward, and the test that names an ignored size.
_LM_SHAPES = "test_tied_lm_shapes_and_values"
_WRAPPER_SHAPES = "test_wrapper_shapes_and_values"
_SIZES = SIZES_TEST
_LM_HEAD = "test_tied_lm_head_is_the_embedding_parameter"  # names a borrowed (library) tie


def _not_borrowed(evidence, what) -> None:
    """TiedEmbeddingLM's tie must be the student's: a pair borrowed from a library MiniGPT tied by the library
    earns nothing the tie earns (a knock-on of the test that names it)."""
    if library_tied(evidence):
        raise Failed(say("note.library_tie_not_credited", what=what, test=title_of(_LM_HEAD)), waits_on=_LM_HEAD)


def _reference(cfg) -> dict:
    """What a MiniGPT built with `cfg` has: tied and untied parameter counts, state_dict shapes."""

    def compute():
        tied = cfg_model(cfg)
        return {
            "tied": count_parameters(tied),
            "untied": count_parameters(build_minigpt(cfg, weight_tying=False)),
            "shapes": {k: list(v.shape) for k, v in tied.state_dict().items()},
        }

    return memoised(("counts", tuple(sorted(cfg.items()))), compute)  # cfg: the plan's own


def _logits(got, key: str, shape: tuple, what, label):
    """Logits the runner recorded for a check of counts: another shape is the shape flow tests' business."""
    return recorded_logits(got, key, shape, what=what, label=label, shapes_test=_WRAPPER_SHAPES)


def _cfg_text(cfg) -> str:
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


def test_tied_lm_counts_one_table(plan, evidence, run):
    """TiedEmbeddingLM has exactly V*D unique parameters (the shared table, counted once)."""
    p = plan["lm"]
    v, d = p["vocab_size"], p["embed_dim"]
    rec = need(evidence, LmIdentity, run, what="TiedEmbeddingLM" + say("suite.parameter_count"))
    _not_borrowed(evidence, "TiedEmbeddingLM" + say("suite.parameter_count"))
    count = rec.get(LmIdentity.unique_numel)
    if not (isinstance(count, int) and not isinstance(count, bool)):
        raise Failed(say("judge.counts.count_missing"), owed=True)
    hints = {
        2 * v * d: "suite.counts.two_tables",
        v * d + v: "suite.counts.head_bias",
        2 * v * d + v: "judge.counts.unique_copied_bias",
    }
    model = f"TiedEmbeddingLM(vocab_size={v}, embed_dim={d})"
    if count == 2 * v * d and (cause := tie_diagnosis(rec, p["W1"], what=model)) is not None:
        # two tables: which tie mistake, from the tie's own evidence (section 6 teaches the fix)
        raise AssertionError(say("judge.counts.unique_two_tables", model=model, n=count, want=v * d, cause=cause))
    # a second table, a bias: what the tie's fix is, section 6 (not section 8, which only counts)
    assert count == v * d, say(hints.get(count, "judge.counts.unique"), model=model, n=count, want=v * d) + reread(6)
    # The count is the runner's word; award it only if the behaviour agrees (one table the head follows).
    head = plain_tensor(rec, LmIdentity.head_after_inplace, shape=(v, d), dtype=torch.float32, what="lm_head.weight")
    assert close(head, p["W1"], rtol=0, atol=0), say("judge.counts.head_not_follow") + reread(6)
    # Reported head values can be echoed from the plan; the head's scores for the judge's ids cannot without a
    # model. A softmax or a scale adds no parameter, so it is left to shape flow; a per-token offset is a bias.
    what = "TiedEmbeddingLM" + say("suite.parameter_count")
    logits, forward = construction_logits(rec, (*p["ids"].shape, v), torch.float32, what=what, shapes_test=_LM_SHAPES)
    expected = tied_lm_logits(p["W1"], p["ids"])
    if (
        after_head(logits, expected, bias=False) is None
        and forward
        and rewritten_by_forward(rec, p["W1"], logits, p["ids"])
    ):
        raise Failed(say("note.count_not_checked_table_rewritten") + reread(2), waits_on=_LM_SHAPES)
    if after_head(logits, expected, bias=False) is None:
        biased = after_head(logits, expected) is not None
        key = "judge.counts.one_table_but_bias" if biased else "judge.counts.one_table_but_other_table"
        raise AssertionError(say(key) + reread(6))


def _count_cases(plan, evidence, run, what):
    rec = need(evidence, GptCounts, run, what=what)
    cases = rec.get(GptCounts.cases)
    if not (isinstance(cases, list) and len(cases) == len(plan["gpt"]["counts"])):
        raise Failed(say("judge.malformed_record", name="gpt_counts"), owed=True)
    for c, got in zip(plan["gpt"]["counts"], cases, strict=True):
        yield (
            c,
            entry(got, f"MiniGPTWithWeightTying({_cfg_text(c['cfg'])})"),
            f"MiniGPTWithWeightTying({_cfg_text(c['cfg'])})",
        )


def test_wrapper_counts_untied_minus_vd(plan, evidence, run):
    """Unique parameters = the untied MiniGPT's count minus V*D, for several hyper-parameter sets, and the
    model behaves as one table: after a new table is written into minigpt.token_embed, minigpt's logits come
    from it (a head hidden from named_parameters() or a hidden bias shows here)."""
    for c, got, what in _count_cases(plan, evidence, run, "MiniGPTWithWeightTying" + say("suite.parameter_count")):
        cfg = c["cfg"]
        ref = _reference(cfg)
        tied, untied = ref["tied"], ref["untied"]
        count = got.get(CountCase.unique_numel)
        if not (isinstance(count, int) and not isinstance(count, bool)):
            raise Failed(say("judge.counts.malformed_count", what=what), owed=True)
        key = "judge.counts.wrapper_unique"
        if count == untied:
            key = "suite.counts.wrapper_two_tables"
        elif count != tied:
            key = "suite.counts.wrapper_size_ignored"
        where = reread(6, 9) if count == untied else reread(9)  # the tie's fix, or the hyper-parameters passed on
        assert count == tied, say(key, model=what, n=count, want=tied, untied=untied, vd=untied - tied) + where
        v, d = cfg["vocab_size"], cfg["embed_dim"]
        table = judge_table(c["table"], (v, d))
        label = say("judge.label.logits_after_write", what=what)
        logits = _logits(got, CountCase.logits_after_write, (*c["ids"].shape, v), what, label)
        assert span_residual(logits, table) <= SPAN_TOL, say(
            "judge.what_problem", what=what, problem=say("judge.counts.not_one_table_after_write")
        ) + reread(6, 9)


def _shape_problem(cfg, got_shapes: dict, want: dict) -> Said:
    """Name the ignored hyper-parameter from the state_dict shapes."""
    blocks = lambda keys: {k.split(".")[1] for k in keys if k.startswith("blocks.")}  # noqa: E731
    ignored = "suite.counts.size_ignored"
    if len(blocks(got_shapes)) != len(blocks(want)):
        got = len(blocks(got_shapes))
        return say("suite.counts.blocks_ignored", name="num_layers", got=got, want=cfg["num_layers"])
    tok = got_shapes.get("token_embed.weight")
    if tok is not None and list(tok) != list(want["token_embed.weight"]):
        want_tok = tuple(want["token_embed.weight"])
        return say(ignored, name="embed_dim", key="token_embed.weight", got=tuple(tok), want=want_tok)
    pos = got_shapes.get("pos_embed.weight")
    if pos is not None and list(pos) == list(want["token_embed.weight"]) != list(want["pos_embed.weight"]):
        return say("suite.identity.positions_token_shape")
    if pos is not None and list(pos) != list(want["pos_embed.weight"]):
        want_pos = tuple(want["pos_embed.weight"])
        return say(ignored, name="block_size", key="pos_embed.weight", got=tuple(pos), want=want_pos)
    for k, shape in want.items():
        if k in got_shapes and list(got_shapes[k]) != list(shape) and ".mlp." in k:
            return say(ignored, name="hidden_dim", key=k, got=tuple(got_shapes[k]), want=tuple(shape))
    head = got_shapes.get("lm_head.weight")
    if head is not None and list(head) != list(want["lm_head.weight"]):
        if list(head) == list(want["pos_embed.weight"]):
            return say("suite.identity.head_positions_shape")
        return say("judge.counts.head_shape", got=tuple(head), want=tuple(want["lm_head.weight"]))
    missing = sorted(set(want) - set(got_shapes))[:3]
    extra = sorted(set(got_shapes) - set(want))[:3]
    return say("judge.counts.keys_differ", missing=missing, extra=extra)


def _heads_problem(cfg, shapes, values, ids, logits):
    """None when the logits are a MiniGPT's of these sizes with the judge's weights and the num_heads given
    (up to a softmax or a scale: shape flow's business; a bias is a size difference); else why not."""
    if after_head(logits, judge_logits(cfg, shapes, values, ids), bias=False) is not None:
        return None
    h = other_heads(cfg, shapes, values, ids, lambda other: after_head(logits, other, bias=False) is not None)
    if h is not None:
        return say("suite.counts.num_heads_other", want=cfg["num_heads"], got=h)
    return say("judge.counts.computes_otherwise")


def _dropout_problem(cfg, shapes, reported):
    """None when the dropout probabilities inside minigpt are a MiniGPT's built with this cfg; else why not
    (owed when the runner did not report them as it always does)."""
    valid = isinstance(reported, list) and all(
        isinstance(x, (list, tuple)) and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], float)
        for x in reported
    )
    if not valid:
        raise Failed(say("judge.counts.malformed_dropout", what=_cfg_text(cfg)), owed=True)
    want = for_model(cfg, shapes, ("dropout settings",), partial(_dropout_settings, cfg, shapes))
    norm = sorted(tuple(x) for x in reported)
    if norm == want:
        return None
    got = sorted({x[1] for x in norm})
    listed: Text = verbatim(str(got[0]))  # each distinct probability once, as Python writes a float: "0.0"
    for p in got[1:]:
        listed = listed + say("suite.counts.values_sep") + verbatim(str(p))
    key = "suite.counts.dropout_ignored" if len(got) == 1 else "suite.counts.dropout_mixed"
    return say(key, got=listed, want=verbatim(str(float(cfg["dropout"]))))


def test_wrapper_state_dict_matches_hyperparameters(plan, evidence, run):
    """minigpt is a MiniGPT built with every argument given: its state_dict has exactly the keys and shapes of
    one, it computes as one with that num_heads (the judge's weights give the judge's logits), and its dropout
    modules have that p."""
    for c, got, what in _count_cases(plan, evidence, run, "MiniGPTWithWeightTying" + say("judge.state_dict")):
        cfg = c["cfg"]
        label = say("judge.what_label", what=what, name="model.minigpt.state_dict()")
        norm = shape_dict(got, CountCase.state_shapes, what=label)
        want = _reference(cfg)["shapes"]
        assert norm == want, say("judge.what_problem", what=what, problem=_shape_problem(cfg, norm, want)) + reread(9)
        shape = (*c["ids"].shape, cfg["vocab_size"])
        logits = _logits(got, CountCase.logits, shape, what, say("judge.label.logits", what=what))
        problem = _heads_problem(cfg, want, c["values"], c["ids"], logits) or _dropout_problem(
            cfg, want, got.get(CountCase.dropout_settings)
        )
        assert problem is None, say("judge.what_problem", what=what, problem=problem) + reread(9)


def test_wrapper_num_heads_honoured(plan, evidence, run):
    """Same shapes, different head counts: minigpt's logits must match a MiniGPT with that many heads."""
    rec = need(evidence, GptHeads, run, what=say("suite.minigptwithweighttying_num_heads"))
    cases = rec.get(GptHeads.cases)
    if not (isinstance(cases, list) and len(cases) == len(plan["gpt"]["heads"])):
        raise Failed(say("judge.malformed_record", name="gpt_heads"), owed=True)
    for c, got in zip(plan["gpt"]["heads"], cases, strict=True):
        cfg, ids = c["cfg"], c["ids"]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        if isinstance(got, dict) and "error" in got and sizes_ignored(plan, evidence):
            raise Failed(
                say("judge.what_problem", what=what, problem=say("note.num_heads_not_checked")) + reread(9),
                waits_on=_SIZES,
            )
        got = entry(got, what)
        shapes = shape_dict(got, HeadsCase.state_shapes, what=say("judge.label.state_shapes", what=what))
        label = say("judge.label.logits", what=what)
        logits = _logits(got, HeadsCase.logits, (*ids.shape, cfg["vocab_size"]), what, label)
        expected = judge_logits(cfg, shapes, c["values"], ids)
        if close(logits, expected):
            continue
        h = other_heads(cfg, shapes, c["values"], ids, partial(close, logits))
        problem = (
            say("suite.counts.num_heads_ignored", want=cfg["num_heads"])
            if h is None
            else say("suite.counts.num_heads_other", want=cfg["num_heads"], got=h)
        )
        raise AssertionError(say("judge.what_problem", what=what, problem=problem) + reread(9))


def _train(cfg, shapes, p):
    with torch.no_grad():  # p = 1 or 0: no random mask, so no seed to share
        with training(judge_model(cfg, shapes, p["values"])) as model:
            return model(p["ids"])


def _dropout_settings(cfg, shapes):
    sized = shape_cfg(cfg, shapes)
    return sorted(map(tuple, dropout_settings(cfg_model(cfg) if sized == dict(cfg) else build_minigpt(sized))))


def test_wrapper_dropout_honoured(plan, evidence, run):
    """In train mode, dropout = 1 zeroes every dropout's output and dropout = 0 none (both fully determined,
    so judged exactly); every dropout module inside minigpt has the given p."""
    p = plan["gpt"]["dropout"]
    rec = need(evidence, GptDropout, run, what=say("suite.minigptwithweighttying_dropout"))
    ids = p["ids"]
    for key in (GptDropout.cfg, GptDropout.cfg0):
        cfg = p[key]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        got = entry(rec.get(key), what)
        shape = (*ids.shape, cfg["vocab_size"])
        train_label = say("judge.what_label", what=what, name=say("suite.train_logits"))
        eval_label = say("judge.what_label", what=what, name=say("suite.eval_mode_logits"))
        first = _logits(got, DropoutRun.train_1, shape, what, train_label)
        second = _logits(got, DropoutRun.train_2, shape, what, train_label)
        ev = _logits(got, DropoutRun.eval, shape, what, eval_label)
        shapes = shape_dict(got, DropoutRun.state_shapes, what=say("judge.label.state_shapes", what=what))
        expected = judge_logits(cfg, shapes, p["values"], ids)
        train = for_model(cfg, shapes, ("dropout train", p["values"], tensor_key(ids)), partial(_train, cfg, shapes, p))
        if not close(ev, expected):
            raise Failed(
                say("judge.what_problem", what=what, problem=say("note.dropout_not_checked_logits_differ")),
                waits_on=waited_on(cfg, shapes, p["values"], ids, partial(close, ev), _WRAPPER_SHAPES),
            )
        if not (close(first, train) and close(second, train)):
            key = "judge.counts.dropout_train_eval" if close(first, expected) else "judge.counts.dropout_train_neither"
            raise AssertionError(say("judge.what_problem", what=what, problem=say(key, p=cfg["dropout"])) + reread(9))
        # Judged on the model as built (an ignored size is the state_dict test's business, not this one's).
        problem = _dropout_problem(cfg, shapes, got.get(DropoutRun.dropout_settings))
        assert problem is None, say("judge.what_problem", what=what, problem=problem) + reread(9)
