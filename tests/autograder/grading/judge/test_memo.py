"""The judge's memos: bounded in bytes, and nothing a judgement memoised outlives it."""

from __future__ import annotations

import pytest
import torch

from autograder.grading.judge.memo import Memo, end_judgement, nbytes

MiB = 1 << 20


def _block(mib: int) -> torch.Tensor:
    return torch.zeros(mib * MiB // 4)


def test_a_memo_holds_no_more_bytes_than_its_budget_dropping_the_least_recently_used():
    memo = Memo("plan", 10 * MiB)
    for key in range(5):
        memo.get(key, lambda: _block(3))
        assert memo.held <= memo.budget
    assert len(memo) == 3  # three 3 MiB entries fit in 10 MiB
    kept = memo.get(4, lambda: pytest.fail("the latest entry was dropped"))
    assert kept.numel() * 4 == 3 * MiB
    big = memo.get("big", lambda: _block(11))  # larger than the whole budget: returned, never kept
    assert big.numel() * 4 == 11 * MiB and "big" not in memo._entries and memo.held <= memo.budget


def test_end_of_a_judgement_empties_judgement_memos_and_keeps_plan_and_sizes_memos():
    plan, sizes, judgement = Memo("plan", 64 * MiB), Memo("sizes", 64 * MiB), Memo("judgement", 64 * MiB)
    plan.get("cfg", lambda: _block(1))
    sizes.get(("model", b"digest of sizes"), lambda: _block(1))
    judgement.get(("record", 256), lambda: _block(1))
    end_judgement()
    assert len(judgement) == 0 and judgement.held == 0 and ("record", 256) not in judgement
    assert len(plan) == 1 and ("model", b"digest of sizes") in sizes


def test_nbytes_counts_a_shared_table_once_and_a_module_by_its_tensors():
    table = torch.nn.Parameter(torch.zeros(256, 64))
    tied = torch.nn.Module()
    tied.embed, tied.head = torch.nn.Embedding(256, 64), torch.nn.Linear(64, 256, bias=False)
    tied.embed.weight = tied.head.weight = table
    assert 256 * 64 * 4 <= nbytes(tied) < 2 * 256 * 64 * 4
    assert nbytes([table, table]) < 2 * 256 * 64 * 4


@pytest.mark.parametrize("scope, budget", [("forever", 1), ("plan", 0)])
def test_a_memo_with_an_unknown_scope_or_no_budget_is_refused_with_the_fix(scope, budget):
    with pytest.raises(ValueError, match="scope=|budget="):
        Memo(scope, budget)


def test_a_memo_that_measures_its_values_as_nothing_is_bounded_by_its_number_of_entries():
    # what the sealed verdicts memo does: its values point at records the judgement holds anyway
    memo = Memo("judgement", 4096, measure=lambda value: 0)
    held = [memo.get(("record", i), lambda: _block(1)) for i in range(64)]  # 1 MiB each, counted as 0
    assert len(memo) == 16 and memo.held <= memo.budget  # 4096 bytes of 256-byte slots
    assert ("record", 63) in memo and ("record", 0) not in memo
    assert held[-1] is memo.get(("record", 63), lambda: pytest.fail("the latest entry was dropped"))
