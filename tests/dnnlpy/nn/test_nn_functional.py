"""dnnlpy.nn.functional against torch.nn.functional: values and gradients."""

import math

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


# ---- cross-entropy -----------------------------------------------------------------------------------


def _ce(reduction, weight, ignore_index, smoothing):
    def ours(x, t):
        return dF.cross_entropy_loss(x, t, reduction, weight, ignore_index, smoothing)

    def theirs(x, t):
        return F.cross_entropy(
            x, t, weight=weight, ignore_index=ignore_index, reduction=reduction, label_smoothing=smoothing
        )

    return ours, theirs


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_class_targets_match_torch(reduction, use_weight, smoothing, ignore_index):
    n, c = 12, 5
    x = torch.randn(n, c) * 3
    target = torch.randint(0, c, (n,))
    target[:3] = 2  # make sure the ignore_index=2 case really drops rows
    weight = torch.rand(c) + 0.5 if use_weight else None
    _check(*_ce(reduction, weight, ignore_index, smoothing), x, target)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_probability_targets_match_torch(reduction, use_weight, smoothing):
    n, c = 7, 6
    x = torch.randn(n, c)
    probs = torch.softmax(torch.randn(n, c), dim=1)
    weight = torch.rand(c) + 0.5 if use_weight else None
    _check(*_ce(reduction, weight, -100, smoothing), x, probs)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_is_stable_on_huge_logits(reduction):
    x = torch.randn(16, 9).sign() * 1e4  # every logit is +1e4 or -1e4
    x[:, 0] += torch.linspace(-50, 50, 16)  # and some rows disagree only slightly
    target = torch.randint(0, 9, (16,))
    ours = dF.cross_entropy_loss(x, target, reduction)
    assert torch.isfinite(ours).all()
    _check(*_ce(reduction, None, -100, 0.0), x, target)
    _check(*_ce(reduction, None, -100, 0.1), x, target)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("use_weight", [False, True])
def test_cross_entropy_with_a_minus_inf_logit_matches_torch(reduction, smoothing, use_weight):
    inf = float("inf")
    x = torch.tensor([[0.0, -inf, 1.0], [0.0, -inf, 1.0], [2.0, 0.5, -inf], [-inf, -inf, 3.0]])
    target = torch.tensor([0, 1, 0, -100])  # row 1 targets the -inf class; row 3 is ignored
    weight = torch.tensor([0.5, 2.0, 1.0]) if use_weight else None
    _check(*_ce(reduction, weight, -100, smoothing), x, target)


def test_cross_entropy_minus_inf_logit_figures():
    inf = float("inf")
    x, t = torch.tensor([[0.0, -inf, 1.0]]), torch.tensor([0])
    assert_close(dF.cross_entropy_loss(x, t), torch.tensor(1.3133), atol=1e-4, rtol=0)  # was nan
    assert_close(dF.cross_entropy_loss(x, t, "none"), torch.tensor([1.3133]), atol=1e-4, rtol=0)
    assert dF.cross_entropy_loss(x, torch.tensor([1])).item() == inf  # the target's probability is 0
    assert dF.cross_entropy_loss(x, t, label_smoothing=0.1).item() == inf  # smoothing also targets class 1


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("use_weight", [False, True])
def test_cross_entropy_with_every_target_ignored_matches_torch(reduction, smoothing, use_weight):
    x = torch.randn(4, 5)
    weight = torch.rand(5) + 0.5 if use_weight else None
    (leaf, _) = _check(*_ce(reduction, weight, -100, smoothing), x, torch.full((4,), -100))
    assert torch.equal(leaf.grad, torch.zeros(4, 5))  # no nan: an optimizer step stays harmless
    loss = dF.cross_entropy_loss(x, torch.full((4,), -100), reduction, weight, label_smoothing=smoothing)
    if reduction == "mean":
        assert loss.isnan()  # 0 / 0: nothing to average, as torch's mean
    else:
        assert torch.equal(loss, torch.zeros_like(loss))


def test_cross_entropy_zero_total_weight_gives_nan_gradients_as_torch():
    """Targets that count but weigh nothing: torch divides by a total weight of 0, and so does dnnlpy."""
    x = torch.randn(2, 3)
    (leaf, _) = _check(*_ce("mean", torch.tensor([0.0, 1.0, 1.0]), -100, 0.0), x, torch.tensor([0, 0]))
    assert leaf.grad.isnan().all()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.15])
@pytest.mark.parametrize("shape", [(2, 4, 3), (2, 4, 3, 2), (4,)])
def test_cross_entropy_higher_rank_and_unbatched_match_torch(shape, reduction, use_weight, smoothing):
    x = torch.randn(shape) * 3
    c = shape[0] if len(shape) == 1 else shape[1]
    class_shape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    target = torch.randint(0, c, class_shape)
    if target.dim() > 0:
        target.view(-1)[0] = -100  # one ignored position
    weight = torch.rand(c) + 0.5 if use_weight else None
    _check(*_ce(reduction, weight, -100, smoothing), x, target)
    probs = torch.rand(shape)  # probability targets of the input's own shape (need not sum to one)
    _check(*_ce(reduction, weight, -100, smoothing), x, probs)
    assert dF.cross_entropy_loss(x, target, reduction).shape == F.cross_entropy(x, target, reduction=reduction).shape


