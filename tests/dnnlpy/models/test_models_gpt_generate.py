"""MiniGPT.generate: greedy and sampled decoding, context cropping, prompt checks, modes."""

import pytest
import torch
from torch import nn

V, BLOCK, D = 50, 8, 16  # the sizes of the conftest's small models

# ---- generation --------------------------------------------------------------------------------------


def _manual_greedy(m, ids, steps):
    for _ in range(steps):
        nxt = m(ids[:, -m.block_size :])[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, nxt], dim=1)
    return ids


@pytest.fixture
def lively(make_model):
    """Large random weights: an untrained tied model at GPT-2 scale mostly repeats its last token, which
    would hide a wrong context window; this one's output depends on the whole window."""
    m = make_model()
    with torch.no_grad():
        for p in m.parameters():
            p.normal_(0.0, 0.5)
    return m


def test_greedy_generate_matches_manual_loop_past_block_size(lively, make_ids):
    prompt = make_ids(2, 3)
    out = lively.generate(prompt, 3 * BLOCK)
    assert out.shape == (2, 3 + 3 * BLOCK) and out.dtype == torch.int64
    assert torch.equal(out[:, :3], prompt)
    assert len(set(out[0, 3:].tolist())) > 2  # the check below is not vacuous
    with torch.no_grad():
        assert torch.equal(out, _manual_greedy(lively, prompt, 3 * BLOCK))


def test_generate_crops_a_long_prompt(lively, make_ids):
    long_prompt = make_ids(1, BLOCK + 4)
    out = lively.generate(long_prompt, 4)
    with torch.no_grad():
        assert torch.equal(out, _manual_greedy(lively, long_prompt, 4))
        # only the last BLOCK tokens matter
        assert torch.equal(out[:, -4:], lively.generate(long_prompt[:, -BLOCK:], 4)[:, -4:])


def test_generate_first_token_is_argmax(tied):
    prompt = torch.tensor([[10, 25, 31]])
    with torch.no_grad():
        expected = tied(prompt)[:, -1, :].argmax(dim=-1)
    assert tied.generate(prompt, 1)[0, -1].item() == expected.item()


@pytest.mark.parametrize("max_new_tokens", [0, 2])
@pytest.mark.parametrize(
    "prompt,exc,match",
    [
        (torch.zeros(1, 3), TypeError, r"integer tensor .* got dtype torch.float32"),
        (torch.zeros(1, 3, dtype=torch.bool), TypeError, r"integer tensor .* got dtype torch.bool"),
        (torch.tensor([[1, V]]), ValueError, rf"token id {V}, outside \[0, {V}\)"),
        (torch.zeros(3, dtype=torch.long), ValueError, r"2-D .*unsqueeze\(0\)"),
        ([[1, 2]], TypeError, "torch.Tensor"),
    ],
)
def test_generate_checks_the_prompt_as_forward_does(tied, prompt, exc, match, max_new_tokens):
    """Not cast with .long() (a float prompt was silently truncated), and checked even for 0 new tokens."""
    with pytest.raises(exc, match=match):
        tied(prompt)
    with pytest.raises(exc, match=match):
        tied.generate(prompt, max_new_tokens)


def test_empty_batch_as_torch_modules(tied):
    """B = 0 gives an empty (0, T, V) tensor, as torch's own modules do (it was a RuntimeError from min())."""
    empty = torch.zeros(0, 5, dtype=torch.long)
    reference = nn.Linear(D, V)(nn.Embedding(V, D)(empty))
    assert tied(empty).shape == reference.shape == (0, 5, V)
    assert tied.generate(empty, 3).shape == (0, 8)
    assert tied.generate(empty, 3, do_sample=True, top_k=5).shape == (0, 8)


def test_generate_zero_tokens_and_no_grad(tied, make_ids):
    prompt = make_ids(2, 3)
    assert torch.equal(tied.generate(prompt, 0), prompt)
    assert not tied.generate(prompt, 2).requires_grad


def test_generate_uses_eval_mode_and_restores_it(make_model, make_ids):
    m = make_model(dropout=0.5)
    m.train()
    prompt = make_ids(2, 3)
    first, second = m.generate(prompt, 5), m.generate(prompt, 5)
    assert torch.equal(first, second)  # dropout was off during generation
    assert m.training
    m.eval()
    assert torch.equal(m.generate(prompt, 5), first)
    assert not m.training


def test_sampling_is_reproducible_with_a_generator(tied, make_ids):
    prompt = make_ids(2, 3)

    def run(**kw):
        return tied.generate(prompt, 6, do_sample=True, generator=torch.Generator().manual_seed(7), **kw)

    assert torch.equal(run(temperature=1.5), run(temperature=1.5))
    assert torch.equal(run(top_k=1), tied.generate(prompt, 6))  # top-1 sampling is greedy
    assert torch.equal(run(top_p=1e-6), tied.generate(prompt, 6))  # so is a tiny nucleus
    assert ((run(top_k=5) >= 0) & (run(top_k=5) < V)).all()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(max_new_tokens=-1), "max_new_tokens"),
        (dict(max_new_tokens=2, do_sample=True, temperature=0.0), "temperature must be a finite number > 0"),
        (dict(max_new_tokens=2, do_sample=True, top_k=0), r"top_k must be an int >= 1, got 0"),
        (dict(max_new_tokens=2, do_sample=True, top_p=1.5), r"top_p must be in \(0, 1\]"),
    ],
)
def test_generate_bad_options(tied, kwargs, match, make_ids):
    with pytest.raises(ValueError, match=match):
        tied.generate(make_ids(1, 3), **kwargs)
