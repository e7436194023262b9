"""dnnlpy.nn.functional against torch on inputs drawn by hypothesis: values and gradients.

The drawn inputs include the edges where the two used to differ: -inf and +-1e4 logits, rows of only
-inf, queries with every key masked, batches with every target ignored, empty dimensions, zero class
weights and every amount of label smoothing; rows of 1, 7, 16 and 33 entries reach every vector lane of
torch's kernels and their remainders. torch is the reference only where its own answer does not depend on
the length of the call (``torch_agrees_with_itself``): what dnnlpy returns where torch's kernels disagree
with each other (at +-inf, near the float maximum) is its own contract, tested in test_nn_float_limits.py.
The cases come from the ``dnnlpy-properties`` profile (conftest.py): the same on every run unless asked.
"""

import math

import torch
import torch.nn.functional as F
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import dnnlpy.nn.functional as dF

INF = float("inf")
PROPERTY = settings.get_profile("dnnlpy-properties")

# Logits: ordinary values, mixed with the ones that break naive code.
LOGITS = st.floats(-5, 5, width=32) | st.sampled_from([-INF, 1e4, -1e4, 0.0])
SMALL = st.floats(-3, 3, width=32)
DTYPES = st.sampled_from([torch.float32, torch.float64])
# Row lengths: small ones, and those that fill torch's vector lanes (8 or 16 floats) exactly, not, or twice.
LENGTHS = st.integers(0, 4) | st.sampled_from([1, 7, 16, 33])


@st.composite
def tensors(draw, shape, elements, dtype=torch.float32):
    values = draw(st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape)))
    return torch.tensor(values, dtype=dtype).reshape(shape)


@st.composite
def shapes(draw, min_dims=1, max_dims=3, min_side=0, max_side=4):
    return tuple(draw(st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims)))


@st.composite
def rows(draw, min_dims=1, max_dims=3):
    """A shape whose last side is a row length of LENGTHS (its leading sides small)."""
    return (*draw(shapes(min_dims - 1, max_dims - 1, 0, 3)), draw(LENGTHS))


# ---- cross-entropy -----------------------------------------------------------------------------------


@st.composite
def cross_entropy_cases(draw, probabilities):
    """(input, target, reduction, weight, ignore_index, label_smoothing) in every layout torch takes."""
    c = draw(st.integers(1, 5) | st.sampled_from([7, 16, 33]))
    layouts = ["unbatched (C,)", "(N, C)", "(N, C, d1, ...)"]
    layout = draw(st.sampled_from(layouts if c <= 5 else layouts[:2]))  # long rows, few of them
    if layout == "unbatched (C,)":
        shape = (c,)
    elif layout == "(N, C)":
        shape = (draw(st.integers(0, 4)), c)
    else:
        shape = (draw(st.integers(0, 3)), c, *draw(shapes(1, 2, 1, 3)))
    dtype = draw(DTYPES)
    x = draw(tensors(shape, LOGITS, dtype))
    weights = st.sampled_from([0.0, 0.5, 1.0, 2.0]) | st.floats(0.125, 3.0, width=32)
    weight = draw(st.none() | tensors((c,), weights, dtype))
    reduction = draw(st.sampled_from(["none", "mean", "sum"]))
    smoothing = draw(st.sampled_from([0.0, 0.1, 1.0]) | st.floats(0.0, 1.0))
    if probabilities:
        target = draw(tensors(shape, st.floats(0.0, 1.0, width=32), dtype))
        return x, target, reduction, weight, -100, smoothing
    ignore_index = draw(st.sampled_from([-100, 0, c - 1]))
    class_shape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    ids = st.integers(0, c - 1) | st.just(ignore_index)  # every id may be ignored, the batch included
    n = math.prod(class_shape)
    target = torch.tensor(draw(st.lists(ids, min_size=n, max_size=n)), dtype=torch.long).reshape(class_shape)
    return x, target, reduction, weight, ignore_index, smoothing


def _compare_cross_entropy(matches_torch, torch_agrees_with_itself, case):
    x, target, reduction, weight, ignore_index, smoothing = case
    batched = (x, target) if x.dim() > 1 else (x[None], target[None])  # samples along dim 0

    def per_sample(x, t):
        return F.cross_entropy(
            x, t, weight=weight, ignore_index=ignore_index, reduction="none", label_smoothing=smoothing
        )

    assume(bool(torch_agrees_with_itself(per_sample, *batched).all()))  # so far, it always has
    matches_torch(
        lambda x, t: dF.cross_entropy_loss(x, t, reduction, weight, ignore_index, smoothing),
        lambda x, t: F.cross_entropy(
            x, t, weight=weight, ignore_index=ignore_index, reduction=reduction, label_smoothing=smoothing
        ),
        x,
        target,
    )


