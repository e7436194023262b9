"""dnnlpy.nn.MultiheadAttention against torch.nn.MultiheadAttention (batch_first, copied weights) on
inputs drawn by hypothesis: outputs, attention weights, and the gradients of inputs and parameters.

torch's module gives a query that may attend to no key zero attention on its SDPA path
(need_weights=False) but nan on its explicit-softmax path (need_weights=True); dnnlpy gives the SDPA
answer in both cases, so outputs and gradients are compared with torch's need_weights=False call, and
the weights with torch's need_weights=True weights where those are not nan. torch is the reference only for
a batch whose every sample gets alone, and in a batch of 33 and more, what it gets in the batch drawn.
"""

import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn
from torch.testing import assert_close

import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF

INF = float("inf")
PROPERTY = settings(settings.get_profile("dnnlpy-properties"))  # conftest.py: fixed draws unless asked


def _randn(shape, seed, dtype):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@st.composite
def mha_cases(draw):
    num_heads = draw(st.integers(1, 3))
    embed_dim = num_heads * draw(st.integers(1, 3) | st.sampled_from([7, 16]))  # rows that fill vector lanes
    b, t = draw(st.integers(0, 2)), draw(st.integers(1, 4))
    s = t if draw(st.booleans()) else draw(st.integers(0, 4) | st.sampled_from([16, 33]))  # self- or cross-
    dtype = draw(st.sampled_from([torch.float32, torch.float64]))
    seed = draw(st.integers(0, 2**16))
    query, key, value = (_randn((b, n, embed_dim), seed + i, dtype) for i, n in enumerate((t, s, s)))
    kinds = ["none", "causal", "bool (T, S)", "float (T, S)"]
    if b > 0 and s > 0:  # torch's module cannot reshape an empty (B*H, T, S) mask (a RuntimeError)
        kinds += ["bool (B*H, T, S)", "float (B*H, T, S)"]
    kind = draw(st.sampled_from(kinds))
    mask = None
    if kind not in ("none", "causal"):
        shape = (t, s) if "(T, S)" in kind else (b * num_heads, t, s)
        blocked = torch.rand(shape, generator=torch.Generator().manual_seed(seed)) < draw(st.sampled_from([0.3, 0.7]))
        if draw(st.booleans()) and blocked.numel() > 0:
            blocked[..., 0, :] = True  # query 0 may attend to no key (torch's convention: True = blocked)
        mask = blocked if kind.startswith("bool") else torch.zeros(shape, dtype=dtype).masked_fill(blocked, -INF)
    bias = draw(st.booleans())
    return dict(
        embed_dim=embed_dim,
        num_heads=num_heads,
        bias=bias,
        seed=seed,
        query=query,
        key=key,
        value=value,
        mask=mask,
        is_causal=kind == "causal",
        average=draw(st.booleans()),
    )


def _pair(embed_dim, num_heads, bias, seed, dtype):
    torch.manual_seed(seed)
    ours = dnn.MultiheadAttention(embed_dim, num_heads, bias=bias).to(dtype)
    theirs = nn.MultiheadAttention(embed_dim, num_heads, bias=bias, batch_first=True).to(dtype)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        if bias:
            ours.out_proj.bias.normal_()  # non-zero, so a query with no key shows it
            theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
            theirs.out_proj.bias.copy_(ours.out_proj.bias)
    return ours, theirs


def _grads(module, names):
    return torch.cat([getattr(module, n).grad.reshape(-1) for n in names]) if names else torch.zeros(0)


def _samples_agree(torch_agrees_with_itself, theirs, q, k, v, their_kwargs, num_heads) -> bool:
    """torch's module gives each sample of the batch what it gives that sample alone, and in a batch of 33 and
    more (the comparisons below trust torch only where its answer does not depend on the call's length)."""
    mask = their_kwargs.get("attn_mask")
    per_sample = mask is not None and mask.dim() == 3  # (B * H, T, S), sample-major

    def attend(q, k, v, m=None):
        kwargs = dict(their_kwargs)
        if per_sample:
            kwargs["attn_mask"] = m.reshape(-1, *m.shape[2:])
        with torch.no_grad():
            return theirs(q, k, v, **kwargs, need_weights=False)[0]

    samples = (q, k, v, mask.reshape(len(q), num_heads, *mask.shape[1:])) if per_sample else (q, k, v)
    return bool(torch_agrees_with_itself(attend, *samples).all())


@PROPERTY
@given(case=mha_cases())
def test_multihead_attention(torch_agrees_with_itself, case):
    q, k, v, mask = case["query"], case["key"], case["value"], case["mask"]
    ours, theirs = _pair(case["embed_dim"], case["num_heads"], case["bias"], case["seed"], q.dtype)
    t, s = q.shape[1], k.shape[1]
    if case["is_causal"]:
        our_kwargs = dict(is_causal=True)  # dnnlpy builds the causal mask itself
        their_kwargs = dict(attn_mask=~dF.causal_mask(t, s), is_causal=True)  # torch wants the mask as well
    else:
        our_kwargs = their_kwargs = dict(attn_mask=mask)
    assume(_samples_agree(torch_agrees_with_itself, theirs, q, k, v, their_kwargs, case["num_heads"]))

    leaves_ours = [x.clone().requires_grad_() for x in (q, k, v)]
    leaves_theirs = [x.clone().requires_grad_() for x in (q, k, v)]
    out_ours, weights = ours(*leaves_ours, **our_kwargs, need_weights=True, average_attn_weights=case["average"])
    out_theirs, _ = theirs(*leaves_theirs, **their_kwargs, need_weights=False)
    assert_close(out_ours, out_theirs)
    probe = _randn(out_theirs.shape, 0, q.dtype)
    (out_ours * probe).sum().backward()
    (out_theirs * probe).sum().backward()
    for a, b in zip(leaves_ours, leaves_theirs, strict=True):
        assert_close(a.grad, b.grad)
    projections = ["q_proj", "k_proj", "v_proj"]
    assert_close(torch.cat([getattr(ours, p).weight.grad for p in projections]), theirs.in_proj_weight.grad)
    assert_close(ours.out_proj.weight.grad, theirs.out_proj.weight.grad)
    if case["bias"]:
        assert_close(torch.cat([getattr(ours, p).bias.grad for p in projections]), theirs.in_proj_bias.grad)
        assert_close(ours.out_proj.bias.grad, theirs.out_proj.bias.grad)

    # Per-head weights, from torch's need_weights path: nan exactly where a query has no key, 0 in dnnlpy.
    with torch.no_grad():
        per_head_ours = ours(q, k, v, **our_kwargs, need_weights=True, average_attn_weights=False)[1]
        per_head_theirs = theirs(q, k, v, **their_kwargs, need_weights=True, average_attn_weights=False)[1]
    no_key = per_head_theirs.isnan().all(dim=-1, keepdim=True)
    assert not per_head_ours.isnan().any()
    assert torch.equal(per_head_ours.masked_select(no_key), torch.zeros_like(per_head_ours.masked_select(no_key)))
    assert_close(per_head_ours, per_head_theirs.masked_fill(no_key, 0.0))
    expected = per_head_ours.mean(dim=1) if case["average"] else per_head_ours
    assert_close(weights.detach(), expected)
