"""dnnlpy.nn.functional.cross_entropy_loss against torch's cross_entropy: values, gradients, shapes, errors."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

import dnnlpy.nn.functional as dF


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


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
def test_cross_entropy_class_targets_match_torch(reduction, use_weight, smoothing, ignore_index, matches_torch):
    n, c = 12, 5
    x = torch.randn(n, c) * 3
    target = torch.randint(0, c, (n,))
    target[:3] = 2  # make sure the ignore_index=2 case really drops rows
    weight = torch.rand(c) + 0.5 if use_weight else None
    matches_torch(*_ce(reduction, weight, ignore_index, smoothing), x, target)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_probability_targets_match_torch(reduction, use_weight, smoothing, matches_torch):
    n, c = 7, 6
    x = torch.randn(n, c)
    probs = torch.softmax(torch.randn(n, c), dim=1)
    weight = torch.rand(c) + 0.5 if use_weight else None
    matches_torch(*_ce(reduction, weight, -100, smoothing), x, probs)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_is_stable_on_huge_logits(reduction, matches_torch):
    x = torch.randn(16, 9).sign() * 1e4  # every logit is +1e4 or -1e4
    x[:, 0] += torch.linspace(-50, 50, 16)  # and some rows disagree only slightly
    target = torch.randint(0, 9, (16,))
    ours = dF.cross_entropy_loss(x, target, reduction)
    assert torch.isfinite(ours).all()
    matches_torch(*_ce(reduction, None, -100, 0.0), x, target)
    matches_torch(*_ce(reduction, None, -100, 0.1), x, target)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("use_weight", [False, True])
def test_cross_entropy_with_a_minus_inf_logit_matches_torch(reduction, smoothing, use_weight, matches_torch):
    inf = float("inf")
    x = torch.tensor([[0.0, -inf, 1.0], [0.0, -inf, 1.0], [2.0, 0.5, -inf], [-inf, -inf, 3.0]])
    target = torch.tensor([0, 1, 0, -100])  # row 1 targets the -inf class; row 3 is ignored
    weight = torch.tensor([0.5, 2.0, 1.0]) if use_weight else None
    matches_torch(*_ce(reduction, weight, -100, smoothing), x, target)


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
def test_cross_entropy_with_every_target_ignored_matches_torch(reduction, smoothing, use_weight, matches_torch):
    x = torch.randn(4, 5)
    weight = torch.rand(5) + 0.5 if use_weight else None
    (leaf, _) = matches_torch(*_ce(reduction, weight, -100, smoothing), x, torch.full((4,), -100))
    assert torch.equal(leaf.grad, torch.zeros(4, 5))  # no nan: an optimizer step stays harmless
    loss = dF.cross_entropy_loss(x, torch.full((4,), -100), reduction, weight, label_smoothing=smoothing)
    if reduction == "mean":
        assert loss.isnan()  # 0 / 0: nothing to average, as torch's mean
    else:
        assert torch.equal(loss, torch.zeros_like(loss))


def test_cross_entropy_zero_total_weight_gives_nan_gradients_as_torch(matches_torch):
    """Targets that count but weigh nothing: torch divides by a total weight of 0, and so does dnnlpy."""
    x = torch.randn(2, 3)
    (leaf, _) = matches_torch(*_ce("mean", torch.tensor([0.0, 1.0, 1.0]), -100, 0.0), x, torch.tensor([0, 0]))
    assert leaf.grad.isnan().all()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.15])
@pytest.mark.parametrize("shape", [(2, 4, 3), (2, 4, 3, 2), (4,)])
def test_cross_entropy_higher_rank_and_unbatched_match_torch(shape, reduction, use_weight, smoothing, matches_torch):
    x = torch.randn(shape) * 3
    c = shape[0] if len(shape) == 1 else shape[1]
    class_shape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    target = torch.randint(0, c, class_shape)
    if target.dim() > 0:
        target.view(-1)[0] = -100  # one ignored position
    weight = torch.rand(c) + 0.5 if use_weight else None
    matches_torch(*_ce(reduction, weight, -100, smoothing), x, target)
    probs = torch.rand(shape)  # probability targets of the input's own shape (need not sum to one)
    matches_torch(*_ce(reduction, weight, -100, smoothing), x, probs)
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


def test_cross_entropy_accepts_uint8_targets_as_torch(matches_torch):
    x, target = torch.randn(3, 4), torch.tensor([0, 3, 1], dtype=torch.uint8)
    matches_torch(*_ce("mean", None, -100, 0.1), x, target)


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
