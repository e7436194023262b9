"""Public self-check for the weight-tying assignment. Run `pytest` in this folder.

Each test builds small models from the classes your notebook defines and, when something is wrong, says
which misconception it looks like. The graded suite is larger (see the summary at the end of the run).
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from weight_tying_diagnosis import generated_ids_problem, gradient_problem, greedy_problem, logits_problem, tie_problem

from dnnlpy.models import gpt

SMALL_GPT = dict(vocab_size=50, block_size=8, embed_dim=16, num_layers=2, num_heads=2, hidden_dim=32)


@pytest.fixture(autouse=True)
def _quiet_and_seeded():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        yield


def check(problem: str | None) -> None:
    """Fail with the diagnosis itself (no assert-rewriting noise) when there is one."""
    if problem:
        pytest.fail(problem, pytrace=False)


def call(what: str, fn, *args, **kwargs):
    """Run the student's code; a stub left in place gets a plain 'not implemented yet'."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        pass  # fail outside the except block, so that pytest does not print the chained stub traceback
    pytest.fail(f"{what} is not implemented yet: replace `raise NotImplementedError()` in its cell", pytrace=False)


def attribute(model, name: str):
    if not hasattr(model, name):
        pytest.fail(
            f"{type(model).__name__} has no attribute {name!r}: the contract requires self.{name}", pytrace=False
        )
    return getattr(model, name)


def tie(embed_weight, head_weight) -> str | None:
    """The tie as the grader judges it, from the live Parameters."""
    if not isinstance(head_weight, torch.Tensor) or not isinstance(embed_weight, torch.Tensor):
        return (
            f"lm_head.weight ({type(head_weight).__name__}) and token_embed.weight "
            f"({type(embed_weight).__name__}) must both be the one shared nn.Parameter"
        )
    same_shape = head_weight.shape == embed_weight.shape
    same_storage = head_weight.data_ptr() == embed_weight.data_ptr()
    return tie_problem(
        head_shape=tuple(head_weight.shape),
        table_shape=tuple(embed_weight.shape),
        follows=same_shape and same_storage,
        same_object=head_weight is embed_weight,
        same_storage=same_storage,
        equal_values=same_shape and torch.equal(head_weight.detach(), embed_weight.detach()),
    )


def generated(out, prompt: torch.Tensor, expected: torch.Tensor, *, again=None) -> str | None:
    return generated_ids_problem(out, prompt, expected.shape[1] - prompt.shape[1]) or greedy_problem(
        out, expected, again=again
    )


def greedy(inner: gpt.MiniGPT, ids: torch.Tensor, steps: int) -> torch.Tensor:
    """Reference greedy decoding with the student's own MiniGPT."""
    with torch.no_grad():
        for _ in range(steps):
            last = inner(ids[:, -inner.block_size :])[:, -1, :]  # (B, V)
            ids = torch.cat([ids, last.argmax(dim=-1, keepdim=True)], dim=1)
    return ids


# ---------------------------------------------------------------- TiedEmbeddingLM


def test_tied_embedding_table_has_shape_v_by_d(TiedEmbeddingLM):
    model = call("TiedEmbeddingLM.__init__", TiedEmbeddingLM, vocab_size=20, embed_dim=8)
    weight = attribute(attribute(model, "token_embed"), "weight")
    check(
        None
        if tuple(weight.shape) == (20, 8)
        else f"token_embed.weight must have shape (V, D) = (20, 8), got {tuple(weight.shape)}"
    )


def test_tied_head_has_no_bias(TiedEmbeddingLM):
    model = call("TiedEmbeddingLM.__init__", TiedEmbeddingLM, vocab_size=20, embed_dim=8)
    bias = getattr(attribute(model, "lm_head"), "bias", None)
    check(
        None
        if bias is None
        else "a bias on the head: the tied LM head is exactly the embedding table, build it with bias=False"
    )


def test_tied_head_shares_the_embedding_parameter(TiedEmbeddingLM):
    model = call("TiedEmbeddingLM.__init__", TiedEmbeddingLM, vocab_size=20, embed_dim=8)
    embed, head = attribute(model, "token_embed"), attribute(model, "lm_head")
    check(tie(embed.weight, head.weight))
    check(
        None
        if len(list(model.parameters())) == 1
        else "the model should hold one unique Parameter (the shared table); it has "
        f"{[name for name, _ in model.named_parameters()]}"
    )


def test_tied_forward_returns_logits(TiedEmbeddingLM):
    model = call("TiedEmbeddingLM.__init__", TiedEmbeddingLM, vocab_size=20, embed_dim=8)
    ids = torch.randint(0, 20, (3, 5))  # (B, T)
    table = attribute(model, "token_embed").weight.detach()
    logits = call("TiedEmbeddingLM.forward", model, ids)
    check(logits_problem(logits, table[ids] @ table.T))  # (B, T, D) @ (D, V) -> (B, T, V)


