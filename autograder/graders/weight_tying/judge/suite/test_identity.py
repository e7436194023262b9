"""Trusted: hidden suite, parameter identity: the head's weight IS the embedding's Parameter, from construction on."""

from __future__ import annotations

import pytest
import torch

from autograder.graders.weight_tying.diagnosis import close, logits_follow_table, tie_problem
from autograder.graders.weight_tying.judge.reference import minigpt_from_state, tied_lm_logits
from autograder.graders.weight_tying.runner.evidence import (
    GptFloat64,
    GptIdentity,
    GptReload,
    LmFloat64,
    LmIdentity,
    LmReload,
    TableFollow,
)
from autograder.judge.evidence import need, plain_tensor, tensor_dict

AREA = "parameter identity"


def _check_wrapper_logits(rec, plan, table, *, what, head_too=True):
    """The wrapper's logits for the judge's ids must be a MiniGPT forward over the recorded state with the
    judge's `table` as token_embed (and as lm_head when `head_too`): the runner's tie facts and echoed
    tables alone prove nothing."""
    cfg, ids = plan["gpt"]["cfg"], plan["gpt"]["ids"]
    state = tensor_dict(rec, GptIdentity.state, what=f"{what}: model.minigpt.state_dict()")
    logits = plain_tensor(
        rec, TableFollow.logits, shape=(*ids.shape, cfg["vocab_size"]), dtype=table.dtype, what=f"{what}: logits"
    )
    judged = {**state, "token_embed.weight": table, **({"lm_head.weight": table} if head_too else {})}
    with torch.no_grad():
        expected = minigpt_from_state(cfg, judged, dtype=table.dtype)(ids)
    # Lenient like the TiedEmbeddingLM check: a bias or softmax on the output is judged by shape flow.
    assert close(logits, expected) or logits_follow_table(logits, expected), (
        f"{what}: the logits for the judge's ids are not those of a MiniGPT holding the recorded weights with the "
        f"table just written into token_embed.weight: forward uses another table (copied table, or a head whose "
        f".weight is not what it multiplies by)"
    )


def _check_logits_follow(rec, table, ids, *, what):
    """The forward pass must use the table the head reports (a head whose .weight lies fails here)."""
    v = table.shape[0]
    logits = plain_tensor(rec, TableFollow.logits, shape=(*ids.shape, v), dtype=table.dtype, what=f"{what}: logits")
    assert logits_follow_table(logits, tied_lm_logits(table, ids)), (
        f"{what}: lm_head.weight follows the embedding, but the logits do not come from that table: forward uses "
        f"another table (copied table, or a head whose .weight is not what it multiplies by)"
    )


def _check_follow(rec, target, *, what, pos=None):
    head = plain_tensor(rec, TableFollow.head_after_inplace, dtype=target.dtype, what=f"{what}: lm_head.weight")
    after = rec.get(TableFollow.head_after_forward)

    def shows_table(t) -> bool:
        return type(t) is torch.Tensor and t.shape == target.shape and close(t, target, rtol=0, atol=0)

    problem = tie_problem(
        head_shape=tuple(head.shape),
        table_shape=tuple(target.shape),
        follows=shows_table(head),
        same_object=rec.get(TableFollow.head_is_embed) is True,
        same_storage=rec.get(TableFollow.same_data_ptr) is True,
        follows_after_forward=shows_table(after),
        pos_shape=None if pos is None else tuple(pos.shape),
    )
    assert problem is None, f"{what}: {problem}"


@pytest.mark.area(AREA)
@pytest.mark.points(6)
def test_tied_lm_head_is_the_embedding_parameter(plan, evidence, run):
    """TiedEmbeddingLM: an in-place change of token_embed.weight reaches lm_head.weight before any forward."""
    rec = need(evidence, LmIdentity, run, what="TiedEmbeddingLM (identity check)")
    _check_follow(rec, plan["lm"]["W1"], what="TiedEmbeddingLM")
    _check_logits_follow(rec, plan["lm"]["W1"], plan["lm"]["ids"], what="TiedEmbeddingLM")
    assert rec.get(LmIdentity.embed_in_parameters) is True, (
        "TiedEmbeddingLM: token_embed.weight is not among model.parameters(), so an optimizer would never train it"
    )


@pytest.mark.area(AREA)
@pytest.mark.points(2)
def test_tied_lm_tie_survives_state_dict_reload(plan, evidence, run):
    """state_dict -> torch.save -> load_state_dict into a fresh model keeps the tie."""
    rec = need(evidence, LmReload, run, what="TiedEmbeddingLM (state_dict save/load)")
    what = "TiedEmbeddingLM after load_state_dict into a fresh model"
    _check_follow(rec, plan["lm"]["W2"], what=what)
    _check_logits_follow(rec, plan["lm"]["W2"], plan["lm"]["ids"], what=what)


