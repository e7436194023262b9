"""dnnlpy.nn layers against torch.nn layers with copied weights: outputs and gradients."""

import pytest
import torch
from torch import nn
from torch.testing import assert_close

import dnnlpy.nn as dnn


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def _compare_modules(ours, theirs, *inputs, call=lambda m, *x: m(*x)):
    """Run both modules on copies of the inputs; compare outputs, input grads and parameter grads by name."""
    xs_ours = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    xs_theirs = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    out_ours, out_theirs = call(ours, *xs_ours), call(theirs, *xs_theirs)
    assert_close(out_ours, out_theirs)
    probe = torch.randn_like(out_theirs)
    (out_ours * probe).sum().backward()
    (out_theirs * probe).sum().backward()
    for a, b in zip(xs_ours, xs_theirs, strict=True):
        if b.grad is not None:
            assert_close(a.grad, b.grad)
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        assert_close(p.grad, theirs_params[name].grad, msg=f"gradient of {name}")


@pytest.mark.parametrize("shape,out", [((4, 3), 5), ((2, 6, 8), 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(shape, out, bias):
    ours = dnn.Linear(shape[-1], out, bias=bias)
    theirs = nn.Linear(shape[-1], out, bias=bias)
    theirs.load_state_dict(ours.state_dict())
    _compare_modules(ours, theirs, torch.randn(shape))
    assert ours.weight.shape == (out, shape[-1])
    assert (ours.bias is None) == (not bias)


def test_linear_default_init_is_torch_like():
    layer = dnn.Linear(64, 32)
    bound = 1 / 64**0.5
    assert layer.weight.abs().max() <= bound and layer.bias.abs().max() <= bound
    assert layer.weight.std() > bound / 3  # not all zeros: uniform(-b, b) has std b / sqrt(3)
    assert "in_features=64, out_features=32, bias=True" in repr(layer)


def test_linear_weight_can_be_replaced_by_a_shared_parameter():
    embed = nn.Embedding(7, 3)
    head = dnn.Linear(3, 7, bias=False)
    head.weight = embed.weight
    assert head.weight is embed.weight
    x = torch.randn(2, 3)
    assert_close(head(x), x @ embed.weight.T)


def test_linear_with_wrongly_shaped_weight_errors():
    head = dnn.Linear(3, 7, bias=False)
    head.weight = nn.Parameter(torch.randn(3, 7))  # transposed by mistake
    with pytest.raises(ValueError, match="in_features"):
        head(torch.randn(2, 3))


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_linear_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match=r"in_features must be an int >= 1, got"):
        dnn.Linear(bad, 3)


def test_embedding_matches_torch_and_accumulates_repeated_rows():
    ours = dnn.Embedding(10, 4)
    assert isinstance(ours, nn.Embedding)
    theirs = nn.Embedding(10, 4)
    theirs.load_state_dict(ours.state_dict())
    ids = torch.tensor([[1, 3, 3], [9, 0, 3]])
    _compare_modules(ours, theirs, ids)
    assert_close(ours.weight.grad[3], theirs.weight.grad[3])
    assert ours.weight.grad[5].abs().sum() == 0  # unused rows get no gradient


def test_embedding_bad_ids():
    emb = dnn.Embedding(10, 4)
    with pytest.raises(ValueError, match=r"token id 10 is outside \[0, 10\)"):
        emb(torch.tensor([1, 10]))
    with pytest.raises(ValueError, match=r"token id -1"):
        emb(torch.tensor([-1, 2]))
    with pytest.raises(TypeError, match="integer tensor"):
        emb(torch.tensor([1.0, 2.0]))


@pytest.mark.parametrize("shape,norm", [((2, 5, 8), 8), ((3, 4, 6), (4, 6))])
@pytest.mark.parametrize("bias", [True, False])
def test_layer_norm_matches_torch(shape, norm, bias):
    ours = dnn.LayerNorm(norm, bias=bias)
    theirs = nn.LayerNorm(norm, bias=bias)
    with torch.no_grad():  # non-trivial affine parameters, so their gradients are tested too
        ours.weight.normal_()
        if bias:
            ours.bias.normal_()
    theirs.load_state_dict(ours.state_dict())
    _compare_modules(ours, theirs, torch.randn(shape) * 3 + 2)
    assert (ours.bias is None) == (not bias)


def test_layer_norm_without_affine_matches_torch():
    _compare_modules(
        dnn.LayerNorm(6, elementwise_affine=False), nn.LayerNorm(6, elementwise_affine=False), torch.randn(2, 6)
    )


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    _compare_modules(dnn.GELU(approximate), nn.GELU(approximate), torch.randn(3, 4, 5) * 4)


def test_dropout_train_and_eval():
    x = torch.randn(200, 50) + 5  # no exact zeros in the input
    drop = dnn.Dropout(0.3)
    y = drop(x)
    kept = y != 0
    assert_close(y[kept], x[kept] / 0.7)
    assert abs((~kept).float().mean().item() - 0.3) < 0.02
    drop.eval()
    assert torch.equal(drop(x), x)
    assert torch.equal(dnn.Dropout(0.0)(x), x)
    assert torch.equal(dnn.Dropout(1.0)(x), torch.zeros_like(x))


@pytest.mark.parametrize("p", [-0.1, 1.5, "0.1"])
def test_dropout_rejects_bad_p(p):
    with pytest.raises(ValueError, match="dropout probability"):
        dnn.Dropout(p)


def test_modules_are_torch_modules():
    for module in (
        dnn.Linear(2, 3),
        dnn.Embedding(3, 2),
        dnn.LayerNorm(2),
        dnn.GELU(),
        dnn.Dropout(0.1),
        dnn.MultiheadAttention(4, 2),
    ):
        assert isinstance(module, nn.Module)
