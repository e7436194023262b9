"""The evidence schema's `checked` flags are true, read from the schema itself (no list of names here).

- A checked leaf (any field of any record, in every case) is judged: each mutation of its value in the
  solution's evidence (another type, shape, dtype, one element moved, a NaN, a flipped bool, an int off by
  one, a shape or a probability changed) makes some test fail, with a message, never a judge crash.
- An unchecked leaf is the runner's word: all of them together, forged to the solution's values, earn
  nothing on their own (a stub whose checked leaves are junk scores 0).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from autograder.graders.kit import SOLUTIONS_DIR
from autograder.graders.weight_tying.runner.evidence import RECORDS
from autograder.graders.weight_tying.runner.seal import SEAL, resealed
from autograder.protocol.schema import Field, Record

Path_ = tuple  # a path into the evidence: (experiment, key, case index or name, key, ...)


@pytest.fixture(scope="module")
def solution_evidence(plan, collect_evidence):
    return collect_evidence(SOLUTIONS_DIR / "weight_tying.py", plan)


def leaves(record: type[Record], value, path: Path_ = ()) -> Iterator[tuple[Path_, Field]]:
    """(path, Field) of every leaf of a record value, through cases, named cases and nested records."""
    if not isinstance(value, dict) or set(value) == {"error"}:
        return
    for key, field in record.FIELDS.items():
        if key not in value:
            continue
        inner = value[key]
        if field.kind == "cases":
            for i, case in enumerate(inner):
                yield from leaves(field.of, case, (*path, key, i))
        elif field.kind == "named cases":
            for name, case in inner.items():
                yield from leaves(field.of, case, (*path, key, name))
        elif field.kind == "record":
            yield from leaves(field.of, inner, (*path, key))
        else:
            yield (*path, key), field


def all_leaves(evidence) -> list[tuple[Path_, Field]]:
    return [leaf for record in RECORDS for leaf in leaves(record, evidence[record.NAME], (record.NAME,))]


def get(evidence, path: Path_):
    for step in path:
        evidence = evidence[step]
    return evidence


def replaced(evidence, path: Path_, value):
    """A copy of `evidence` with the leaf at `path` replaced (only the containers on the path are copied)."""
    out = dict(evidence)
    node = out
    for step in path[:-1]:
        node[step] = copy.copy(node[step])
        node = node[step]
    node[path[-1]] = value
    # Sealed again, so that the value's own check is what fails (the seal has its own tests, test_seal.py).
    top = out[path[0]]
    if path[1:] != (SEAL,) and isinstance(top, dict) and isinstance(top.get(SEAL), str):
        out[path[0]] = resealed(path[0], top, next(r for r in RECORDS if r.NAME == path[0]))
    return out


def _moved(t: torch.Tensor) -> torch.Tensor:
    out = t.clone()
    flat = out.view(-1)
    k = flat.numel() // 2
    if t.is_floating_point():
        flat[k] += 0.05 * float(t.abs().max()) + 1e-3
    else:
        flat[k] += 1
    return out


def mutations(field: Field, value) -> list[tuple[str, object]]:
    """(label, mutated value) pairs for one leaf."""
    if field.kind in ("tensor", "tensor?") and type(value) is torch.Tensor:
        out = [("a string", "x"), ("one element moved", _moved(value)), ("a leading dim", value.unsqueeze(0))]
        out.append(
            (
                "float64" if value.dtype != torch.float64 else "float32",
                value.to(torch.float64 if value.dtype != torch.float64 else torch.float32),
            )
        )
        if value.is_floating_point() and value.numel():
            nan = value.clone()
            nan.view(-1)[0] = float("nan")
            out.append(("a NaN", nan))
        if field.kind == "tensor":
            out.append(("None", None))
        return out
    if field.kind == "bool":
        return [("flipped", not value), ("None", None)]
    if field.kind == "int":
        return [("plus one", value + 1), ("a bool", True), ("None", None)]
    if field.kind == "shapes" and value:
        first = next(iter(value))
        return [
            ("a dim plus one", {**value, first: [value[first][0] + 1, *value[first][1:]]}),
            ("a key dropped", {k: v for k, v in value.items() if k != first}),
            ("not a dict", []),
        ]
    if field.kind == "dropouts" and value:
        # Half a unit away, wrapped into [0, 1): never the p it replaces, whatever the plan's dropout is.
        changed = [value[0][0], (value[0][1] + 0.5) % 1.0]
        return [("a p changed", [changed, *value[1:]]), ("empty", []), ("not a list", "x")]
    if field.kind in ("strs", "names"):
        return [("not a list", "x")]
    if field.kind == "tensor?" and value is None:  # None where the plan asks nothing: a tensor is the change
        return [("a tensor where None is due", torch.zeros(1, 3, dtype=torch.int64))]
    return [("None", None)]


def _users(suite) -> dict[str, set[str]]:
    """Experiment name -> the suite tests whose file reads its record class."""
    return {
        record.NAME: {t for t, fn, _, _ in suite if record.__name__ in Path(fn.__code__.co_filename).read_text()}
        for record in RECORDS
    }


def _checked_mutations(solution_evidence):
    for path, field in all_leaves(solution_evidence):
        if field.checked:
            for label, value in mutations(field, get(solution_evidence, path)):
                yield path, label, value


def _sample(items: list, every: int) -> list:
    return items[::every]


def test_the_solution_has_every_declared_leaf(solution_evidence):
    paths = {path[-1] for path, _ in all_leaves(solution_evidence)}
    declared = {key for record in RECORDS for key in record.FIELDS} | {
        key for record in RECORDS for f in record.FIELDS.values() if f.of for key in f.of.FIELDS
    }
    container = {"cases", "cfg", "cfg0", "none", "short", "full"}
    assert declared - container <= paths, sorted(declared - container - paths)


def _assert_caught(plan, solution_evidence, judge, suite, items) -> None:
    users = _users(suite)
    missed = []
    for path, label, value in items:
        results = judge(plan, replaced(solution_evidence, path, value), only=users[path[0]])
        if all(o.passed for o in results.values()):
            missed.append(f"{'.'.join(map(str, path))}: {label}")
    assert not missed, "checked leaves whose mutation no test noticed (judge them, or mark them checked=False):\n" + (
        "\n".join(missed)
    )


def test_a_sample_of_checked_leaf_mutations_fails_a_test(plan, solution_evidence, judge, suite):
    """Fast form: every fourth mutation; the sweep test below runs all of them."""
    items = list(_checked_mutations(solution_evidence))
    _assert_caught(plan, solution_evidence, judge, suite, _sample(items, 4))


@pytest.mark.sweep
def test_every_checked_leaf_mutation_fails_a_test(plan, solution_evidence, judge, suite):
    items = list(_checked_mutations(solution_evidence))
    assert len(items) > 400, len(items)
    _assert_caught(plan, solution_evidence, judge, suite, items)


def test_the_runners_word_alone_earns_nothing(plan, solution_evidence, judge, score):
    """Every checked leaf junk, every unchecked leaf the solution's: no point."""
    stub = solution_evidence
    for path, field in all_leaves(solution_evidence):
        if field.checked:
            stub = replaced(stub, path, None)
    results = judge(plan, stub)
    assert score(results) == 0, [t for t, o in results.items() if o.passed]


def test_unchecked_leaves_exist_and_are_reported_as_such(solution_evidence):
    unchecked = {(path[0], path[-1]) for path, field in all_leaves(solution_evidence) if not field.checked}
    assert ("lm_identity", "head_is_embed") in unchecked and ("gpt_generate", "delegated") in unchecked
