"""Trusted: hidden suite, parameter counts: one shared table, and every hyper-parameter really honoured."""

from __future__ import annotations

import pytest
import torch

from autograder.graders.weight_tying.diagnosis import close, logits_follow_table
from autograder.graders.weight_tying.judge.reference import (
    IdentityMemo,
    build_minigpt,
    dropout_settings,
    minigpt_from_state,
    tied_lm_logits,
)
from autograder.graders.weight_tying.runner.evidence import (
    CountCase,
    DropoutRun,
    ForwardCase,
    GptCounts,
    GptDropout,
    GptHeads,
    LmIdentity,
)
from autograder.judge.evidence import entry, need, plain_tensor, shape_dict, tensor_dict
from dnnlpy.models.gpt import count_parameters

AREA = "parameter counts"
# One tied and one untied judge MiniGPT per plan configuration, shared by the count and state_dict tests.
_BUILT = IdentityMemo()


def _reference(cfg) -> dict:
    """What a MiniGPT built with `cfg` has: tied and untied parameter counts, state_dict shapes."""

    def compute():
        tied = build_minigpt(cfg)
        return {
            "tied": count_parameters(tied),
            "untied": count_parameters(build_minigpt(cfg, weight_tying=False)),
            "shapes": {k: list(v.shape) for k, v in tied.state_dict().items()},
        }

    return _BUILT.get((cfg,), compute)


def _cfg_text(cfg) -> str:
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


@pytest.mark.area(AREA)
@pytest.mark.points(4)
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
    )
    # The count is the runner's word; award it only if the behaviour agrees (one table the head follows).
    head = plain_tensor(rec, LmIdentity.head_after_inplace, shape=(v, d), dtype=torch.float32, what="lm_head.weight")
    assert close(head, p["W1"], rtol=0, atol=0), (
        "the reported count says one table, but lm_head.weight did not follow an in-place change of "
        "token_embed.weight: copied table"
    )
    # Reported head values can be echoed from the plan; the logits for the judge's ids cannot without a model.
    logits = plain_tensor(
        rec, LmIdentity.logits, shape=(*p["ids"].shape, v), dtype=torch.float32, what="TiedEmbeddingLM logits"
    )
    assert logits_follow_table(logits, tied_lm_logits(p["W1"], p["ids"])), (
        "the reported count says one table, but the logits for the judge's ids do not come from the table just "
        "written into token_embed.weight: forward uses another table (copied table)"
    )


@pytest.mark.area(AREA)
@pytest.mark.points(4)
def test_wrapper_counts_untied_minus_vd(plan, evidence, run):
    """Unique parameters = the untied MiniGPT's count minus V*D, for several hyper-parameter sets."""
    rec = need(evidence, GptCounts, run, what="MiniGPTWithWeightTying (parameter count)")
    cases = rec.get(GptCounts.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["counts"]), "malformed evidence for gpt_counts"
    for c, got in zip(plan["gpt"]["counts"], cases, strict=True):
        cfg = c["cfg"]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        got = entry(got, what)
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
            f"{untied - tied}){hint}"
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


@pytest.mark.area(AREA)
@pytest.mark.points(4)
def test_wrapper_state_dict_matches_hyperparameters(plan, evidence, run):
    """minigpt.state_dict() has exactly the keys and shapes of a MiniGPT built with the given arguments."""
    rec = need(evidence, GptCounts, run, what="MiniGPTWithWeightTying (state_dict)")
    cases = rec.get(GptCounts.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["counts"]), "malformed evidence for gpt_counts"
    for c, got in zip(plan["gpt"]["counts"], cases, strict=True):
        cfg = c["cfg"]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        got = entry(got, what)
        norm = shape_dict(got, CountCase.state_shapes, what=f"{what}: model.minigpt.state_dict()")
        want = _reference(cfg)["shapes"]
        assert norm == want, f"{what}: {_shape_problem(cfg, norm, want)}"


@pytest.mark.area(AREA)
@pytest.mark.points(3)
def test_wrapper_num_heads_honoured(plan, evidence, run):
    """Same shapes, different head counts: the logits must match a MiniGPT with that many heads."""
    rec = need(evidence, GptHeads, run, what="MiniGPTWithWeightTying (num_heads)")
    cases = rec.get(GptHeads.cases)
    assert isinstance(cases, list) and len(cases) == len(plan["gpt"]["heads"]), "malformed evidence for gpt_heads"
    for c, got in zip(plan["gpt"]["heads"], cases, strict=True):
        cfg, ids = c["cfg"], c["ids"]
        what = f"MiniGPTWithWeightTying({_cfg_text(cfg)})"
        got = entry(got, what)
        state = tensor_dict(got, ForwardCase.state, what=f"{what}: model.minigpt.state_dict()")
        logits = plain_tensor(
            got, ForwardCase.logits, shape=(*ids.shape, cfg["vocab_size"]), dtype=torch.float32, what=f"{what}: logits"
        )
        with torch.no_grad():
            expected = minigpt_from_state(cfg, state)(ids)
        if close(logits, expected):
            continue
        hint = ""
        for h in (1, 2, 3, 4, 6, 8):
            if h != cfg["num_heads"] and cfg["embed_dim"] % h == 0:
                with torch.no_grad():
                    other = minigpt_from_state({**cfg, "num_heads": h}, state)(ids)
                if close(logits, other):
                    hint = f" (they match a MiniGPT with num_heads={h})"
                    break
        raise AssertionError(
            f"{what}: logits differ from a MiniGPT with num_heads={cfg['num_heads']}{hint}: "
            f"hyper-parameter ignored (num_heads)"
        )


@pytest.mark.area(AREA)
@pytest.mark.points(3)
def test_wrapper_dropout_honoured(plan, evidence, run):
    """dropout > 0 makes two train-mode forwards differ; dropout = 0 keeps them equal; every p is the given one."""
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
        state = tensor_dict(got, DropoutRun.state, what=f"{what}: model.minigpt.state_dict()")
        with torch.no_grad():
            expected = minigpt_from_state(cfg, state)(ids)
        assert close(ev, expected), f"{what}: eval-mode logits differ from a MiniGPT with these hyper-parameters"
        if cfg["dropout"] > 0:
            assert not close(first, second), (
                f"{what}: two train-mode forward passes gave the same logits, so no dropout is applied: "
                f"hyper-parameter ignored (dropout)"
            )
        else:
            assert close(first, second) and close(first, expected), (
                f"{what}: with dropout=0.0 two train-mode forward passes differ: hyper-parameter ignored (dropout)"
            )
        want = sorted(map(tuple, dropout_settings(build_minigpt(cfg))))
        reported = got.get(DropoutRun.dropout_settings)
        valid = isinstance(reported, list) and all(
            isinstance(x, (list, tuple)) and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], float)
            for x in reported
        )
        assert valid, f"{what}: malformed dropout evidence"
        norm = sorted(tuple(x) for x in reported)
        assert norm == want, (
            f"{what}: dropout probabilities inside minigpt are {sorted({x[1] for x in norm})}, expected "
            f"{cfg['dropout']} everywhere: hyper-parameter ignored (dropout)"
        )
