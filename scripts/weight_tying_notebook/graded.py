"""The nbgrader test cells of the weight-tying notebook (visible part + hidden part).

Each starts by silencing warnings (anything on stderr makes nbgrader give a test cell zero) and importing
what it uses, so that a student's reassigned globals cannot change what the test means.
"""

from __future__ import annotations

from .cells import test

__all__ = ["TIED_TESTS", "GPT_TESTS"]

TIED_TESTS = [
    test(
        "test_tied_structure",
        2,
        "TiedEmbeddingLM structure",
        r"""
_model = TiedEmbeddingLM(vocab_size=20, embed_dim=8)
_E, _W = _model.token_embed.weight, _model.lm_head.weight
assert tuple(_E.shape) == (20, 8), "token_embed.weight must have shape (V, D) = (20, 8)"
assert getattr(_model.lm_head, "bias", None) is None, "bias on the head: the tied head has no bias (bias=False)"
_shared = _W.data_ptr() == _E.data_ptr() and _W.shape == _E.shape
_problem = tie_problem(head_shape=tuple(_W.shape), table_shape=tuple(_E.shape), follows=_shared,
                       same_object=_W is _E, same_storage=_W.data_ptr() == _E.data_ptr(),
                       equal_values=_W.shape == _E.shape and torch.equal(_W.detach(), _E.detach()))
assert _problem is None, _problem
assert sum(p.numel() for p in _model.parameters()) == 20 * 8, "a tied model holds exactly V * D parameters"
""",
        r"""
_model = TiedEmbeddingLM(vocab_size=37)
assert tuple(_model.token_embed.weight.shape) == (37, 128), "embed_dim must default to 128"
assert _model.lm_head.weight is _model.token_embed.weight
assert _model.token_embed.weight.requires_grad, "the shared table must be trainable"
assert len(list(_model.parameters())) == 1, "the model should have one unique Parameter: the shared table"
_model = TiedEmbeddingLM(vocab_size=11, embed_dim=6).double()
assert _model.lm_head.weight is _model.token_embed.weight, "the tie must survive .double() / .to(...)"
_model.load_state_dict({k: torch.randn_like(v) for k, v in _model.state_dict().items()})
assert _model.lm_head.weight is _model.token_embed.weight, "the tie must survive load_state_dict"
""",
    ),
    test(
        "test_tied_forward",
        2,
        "TiedEmbeddingLM forward gives logits",
        r"""
torch.manual_seed(1)
_model = TiedEmbeddingLM(vocab_size=20, embed_dim=8)
_ids = torch.randint(0, 20, (3, 5))
_E = _model.token_embed.weight.detach()
_problem = logits_problem(_model(_ids), _E[_ids] @ _E.T)  # (B, T, D) @ (D, V) -> (B, T, V)
assert _problem is None, _problem
""",
        r"""
torch.manual_seed(2)
_model = TiedEmbeddingLM(vocab_size=13, embed_dim=5)
_ids = torch.randint(0, 13, (2, 7))
with torch.no_grad():
    _model.token_embed.weight.copy_(torch.randn(13, 5))  # a change at the input must show at the output
_E = _model.token_embed.weight.detach()
torch.testing.assert_close(_model(_ids).detach(), _E[_ids] @ _E.T,
                           msg="after changing token_embed.weight in place, the head must score with the new table")
_single = _model(torch.tensor([[3]]))
assert tuple(_single.shape) == (1, 1, 13), "a (1, 1) input gives (1, 1, V) logits"
""",
    ),
    test(
        "test_tied_gradient",
        2,
        "TiedEmbeddingLM gradients from both ends add up",
        r"""
torch.manual_seed(3)
_model = TiedEmbeddingLM(vocab_size=10, embed_dim=4)
_ids, _targets = torch.tensor([[1, 2, 3]]), torch.tensor([[2, 3, 4]])
F.cross_entropy(_model(_ids).reshape(-1, 10), _targets.reshape(-1)).backward()
_E_in = _model.token_embed.weight.detach().clone().requires_grad_()
_E_out = _model.token_embed.weight.detach().clone().requires_grad_()
F.cross_entropy((F.embedding(_ids, _E_in) @ _E_out.T).reshape(-1, 10), _targets.reshape(-1)).backward()
_same = _model.lm_head.weight.grad is _model.token_embed.weight.grad
_problem = gradient_problem(_model.token_embed.weight.grad, _E_in.grad, _E_out.grad, same_object=_same)
assert _problem is None, _problem
assert _same, ".data sharing or copied table: both names must share one .grad"
""",
        r"""
torch.manual_seed(4)
_model = TiedEmbeddingLM(vocab_size=9, embed_dim=3)
_before = _model.token_embed.weight.detach().clone()
_ids, _targets = torch.randint(0, 9, (2, 4)), torch.randint(0, 9, (2, 4))
_opt = torch.optim.SGD(_model.parameters(), lr=0.5)
F.cross_entropy(_model(_ids).reshape(-1, 9), _targets.reshape(-1)).backward()
_grad = _model.token_embed.weight.grad.detach().clone()
_opt.step()
torch.testing.assert_close(_model.token_embed.weight.detach(), _before - 0.5 * _grad,
                           msg="one SGD step must move the shared table once, by lr * (sum of both gradients)")
torch.testing.assert_close(_model.lm_head.weight.detach(), _model.token_embed.weight.detach(),
                           msg="after an optimizer step the head must still equal the embedding table")
""",
    ),
]


