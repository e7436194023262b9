"""dnnlpy at the float limits: what dnnlpy.nn's docstring states ("At the float limits"), held for the
functions of dnnlpy.nn.functional and for the modules, which run torch's fused kernels, on every machine.

Nothing here compares with torch: its kernels answer differently at +-inf and near the float maximum by CPU,
tensor length and code path (test_nn_cpu_capabilities.py runs these tests under each of its CPU kernels).
Rows are drawn 1, 7, 16 and 33 entries long, so that every vector lane and remainder of a kernel is reached.
"""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF

INF, NAN = float("inf"), float("nan")
PROPERTY = settings.get_profile("dnnlpy-properties")
DTYPES = st.sampled_from([torch.float32, torch.float64])
LENGTHS = st.sampled_from([1, 7, 16, 33]) | st.integers(2, 5)


def _max(dtype) -> float:
    return torch.finfo(dtype).max


@st.composite
def values(draw, dtype, n, specials=(INF, -INF, NAN)):
    """n values of `dtype`: ordinary, of any finite magnitude up to the float maximum, and the specials."""
    top = _max(dtype)
    width = 32 if dtype == torch.float32 else 64
    anything = st.floats(-top, top, width=width)
    edges = st.sampled_from([top, -top, 3e38, -3e38, 1e30, -1e30, 10.0, -10.0, 0.0, *specials])
    return torch.tensor(draw(st.lists(st.floats(-20, 20) | anything | edges, min_size=n, max_size=n)), dtype=dtype)


# ---- GELU --------------------------------------------------------------------------------------------

GELUS = {
    "dF.gelu": lambda x, approximate: dF.gelu(x, approximate),
    "dnn.GELU": lambda x, approximate: dnn.GELU(approximate)(x),
}


@PROPERTY
@given(data=st.data(), dtype=DTYPES, n=LENGTHS, approximate=st.sampled_from(["none", "tanh"]))
def test_gelu_at_the_float_limits(data, dtype, n, approximate):
    x = data.draw(values(dtype, n)).requires_grad_()
    for name, gelu in GELUS.items():
        out = gelu(x, approximate)
        (grad,) = torch.autograd.grad(out.sum(), x)
        out, got = out.detach(), f"{name}({x.tolist()}) = {out.tolist()}"
        finite = torch.isfinite(x)
        assert torch.equal(out.isnan(), x.isnan()), got  # nan -> nan, and nowhere else
        assert (out[x == INF] == INF).all() and (out[x == -INF] == 0).all(), got
        assert torch.isfinite(out[finite]).all(), got  # no overflow, near the float maximum either
        assert (out[finite] * x.detach()[finite] >= 0).all(), got  # x's sign, or 0
        assert (out[finite].abs() <= x.detach()[finite].abs()).all(), got
        high, low = x.detach() >= 10, x.detach() <= -10
        assert torch.equal(out[high], x.detach()[high]), got
        assert (out[low].abs() <= 1e-22).all(), got
        assert (grad[x.detach() > 10] == 1).all() and (grad[x.detach() < -10].abs() <= 1e-20).all(), grad
        assert torch.isfinite(grad[finite]).all(), grad


# ---- softmax -----------------------------------------------------------------------------------------


@PROPERTY
@given(data=st.data(), dtype=DTYPES, n=LENGTHS, rows=st.integers(1, 3))
def test_softmax_and_log_softmax_at_the_float_limits(data, dtype, n, rows):
    x = torch.stack([data.draw(values(dtype, n, specials=(-INF,))) for _ in range(rows)])
    if data.draw(st.booleans()):  # one row with a nan or a +inf somewhere, one of only -inf
        x[0, data.draw(st.integers(0, n - 1))] = data.draw(st.sampled_from([NAN, INF]))
        x[-1] = -INF
    p, logp = dF.softmax(x, -1), dF.log_softmax(x, -1)
    top = _max(dtype)
    for row, probs, logs in zip(x, p, logp, strict=True):
        got = f"softmax({row.tolist()}) = {probs.tolist()}, log: {logs.tolist()}"
        if row.isnan().any() or (row == INF).any() or (row == -INF).all():
            assert probs.isnan().all() and logs.isnan().all(), got
            continue
        assert ((probs >= 0) & (probs <= 1)).all() and math.isclose(probs.sum().item(), 1, rel_tol=1e-5), got
        assert (logs <= 0).all(), got
        absent = row == -INF
        assert (probs[absent] == 0).all() and (logs[absent] == -INF).all(), got
        below = torch.tensor([r - row.max().item() < -top for r in row.double().tolist()])  # exact, in float64
        assert not ((logs == -INF) & ~absent & ~below).any(), got  # -inf only where the exact value is below -max
        rest = row[~absent]
        torch.testing.assert_close(probs[~absent], dF.softmax(rest, -1), msg=got)  # as if -inf were absent