@pytest.mark.area(AREA)
@pytest.mark.points(2)
def test_tied_lm_tie_survives_to_float64(plan, evidence, run):
    """model.to(torch.float64) keeps one shared table."""
    rec = need(evidence, LmFloat64, run, what="TiedEmbeddingLM (.to(torch.float64))")
    what = "TiedEmbeddingLM after .to(torch.float64)"
    _check_follow(rec, plan["lm"]["W3"], what=what)
    _check_logits_follow(rec, plan["lm"]["W3"], plan["lm"]["ids"], what=what)


@pytest.mark.area(AREA)
@pytest.mark.points(6)
def test_wrapper_head_is_the_embedding_parameter(plan, evidence, run):
    """MiniGPTWithWeightTying: minigpt.lm_head.weight is minigpt.token_embed.weight right after construction."""
    rec = need(evidence, GptIdentity, run, what="MiniGPTWithWeightTying (identity check)")
    pos = rec.get(GptIdentity.pos_before)
    pos = pos if type(pos) is torch.Tensor else None
    _check_follow(rec, plan["gpt"]["W1"], what="MiniGPTWithWeightTying", pos=pos)
    _check_wrapper_logits(rec, plan, plan["gpt"]["W1"], what="MiniGPTWithWeightTying")
    assert rec.get(GptIdentity.embed_in_parameters) is True, (
        "MiniGPTWithWeightTying: minigpt.token_embed.weight is not among model.parameters(), so an optimizer "
        "would never train it"
    )


@pytest.mark.area(AREA)
@pytest.mark.points(4)
def test_wrapper_positional_embedding_not_tied(plan, evidence, run):
    """The positional table stays its own Parameter: changing token_embed leaves pos_embed alone."""
    cfg = plan["gpt"]["cfg"]
    rec = need(evidence, GptIdentity, run, what="MiniGPTWithWeightTying (identity check)")
    shape = (cfg["block_size"], cfg["embed_dim"])
    before = plain_tensor(rec, GptIdentity.pos_before, dtype=torch.float32, what="minigpt.pos_embed.weight")
    assert tuple(before.shape) != (cfg["vocab_size"], cfg["embed_dim"]), (
        f"minigpt.pos_embed.weight has the token table's shape {tuple(before.shape)}, expected {shape}: "
        f"positional embedding tied to the token embedding (only the head shares the token table)"
    )
    assert tuple(before.shape) == shape, f"minigpt.pos_embed.weight has shape {tuple(before.shape)}, expected {shape}"
    after = plain_tensor(rec, GptIdentity.pos_after, shape=shape, dtype=torch.float32, what="minigpt.pos_embed.weight")
    assert rec.get(GptIdentity.head_is_pos) is False, (
        "positional embedding tied: minigpt.lm_head.weight is pos_embed.weight"
    )
    assert close(before, after, rtol=0, atol=0), (
        "changing minigpt.token_embed.weight also changed minigpt.pos_embed.weight: positional embedding tied "
        "(only the token embedding shares its table with the head)"
    )
    head = rec.get(GptIdentity.head_after_inplace)
    assert not (type(head) is torch.Tensor and head.shape == before.shape and close(head, before, rtol=0, atol=0)), (
        "minigpt.lm_head.weight equals the positional table: positional embedding tied instead of token_embed"
    )
    # The reported tables count only if the model's forward really uses them (with the judge's token table).
    state = tensor_dict(rec, GptIdentity.state, what="model.minigpt.state_dict()")
    used = state.get("pos_embed.weight")
    assert type(used) is torch.Tensor and close(used, after, rtol=0, atol=0), (
        "model.minigpt.state_dict()['pos_embed.weight'] is not the reported positional table: positional "
        "embedding tied or replaced"
    )
    _check_wrapper_logits(rec, plan, plan["gpt"]["W1"], what="MiniGPTWithWeightTying", head_too=False)


@pytest.mark.area(AREA)
@pytest.mark.points(2)
def test_wrapper_tie_survives_state_dict_reload(plan, evidence, run):
    rec = need(evidence, GptReload, run, what="MiniGPTWithWeightTying (state_dict save/load)")
    what = "MiniGPTWithWeightTying after load_state_dict into a fresh model"
    _check_follow(rec, plan["gpt"]["W2"], what=what)
    _check_wrapper_logits(rec, plan, plan["gpt"]["W2"], what=what)


@pytest.mark.area(AREA)
@pytest.mark.points(2)
def test_wrapper_tie_survives_to_float64(plan, evidence, run):
    rec = need(evidence, GptFloat64, run, what="MiniGPTWithWeightTying (.to(torch.float64))")
    what = "MiniGPTWithWeightTying after .to(torch.float64)"
    _check_follow(rec, plan["gpt"]["W3"], what=what)
    _check_wrapper_logits(rec, plan, plan["gpt"]["W3"], what=what)
