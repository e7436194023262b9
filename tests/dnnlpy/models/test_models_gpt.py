"""MiniGPT: architecture against a torch reference, tying, loss forms, generation, helpers, errors."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.testing import assert_close

import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF
from dnnlpy.models import gpt

V, BLOCK, D = 50, 8, 16


def _reference_logits(m: gpt.MiniGPT, ids):
    """The same architecture written with torch's own functional operators and m's parameters."""
    t = ids.shape[1]

    def heads(y, a):  # (B, T, E) -> (B, H, T, d)
        return y.view(y.shape[0], t, a.num_heads, a.head_dim).transpose(1, 2)

    x = F.embedding(ids, m.token_embed.weight) + F.embedding(torch.arange(t), m.pos_embed.weight)
    for blk in m.blocks:
        a = blk.attn.attn
        h = F.layer_norm(x, (D,), blk.ln1.weight, blk.ln1.bias)
        q, k, v = (heads(F.linear(h, p.weight, p.bias), a) for p in (a.q_proj, a.k_proj, a.v_proj))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(x.shape)
        x = x + F.linear(o, a.out_proj.weight, a.out_proj.bias)
        h = F.layer_norm(x, (D,), blk.ln2.weight, blk.ln2.bias)
        x = x + F.linear(
            F.gelu(F.linear(h, blk.mlp.fc1.weight, blk.mlp.fc1.bias)), blk.mlp.fc2.weight, blk.mlp.fc2.bias
        )
    x = F.layer_norm(x, (D,), m.final_norm.weight, m.final_norm.bias)
    return F.linear(x, m.lm_head.weight)


@pytest.mark.parametrize("weight_tying", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_forward_and_gradients_match_torch_reference(weight_tying, bias, make_model, make_ids):
    m = make_model(weight_tying=weight_tying, bias=bias)
    ids = make_ids(3, 7)
    logits = m(ids)
    assert logits.shape == (3, 7, V)
    targets = make_ids(3, 7, seed=2)
    dF.cross_entropy_loss(logits.reshape(-1, V), targets.reshape(-1)).backward()
    ours = {n: p.grad.clone() for n, p in m.named_parameters()}
    m.zero_grad()
    ref = _reference_logits(m, ids)
    assert_close(logits, ref)
    F.cross_entropy(ref.reshape(-1, V), targets.reshape(-1)).backward()
    for n, p in m.named_parameters():
        assert_close(ours[n], p.grad, msg=f"gradient of {n}")


def test_structure_and_attributes(tied):
    assert tied.vocab_size == V and tied.block_size == BLOCK
    assert isinstance(tied.token_embed, nn.Embedding) and tied.token_embed.weight.shape == (V, D)
    assert isinstance(tied.pos_embed, nn.Embedding) and tied.pos_embed.weight.shape == (BLOCK, D)
    assert isinstance(tied.blocks, nn.ModuleList) and len(tied.blocks) == 2
    assert all(isinstance(b, gpt.MiniGPTBlock) for b in tied.blocks)
    assert isinstance(tied.blocks[0].attn, gpt.MiniGPTCausalSelfAttention)
    assert isinstance(tied.blocks[0].mlp, gpt.MiniGPTMLP)
    assert isinstance(tied.final_norm, dnn.LayerNorm)
    assert isinstance(tied.lm_head, dnn.Linear) and tied.lm_head.weight.shape == (V, D)
    assert tied.lm_head.bias is None


def test_config_is_the_one_place_the_hyper_parameters_live(tied, untied):
    assert tied.config == gpt.MiniGPTConfig(V, BLOCK, D, num_layers=2, num_heads=4, hidden_dim=32, weight_tying=True)
    assert (tied.vocab_size, tied.block_size, tied.weight_tying) == (V, BLOCK, True)
    assert untied.weight_tying is False and untied.config.weight_tying is False
    for name in ("vocab_size", "block_size", "weight_tying"):
        assert name not in vars(tied)  # not a second copy next to the config
        with pytest.raises(AttributeError):
            setattr(tied, name, 3)  # read-only: changing V would not resize the tables
    with pytest.raises(AttributeError):
        tied.config.vocab_size = 3  # frozen


@pytest.mark.parametrize("flag", ["bias", "weight_tying"])
def test_config_refuses_a_non_bool_flag(flag, make_model):
    with pytest.raises(TypeError, match=rf"{flag} must be True or False, got 'False'"):
        make_model(**{flag: "False"})


def test_every_dropout_is_a_dropout_module(make_model):
    m = make_model(dropout=0.25)
    settings = [(name, mod.p) for name, mod in m.named_modules() if isinstance(mod, dnn.Dropout)]
    per_block = ["attn.attn.attn_dropout", "attn.resid_dropout", "mlp.dropout"]
    assert [name for name, _ in settings] == ["embed_dropout"] + [f"blocks.{i}.{n}" for i in (0, 1) for n in per_block]
    assert {p for _, p in settings} == {0.25}
    assert m.blocks[0].attn.attn.dropout == 0.25  # MultiheadAttention.dropout stays a float, as in torch
    # no float-valued "dropout" attribute hides outside the Dropout modules
    assert not [n for n, mod in m.named_modules() if isinstance(vars(mod).get("dropout"), float)]


def test_state_dict_keys_are_unchanged(make_model):
    """Checkpoints written before dropout became modules still load: Dropout has no parameters."""
    m = make_model(num_layers=1, dropout=0.1)
    block = [
        "ln1.weight",
        "ln1.bias",
        "attn.attn.q_proj.weight",
        "attn.attn.q_proj.bias",
        "attn.attn.k_proj.weight",
        "attn.attn.k_proj.bias",
        "attn.attn.v_proj.weight",
        "attn.attn.v_proj.bias",
        "attn.attn.out_proj.weight",
        "attn.attn.out_proj.bias",
        "ln2.weight",
        "ln2.bias",
        "mlp.fc1.weight",
        "mlp.fc1.bias",
        "mlp.fc2.weight",
        "mlp.fc2.bias",
    ]
    expected = ["token_embed.weight", "pos_embed.weight", *[f"blocks.0.{k}" for k in block]]
    expected += ["final_norm.weight", "final_norm.bias", "lm_head.weight"]
    assert list(m.state_dict()) == expected


def test_minigpt_ties_only_when_asked():
    """As in the book: its MiniGPT starts untied and the chapter passes weight_tying=True to tie it, so a
    wrapper that leaves the flag out builds two tables (the exercise's tie is the student's)."""
    plain = gpt.MiniGPT(V, BLOCK, embed_dim=D, num_layers=1, num_heads=4, hidden_dim=32)
    assert plain.weight_tying is False and gpt.MiniGPTConfig(V, BLOCK).weight_tying is False
    assert plain.lm_head.weight is not plain.token_embed.weight


def test_a_too_long_input_names_the_limit_not_the_fix(tied):
    """The error explains block_size without printing the crop a student's generate must write."""
    with pytest.raises(ValueError) as info:
        tied(torch.zeros(1, BLOCK + 3, dtype=torch.long))
    assert f"block_size is {BLOCK}" in str(info.value)
    assert "[:, -" not in str(info.value) and "last" not in str(info.value)


