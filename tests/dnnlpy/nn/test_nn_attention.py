"""dnnlpy.nn.MultiheadAttention against torch.nn.MultiheadAttention with copied weights."""

import pytest
import torch
from torch import nn
from torch.testing import assert_close

import dnnlpy.nn as dnn


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def _torch_mha_from(ours: dnn.MultiheadAttention, bias: bool) -> nn.MultiheadAttention:
    theirs = nn.MultiheadAttention(ours.embed_dim, ours.num_heads, bias=bias, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        if bias:
            theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
            theirs.out_proj.bias.copy_(ours.out_proj.bias)
    return theirs


def _compare_mha(ours, theirs, bias, q, k, v, our_kwargs, their_kwargs):
    leaves_ours = [t.clone().requires_grad_() for t in (q, k, v)]
    leaves_theirs = [t.clone().requires_grad_() for t in (q, k, v)]
    out_ours, w_ours = ours(*leaves_ours, **our_kwargs)
    out_theirs, w_theirs = theirs(*leaves_theirs, **their_kwargs)
    assert_close(out_ours, out_theirs)
    if their_kwargs.get("need_weights"):
        assert_close(w_ours, w_theirs)
    else:
        assert w_ours is None
    probe = torch.randn_like(out_theirs)
    (out_ours * probe).sum().backward()
    (out_theirs * probe).sum().backward()
    for a, b in zip(leaves_ours, leaves_theirs, strict=True):
        assert_close(a.grad, b.grad)
    in_grad = torch.cat([ours.q_proj.weight.grad, ours.k_proj.weight.grad, ours.v_proj.weight.grad])
    assert_close(in_grad, theirs.in_proj_weight.grad)
    assert_close(ours.out_proj.weight.grad, theirs.out_proj.weight.grad)
    if bias:
        in_bias_grad = torch.cat([ours.q_proj.bias.grad, ours.k_proj.bias.grad, ours.v_proj.bias.grad])
        assert_close(in_bias_grad, theirs.in_proj_bias.grad)


@pytest.mark.parametrize("embed_dim,num_heads,t", [(8, 2, 5), (12, 3, 7), (6, 1, 1)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("need_weights", [False, True])
def test_causal_self_attention_matches_torch(embed_dim, num_heads, t, bias, need_weights):
    ours = dnn.MultiheadAttention(embed_dim, num_heads, bias=bias)
    theirs = _torch_mha_from(ours, bias)
    x = torch.randn(3, t, embed_dim)
    blocked = torch.ones(t, t, dtype=torch.bool).triu(1)  # torch's convention: True = may NOT attend
    _compare_mha(
        ours,
        theirs,
        bias,
        x,
        x,
        x,
        dict(is_causal=True, need_weights=need_weights),
        dict(attn_mask=blocked, is_causal=True, need_weights=need_weights),
    )


def test_cross_attention_with_masks_matches_torch():
    ours = dnn.MultiheadAttention(8, 4)
    theirs = _torch_mha_from(ours, True)
    q, kv = torch.randn(2, 3, 8), torch.randn(2, 6, 8)
    float_mask = torch.randn(3, 6)
    _compare_mha(
        ours,
        theirs,
        True,
        q,
        kv,
        kv,
        dict(attn_mask=float_mask, need_weights=True),
        dict(attn_mask=float_mask, need_weights=True),
    )
    ours.zero_grad(), theirs.zero_grad()
    bool_mask = torch.rand(3, 6) > 0.5
    bool_mask[:, 0] = False  # every query keeps key 0
    _compare_mha(
        ours,
        theirs,
        True,
        q,
        kv,
        kv,
        dict(attn_mask=bool_mask, need_weights=True, average_attn_weights=False),
        dict(attn_mask=bool_mask, need_weights=True, average_attn_weights=False),
    )


def test_causal_attention_ignores_the_future():
    attn = dnn.MultiheadAttention(8, 2)
    x = torch.randn(1, 5, 8)
    changed = x.clone()
    changed[:, 3:] = torch.randn(1, 2, 8)
    out1, _ = attn(x, x, x, is_causal=True)
    out2, _ = attn(changed, changed, changed, is_causal=True)
    assert_close(out1[:, :3], out2[:, :3])
    assert not torch.allclose(out1[:, 3:], out2[:, 3:])


def test_mha_bad_config_and_input():
    with pytest.raises(ValueError, match="embed_dim=10 is not divisible by num_heads=4"):
        dnn.MultiheadAttention(10, 4)
    attn = dnn.MultiheadAttention(8, 2)
    with pytest.raises(ValueError, match=r"\(batch, seq_len, 8\)"):
        attn(torch.randn(5, 8), torch.randn(5, 8), torch.randn(5, 8))


def test_attention_dropout_is_a_module_on_the_probabilities():
    attn = dnn.MultiheadAttention(8, 2, dropout=1.0)
    assert isinstance(attn.attn_dropout, dnn.Dropout) and attn.dropout == 1.0
    x = torch.randn(2, 4, 8)
    # every probability dropped: each head reads nothing, so the output is out_proj's bias alone
    out, _ = attn(x, x, x)
    assert_close(out, attn.out_proj.bias.expand(2, 4, 8))
    attn.eval()  # no dropout in eval mode
    assert not torch.allclose(attn(x, x, x)[0], out)
    with pytest.raises(AttributeError):
        attn.dropout = 0.5  # read-only view of attn_dropout.p
