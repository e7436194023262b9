"""Trusted: hidden suite, parameter counts: one shared table, and every hyper-parameter really honoured."""

from __future__ import annotations

import copy
from functools import partial

import torch

from autograder.graders.weight_tying.diagnosis import close, reread
from autograder.graders.weight_tying.judge.models import for_model, judge_logits, memoised, tensor_key
from autograder.graders.weight_tying.judge.reference import (
    after_head,
    build_minigpt,
    dropout_settings,
    judge_model,
    rewritten_by_forward,
    shape_cfg,
    sizes_ignored,
    span_residual,
    tied_lm_logits,
)
from autograder.graders.weight_tying.judge.sealed import need
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
from autograder.grading.judge.suite_api import entry, plain_tensor, shape_dict
from autograder.grading.marking import graded
from dnnlpy.models.gpt import count_parameters

AREA = "parameter counts"
SPAN_TOL = 1e-4  # see test_identity.py


def _reference(cfg) -> dict:
    """What a MiniGPT built with `cfg` has: tied and untied parameter counts, state_dict shapes."""

    def compute():
        tied = build_minigpt(cfg)
        return {
            "tied": count_parameters(tied),
            "untied": count_parameters(build_minigpt(cfg, weight_tying=False)),
            "shapes": {k: list(v.shape) for k, v in tied.state_dict().items()},
        }

    return memoised(("counts", tuple(sorted(cfg.items()))), compute, plan_only=True)  # cfg: the plan's own


def _cfg_text(cfg) -> str:
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


@graded
def test_tied_lm_counts_one_table(plan, evidence, run):
    """TiedEmbeddingLM has exactly V*D unique parameters (the shared table, counted once)."""
    p = plan["lm"]
    v, d = p["vocab_size"], p["embed_dim"]
    rec = need(evidence, LmIdentity, run, what="TiedEmbeddingLM (parameter count)")
    count = rec.get(LmIdentity.unique_numel)
    assert isinstance(count, int) and not isinstance(count, bool), "malformed evidence: parameter count missing"
    hints = {
        2 * v * d: "two V*D tables: copied table, untied head, .data sharing (two Parameters over one "
        "storage) or tied only after forward (counted right after construction)",
        v * d + v: "bias on the head (+V parameters)",
        2 * v * d + v: "copied table with a bias on the head",
    }
    assert count == v * d, (
        f"TiedEmbeddingLM(vocab_size={v}, embed_dim={d}) has {count} unique parameters, expected V*D = {v * d}"
        + (f": {hints[count]}" if count in hints else "")
        + reread(8)
    )
    # The count is the runner's word; award it only if the behaviour agrees (one table the head follows).
    head = plain_tensor(rec, LmIdentity.head_after_inplace, shape=(v, d), dtype=torch.float32, what="lm_head.weight")
    assert close(head, p["W1"], rtol=0, atol=0), (
        "the reported count says one table, but lm_head.weight did not follow an in-place change of "
        "token_embed.weight: copied table" + reread(6, 8)
    )
    # Reported head values can be echoed from the plan; the logits for the judge's ids cannot without a model.
    # A softmax or a scale adds no parameter, so it is left to shape flow; a per-token offset is a bias.
    logits = plain_tensor(
        rec, LmIdentity.logits, shape=(*p["ids"].shape, v), dtype=torch.float32, what="TiedEmbeddingLM logits"
    )
    expected = tied_lm_logits(p["W1"], p["ids"])
    if after_head(logits, expected, bias=False) is None and rewritten_by_forward(rec, p["W1"]):
        raise AssertionError(
            "the count was not checked because the forward pass rewrote the shared table itself (rows renormalised: "
            "max_norm on the embedding?), so the logits cannot show which table the head uses (see the shape flow "
            "tests)" + reread(2)
        )
    if after_head(logits, expected, bias=False) is None:
        biased = after_head(logits, expected) is not None
        raise AssertionError(
            "the reported count says one table of V*D parameters, but "
            + (
                "the logits carry a per-token offset: bias on the head, whose V parameters the count leaves out"
                if biased
                else "the logits for the judge's ids do not come from the table just written into "
                "token_embed.weight: forward uses another table (copied table)"
            )
            + reread(8)
        )


def _count_cases(plan, evidence, run, what):
    rec = need(evidence, GptCounts, run, what=what)
    cases = rec.get(GptCounts.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["counts"]), "malformed evidence for gpt_counts"
    for c, got in zip(plan["gpt"]["counts"], cases, strict=True):
        yield (
            c,
            entry(got, f"MiniGPTWithWeightTying({_cfg_text(c['cfg'])})"),
            f"MiniGPTWithWeightTying({_cfg_text(c['cfg'])})",
        )