GPT_SETUP = r"""
torch.manual_seed(5)
_cfg = dict(vocab_size=50, block_size=8, embed_dim=16, num_layers=2, num_heads=2, hidden_dim=32)
_model = MiniGPTWithWeightTying(**_cfg)
"""

GPT_TESTS = [
    test(
        "test_minigpt_structure",
        2,
        "MiniGPTWithWeightTying is a tied MiniGPT",
        GPT_SETUP
        + r"""
_inner = _model.minigpt
assert isinstance(_inner, gpt.MiniGPT), "self.minigpt must be a dnnlpy gpt.MiniGPT"
assert _inner.lm_head.weight is _inner.token_embed.weight, "build the MiniGPT with weight_tying=True"
assert _inner.pos_embed.weight is not _inner.lm_head.weight, "the positional table must not be tied"
_reference = gpt.MiniGPT(**_cfg, weight_tying=True)
_reference.load_state_dict(_inner.state_dict())  # raises if a size differs
_ids = torch.randint(0, 50, (2, 8))
torch.testing.assert_close(_inner(_ids), _reference(_ids),
                           msg="self.minigpt must use exactly the given hyper-parameters (check num_heads)")
""",
        r"""
_default = MiniGPTWithWeightTying(vocab_size=30, block_size=6)
_reference = gpt.MiniGPT(30, 6, weight_tying=True)
_reference.load_state_dict(_default.minigpt.state_dict())
_ids = torch.randint(0, 30, (1, 6))
torch.testing.assert_close(_default.minigpt(_ids), _reference(_ids),
                           msg="defaults must be embed_dim=128, num_layers=4, num_heads=4, hidden_dim=512")
_dropped = MiniGPTWithWeightTying(**_cfg, dropout=0.5).train()
_ids = torch.randint(0, 50, (2, 8))
assert not torch.equal(_dropped(_ids), _dropped(_ids)), "dropout must be passed on to MiniGPT"
""",
    ),
    test(
        "test_minigpt_forward_loss",
        2,
        "MiniGPTWithWeightTying forward and loss",
        GPT_SETUP
        + r"""
_ids = torch.randint(0, 50, (2, 6))
torch.testing.assert_close(_model(_ids), _model.minigpt(_ids), msg="forward must return MiniGPT's logits")
_loss = _model.loss(_ids)
assert _loss.dim() == 0, "loss must be a scalar (the mean over positions)"
_logits = _model.minigpt(_ids[:, :-1])
torch.testing.assert_close(_loss, F.cross_entropy(_logits.reshape(-1, 50), _ids[:, 1:].reshape(-1)),
                           msg="loss(ids) must predict ids[:, 1:] from ids[:, :-1] (mean cross-entropy of logits)")
""",
        r"""
torch.testing.assert_close(_model.loss(_ids, _ids[:, 1:]), _model.minigpt.loss(_ids, _ids[:, 1:]),
                           msg="loss(ids, targets) with targets of shape (B, T-1) must match MiniGPT.loss")
_shifted = torch.randint(0, 50, (2, 6))
torch.testing.assert_close(_model.loss(_ids, _shifted), _model.minigpt.loss(_ids, _shifted),
                           msg="loss(ids, targets) with targets of shape (B, T) must match MiniGPT.loss")
_loss.backward()
assert _model.minigpt.token_embed.weight.grad is not None, "loss must be differentiable w.r.t. the shared table"
assert abs(_model.loss(torch.randint(0, 50, (4, 8))).item() - math.log(50)) < 0.5, (
    "an untrained model's loss should be close to ln V")
""",
    ),
    test(
        "test_minigpt_generate",
        3,
        "greedy generate",
        GPT_SETUP
        + r"""
def _greedy(model, ids, steps, block_size):
    with torch.no_grad():
        for _ in range(steps):
            _next = model.minigpt(ids[:, -block_size:])[:, -1, :].argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, _next], dim=1)
    return ids

_prompt = torch.randint(0, 50, (2, 3))
_out = _model.generate(_prompt, max_new_tokens=4)
_problem = generated_ids_problem(_out, _prompt, 4) or greedy_problem(_out, _greedy(_model, _prompt, 4, 8))
assert _problem is None, _problem
""",
        r"""
with torch.no_grad():  # sharper weights make the greedy path depend on the whole context
    for _p in _model.parameters():
        if _p.dim() > 1:
            _p.mul_(30)
_prompt = torch.randint(0, 50, (3, 5))
try:
    _out = _model.generate(_prompt, max_new_tokens=12)  # 17 tokens > block_size = 8
except ValueError as _error:
    raise AssertionError(f"generate must crop the context to the last block_size tokens: {_error}") from None
assert torch.equal(_out, _greedy(_model, _prompt, 12, 8)), (
    "past block_size, each step must see the LAST block_size tokens, and pick the argmax")
assert torch.equal(_model.generate(_prompt, max_new_tokens=12), _out), "greedy decoding must be deterministic"
assert torch.equal(_model.generate(_prompt, max_new_tokens=0), _prompt), "max_new_tokens=0 returns the prompt"
""",
    ),
]