# ---- layer_norm --------------------------------------------------------------------------------------


def _normalised(row: list[float], eps: float) -> tuple[list[float], float]:
    """The exact layer norm of `row` (every sum exact, math.fsum), and the row's size over its spread,
    max |x| / sqrt(var + eps) (at most 1e100), by which a kernel's rounding grows.

    LN(x) = LN(x * 2**-e) with eps * 2**-2e: with e the largest entry's exponent, nothing overflows here."""
    e = math.frexp(max(abs(v) for v in row) or 1.0)[1]
    scaled = [math.ldexp(v, -e) for v in row]  # exact
    try:
        eps_scaled = math.ldexp(eps, -2 * e)
    except OverflowError:  # a row of subnormal numbers: eps is all there is
        eps_scaled = math.inf
    mean = math.fsum(scaled) / len(row)
    deviations = [v - mean for v in scaled]
    spread = math.sqrt(math.fsum(d * d for d in deviations) / len(row) + eps_scaled)
    size = min(max(abs(v) for v in scaled) / spread, 1e100) if spread else 0.0
    return [d / spread if spread else 0.0 for d in deviations], size  # spread 0: every deviation is 0 too


def _squares_over(row: list[float], top: float) -> float:
    """The sum of the entries' squares, in units of `top` (computed without overflow), or at least 4.

    A term of 4 or more already puts the row past the bound; capping each there keeps fsum's partial sums
    finite (sixteen entries of 1e308 in float64 overflowed them)."""
    unit = math.sqrt(top)
    return math.fsum(min((v / unit) ** 2, 4.0) for v in row)


def test_the_squares_of_a_row_at_the_float_maximum_are_past_the_bound_without_overflow():
    top = torch.finfo(torch.float64).max
    assert _squares_over([1e308] * 16 + [0.0] * 3, top) >= 4  # fsum's partial sums overflowed here
    assert _squares_over([0.5 * math.sqrt(top), 0.0], top) == 0.25


LAYER_NORMS = {
    "dF.layer_norm": lambda x, n: dF.layer_norm(x, (n,)),
    "dnn.LayerNorm": lambda x, n: dnn.LayerNorm(n).to(x.dtype)(x),
}


@PROPERTY
@given(data=st.data(), dtype=DTYPES, n=LENGTHS, scale=st.integers(-40, 308))
def test_layer_norm_at_the_float_limits(data, dtype, n, scale):
    """Rows of every magnitude, 1e-40 to the float maximum: inside the bound, past it, and at it."""
    top = _max(dtype)
    spread = data.draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))
    row = [min(max(u * 10.0**scale, -top), top) for u in spread]  # clipped at the dtype's maximum
    x = torch.tensor([row], dtype=dtype)
    special = data.draw(st.sampled_from([None, NAN, INF, -INF]))
    if special is not None:
        x[0, data.draw(st.integers(0, n - 1))] = special
    exact = [float(v) for v in x[0].tolist()]
    for name, norm in LAYER_NORMS.items():
        out = norm(x, n).detach()[0]
        got = f"{name}({exact}) = {out.tolist()}"
        if special is not None:
            assert out.isnan().all(), got
            continue
        assert (out.isnan() | (out.abs() <= math.sqrt(max(n - 1, 0)) * (1 + 1e-3) + 1e-6)).all(), got
        normalised, size = _normalised(exact, 1e-5)
        want = torch.tensor(normalised, dtype=torch.float64)
        squares = _squares_over(exact, top)
        # rounding: a few units of the dtype per entry summed, grown by the row's size over its spread squared
        # (a kernel may compute the variance as E[x^2] - E[x]^2, or over deviations: both lie within this)
        tol = 64 * n * torch.finfo(dtype).eps * (1 + size) ** 2
        if squares <= 0.25:  # inside the bound, with room for rounding
            torch.testing.assert_close(out.double(), want, atol=tol, rtol=0, msg=got)
        elif squares >= 4:  # past it: nan, 0 (the variance overflowed) or the normalised value
            close = (out.double() - want).abs() <= tol
            assert (out.isnan() | (out == 0) | close).all(), got


# ---- cross_entropy -----------------------------------------------------------------------------------


def _over(row: list[float], reads: list[int], top: float) -> tuple[bool, bool]:
    """(surely over, surely under) `top` for the sum of -log p_i over `reads`, computed exactly enough in
    float64 (each term scaled down, so that logits near float64's maximum do not overflow here)."""
    k = 4.0 * len(row)
    m = max(row)
    lse = math.log(math.fsum(math.exp(r - m) for r in row))  # r - m: -inf for a -inf logit, exp of it 0
    total = math.fsum((m / k - row[i] / k) + lse / k for i in reads)
    return total > top / k * (1 + 1e-5), total < top / k * (1 - 1e-5)