def test_tied_gradients_from_both_ends_add_up(TiedEmbeddingLM):
    model = call("TiedEmbeddingLM.__init__", TiedEmbeddingLM, vocab_size=10, embed_dim=4)
    check(tie(attribute(model, "token_embed").weight, attribute(model, "lm_head").weight))
    ids, targets = torch.tensor([[1, 2, 3]]), torch.tensor([[2, 3, 4]])
    logits = call("TiedEmbeddingLM.forward", model, ids)
    F.cross_entropy(logits.reshape(-1, 10), targets.reshape(-1)).backward()
    # The same loss with one independent copy of the table per end.
    e_in = model.token_embed.weight.detach().clone().requires_grad_()
    e_out = model.token_embed.weight.detach().clone().requires_grad_()
    F.cross_entropy((F.embedding(ids, e_in) @ e_out.T).reshape(-1, 10), targets.reshape(-1)).backward()
    same = model.lm_head.weight.grad is model.token_embed.weight.grad
    check(gradient_problem(model.token_embed.weight.grad, e_in.grad, e_out.grad, same_object=same))


# ---------------------------------------------------------------- MiniGPTWithWeightTying


def test_minigpt_is_a_tied_dnnlpy_minigpt(MiniGPTWithWeightTying):
    model = call("MiniGPTWithWeightTying.__init__", MiniGPTWithWeightTying, **SMALL_GPT)
    inner = attribute(model, "minigpt")
    check(
        None
        if isinstance(inner, gpt.MiniGPT)
        else f"self.minigpt must be a dnnlpy.models.gpt.MiniGPT, got {type(inner).__name__}"
    )
    problem = tie(inner.token_embed.weight, inner.lm_head.weight)
    check(problem and f"the MiniGPT is not tied (build it with weight_tying=True): {problem}")
    check(
        None
        if inner.pos_embed.weight is not inner.lm_head.weight
        else "the positional table must not be tied to the head: only the token table is"
    )


def test_minigpt_uses_the_given_hyperparameters(MiniGPTWithWeightTying):
    model = call("MiniGPTWithWeightTying.__init__", MiniGPTWithWeightTying, **SMALL_GPT)
    inner = attribute(model, "minigpt")
    reference = gpt.MiniGPT(**SMALL_GPT, weight_tying=True)
    try:
        reference.load_state_dict(inner.state_dict())
        problem = None
    except RuntimeError as error:
        problem = f"self.minigpt's sizes differ from MiniGPT({SMALL_GPT}): pass every hyper-parameter on.\n{error}"
    check(problem)
    ids = torch.randint(0, 50, (2, 8))
    same = torch.allclose(inner(ids), reference(ids), atol=1e-5)
    check(None if same else "same weights, different outputs: pass num_heads (and dropout) on to MiniGPT")


def test_minigpt_forward_and_loss(MiniGPTWithWeightTying):
    model = call("MiniGPTWithWeightTying.__init__", MiniGPTWithWeightTying, **SMALL_GPT)
    inner = attribute(model, "minigpt")
    ids = torch.randint(0, 50, (2, 6))
    logits = call("MiniGPTWithWeightTying.forward", model, ids)
    check(logits_problem(logits, inner(ids)))
    loss = call("MiniGPTWithWeightTying.loss", model.loss, ids)
    expected = F.cross_entropy(inner(ids[:, :-1]).reshape(-1, 50), ids[:, 1:].reshape(-1))
    check(
        None
        if isinstance(loss, torch.Tensor) and loss.dim() == 0
        else f"loss must return a scalar tensor (the mean over positions), got {loss!r}"
    )
    check(
        None
        if torch.allclose(loss, expected, atol=1e-5)
        else f"loss(ids) is {loss.item():.4f}, expected {expected.item():.4f}: predict ids[:, 1:] from ids[:, :-1] "
        "with the mean cross-entropy of the logits"
    )
    with_targets = call("MiniGPTWithWeightTying.loss", model.loss, ids, ids[:, 1:])
    check(
        None
        if torch.allclose(with_targets, expected, atol=1e-5)
        else "loss(ids, targets) with targets of shape (B, T-1) must mean the same as MiniGPT.loss"
    )


def test_generate_is_greedy_and_keeps_the_prompt(MiniGPTWithWeightTying):
    model = call("MiniGPTWithWeightTying.__init__", MiniGPTWithWeightTying, **SMALL_GPT)
    prompt = torch.randint(0, 50, (2, 3))
    out = call("MiniGPTWithWeightTying.generate", model.generate, prompt, max_new_tokens=4)
    again = call("MiniGPTWithWeightTying.generate", model.generate, prompt, max_new_tokens=4)
    check(generated(out, prompt, greedy(model.minigpt, prompt, 4), again=again))


def test_generate_crops_the_context_past_block_size(MiniGPTWithWeightTying):
    model = call("MiniGPTWithWeightTying.__init__", MiniGPTWithWeightTying, **SMALL_GPT)
    with torch.no_grad():  # sharper weights, so that the greedy path depends on which tokens it sees
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(30)
    prompt = torch.randint(0, 50, (2, 6))
    try:
        out = call("MiniGPTWithWeightTying.generate", model.generate, prompt, max_new_tokens=6)  # 12 > block_size 8
        problem = None
    except ValueError as error:
        problem = f"generate must crop the context to its last block_size tokens each step: {error}"
    check(problem or generated(out, prompt, greedy(model.minigpt, prompt, 6)))