def test_weight_tying_shares_one_parameter(tied, untied):
    assert tied.lm_head.weight is tied.token_embed.weight
    assert untied.lm_head.weight is not untied.token_embed.weight
    assert untied.lm_head.bias is None
    with torch.no_grad():
        tied.token_embed.weight[3, 0] = 7.0
    assert tied.lm_head.weight[3, 0].item() == 7.0
    names = [n for n, _ in tied.named_parameters()]
    assert "lm_head.weight" not in names  # named_parameters reports the shared tensor once


def test_count_parameters_differs_by_exactly_v_times_d(tied, untied, make_model):
    n_tied, n_untied = gpt.count_parameters(tied), gpt.count_parameters(untied)
    assert n_untied - n_tied == V * D
    assert n_tied == sum(p.numel() for p in tied.parameters())
    naive = sum(p.numel() for _, p in tied.named_parameters(remove_duplicate=False))
    assert naive - n_tied == V * D  # the naive count sees the shared matrix twice
    # also a model with bias=False: still exactly V*D apart
    assert (
        gpt.count_parameters(make_model(bias=False, weight_tying=False)) - gpt.count_parameters(make_model(bias=False))
        == V * D
    )


def test_count_parameters_trainable_only(tied):
    tied.pos_embed.weight.requires_grad_(False)
    assert gpt.count_parameters(tied) - gpt.count_parameters(tied, trainable_only=True) == BLOCK * D
    tied.token_embed.weight.requires_grad_(False)  # the tied table: frozen once, subtracted once
    assert gpt.count_parameters(tied) - gpt.count_parameters(tied, trainable_only=True) == BLOCK * D + V * D