@PROPERTY
@given(
    data=st.data(),
    dtype=DTYPES,
    c=LENGTHS,
    n=st.integers(1, 4),
    reduction=st.sampled_from(["none", "mean", "sum"]),
    smoothing=st.sampled_from([0.0, 0.1, 1.0]),
)
def test_cross_entropy_at_the_float_limits(data, dtype, c, n, reduction, smoothing):
    x = torch.stack([data.draw(values(dtype, c)) for _ in range(n)])
    target = torch.tensor(data.draw(st.lists(st.integers(-1, c - 1), min_size=n, max_size=n)))  # -1: ignored
    loss = dF.cross_entropy_loss(x, target, reduction, ignore_index=-1, label_smoothing=smoothing)
    per = dF.cross_entropy_loss(x, target, "none", ignore_index=-1, label_smoothing=smoothing)
    top = _max(dtype)
    for row, t, got in zip(x.double().tolist(), target.tolist(), per.tolist(), strict=True):
        said = f"cross_entropy({row}, {t}, smoothing={smoothing}) = {got}"
        if t == -1:
            assert got == 0, said  # an ignored position adds nothing, whatever its logits
            continue
        if any(math.isnan(v) or v == INF for v in row):
            assert math.isnan(got), said
            continue
        # what the loss reads: the target's log-probability; with smoothing, each class's and their sum
        reads = [[t]] + ([[i] for i in range(c)] + [list(range(c))] if smoothing > 0 else [])
        bounds = [_over(row, r, top) for r in reads]
        if smoothing == 1 and bounds[0][0]:  # the target's own term weighs 0: 0 * inf
            assert math.isnan(got), said
        elif any(over for over, _ in bounds):
            assert got == INF, said
        elif all(under for _, under in bounds):
            assert math.isfinite(got) and got >= 0, said
    counted = target != -1
    if not counted.any() and reduction != "none":
        assert loss.isnan() if reduction == "mean" else loss == 0, loss  # 0 / 0, and an empty sum


# ---- linear and attention: IEEE, no guard --------------------------------------------------------------


@PROPERTY
@given(data=st.data(), dtype=DTYPES, n=LENGTHS, special=st.sampled_from([NAN, INF, -INF]))
def test_linear_passes_nan_and_inf_to_the_outputs_that_read_them(data, dtype, n, special):
    layer = dnn.Linear(n, 3).to(dtype)
    x = torch.randn(4, n, dtype=dtype)
    x[1, data.draw(st.integers(0, n - 1))] = special
    for name, out in (("dnn.Linear", layer(x)), ("dF.linear", dF.linear(x, layer.weight, layer.bias))):
        out = out.detach()
        assert not torch.isfinite(out[1]).any(), (name, out[1])  # +-inf, or nan (inf * 0, inf - inf)
        assert torch.isfinite(out[[0, 2, 3]]).all(), (name, out)


@PROPERTY
@given(data=st.data(), dtype=DTYPES, t=LENGTHS, causal=st.booleans(), magnitude=st.sampled_from([1.0, 1e3, 1e15]))
def test_attention_of_finite_inputs_is_finite_and_its_weights_are_probabilities(data, dtype, t, causal, magnitude):
    """Scores up to the float maximum's neighbourhood (1e15 squared, times 8 features, in float32's 3e38)."""
    torch.manual_seed(data.draw(st.integers(0, 2**16)))
    attn = dnn.MultiheadAttention(8, 2).to(dtype)
    x = torch.randn(2, t, 8, dtype=dtype) * magnitude / 8
    nan_row = data.draw(st.integers(0, t - 1))
    with torch.no_grad():
        out, weights = attn(x, x, x, is_causal=causal, need_weights=True)
        fused, _ = attn(x, x, x, is_causal=causal)  # torch's fused attention (scaled_dot_product_attention)
        assert torch.isfinite(out).all() and torch.isfinite(fused).all(), (out, fused)
        assert ((weights >= 0) & (weights <= 1)).all()
        torch.testing.assert_close(weights.sum(-1), torch.ones(2, t, dtype=dtype))
        x[0, nan_row] = NAN  # a nan reaches every output that reads it: the queries that may see that key
        out, _ = attn(x, x, x, is_causal=causal)
        readers = torch.arange(t) >= nan_row if causal else torch.ones(t, dtype=torch.bool)
        assert out[0, readers].isnan().all() and torch.isfinite(out[1]).all(), out
