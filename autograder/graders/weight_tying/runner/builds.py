"""Untrusted: each model a weight_tying run builds, built once and handed out again as it was built.

Constructing a student's MiniGPT (some forty nn.Module constructors) is the dearest single step of the
experiments, and many of them build the same class with the same arguments and seed. ``Builds.model`` hands
every such caller the same object, put back as it was right after its construction:

- every module is of the class it was, and its attributes are the very objects they were (a Parameter, a
  submodule, a flag or a container swapped, or a container's items: the model is built again), its training
  flag as built;
- every tensor a module holds (parameters, buffers, tensors kept as attributes or in a list, a dict) keeps its
  storage, dtype, shape and requires_grad (a cast, a ``.data`` swap: built again), and gets its values as built
  back in place, its gradient as built (None) too;
- torch's CPU generator is at its state right after the build, as ``seeded(seed, build)`` leaves it.

So what an experiment does next (load the judge's values, write a table, take a step, switch dropout off)
starts from a model the runner cannot tell from a fresh build by anything the model holds. What it cannot see
is state kept elsewhere (a class attribute, a global, an object nested deeper than a container attribute's
items): such state crosses fresh builds just as well, so sharing lets a submission do nothing it could not do
already. A caller that changes a model for good (a dtype cast) takes it with ``Builds.own``: handed out once.

One ``Builds`` per run (``shared``), told which requests recur (a snapshot costs about half a build: one made
for a model no one asks for again is waste): an experiment called on its own (a mutation run re-runs some, the
kit's tests call one) gets a ``Builds`` of its own, so a build it needs is made, and traced, inside it.

Imports only torch and the standard library.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator
from operator import is_
from typing import Any

import torch

from autograder.graders.weight_tying.runner.tools import seed_cpu

__all__ = ["Builds", "shared", "current"]


# The containers an attribute may hold that are compared item by item (parameters, buffers, submodules, hooks
# are dicts of these kinds); anything else is compared as one object.
_CONTAINERS = (dict, OrderedDict, list)


class _AsBuilt:
    """A model and what it held right after its construction (``usable``: it still holds it; ``restore``)."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model
        self.rng = torch.default_generator.get_state()
        modules = list(model.modules())
        self.modules = modules
        self.flags = [(m, m.training) for m in modules]
        spaces = [vars(m) for m in modules]
        # every module's attributes, and every container an attribute holds (most are empty hook dicts: their
        # lengths are compared, the keys and items of the others)
        self.places = spaces + [v for space in spaces for v in space.values() if type(v) in _CONTAINERS]
        self.dicts = [place for place in self.places if place and type(place) is not list]
        self.lists = [place for place in self.places if place and type(place) is list]
        # the items as built, each compared by identity (``operator.is_``: no id(), whose audit event the runner's
        # hook would see ~13,000 times a run)
        self.held = [*(tuple(d.values()) for d in self.dicts), *(tuple(items) for items in self.lists)]
        self.signature = self._signature()
        self.tensors = _distinct(v for values in self.held for v in values if isinstance(v, torch.Tensor))
        if any(t.is_leaf and t.grad is not None for t in self.tensors):
            raise ValueError("a tensor with a gradient right after construction: not shared")
        self.facts = _facts(self.tensors)
        self.values = [t.detach().clone() for t in self.tensors]

    def _signature(self) -> tuple:
        """The classes, the containers' lengths and the dicts' keys (the items: ``_same_items``)."""
        return list(map(type, self.modules)), list(map(len, self.places)), [tuple(d) for d in self.dicts]

    def _same_items(self) -> bool:
        """Every dict's and list's items the very objects built (the lengths already equal)."""
        now = [*(d.values() for d in self.dicts), *self.lists]
        return all(all(map(is_, items, held)) for items, held in zip(now, self.held, strict=True))

    def usable(self) -> bool:
        """Every module attribute, container item and tensor fact as built (training flags put back first)."""
        for module, training in self.flags:
            vars(module)["training"] = training  # what Module.train writes, without its walk
        return self._signature() == self.signature and self._same_items() and _facts(self.tensors) == self.facts

    def restore(self) -> torch.nn.Module:
        """The model with its values, gradients and torch's generator as built."""
        with torch.no_grad():
            for tensor, value in zip(self.tensors, self.values, strict=True):
                tensor.copy_(value)
                if tensor.is_leaf:
                    tensor.grad = None
        torch.default_generator.set_state(self.rng)
        return self.model