@graded
def test_wrapper_counts_untied_minus_vd(plan, evidence, run):
    """Unique parameters = the untied MiniGPT's count minus V*D, for several hyper-parameter sets, and the
    model behaves as one table: after a new table is written into minigpt.token_embed, minigpt's logits come
    from it (a head hidden from named_parameters() or a hidden bias shows here)."""
    for c, got, what in _count_cases(plan, evidence, run, "MiniGPTWithWeightTying (parameter count)"):
        cfg = c["cfg"]
        ref = _reference(cfg)
        tied, untied = ref["tied"], ref["untied"]
        count = got.get(CountCase.unique_numel)
        assert isinstance(count, int) and not isinstance(count, bool), f"{what}: malformed parameter count"
        hint = ""
        if count == untied:
            hint = ": that is the untied count (copied table / untied head, or tied only after forward)"
        elif count != tied:
            hint = ": a hyper-parameter ignored? (see the state_dict test)"
        assert count == tied, (
            f"{what} has {count} unique parameters, expected {tied} (untied MiniGPT {untied} minus V*D = "
            f"{untied - tied}){hint}" + reread(8)
        )
        v, d = cfg["vocab_size"], cfg["embed_dim"]
        table = judge_table(c["table"], (v, d))
        logits = plain_tensor(
            got,
            CountCase.logits_after_write,
            shape=(*c["ids"].shape, v),
            dtype=torch.float32,
            what=f"{what}: logits after the write",
        )
        assert span_residual(logits, table) <= SPAN_TOL, (
            f"{what}: the reported count says one table at both ends, but after a new table was written into "
            f"minigpt.token_embed.weight, minigpt's logits do not come from it alone: untied head (a second "
            f"table hidden from the count?) or a bias on the head" + reread(6, 8)
        )


def _shape_problem(cfg, got_shapes: dict, want: dict) -> str:
    """Name the ignored hyper-parameter from the state_dict shapes."""
    blocks = lambda keys: {k.split(".")[1] for k in keys if k.startswith("blocks.")}  # noqa: E731
    if len(blocks(got_shapes)) != len(blocks(want)):
        return f"hyper-parameter ignored (num_layers): {len(blocks(got_shapes))} blocks, expected {cfg['num_layers']}"
    tok = got_shapes.get("token_embed.weight")
    if tok is not None and list(tok) != list(want["token_embed.weight"]):
        want_tok = tuple(want["token_embed.weight"])
        return f"hyper-parameter ignored (embed_dim): token_embed.weight is {tuple(tok)}, expected {want_tok}"
    pos = got_shapes.get("pos_embed.weight")
    if pos is not None and list(pos) == list(want["token_embed.weight"]) != list(want["pos_embed.weight"]):
        return "pos_embed.weight has the token table's shape: positional embedding tied to the token embedding"
    if pos is not None and list(pos) != list(want["pos_embed.weight"]):
        want_pos = tuple(want["pos_embed.weight"])
        return f"hyper-parameter ignored (block_size): pos_embed.weight is {tuple(pos)}, expected {want_pos}"
    for k, shape in want.items():
        if k in got_shapes and list(got_shapes[k]) != list(shape) and ".mlp." in k:
            return f"hyper-parameter ignored (hidden_dim): {k} is {tuple(got_shapes[k])}, expected {tuple(shape)}"
    head = got_shapes.get("lm_head.weight")
    if head is not None and list(head) != list(want["lm_head.weight"]):
        if list(head) == list(want["pos_embed.weight"]):
            return "lm_head.weight has the positional table's shape: positional embedding tied"
        return f"lm_head.weight is {tuple(head)}, expected {tuple(want['lm_head.weight'])} (V, D): transposed?"
    missing = sorted(set(want) - set(got_shapes))[:3]
    extra = sorted(set(got_shapes) - set(want))[:3]
    return f"state_dict keys/shapes differ from MiniGPT's (missing {missing}, unexpected {extra})"


def _any_head_count(cfg, shapes, values, ids, logits) -> bool:
    """The logits are a MiniGPT's of these sizes with the judge's weights, for some head count (num_heads
    has its own test), up to a softmax or a scale (shape flow's business); a bias is a size difference."""
    d = cfg["embed_dim"]
    for h in dict.fromkeys((cfg["num_heads"], 1, 2, 3, 4, 6, 8, 12)):
        if d % h == 0:
            want = judge_logits({**cfg, "num_heads": h}, shapes, values, ids)
            if after_head(logits, want, bias=False) is not None:
                return True
    return False


@graded
def test_wrapper_state_dict_matches_hyperparameters(plan, evidence, run):
    """minigpt.state_dict() has exactly the keys and shapes of a MiniGPT built with the given arguments, and
    minigpt computes as one: the judge's weights for those shapes give the judge's logits."""
    for c, got, what in _count_cases(plan, evidence, run, "MiniGPTWithWeightTying (state_dict)"):
        cfg = c["cfg"]
        norm = shape_dict(got, CountCase.state_shapes, what=f"{what}: model.minigpt.state_dict()")
        want = _reference(cfg)["shapes"]
        assert norm == want, f"{what}: {_shape_problem(cfg, norm, want)}" + reread(9)
        shape = (*c["ids"].shape, cfg["vocab_size"])
        logits = plain_tensor(got, CountCase.logits, shape=shape, dtype=torch.float32, what=f"{what}: logits")
        assert _any_head_count(cfg, want, c["values"], c["ids"], logits), (
            f"{what}: the reported state_dict has the right keys and shapes, but with the judge's weights loaded "
            f"model.minigpt does not compute as a MiniGPT of these sizes: hyper-parameter ignored, or a part "
            f"replaced" + reread(9)
        )