def test_tied_gradient_is_the_sum_of_both_paths(untied, make_model, make_ids):
    tied = make_model()
    with torch.no_grad():
        untied.lm_head.weight.copy_(untied.token_embed.weight)  # same values, two Parameters
    tied.load_state_dict({k: v for k, v in untied.state_dict().items()})
    ids = make_ids()
    tied.loss(ids).backward()
    untied.loss(ids).backward()
    assert_close(tied.token_embed.weight.grad, untied.token_embed.weight.grad + untied.lm_head.weight.grad)
    assert tied.lm_head.weight.grad is tied.token_embed.weight.grad


def test_gpt2_initialisation(tied, make_model):
    model = make_model(embed_dim=64, hidden_dim=128, vocab_size=500)
    assert abs(model.token_embed.weight.std().item() - 0.02) < 0.002
    assert abs(model.blocks[0].mlp.fc1.weight.std().item() - 0.02) < 0.002
    assert torch.count_nonzero(model.blocks[0].mlp.fc1.bias) == 0
    assert torch.count_nonzero(model.blocks[0].attn.attn.q_proj.bias) == 0
    ids = torch.randint(0, 500, (4, BLOCK), generator=torch.Generator().manual_seed(0))
    assert abs(model.loss(ids).item() - math.log(500)) < 0.1  # untrained: close to uniform


# ---- loss --------------------------------------------------------------------------------------------


def test_loss_target_forms_agree(tied, make_ids):
    ids = make_ids(2, 6)
    expected = F.cross_entropy(tied(ids[:, :-1]).reshape(-1, V), ids[:, 1:].reshape(-1))
    assert_close(tied.loss(ids), expected)
    assert_close(tied.loss(ids, ids[:, 1:]), expected)  # (B, T-1): the chapter's call
    shifted = make_ids(2, 6, seed=5)
    assert_close(tied.loss(ids, shifted), F.cross_entropy(tied(ids).reshape(-1, V), shifted.reshape(-1)))


def test_loss_without_targets_accepts_block_size_plus_one(tied, make_ids):
    ids = make_ids(2, BLOCK + 1)
    assert torch.isfinite(tied.loss(ids))


def test_loss_ignores_minus_100_targets(tied, make_ids):
    ids = make_ids(1, 5)
    targets = ids[:, 1:].clone()
    targets[0, :2] = -100
    logits = tied(ids[:, :-1])[0, 2:]
    assert_close(tied.loss(ids, targets), F.cross_entropy(logits, ids[0, 3:]))