def test_cross_entropy_unbatched_ignored_target_as_torch():
    x = torch.randn(4)
    assert dF.cross_entropy_loss(x, torch.tensor(-100), "none").item() == 0.0
    assert dF.cross_entropy_loss(x, torch.tensor(-100)).isnan()


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.bool, torch.float32])
def test_cross_entropy_refuses_the_target_dtypes_torch_refuses(dtype):
    x, target = torch.randn(3, 4), torch.tensor([0, 1, 1]).to(dtype)
    with pytest.raises(RuntimeError):
        F.cross_entropy(x, target)  # the premise: torch refuses it too
    with pytest.raises(TypeError, match=rf"int64 \(torch.long\), got dtype {dtype}: use target.long\(\)"):
        dF.cross_entropy_loss(x, target)


def test_cross_entropy_accepts_uint8_targets_as_torch():
    x, target = torch.randn(3, 4), torch.tensor([0, 3, 1], dtype=torch.uint8)
    _check(*_ce("mean", None, -100, 0.1), x, target)


def test_cross_entropy_weight_dtype_as_torch():
    x, target = torch.randn(3, 4), torch.tensor([0, 3, 1])
    weight = torch.rand(4, dtype=torch.float64)
    with pytest.raises(RuntimeError):
        F.cross_entropy(x, target, weight=weight)  # class targets: torch wants the input's dtype
    with pytest.raises(TypeError, match=r"weight has dtype torch.float64 but input has torch.float32: use weight.to"):
        dF.cross_entropy_loss(x, target, weight=weight)
    probs = torch.rand(3, 4)  # probability targets: torch promotes instead, and so does dnnlpy
    ours, theirs = dF.cross_entropy_loss(x, probs, weight=weight), F.cross_entropy(x, probs, weight=weight)
    assert ours.dtype == theirs.dtype == torch.float64
    assert_close(ours, theirs)


def test_cross_entropy_uniform_logits_give_log_c():
    assert_close(dF.cross_entropy_loss(torch.zeros(3, 100), torch.tensor([0, 5, 99])), torch.tensor(math.log(100)))


def test_cross_entropy_reduction_is_third_positional():
    x, t = torch.randn(4, 3), torch.tensor([0, 1, 2, 1])
    assert dF.cross_entropy_loss(x, t, "none").shape == (4,)
    assert_close(dF.cross_entropy_loss(x, t, "sum"), F.cross_entropy(x, t, reduction="sum"))


@pytest.mark.parametrize(
    "x,target,exc,match",
    [
        (
            torch.randn(2, 3, 4),
            torch.zeros(2, 3, dtype=torch.long),
            ValueError,
            r"classes go in dim 1.*reshape\(-1, V\)",
        ),
        (torch.randn(4, 3), torch.zeros(5, dtype=torch.long), ValueError, r"target shape \(5,\) does not match"),
        (
            torch.randn(4, 3),
            torch.zeros(4),
            TypeError,
            r"int64 \(torch.long\), got dtype torch.float32: use target.long",
        ),
        (torch.randn(4, 3), torch.tensor([0, 1, 3, 0]), ValueError, r"class id 3, outside \[0, 3\)"),
        (torch.randn(4, 3), torch.tensor([0, -2, 1, 0]), ValueError, r"class id -2"),
        (torch.randn(4, 3), torch.zeros(4, 3, dtype=torch.long), TypeError, "floating point"),
        (
            torch.zeros(4, 3, dtype=torch.long),
            torch.zeros(4, dtype=torch.long),
            TypeError,
            "input must be a floating-point tensor",
        ),
        (torch.tensor(1.0), torch.tensor(0), ValueError, r"input is 0-d: pass logits of shape \(C,\)"),
        (torch.randn(3, 0), torch.zeros(3, dtype=torch.long), ValueError, "has no classes in dim 1"),
        (torch.randn(4), torch.tensor([2]), ValueError, r"class ids of shape \(\) or probabilities of shape \(4,\)"),
    ],
)
def test_cross_entropy_bad_input_errors(x, target, exc, match):
    with pytest.raises(exc, match=match):
        dF.cross_entropy_loss(x, target)


def test_cross_entropy_bad_options():
    x, t = torch.randn(4, 3), torch.tensor([0, 1, 2, 1])
    with pytest.raises(ValueError, match="reduction must be one of"):
        dF.cross_entropy_loss(x, t, "average")
    with pytest.raises(ValueError, match="label_smoothing"):
        dF.cross_entropy_loss(x, t, label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"weight must be a tensor of shape \(3,\), one entry per class, got \(4,\)"):
        dF.cross_entropy_loss(x, t, weight=torch.ones(4))
    with pytest.raises(ValueError, match="ignore_index=0 only applies"):
        dF.cross_entropy_loss(x, torch.softmax(x, 1), ignore_index=0)
