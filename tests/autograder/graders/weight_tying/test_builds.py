"""The run's shared builds (runner/builds.py): a model handed out again is the model a fresh build gives."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from autograder.graders import get_assignment
from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.runner.builds import Builds, current, shared
from autograder.graders.weight_tying.runner.tools import SGD
from autograder.graders.weight_tying.runner.values import load_judge_values
from autograder.qa.inprocess import namespace_of

CORPUS = get_assignment("weight_tying").calibration_dir


class Tied(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int) -> None:
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight
        self.register_buffer("scale", torch.ones(1), persistent=False)
        self.notes: list = []

    def forward(self, ids):
        return self.lm_head(self.token_embed(ids)) * self.scale


ARGS = {"vocab_size": 7, "embed_dim": 3}


def _state(model) -> dict:
    return {k: v.clone() for k, v in model.state_dict(keep_vars=False).items()}


def test_a_shared_build_comes_back_as_built():
    builds = Builds()
    model = builds.model(Tied, ARGS, 5)
    built, after = _state(model), torch.rand(4)  # the generator right after the build
    opt = SGD(model.parameters(), lr=0.5)
    model(torch.tensor([[1, 2, 3]])).sum().backward()
    opt.step()
    with torch.no_grad():
        model.scale.mul_(3)
    model.eval()
    torch.rand(10)
    again = builds.model(Tied, ARGS, 5)
    assert again is model and again.training and again.lm_head.training
    assert all(torch.equal(v, built[k]) for k, v in again.state_dict().items())
    assert float(again.scale) == 1.0 and again.token_embed.weight.grad is None
    assert torch.equal(torch.rand(4), after)
    assert again.lm_head.weight is again.token_embed.weight


@pytest.mark.parametrize(
    "change",
    [
        lambda m: setattr(m.lm_head, "weight", nn.Parameter(m.lm_head.weight.detach().clone())),  # untied
        lambda m: setattr(m.token_embed.weight, "data", m.token_embed.weight.data.clone()),  # storage swapped
        lambda m: m.to(torch.float64),  # a cast
        lambda m: m.notes.append(1),  # a container's items
        lambda m: setattr(m, "flag", True),  # an attribute added
        lambda m: m.register_forward_hook(lambda *a: None),  # a hook
        lambda m: setattr(m.lm_head, "__class__", type("Other", (nn.Linear,), {})),  # another class
    ],
    ids=["untied", "storage", "cast", "container", "attribute", "hook", "class"],
)
def test_a_build_changed_for_good_is_built_again(change):
    builds = Builds()
    model = builds.model(Tied, ARGS, 5)
    change(model)
    again = builds.model(Tied, ARGS, 5)
    assert again is not model
    assert again.lm_head.weight is again.token_embed.weight and again.token_embed.weight.dtype == torch.float32


def test_other_arguments_or_seeds_are_other_builds_and_an_owned_one_is_never_shared():
    builds = Builds()
    model = builds.model(Tied, ARGS, 5)
    assert builds.model(Tied, ARGS, 6) is not model
    assert builds.model(Tied, {**ARGS, "embed_dim": 4}, 5) is not model
    assert builds.own(Tied, ARGS, 5) is model
    assert builds.model(Tied, ARGS, 5) is not model


def test_only_the_requests_said_to_recur_are_kept():
    builds = Builds(recurring={Builds.request(ARGS, 5)})
    model = builds.model(Tied, ARGS, 5)
    assert builds.model(Tied, ARGS, 5) is model
    once = builds.model(Tied, ARGS, 6)
    assert builds.model(Tied, ARGS, 6) is not once


def test_builds_are_shared_inside_a_run_only():
    outside = current()
    assert current() is not outside
    with shared() as run:
        assert current() is run
        model = run.model(Tied, ARGS, 1)
    assert current() is not run and run.model(Tied, ARGS, 1) is not model  # emptied when the run ends


def test_the_solution_s_wrapper_back_as_built_computes_as_a_fresh_build():
    """After the judge's values, a step and eval mode, the shared wrapper is the fresh one, value for value."""
    cls = namespace_of(SOLUTIONS_DIR / "weight_tying.py")["MiniGPTWithWeightTying"]
    cfg = {"vocab_size": 20, "block_size": 6, "embed_dim": 12, "num_layers": 2, "num_heads": 4, "hidden_dim": 20}
    ids = torch.randint(0, 20, (2, 6), generator=torch.Generator().manual_seed(0))
    builds = Builds()
    model = builds.model(cls, cfg, 3)
    load_judge_values(model.minigpt, 11)
    opt = SGD(model.parameters(), lr=0.5)
    model(ids).sum().backward()
    opt.step()
    model.eval()
    shared_model = builds.model(cls, cfg, 3)
    torch.manual_seed(3)
    fresh = cls(**cfg)
    for m in (shared_model, fresh):
        load_judge_values(m.minigpt, 12)
    assert shared_model is model and shared_model.training
    torch.testing.assert_close(shared_model(ids), fresh(ids), rtol=0, atol=0)
    g = shared_model.minigpt
    assert g.lm_head.weight is g.token_embed.weight


@pytest.mark.parametrize(
    "path",
    [
        SOLUTIONS_DIR / "weight_tying.py",
        CORPUS / "wrong" / "w09_tied_in_forward.py",  # ties in forward: a shared build would be tied already
        CORPUS / "tricks" / "t07_forward_zeros_nudges_table.py",  # writes its table in forward
        CORPUS / "wrong" / "w17_ignores_dropout.py",
    ],
    ids=lambda p: p.stem,
)
def test_a_run_s_records_are_those_of_each_experiment_built_on_its_own(grader, plan, path):
    """The whole run (one ``shared`` for all) against each experiment with builds of its own: the same bytes."""
    together = grader.evidence(path, plan, round_trip=False)
    alone = grader.evidence(path, plan, round_trip=False, only=set(together))
    assert together.keys() == alone.keys()
    for name in together:
        assert _same(together[name], alone[name]), name


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a != a and b != b)  # noqa: PLR0124 - NaN equals NaN here


def test_a_run_of_the_solution_builds_each_configuration_once(spec, plan):
    """The wrapper eleven times (its eleven configurations, test_plan.py's 8b) and once more for reload's second
    copy; TiedEmbeddingLM once a request (two modules: not worth sharing)."""
    from autograder.graders.weight_tying.runner.experiments import run
    from autograder.sandbox.library import imported, library_copy

    made: dict[str, int] = {}
    with imported(library_copy(spec.withheld)):
        namespace = namespace_of(spec.solution_path)
        for name in ("TiedEmbeddingLM", "MiniGPTWithWeightTying"):
            cls = namespace[name]

            def init(self, *args, _init=cls.__init__, _name=name, **kwargs):
                made[_name] = made.get(_name, 0) + 1
                _init(self, *args, **kwargs)

            cls.__init__ = init
        records: dict = {}
        run(namespace, plan, records.__setitem__)
    assert all("error" not in r for r in records.values()), records
    shapes = len(plan["lm"]["shapes"])
    assert made == {"TiedEmbeddingLM": 5 + shapes, "MiniGPTWithWeightTying": 12}, made