def test_loss_with_every_target_ignored_leaves_the_weights_finite(tied, make_ids):
    """A fully padded batch: the mean has nothing to average (nan, as torch's), but the gradients are 0."""
    ids = make_ids(2, 6)
    loss = tied.loss(ids, torch.full((2, 5), -100))
    expected = F.cross_entropy(tied(ids[:, :-1]).reshape(-1, V), torch.full((10,), -100))
    assert loss.isnan() and expected.isnan()
    loss.backward()
    assert all(torch.equal(p.grad, torch.zeros_like(p)) for p in tied.parameters())
    before = [p.detach().clone() for p in tied.parameters()]
    torch.optim.SGD(tied.parameters(), lr=0.1).step()
    assert all(torch.equal(a, b) for a, b in zip(before, tied.parameters(), strict=True))


def test_loss_accepts_int32_targets(tied, make_ids):
    ids = make_ids(2, 6)
    assert_close(tied.loss(ids, ids[:, 1:].int()), tied.loss(ids))


@pytest.mark.parametrize("shape", [(2, 3), (2, 7), (1, 5), (2, 5, 1)])
def test_loss_rejects_mismatched_targets(tied, shape, make_ids):
    with pytest.raises(ValueError, match=r"targets has shape .* pass targets of shape \(2, 5\)"):
        tied.loss(make_ids(2, 6), torch.zeros(shape, dtype=torch.long))


def test_loss_rejects_float_targets_and_single_token(tied, make_ids):
    with pytest.raises(TypeError, match="integer token ids"):
        tied.loss(make_ids(2, 6), torch.zeros(2, 5))
    with pytest.raises(TypeError, match="integer token ids"):
        tied.loss(make_ids(2, 6), torch.zeros(2, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="at least 2 tokens"):
        tied.loss(make_ids(2, 1))


# ---- errors on input_ids -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ids,exc,match",
    [
        (torch.zeros(2, 3), TypeError, r"integer tensor .* got dtype torch.float32"),
        (torch.zeros(3, dtype=torch.long), ValueError, r"2-D .* got shape \(3,\).*unsqueeze\(0\)"),
        (torch.zeros(1, 2, 3, dtype=torch.long), ValueError, r"2-D .* got shape \(1, 2, 3\)"),
        (torch.tensor([[1, V]]), ValueError, rf"token id {V}, outside \[0, {V}\)"),
        (torch.tensor([[-1, 2]]), ValueError, r"token id -1, outside"),
        (
            torch.zeros(2, 9, dtype=torch.long),
            ValueError,
            r"input_ids has shape \(2, 9\) but block_size is 8: the positional table has 8 rows",
        ),
        ([[1, 2]], TypeError, "torch.Tensor"),
    ],
)
def test_bad_input_ids(tied, ids, exc, match):
    with pytest.raises(exc, match=match):
        tied(ids)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(embed_dim=30, num_heads=4), "embed_dim=30 is not divisible by num_heads=4"),
        (dict(vocab_size=0), "vocab_size must be an int >= 1"),
        (dict(block_size=2.5), "block_size"),
        (dict(dropout=1.5), "dropout"),
    ],
)
def test_bad_hyper_parameters(kwargs, match, make_model):
    with pytest.raises(ValueError, match=match):
        make_model(**kwargs)


# ---- get_batch ---------------------------------------------------------------------------------------


def test_get_batch_windows_are_shifted_slices():
    stream = torch.arange(100, 160)
    x, y = gpt.get_batch(stream, block_size=5, batch_size=7, generator=torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (7, 5) and x.dtype == torch.int64
    assert torch.equal(y, x + 1)  # in an arange stream the next token is the id plus one
    assert ((x >= 100) & (y < 160)).all()
    x2, _ = gpt.get_batch(stream, 5, 7, generator=torch.Generator().manual_seed(0))
    assert torch.equal(x, x2)


def test_get_batch_errors():
    with pytest.raises(ValueError, match="block_size is 8"):
        gpt.get_batch(torch.arange(8), 8, 2)
    with pytest.raises(ValueError, match="1-D integer tensor"):
        gpt.get_batch(torch.zeros(2, 20, dtype=torch.long), 4, 2)
