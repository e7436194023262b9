"""The self-check on the starter code, as every student's first run meets it: each method still a stub is named
whole, in the student's language.

A Chinese call's words once put a condition before the call ("targets 形状为 (B, T-1) 时的 loss(ids, targets)"),
and the stub's name, read up to the first bracket, came out as "MiniGPTWithWeightTying.targets 形状为": the call
comes first in every language.
"""

from __future__ import annotations

import pytest

from coursecheck.notebook import exec_source

STUBBED = {
    "test_wrapper_loss_with_shorter_targets": ("return self.minigpt.loss(input_ids, targets)", "loss"),
    "test_generate_writes_its_own_loop": ("block_size = self.minigpt.block_size", "generate"),
}


@pytest.mark.parametrize(
    "language, says", [("en", "{cls}.{method} is not implemented yet"), ("zh", "{cls}.{method} 还没有实现")]
)
@pytest.mark.parametrize("check", sorted(STUBBED))
def test_a_stubbed_method_is_named_whole(checks, solution_source, monkeypatch, language, says, check):
    line, method = STUBBED[check]
    assert line in solution_source, f"the solution no longer holds {line!r}: update this test"
    namespace = exec_source(solution_source.replace(line, "raise NotImplementedError()", 1), "answer.py").namespace
    monkeypatch.setenv("WEIGHT_TYING_LANG", language)
    session = checks.SELF_CHECK.session(
        {name: namespace[name] for name in ("TiedEmbeddingLM", "MiniGPTWithWeightTying")}
    )
    message = session.outcome(check).message
    assert says.format(cls="MiniGPTWithWeightTying", method=method) in message, message
