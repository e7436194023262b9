"""autograder.qa.mutation_score: each mutant in one class, equivalence only when shown, a report that says it all."""

from __future__ import annotations

import pytest

from autograder.qa.mutants import Mutant
from autograder.qa.mutation_score import (
    CLASSES,
    Equivalence,
    MutantResult,
    _classify,
    has_mutation,
    mutants_of,
    report_markdown,
    results_json,
)


def _mutant(i: int, after: str = "x = 2") -> Mutant:
    return Mutant(f"toy:{i}:constant:1", "toy", "constant", i, "x = 1", after, f"{after}\n", "A.f")


def test_a_mutant_is_caught_only_if_it_loses_points_on_every_seed():
    claim = Equivalence("twos", "2 is 1 here", lambda m: m.after == "x = 2")
    graded = {1: (90.0, "test_a: wrong"), 2: (80.0, "test_a: wrong")}
    caught = _classify(_mutant(1), graded, 100.0, ())
    assert caught.kind == "caught" and caught.failing == "test_a: wrong"  # the message, not the (score, message)
    mixed = {1: (100.0, ""), 2: (90.0, "test_a: wrong")}
    assert _classify(_mutant(1), mixed, 100.0, (claim,)).kind == "seed-dependent"  # a claim does not excuse it
    full = {1: (100.0, ""), 2: (100.0, "")}
    assert _classify(_mutant(1), full, 100.0, (claim,)).kind == "equivalent"
    assert _classify(_mutant(2, "x = 3"), full, 100.0, (claim,)).kind == "survived"


def test_the_report_counts_every_class_and_lists_what_needs_attention():
    results = [
        MutantResult(_mutant(1), {1: 90.0, 2: 80.0}, "caught", failing="test_a: wrong"),
        MutantResult(_mutant(2), {1: 100.0, 2: 90.0}, "seed-dependent"),
        MutantResult(_mutant(3), {1: 100.0, 2: 100.0}, "equivalent", equivalence="twos"),
    ]
    text = report_markdown(results, [1, 2], 60.0)
    assert "3 mutants, each graded on 2 seeds (1..2)" in text
    assert "1 caught, 1 equivalent, 1 seed-dependent, 0 survived" in text
    assert "mark varies with the seed" in text and "toy:2:constant:1" in text and "twos" in text
    summary = results_json(results, 60.0)
    assert summary["ok"] is False and summary["counts"] == dict(zip(CLASSES, [1, 1, 1, 0], strict=True))


def test_a_grader_without_mutation_sources_is_named():
    assert has_mutation("weight_tying") and not has_mutation("selftest")
    with pytest.raises(ModuleNotFoundError):
        mutants_of("selftest")


def test_mutants_of_the_reference_are_graded_and_classified(tmp_path):
    """The mutation run itself, on the first few mutants and one seed: each is graded (a caught mutant names the
    first test that failed, read from its outcome) and classified; the Markdown report says so."""
    from autograder.qa.mutation_score import run_mutants

    results, seconds = run_mutants(assignment="weight_tying", seeds=[1], workers=1, limit=3)
    assert len(results) == 3 and seconds > 0
    assert all(r.kind in CLASSES for r in results)
    caught = [r for r in results if r.kind == "caught"]
    assert caught and all(r.failing.startswith("test_") and ": " in r.failing for r in caught)
    assert "3 mutants, each graded on 1 seed" in report_markdown(results, [1], seconds)


@pytest.mark.sweep
def test_the_mutate_command_runs_a_sample_of_mutants():
    """``python -m autograder mutate`` end to end on a sample (every mutant on 25 seeds is a long command of its
    own): it prints its JSON summary, one result per mutant."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "mutate",
            "--assignment",
            "weight_tying",
            "--seeds",
            "2",
            "--limit",
            "12",
            "--json",
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(summary["mutants"]) == 12 == sum(summary["counts"].values())
    assert summary["counts"]["caught"] >= 6