def _distinct(tensors: Iterable[torch.Tensor]) -> list[torch.Tensor]:
    """Each tensor once, in order, by identity: keyed by ``object.__hash__`` (the object's address, rotated: one
    key per live object, and no audit event, where a tensor's own hash calls id())."""
    out: dict[int, torch.Tensor] = {}
    for tensor in tensors:
        out.setdefault(object.__hash__(tensor), tensor)
    return list(out.values())


def _facts(tensors: list[torch.Tensor]) -> list[tuple]:
    return [(t.data_ptr(), t.dtype, t.shape, t.stride(), t.requires_grad) for t in tensors]


class Builds:
    """The models of one run, by (class, keyword arguments, seed)."""

    def __init__(self, recurring: Collection[tuple] | None = None) -> None:
        self._kept: dict[tuple, _AsBuilt] = {}
        # the requests (``request``) more than one caller makes, the only builds worth a snapshot (~half a build's
        # cost); None: every build is kept. A request missing here is built each time: slower, never different.
        self._recurring = None if recurring is None else set(recurring)

    @staticmethod
    def request(kwargs: dict, seed: int) -> tuple:
        """What identifies a build besides its class: the keyword arguments and the seed."""
        return tuple(sorted(kwargs.items())), int(seed)

    def model(self, cls: Callable[..., Any], kwargs: dict, seed: int) -> Any:
        """``cls(**kwargs)`` built right after torch's generator was seeded with `seed`: the run's one build of
        it, as it was built (see the module's docstring), or a new build when the last caller changed it."""
        try:
            request = self.request(kwargs, seed)
            key = (cls, *request)
            kept = self._kept.get(key)
        except TypeError:  # an unhashable class or argument: nothing to share
            return _build(cls, kwargs, seed)
        if kept is not None:
            with contextlib.suppress(Exception):  # a model that cannot be read or put back: built again
                if kept.usable():
                    return kept.restore()
        model = _build(cls, kwargs, seed)
        self._kept.pop(key, None)
        if isinstance(model, torch.nn.Module) and (self._recurring is None or request in self._recurring):
            with contextlib.suppress(Exception):  # a model torch's own walk cannot read: never shared
                self._kept[key] = _AsBuilt(model)
        return model

    def own(self, cls: Callable[..., Any], kwargs: dict, seed: int) -> Any:
        """``model``'s build for a caller that changes it for good (a cast): never handed out again."""
        model = self.model(cls, kwargs, seed)
        with contextlib.suppress(TypeError):
            self._kept.pop((cls, *self.request(kwargs, seed)), None)
        return model

    def clear(self) -> None:
        self._kept.clear()


def _build(cls: Callable[..., Any], kwargs: dict, seed: int) -> Any:
    seed_cpu(seed)
    return cls(**kwargs)


_RUN: list[Builds] = []


@contextlib.contextmanager
def shared(recurring: Collection[tuple] | None = None) -> Iterator[Builds]:
    """One run's builds, shared by every experiment called inside the block (``current``)."""
    builds = Builds(recurring)
    _RUN.append(builds)
    try:
        yield builds
    finally:
        _RUN.remove(builds)
        builds.clear()


def current() -> Builds:
    """The run's builds inside ``shared``; outside it, a ``Builds`` of the caller's own."""
    return _RUN[-1] if _RUN else Builds()