@PROPERTY
@given(case=cross_entropy_cases(probabilities=False))
def test_cross_entropy_with_class_targets(matches_torch, torch_agrees_with_itself, case):
    _compare_cross_entropy(matches_torch, torch_agrees_with_itself, case)


@PROPERTY
@given(case=cross_entropy_cases(probabilities=True))
def test_cross_entropy_with_probability_targets(matches_torch, torch_agrees_with_itself, case):
    _compare_cross_entropy(matches_torch, torch_agrees_with_itself, case)


# ---- softmax -----------------------------------------------------------------------------------------


@st.composite
def softmax_cases(draw):
    shape = draw(rows(1, 3))
    x = draw(tensors(shape, LOGITS, draw(DTYPES)))
    if draw(st.booleans()) and x.numel() > 0:
        x[(0,) * (x.dim() - 1)] = -INF  # a whole row of -inf, the fully masked case
    dim = draw(st.sampled_from([-1, x.dim() - 1]) | st.integers(-x.dim(), x.dim() - 1))
    return x, dim


def _where_rows_agree(torch_agrees_with_itself, op, x, dim):
    """torch_agrees_with_itself for an op along `dim`, over x's rows (the call on x as drawn, when dim is not
    the last, is a kernel of its own: it must agree too)."""
    if x.numel() == 0:
        return torch.ones_like(x, dtype=torch.bool)
    laid = x.movedim(dim, -1)
    flat = laid.reshape(-1, laid.shape[-1])  # (rows, n)
    drawn = op(x, dim).movedim(dim, -1).reshape(flat.shape)
    return torch_agrees_with_itself(lambda t: op(t, -1), flat, laid_out=drawn).reshape(laid.shape).movedim(-1, dim)


@PROPERTY
@given(case=softmax_cases())
def test_softmax_and_log_softmax(matches_torch, torch_agrees_with_itself, case):
    x, dim = case
    for ours, theirs in ((dF.softmax, F.softmax), (dF.log_softmax, F.log_softmax)):
        where = _where_rows_agree(torch_agrees_with_itself, theirs, x, dim)
        matches_torch(lambda t, f=ours: f(t, dim), lambda t, f=theirs: f(t, dim), x, where=where)


# ---- attention ---------------------------------------------------------------------------------------