@graded
def test_wrapper_num_heads_honoured(plan, evidence, run):
    """Same shapes, different head counts: minigpt's logits must match a MiniGPT with that many heads."""
    rec = need(evidence, GptHeads, run, what="MiniGPTWithWeightTying (num_heads)")
    cases = rec.get(GptHeads.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["heads"]), "malformed evidence for gpt_heads"
    for c, got in zip(plan["gpt"]["heads"], cases, strict=True):
        cfg, ids = c["cfg"], c["ids"]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        if isinstance(got, dict) and "error" in got and sizes_ignored(plan, evidence):
            raise AssertionError(
                f"{what}: num_heads was not checked because the model could not be built with these sizes: a "
                f"hyper-parameter ignored (see test_wrapper_state_dict_matches_hyperparameters)" + reread(9)
            )
        got = entry(got, what)
        shapes = shape_dict(got, HeadsCase.state_shapes, what=f"{what}: model.minigpt.state_dict() shapes")
        logits = plain_tensor(
            got, HeadsCase.logits, shape=(*ids.shape, cfg["vocab_size"]), dtype=torch.float32, what=f"{what}: logits"
        )
        expected = judge_logits(cfg, shapes, c["values"], ids)
        if close(logits, expected):
            continue
        hint = ""
        for h in (1, 2, 3, 4, 6, 8):
            if h != cfg["num_heads"] and cfg["embed_dim"] % h == 0:
                other = judge_logits({**cfg, "num_heads": h}, shapes, c["values"], ids)
                if close(logits, other):
                    hint = f" (they match a MiniGPT with num_heads={h})"
                    break
        raise AssertionError(
            f"{what}: logits differ from a MiniGPT with num_heads={cfg['num_heads']}{hint}: "
            f"hyper-parameter ignored (num_heads)" + reread(9)
        )


def _train(cfg, shapes, p):
    with torch.no_grad():  # p = 1 or 0: no random mask, so no seed to share
        return copy.deepcopy(judge_model(cfg, shapes, p["values"])).train()(p["ids"])


def _dropout_settings(cfg, shapes):
    return sorted(map(tuple, dropout_settings(build_minigpt(shape_cfg(cfg, shapes)))))


@graded
def test_wrapper_dropout_honoured(plan, evidence, run):
    """In train mode, dropout = 1 zeroes every dropout's output and dropout = 0 none (both fully determined,
    so judged exactly); every dropout module inside minigpt has the given p."""
    p = plan["gpt"]["dropout"]
    rec = need(evidence, GptDropout, run, what="MiniGPTWithWeightTying (dropout)")
    ids = p["ids"]
    for key in (GptDropout.cfg, GptDropout.cfg0):
        cfg = p[key]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        got = entry(rec.get(key), what)
        shape = (*ids.shape, cfg["vocab_size"])
        first = plain_tensor(got, DropoutRun.train_1, shape=shape, dtype=torch.float32, what=f"{what}: train logits")
        second = plain_tensor(got, DropoutRun.train_2, shape=shape, dtype=torch.float32, what=f"{what}: train logits")
        ev = plain_tensor(got, DropoutRun.eval, shape=shape, dtype=torch.float32, what=f"{what}: eval-mode logits")
        shapes = shape_dict(got, DropoutRun.state_shapes, what=f"{what}: model.minigpt.state_dict() shapes")
        expected = judge_logits(cfg, shapes, p["values"], ids)
        train = for_model(cfg, shapes, ("dropout train", p["values"], tensor_key(ids)), partial(_train, cfg, shapes, p))
        assert close(ev, expected), (
            f"{what}: dropout was not checked because the eval-mode logits differ from a MiniGPT with these "
            f"hyper-parameters and the judge's weights (see the shape flow tests)"
        )
        if not (close(first, train) and close(second, train)):
            seen = "the eval-mode ones" if close(first, expected) else "neither"
            raise AssertionError(
                f"{what}: the train-mode logits are not a MiniGPT's with dropout={cfg['dropout']} (they match "
                f"{seen}): hyper-parameter ignored (dropout)" + reread(9)
            )
        # Judged on the model as built (an ignored size is the state_dict test's business, not this one's).
        want = for_model(cfg, shapes, ("dropout settings",), partial(_dropout_settings, cfg, shapes))
        reported = got.get(DropoutRun.dropout_settings)
        valid = isinstance(reported, list) and all(
            isinstance(x, (list, tuple)) and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], float)
            for x in reported
        )
        assert valid, f"{what}: malformed dropout evidence"
        norm = sorted(tuple(x) for x in reported)
        assert norm == want, (
            f"{what}: dropout probabilities inside minigpt are {sorted({x[1] for x in norm})}, expected "
            f"{cfg['dropout']} everywhere: hyper-parameter ignored (dropout)" + reread(9)
        )
