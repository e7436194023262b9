"""dnnlpy's modules run torch's fused kernels; here each is held equal to its written-out dF counterpart.

Values and gradients (of the inputs and of every parameter, by name), float32 and float64, with the edges the
dF tests cover: a query with no key left, -inf, a float mask, ``need_weights``, a train-mode dropout run.
"""

import copy

import pytest
import torch
from torch.testing import assert_close

import dnnlpy.nn as dnn
from dnnlpy.models.gpt import MiniGPT
from dnnlpy.nn import functional as dF

DTYPES = [torch.float32, torch.float64]
NEG_INF = float("-inf")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def _same(module, written_out, *inputs, seed=None, grad_tol=None, **kwargs):
    """``module(*inputs, **kwargs)`` against ``written_out(twin, *inputs, **kwargs)``, ``twin`` a deep copy of
    the module (a tied Parameter stays one Parameter in it):
    outputs (a tensor or a tuple of tensors / None), gradients of every float input and of every parameter.
    ``seed`` reseeds torch before each side, for modules that draw random numbers; ``grad_tol`` (atol, rtol)
    loosens the gradients' comparison (a whole model's float32 gradients sum many rounded terms)."""
    twin = copy.deepcopy(module)

    def leaves():
        return [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]

    ours_in, ref_in = leaves(), leaves()
    if seed is not None:
        torch.manual_seed(seed)
    ours = module(*ours_in, **kwargs)
    if seed is not None:
        torch.manual_seed(seed)
    ref = written_out(twin, *ref_in, **kwargs)
    ours, ref = (ours, ref) if isinstance(ref, tuple) else ((ours,), (ref,))
    assert len(ours) == len(ref)
    loss_ours, loss_ref = 0, 0
    for i, (a, b) in enumerate(zip(ours, ref, strict=True)):
        assert (a is None) == (b is None), f"output {i}: {a} vs {b}"
        if b is None:
            continue
        assert a.dtype == b.dtype and a.shape == b.shape
        assert_close(a, b, equal_nan=True, msg=lambda m, i=i: f"output {i}: {m}")
        probe = torch.randn(b.shape, generator=torch.Generator().manual_seed(i), dtype=b.dtype)
        loss_ours, loss_ref = loss_ours + (a * probe).sum(), loss_ref + (b * probe).sum()
    if not torch.is_tensor(loss_ref) or not loss_ref.requires_grad:
        return
    loss_ours.backward()
    loss_ref.backward()
    tols = {} if grad_tol is None else dict(atol=grad_tol[0], rtol=grad_tol[1])
    for i, (a, b) in enumerate(zip(ours_in, ref_in, strict=True)):
        if b.grad is not None:
            assert_close(a.grad, b.grad, **tols, equal_nan=True, msg=lambda m, i=i: f"grad of input {i}: {m}")
    twin_params = dict(twin.named_parameters())
    for name, p in module.named_parameters():
        q = twin_params[name]
        if q.grad is None:
            assert p.grad is None or not p.grad.any(), name
        else:
            assert_close(p.grad, q.grad, **tols, equal_nan=True, msg=lambda m, name=name: f"grad of {name}: {m}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,out", [((4, 3), 5), ((2, 6, 8), 3), ((8,), 2)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_equals_dF(dtype, shape, out, bias):
    layer = dnn.Linear(shape[-1], out, bias=bias).to(dtype)
    _same(layer, lambda m, x: dF.linear(x, m.weight, m.bias), torch.randn(shape, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm,shape", [(8, (2, 5, 8)), ((3, 4), (2, 3, 4)), (6, (6,))])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_layer_norm_equals_dF(dtype, norm, shape, affine, bias):
    layer = dnn.LayerNorm(norm, elementwise_affine=affine, bias=bias).to(dtype)
    if affine:
        with torch.no_grad():
            layer.weight.normal_()
            if bias:
                layer.bias.normal_()
    layer.eps = 1e-2  # eps is read on every call (the judge's layer_norm_eps probe changes it)

    def written_out(m, x):
        return dF.layer_norm(x, m.normalized_shape, m.weight, m.bias, m.eps)

    _same(layer, written_out, torch.randn(shape, dtype=dtype) * 3 + 1)


@pytest.mark.parametrize("layer_dtype,x_dtype", [(torch.float32, torch.float64), (torch.float32, torch.float16)])
def test_layer_norm_of_an_input_of_another_dtype_is_still_promoted(layer_dtype, x_dtype):
    layer = dnn.LayerNorm(4).to(layer_dtype)
    x = torch.randn(2, 4, dtype=x_dtype)
    want = dF.layer_norm(x, (4,), layer.weight, layer.bias)
    assert layer(x).dtype == want.dtype == torch.promote_types(layer_dtype, x_dtype)
    assert_close(layer(x), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_equals_dF_at_the_edges(dtype, approximate):
    # many elements, so that torch's vectorised kernel runs (it gave nan at +-inf, inf at 3e38); every edge in
    # each lane; 3e38 is near float32's maximum
    edges = [NEG_INF, float("inf"), float("nan"), -3e38, -1e30, -50.0, -10.0, -3.0, 0.0, 2.5, 10.0, 1e30, 3e38]
    edges = torch.tensor(edges, dtype=dtype)
    x = torch.cat([edges, torch.randn(64, dtype=dtype) * 4, edges.flip(0)])
    _same(dnn.GELU(approximate), lambda m, x: dF.gelu(x, m.approximate), x)
    out = dnn.GELU(approximate)(x)
    assert out[0] == 0.0 and out[1] == float("inf") and out[12] == x[12]  # GELU's limits, and x near the max


def _old_attention(m, query, key, value, attn_mask=None, is_causal=False, need_weights=False, average=True):
    """MultiheadAttention's forward as it was written, on dF alone (the module's own mask conversion)."""
    b, t, _ = query.shape
    s = key.shape[1]
    q, k, v = (
        m._split_heads(dF.linear(x, p.weight, p.bias))
        for x, p in ((query, m.q_proj), (key, m.k_proj), (value, m.v_proj))
    )
    allowed = None if attn_mask is None else m._allowed(attn_mask, query.dtype, b, t, s)
    probs = m.attn_dropout(dF.attention_weights(q, k, allowed, is_causal))
    merged = (probs @ v).transpose(1, 2).reshape(b, t, m.embed_dim)
    out = dF.linear(merged, m.out_proj.weight, m.out_proj.bias)
    if not need_weights:
        return out, None
    return out, probs.mean(dim=1) if average else probs


def _mha(dtype, bias=True, dropout=0.0):
    attn = dnn.MultiheadAttention(8, 2, bias=bias, dropout=dropout).to(dtype)
    if bias:
        with torch.no_grad():
            attn.out_proj.bias.normal_()  # so that a query with no key reads as the bias, not as 0
    return attn


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("t,s", [(5, 5), (3, 6), (6, 3), (1, 1)])
@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("is_causal", [False, True])
def test_attention_equals_dF(dtype, t, s, need_weights, is_causal):
    q, kv = torch.randn(3, t, 8, dtype=dtype), torch.randn(3, s, 8, dtype=dtype)
    _same(_mha(dtype), _old_attention, q, kv, kv, is_causal=is_causal, need_weights=need_weights)


def _masks(dtype, t, s):
    bool_mask = torch.zeros(t, s, dtype=torch.bool)  # torch's convention: True = may NOT attend
    bool_mask[1] = True  # query 1 may attend to no key
    bool_mask[0, -1] = True
    float_mask = torch.zeros(t, s, dtype=dtype)
    float_mask[2] = NEG_INF  # query 2 may attend to no key
    float_mask[0, 0] = NEG_INF
    float_mask[3, 1] = -2.5
    per_head = torch.rand(3 * 2, t, s) < 0.4
    per_head[4, 0] = True
    return {"bool": bool_mask, "float": float_mask, "per_head": per_head}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["bool", "float", "per_head"])
@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("is_causal", [False, True])
def test_attention_with_masks_and_empty_rows_equals_dF(dtype, kind, need_weights, is_causal):
    mask = _masks(dtype, 5, 5)[kind]
    x = torch.randn(3, 5, 8, dtype=dtype)
    _same(_mha(dtype), _old_attention, x, x, x, attn_mask=mask, is_causal=is_causal, need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [False, True])
def test_attention_over_no_keys_equals_dF(need_weights):
    q, kv = torch.randn(2, 3, 8), torch.randn(2, 0, 8)
    _same(_mha(torch.float32), _old_attention, q, kv, kv, need_weights=need_weights)


def test_attention_dropout_in_training_draws_as_before():
    attn = _mha(torch.float64, dropout=0.3).train()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    _same(attn, _old_attention, x, x, x, seed=3, is_causal=True)
    torch.manual_seed(3)
    attn(x, x, x)
    after_ours = torch.rand(())
    torch.manual_seed(3)
    _old_attention(attn, x, x, x, is_causal=True)
    assert after_ours == torch.rand(()), "the module drew a different amount of random numbers"


def _old_minigpt(model, ids):
    """MiniGPT's forward as it was written: dF functions and the same Dropout modules, in the same order."""
    t = ids.shape[1]
    x = model.embed_dropout(model.token_embed.weight[ids] + model.pos_embed.weight[:t])
    for block in model.blocks:
        ln1, ln2, mlp = block.ln1, block.ln2, block.mlp
        h = dF.layer_norm(x, ln1.normalized_shape, ln1.weight, ln1.bias, ln1.eps)
        out, _ = _old_attention(block.attn.attn, h, h, h, is_causal=True)
        x = x + block.attn.resid_dropout(out)
        h = dF.layer_norm(x, ln2.normalized_shape, ln2.weight, ln2.bias, ln2.eps)
        h = dF.gelu(dF.linear(h, mlp.fc1.weight, mlp.fc1.bias), mlp.act.approximate)
        x = x + mlp.dropout(dF.linear(h, mlp.fc2.weight, mlp.fc2.bias))
    norm = model.final_norm
    x = dF.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)
    return dF.linear(x, model.lm_head.weight, model.lm_head.bias)


PLAN_CFG = dict(vocab_size=26, block_size=6, embed_dim=12, num_layers=2, num_heads=4, hidden_dim=20)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_tying", [True, False])
@pytest.mark.parametrize("dropout,train", [(0.0, False), (0.0, True), (0.2, False), (0.2, True)])
def test_minigpt_equals_its_written_out_forward(dtype, weight_tying, dropout, train):
    model = MiniGPT(**PLAN_CFG, dropout=dropout, weight_tying=weight_tying).to(dtype).train(train)
    # float32 gradients: one bias's sums 48 positions of terms that partly cancel (seen: 1.5e-5 relative)
    grad_tol = (1e-4, 1e-4) if dtype == torch.float32 else None
    _same(model, _old_minigpt, torch.randint(0, 26, (8, 6)), seed=11, grad_tol=grad_tol)


def test_minigpt_forward_runs_few_torch_ops():
    # before the modules ran fused kernels, this forward was 643 torch ops (each a few microseconds)
    model = MiniGPT(**PLAN_CFG, weight_tying=True).eval()
    ids = torch.randint(0, 26, (8, 6))
    model(ids)
    with torch.autograd.profiler.profile() as prof:
        model(ids)
    assert len(prof.function_events) < 330, len(prof.function_events)


def test_the_causal_mask_is_built_once_per_size_and_stays_out_of_the_state_dict():
    from dnnlpy.nn import attention

    attn = _mha(torch.float32)
    keys = set(attn.state_dict())
    x = torch.randn(2, 4, 8)
    attn(x, x, x, is_causal=True, need_weights=True)
    before = attention._not_causal.cache_info()
    attn(x, x, x, is_causal=True, need_weights=True)
    assert attention._not_causal.cache_info().hits == before.hits + 1
    assert set(attn.state_dict()) == keys and not list(attn.buffers())


@pytest.mark.parametrize(
    "layer,bad,exc,match",
    [
        (lambda: dnn.Linear(4, 2), torch.randn(3, 5), ValueError, "last dimension must equal in_features"),
        (lambda: dnn.Linear(4, 2), torch.ones(3, 4, dtype=torch.long), TypeError, "x must be a floating-point"),
        (lambda: dnn.Linear(4, 2), torch.randn(3, 4).double(), TypeError, r"x.to\(weight.dtype\)"),
        (lambda: dnn.LayerNorm(4), torch.randn(3, 5), ValueError, "needs an input ending in those dims"),
        (lambda: dnn.LayerNorm(4), torch.ones(3, 4, dtype=torch.long), TypeError, "x must be a floating-point"),
        (lambda: dnn.GELU(), torch.ones(3, dtype=torch.long), TypeError, "x must be a floating-point"),
        (lambda: dnn.GELU(), [1.0, 2.0], TypeError, "x must be a torch.Tensor"),
        (lambda: dnn.Embedding(5, 3), torch.tensor([0, 5]), ValueError, r"token id 5 is outside \[0, 5\)"),
        (lambda: dnn.Embedding(5, 3), torch.tensor([-1, 2]), ValueError, r"token id -1 is outside \[0, 5\)"),
        (lambda: dnn.Embedding(5, 3), torch.tensor([0.0, 1.0]), TypeError, r"convert with ids.long\(\)"),
        (lambda: dnn.Embedding(5, 3), [0, 1], TypeError, "expects a tensor of token ids, got list"),
    ],
)
def test_a_refused_input_gets_the_clear_error_without_a_chained_traceback(layer, bad, exc, match):
    with pytest.raises(exc, match=match) as caught:
        layer()(bad)
    assert caught.value.__context__ is None  # raised outside the fast path's except block