@st.composite
def attention_cases(draw):
    """q (*batch, T, d), k (*batch, S, d), v (*batch, S, dv), and a mask, causal flag and scale."""
    batch = draw(shapes(0, 2, 1, 2))
    t, s, d, dv = draw(st.integers(1, 4)), draw(st.integers(0, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    dtype = draw(DTYPES)
    q, k, v = (draw(tensors((*batch, n, m), SMALL, dtype)) for n, m in ((t, d), (s, d), (s, dv)))
    kind = draw(st.sampled_from(["none", "causal", "bool (T, S)", "bool (*batch, T, S)", "float (T, S)"]))
    mask = None
    if kind.startswith("bool"):
        mask_shape = (t, s) if kind == "bool (T, S)" else (*batch, t, s)
        mask = draw(tensors(mask_shape, st.booleans(), torch.bool))
        if draw(st.booleans()) and mask.numel() > 0:
            mask[..., 0, :] = False  # query 0 may attend to no key
    elif kind == "float (T, S)":
        mask = draw(tensors((t, s), SMALL | st.just(-INF), dtype))
    scale = draw(st.none() | st.floats(0.1, 2.0))
    return q, k, v, mask, kind == "causal", scale


@PROPERTY
@given(case=attention_cases())
def test_scaled_dot_product_attention(matches_torch, torch_agrees_with_itself, case):
    q, k, v, mask, is_causal, scale = case
    kwargs = dict(attn_mask=mask, is_causal=is_causal, scale=scale)
    if q.dim() > 2:  # the first batch dim's samples alone and repeated (a batched mask goes with them)
        per_sample = mask is not None and mask.dim() == q.dim()
        shared = {"is_causal": is_causal, "scale": scale}

        def attend(q, k, v, m=None):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=m if per_sample else mask, **shared)

        samples = (q, k, v, mask) if per_sample else (q, k, v)
        assume(bool(torch_agrees_with_itself(attend, *samples).all()))  # so far, it always has
    matches_torch(
        lambda *a: dF.scaled_dot_product_attention(*a, **kwargs),
        lambda *a: F.scaled_dot_product_attention(*a, **kwargs),
        q,
        k,
        v,
    )


# ---- layers' maths -----------------------------------------------------------------------------------


@st.composite
def layer_norm_cases(draw):
    # float64 only: on a near-constant row torch's float32 kernel, which computes (x - mean) * rstd as
    # x * rstd - mean * rstd, is off by up to |x| * rstd * 2**-24 (0.2 for x = 1e4), while the two-pass
    # form here is exact; float32 is compared by the example tests in test_nn_functional.py.
    normalized = (*draw(shapes(0, 1, 1, 4)), draw(LENGTHS.filter(bool)))
    shape = (*draw(shapes(0, 2, 0, 3)), *normalized)
    x = draw(tensors(shape, st.floats(-100, 100) | st.sampled_from([0.0, 1e4, -1e4]), torch.float64))
    weight, bias = (draw(st.none() | tensors(normalized, SMALL, torch.float64)) for _ in range(2))
    return x, normalized, weight, bias


@PROPERTY
@given(case=layer_norm_cases())
def test_layer_norm(matches_torch, torch_agrees_with_itself, case):
    x, normalized, weight, bias = case
    rows = x.reshape(-1, *normalized)
    where = torch_agrees_with_itself(lambda r: F.layer_norm(r, normalized, weight, bias), rows).reshape(x.shape)
    matches_torch(
        lambda *a: dF.layer_norm(a[0], normalized, *a[1:]),
        lambda *a: F.layer_norm(a[0], normalized, *a[1:]),
        x,
        weight,
        bias,
        where=where,
    )


@st.composite
def linear_cases(draw):
    in_features, out_features = draw(LENGTHS.filter(bool)), draw(st.integers(1, 4))
    dtype = draw(DTYPES)
    x = draw(tensors((*draw(shapes(0, 2, 0, 3)), in_features), st.floats(-10, 10, width=32), dtype))
    weight = draw(tensors((out_features, in_features), SMALL, dtype))
    bias = draw(st.none() | tensors((out_features,), SMALL, dtype))
    return x, weight, bias


@PROPERTY
@given(case=linear_cases())
def test_linear(matches_torch, torch_agrees_with_itself, case):
    x, weight, bias = case
    rows = x.reshape(-1, x.shape[-1])
    shape = (*x.shape[:-1], weight.shape[0])
    where = torch_agrees_with_itself(lambda r: F.linear(r, weight, bias), rows).reshape(shape)
    matches_torch(dF.linear, F.linear, x, weight, bias, where=where)


@PROPERTY
@given(
    x=rows(1, 2).flatmap(
        lambda shape: tensors(
            shape,
            st.floats(-10, 10, width=32) | st.sampled_from([1e4, -1e4, 3e38, -3e38, INF, -INF, math.nan]),
            torch.float32,
        )
    ),
    dtype=DTYPES,
    approximate=st.sampled_from(["none", "tanh"]),
)
def test_gelu(matches_torch, torch_agrees_with_itself, x, dtype, approximate):
    """Where torch gives one answer whatever the tensor's length, up to 1e4: beyond, dnnlpy's answer is its
    own contract (test_nn_float_limits.py): torch's kernels give inf or nan for 3e38 and +inf by length and
    CPU, and its tanh form's gradient is nan at 3e38 (x**3 overflows)."""
    x = x.to(dtype)
    flat = x.reshape(-1)
    agreed = torch_agrees_with_itself(lambda t: F.gelu(t, approximate=approximate), flat).reshape(x.shape)
    where = agreed & (x.abs() <= 1e4)
    matches_torch(lambda t: dF.gelu(t, approximate), lambda t: F.gelu(t, approximate=approximate), x, where=where)


def test_torch_agrees_with_itself_sees_an_answer_that_depends_on_the_calls_length(torch_agrees_with_itself):
    def by_length(t):  # as torch's GELU at 3e38: one answer alone, another in a long call
        return torch.where(t.abs() > 1e30, t * (1.0 if len(t) == 1 else INF), t)

    x = torch.tensor([1.0, 3e38, -2.0, math.nan])
    assert torch_agrees_with_itself(by_length, x).tolist() == [True, False, True, True]
    rows = torch.tensor([[1.0, 2.0], [3e38, 0.0]])  # samples of two entries: the call's length is in rows
    assert torch_agrees_with_itself(by_length, rows).tolist() == [[True, True], [False, True]]
