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
    """Outputs, weights (when both return them), input and parameter gradients. Returns our weights."""
    leaves_ours = [t.clone().requires_grad_() for t in (q, k, v)]
    leaves_theirs = [t.clone().requires_grad_() for t in (q, k, v)]
    out_ours, w_ours = ours(*leaves_ours, **our_kwargs)
    out_theirs, w_theirs = theirs(*leaves_theirs, **their_kwargs)
    assert_close(out_ours, out_theirs)
    assert (w_ours is None) == (not our_kwargs.get("need_weights"))
    if w_theirs is not None and w_ours is not None:
        assert_close(w_ours, w_theirs)
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
        assert_close(ours.out_proj.bias.grad, theirs.out_proj.bias.grad)
    return w_ours


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
    bool_mask[:, 0] = False  # every query keeps key 0 (a query with no key: test_query_with_no_key_...)
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


def _per_head_masks(b, h, t, s, *, float_mask):
    """(B * H, T, S) masks in torch's convention, different for every sample and head (True = blocked)."""
    blocked = torch.rand(b * h, t, s) > 0.6
    blocked[:, :, 0] = False  # every query keeps key 0, so torch's need_weights path has no nan
    if not float_mask:
        return blocked
    return torch.zeros(b * h, t, s).masked_fill(blocked, float("-inf")) + torch.randn(b * h, t, s)


@pytest.mark.parametrize("float_mask", [False, True])
@pytest.mark.parametrize("average", [True, False])
def test_per_head_3d_mask_matches_torch(float_mask, average):
    ours = dnn.MultiheadAttention(8, 2)
    theirs = _torch_mha_from(ours, True)
    q, kv = torch.randn(3, 4, 8), torch.randn(3, 5, 8)
    mask = _per_head_masks(3, 2, 4, 5, float_mask=float_mask)
    kwargs = dict(attn_mask=mask, need_weights=True, average_attn_weights=average)
    weights = _compare_mha(ours, theirs, True, q, kv, kv, kwargs, kwargs)
    if not average:  # entry i * H + h of the mask is head h of sample i, as in torch
        blocked = mask.view(3, 2, 4, 5) if not float_mask else mask.view(3, 2, 4, 5) == float("-inf")
        assert torch.equal(weights == 0, blocked)


@pytest.mark.parametrize("mask_kind", ["2-D bool", "2-D float", "3-D bool"])
@pytest.mark.parametrize("need_weights", [False, True])
def test_query_with_no_key_returns_the_out_proj_bias_as_torch_does(mask_kind, need_weights):
    """torch's module takes its SDPA path (zero attention) without need_weights; with need_weights its
    explicit softmax gives nan for the whole sample and every gradient. dnnlpy gives the SDPA answer in both."""
    ours = dnn.MultiheadAttention(8, 2)
    with torch.no_grad():
        ours.out_proj.bias.normal_()
    theirs = _torch_mha_from(ours, True)
    x = torch.randn(2, 4, 8)
    if mask_kind == "3-D bool":
        mask = torch.zeros(2 * 2, 4, 4, dtype=torch.bool)
        mask[0, 1] = mask[1, 1] = True  # sample 0, both heads: query 1 may attend to nothing
    else:
        mask = torch.zeros(4, 4, dtype=torch.bool)
        mask[1] = True  # every sample, query 1
    if mask_kind == "2-D float":
        mask = torch.zeros(4, 4).masked_fill(mask, float("-inf"))
    weights = _compare_mha(
        ours,
        theirs,
        True,
        x,
        x,
        x,
        dict(attn_mask=mask, need_weights=need_weights),
        dict(attn_mask=mask, need_weights=False),
    )
    out, _ = ours(x, x, x, attn_mask=mask)
    assert_close(out[0, 1], ours.out_proj.bias)  # it reads nothing: zero attention, then the output bias
    assert not any(p.grad.isnan().any() for p in ours.parameters())
    if need_weights:
        assert torch.equal(weights[0, 1], torch.zeros(4))
        _, w_theirs = theirs(x, x, x, attn_mask=mask, need_weights=True)
        assert w_theirs[0, 1].isnan().all()  # what torch's own need_weights path gives instead
        assert_close(weights[0, [0, 2, 3]], w_theirs[0, [0, 2, 3]])  # the other rows agree


def test_empty_batch_and_empty_key_sequence_as_in_torch():
    ours = dnn.MultiheadAttention(8, 2)
    with torch.no_grad():
        ours.out_proj.bias.normal_()
    theirs = _torch_mha_from(ours, True)
    empty = torch.randn(0, 3, 8)
    out, weights = ours(empty, empty, empty, need_weights=True)
    assert out.shape == (0, 3, 8) and weights.shape == (0, 3, 3)
    per_head = torch.zeros(0, 3, 3, dtype=torch.bool)  # torch's own module fails to reshape this one
    assert ours(empty, empty, empty, attn_mask=per_head)[0].shape == (0, 3, 8)
    q, kv = torch.randn(2, 3, 8), torch.randn(2, 0, 8)
    out, weights = ours(q, kv, kv, need_weights=True)
    assert weights.shape == (2, 3, 0)
    assert_close(out, theirs(q, kv, kv, need_weights=False)[0])  # no key to read: the out_proj bias
    assert_close(out, ours.out_proj.bias.expand(2, 3, 8))


def test_mha_bad_config_and_input():
    with pytest.raises(ValueError, match="embed_dim=10 is not divisible by num_heads=4"):
        dnn.MultiheadAttention(10, 4)
    attn = dnn.MultiheadAttention(8, 2)
    with pytest.raises(ValueError, match=r"\(batch, seq_len, 8\)"):
        attn(torch.randn(5, 8), torch.randn(5, 8), torch.randn(5, 8))


@pytest.mark.parametrize(
    "q,kv,mask,exc,match",
    [
        ((2, 3), (3, 3), None, ValueError, r"must have the same batch size"),
        ((2, 3), (2, 3), torch.zeros(3, 4, dtype=torch.bool), ValueError, r"\(T, S\) = \(3, 3\) or .* = \(4, 3, 3\)"),
        ((2, 3), (2, 3), torch.zeros(2, 3, 3, dtype=torch.bool), ValueError, r"got \(2, 3, 3\)"),
        ((2, 3), (2, 3), torch.zeros(3, 3, dtype=torch.long), TypeError, r"attn_mask must be a bool tensor"),
        ((2, 3), (2, 3), torch.zeros(3, 3, dtype=torch.float64), TypeError, r"mask.to\(torch.float32\)"),
    ],
)
def test_mha_errors_name_the_value_and_the_fix(q, kv, mask, exc, match):
    attn = dnn.MultiheadAttention(8, 2)
    query, key = torch.randn(*q, 8), torch.randn(*kv, 8)
    with pytest.raises(exc, match=match):
        attn(query, key, key, attn_mask=mask)


def test_mha_refuses_integer_or_mixed_dtype_inputs():
    attn = dnn.MultiheadAttention(8, 2)
    x = torch.randn(2, 3, 8)
    with pytest.raises(TypeError, match=r"query must be a floating-point tensor, got dtype torch.int64"):
        attn(x.long(), x.long(), x.long())
    with pytest.raises(TypeError, match="must share one dtype"):
        attn(x, x.double(), x)
    with pytest.raises(TypeError, match=r"input has dtype torch.float64 but weight has torch.float32"):
        attn(x.double(), x.double(), x.double())  # the layer's own weights are float32


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
