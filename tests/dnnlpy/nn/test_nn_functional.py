"""dnnlpy.nn.functional against torch.nn.functional: values and gradients."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

import dnnlpy.nn.functional as dF


def _leaves(*tensors):
    """Two independent copies of each tensor that require grad (one for dnnlpy, one for torch)."""
    ours = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in tensors]
    theirs = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in tensors]
    return ours, theirs


def _check(our_fn, torch_fn, *tensors, atol=None, rtol=None):
    """Same output and same gradient (of a random projection of the output) for every float input.

    nan and inf must sit at the same places in both (equal_nan: a nan only matches a nan). Returns our
    leaves, so that a test can look at their gradients.
    """
    ours, theirs = _leaves(*tensors)
    out_ours, out_theirs = our_fn(*ours), torch_fn(*theirs)
    assert_close(out_ours, out_theirs, atol=atol, rtol=rtol, equal_nan=True)
    probe = torch.randn_like(out_theirs)
    (out_ours * probe).sum().backward()
    (out_theirs * probe).sum().backward()
    for a, b in zip(ours, theirs, strict=True):
        if b.grad is not None:
            assert a.grad is not None
            assert_close(a.grad, b.grad, atol=atol, rtol=rtol, equal_nan=True)
    return ours


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.mark.parametrize("shape,out", [((3, 5), 4), ((2, 3, 7), 2), ((1, 1), 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(shape, out, bias):
    x, w = torch.randn(shape), torch.randn(out, shape[-1])
    if bias:
        _check(dF.linear, F.linear, x, w, torch.randn(out))
    else:
        _check(dF.linear, F.linear, x, w)


def test_linear_rejects_mismatched_features():
    with pytest.raises(ValueError, match=r"last dimension must equal in_features"):
        dF.linear(torch.randn(2, 3), torch.randn(4, 5))
    with pytest.raises(ValueError, match=r"input has shape \(\) .* last dimension must equal in_features"):
        dF.linear(torch.tensor(1.0), torch.randn(4, 1))


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: dF.linear(torch.ones(2, 3, dtype=torch.long), torch.ones(4, 3)), "x must be a floating-point"),
        (lambda: dF.linear(torch.ones(2, 3), torch.ones(4, 3, dtype=torch.float64)), "dtype torch.float32 but weight"),
        (lambda: dF.linear(torch.ones(2, 3), torch.ones(4, 3), torch.ones(4, dtype=torch.float64)), "but bias"),
        (lambda: dF.softmax(torch.tensor([1, 2])), r"x must be a floating-point tensor, got dtype torch.int64"),
        (lambda: dF.log_softmax([1.0, 2.0]), "x must be a torch.Tensor, got list"),
        (lambda: dF.gelu(torch.tensor([1, 2])), "x must be a floating-point"),
        (lambda: dF.layer_norm(torch.ones(2, 4, dtype=torch.long), 4), "x must be a floating-point"),
    ],
)
def test_integer_or_mixed_dtypes_are_refused_as_torch_refuses_them(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_softmax_and_log_softmax_match_torch(dim, scale):
    x = torch.randn(4, 6, 5) * scale
    _check(lambda t: dF.softmax(t, dim), lambda t: F.softmax(t, dim), x)
    _check(lambda t: dF.log_softmax(t, dim), lambda t: F.log_softmax(t, dim), x)
    assert torch.isfinite(dF.log_softmax(x, dim)).all()


def test_softmax_of_fully_masked_row_is_nan_free_elsewhere():
    inf = float("inf")
    x = torch.tensor([[-inf, -inf, -inf], [1.0, 2.0, -inf], [0.0, 1e4, -1e4]])  # row 0: fully masked
    for ours, theirs in ((dF.softmax, F.softmax), (dF.log_softmax, F.log_softmax)):
        (leaf,) = _check(ours, lambda t, f=theirs: f(t, dim=-1), x)  # values and gradients, nan where torch's
        out = ours(x)
        assert out[0].isnan().all()  # 0 / 0, exactly as torch's softmax of an all -inf row
        assert not out[1:].isnan().any() and not leaf.grad[1:].isnan().any()  # and nowhere else
    assert_close(dF.softmax(x)[1], torch.tensor([0.2689414, 0.7310586, 0.0]))


@pytest.mark.parametrize("shape,dim", [((3, 0), -1), ((0, 4), 0), ((0, 4), 1), ((2, 0, 3), 1), ((), 0)])
def test_softmax_over_an_empty_or_0d_tensor_is_as_in_torch(shape, dim):
    x = torch.randn(shape)
    for ours, theirs in ((dF.softmax, F.softmax), (dF.log_softmax, F.log_softmax)):
        out = ours(x, dim)
        assert out.shape == x.shape
        assert_close(out, theirs(x, dim))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    _check(lambda t: dF.gelu(t, approximate), lambda t: F.gelu(t, approximate=approximate), torch.randn(3, 7) * 3)


def test_gelu_rejects_unknown_approximation():
    with pytest.raises(ValueError, match="approximate"):
        dF.gelu(torch.randn(2), "fast")


@pytest.mark.parametrize("shape,norm", [((2, 3, 8), (8,)), ((4, 5, 6), (5, 6)), ((3, 1), (1,))])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_torch(shape, norm, affine):
    x = torch.randn(shape) * 2 + 1
    if affine:
        w, b = torch.randn(norm), torch.randn(norm)
        _check(
            lambda *t: dF.layer_norm(t[0], norm, t[1], t[2]), lambda *t: F.layer_norm(t[0], norm, t[1], t[2]), x, w, b
        )
    else:
        _check(lambda t: dF.layer_norm(t, norm), lambda t: F.layer_norm(t, norm), x)


def test_layer_norm_rejects_wrong_trailing_shape():
    with pytest.raises(ValueError, match="normalized_shape"):
        dF.layer_norm(torch.randn(2, 3), (4,))


@pytest.mark.parametrize("t_q,t_k", [(5, 5), (3, 6), (6, 3)])
@pytest.mark.parametrize("is_causal", [True, False])
def test_sdpa_matches_torch(t_q, t_k, is_causal):
    q, k, v = torch.randn(2, 3, t_q, 4), torch.randn(2, 3, t_k, 4), torch.randn(2, 3, t_k, 5)
    _check(
        lambda *a: dF.scaled_dot_product_attention(*a, is_causal=is_causal),
        lambda *a: F.scaled_dot_product_attention(*a, is_causal=is_causal),
        q,
        k,
        v,
    )


def test_sdpa_masks_and_scale_match_torch():
    q, k, v = torch.randn(2, 4, 8), torch.randn(2, 6, 8), torch.randn(2, 6, 8)
    bool_mask = torch.rand(4, 6) > 0.3
    bool_mask[:, 0] = True
    bool_mask[2] = False  # query 2 may attend to no key at all
    float_mask = torch.randn(4, 6)
    float_mask[1] = float("-inf")  # and in the float mask, query 1
    for mask in (bool_mask, float_mask):
        _check(
            lambda *a, m=mask: dF.scaled_dot_product_attention(*a, attn_mask=m, scale=0.3),
            lambda *a, m=mask: F.scaled_dot_product_attention(*a, attn_mask=m, scale=0.3),
            q,
            k,
            v,
        )


@pytest.mark.parametrize("kind", ["bool", "float", "per-batch bool"])
def test_sdpa_query_with_no_key_gives_zeros_as_in_torch(kind):
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    if kind == "float":
        mask = torch.zeros(3, 5)
        mask[1] = float("-inf")
    else:
        mask = torch.ones(2 if kind == "per-batch bool" else 1, 3, 5, dtype=torch.bool)
        mask[0, 1] = False  # sample 0 (and, for a shared mask, every sample), query 1: nothing to read
    q_leaf, k_leaf, v_leaf = _check(
        lambda *a: dF.scaled_dot_product_attention(*a, attn_mask=mask),
        lambda *a: F.scaled_dot_product_attention(*a, attn_mask=mask),
        q,
        k,
        v,
    )
    out = dF.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.equal(out[0, 1], torch.zeros(6)) and torch.equal(q_leaf.grad[0, 1], torch.zeros(4))
    assert not any(t.grad.isnan().any() for t in (q_leaf, k_leaf, v_leaf))
    weights = dF.attention_weights(q, k, mask)
    assert torch.equal(weights[0, 1], torch.zeros(5))
    assert_close(weights[0, [0, 2]].sum(-1), torch.ones(2))  # the other queries still sum to one


def test_sdpa_with_no_keys_at_all_gives_zeros_as_in_torch():
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 0, 4), torch.randn(2, 0, 6)
    _check(dF.scaled_dot_product_attention, F.scaled_dot_product_attention, q, k, v)
    assert torch.equal(dF.scaled_dot_product_attention(q, k, v), torch.zeros(2, 3, 6))


def test_attention_weights_are_what_sdpa_averages_the_values_with():
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    weights = dF.attention_weights(q, k, is_causal=True)  # (B, T, S)
    assert weights.shape == (2, 3, 5)
    assert_close(weights @ v, dF.scaled_dot_product_attention(q, k, v, is_causal=True))
    assert torch.equal(weights[:, 0, 1:], torch.zeros(2, 4))  # query 0 sees key 0 only
    # attention_weights may combine a mask with is_causal; scaled_dot_product_attention refuses the pair, as torch
    keep_last = torch.tensor([True, True, True, True, False])
    both = dF.attention_weights(q, k, keep_last, is_causal=True)
    assert_close(both, dF.attention_weights(q, k, keep_last & dF.causal_mask(3, 5)))


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(attn_mask=torch.ones(3, 5, dtype=torch.bool), is_causal=True), ValueError, "not both"),
        (dict(attn_mask=torch.zeros(3, 5, dtype=torch.long)), TypeError, "attn_mask must be a bool tensor"),
        (dict(attn_mask=torch.zeros(3, 5, dtype=torch.float64)), TypeError, r"mask.to\(query.dtype\)"),
        (dict(attn_mask=torch.ones(3, 4, dtype=torch.bool)), ValueError, r"\(3, 4\) does not broadcast .* \(2, 3, 5\)"),
        (dict(attn_mask=torch.ones(2, 2, 3, 5, dtype=torch.bool)), ValueError, "does not broadcast"),
        (dict(query=torch.randn(3, 3, 4)), ValueError, "batch, head"),
        (dict(query=torch.randn(2, 3, 5)), ValueError, "non-zero last dimension"),
        (dict(query=torch.randn(4)), ValueError, "at least 2-D"),
        (dict(query=torch.randn(2, 3, 4).double()), TypeError, "key.to"),
        (dict(query=torch.ones(2, 3, 4, dtype=torch.long)), TypeError, "query must be a floating-point"),
        (dict(value=torch.randn(2, 4, 6)), ValueError, "one value vector per key"),
        (dict(dropout_p=1.5), ValueError, r"dropout_p must be a number in \[0, 1\]"),
    ],
)
def test_sdpa_errors_name_the_value_and_the_fix(kwargs, exc, match):
    args = dict(query=torch.randn(2, 3, 4), key=torch.randn(2, 5, 4), value=torch.randn(2, 5, 6))
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        dF.scaled_dot_product_attention(**args)


def test_causal_mask_is_lower_triangular():
    assert dF.causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
