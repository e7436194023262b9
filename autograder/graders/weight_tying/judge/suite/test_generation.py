"""Trusted: hidden suite, argmax generation: the exact greedy sequence on judge-chosen weights, past block_size,
and with dropout off on a model handed over in train mode.

The generation loop is the student's: the graded run's dnnlpy withholds `MiniGPT.generate` and dnnlpy's sampling
helpers (stubs that raise), and a `generate` that reached one (the case's `delegated`) fails every test of this
area. Calling the model itself and torch's argmax is the loop.
"""

from __future__ import annotations

import copy

import torch

from autograder.graders.weight_tying.diagnosis import generated_ids_problem, greedy_problem
from autograder.graders.weight_tying.judge.reference import (
    DECODE_VARIANTS,
    IdentityMemo,
    decode,
    minigpt_from_state,
    sizes_ignored,
)
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.judge.words import language, reread, say
from autograder.graders.weight_tying.runner.evidence import GenerateCase, GptGenerate
from autograder.grading.judge.suite_api import EvidenceError, entry, plain_tensor
from autograder.grading.marking import graded

AREA = "argmax generation"
# Cases that need a crop: the context reaches past block_size (past_block), or the prompt alone fills or
# exceeds it (at_block, long_prompt).
PAST_BLOCK = ("past_block", "at_block", "long_prompt")
# One judge model and greedy decode per plan case, shared by the tests that need it.
_DECODES = IdentityMemo()
# The simulated misconceptions (reference.DECODE_VARIANTS), by their catalog ids.
_VARIANT_WORDS = {
    "wrong crop (first block_size tokens)": "suite.wrong_crop_first_block_size_tokens_2",
    "wrong crop (block_size - 1 tokens)": "suite.wrong_crop_block_size_1_tokens_2",
    "wrong position (logits of the first position)": "suite.wrong_position_logits_of_the_first",
    "wrong position (logits of the second-to-last position)": "suite.wrong_position_logits_of_the_second",
    "missing append": "judge.gen.missing_append",
    "batch rows not independent (row 0's token for every row)": "suite.batch_rows_not_independent_row_0",
}


def _decoded(case) -> dict:
    """{"model": the judge's MiniGPT on the plan's weights, "correct": its greedy sequence}."""

    def compute():
        model = minigpt_from_state(case["cfg"], case["state"])
        return {"model": model, "correct": decode(model, case["ids"], case["max_new_tokens"])[0]}

    return _DECODES.get((case,), compute)


def _variants(case) -> dict:
    """The judge's greedy sequence and each simulated misconception's, on the plan's weights.

    Only needed to name a mistake, so computed only for a wrong sequence (once per case).
    """
    done = _decoded(case)
    if "variants" not in done:
        model = done["model"]
        done["variants"] = {v: decode(model, case["ids"], case["max_new_tokens"], v)[0] for v in DECODE_VARIANTS}
    return done["variants"]


# How the runner reports weights it could not load (runner/tools.py load_state_in_place).
_UNLOADABLE = ("ValueError: cannot load the judge's weights", "KeyError: 'model.minigpt has no entries")


def _case(plan, name) -> dict:
    return next(c for c in [*plan["gpt"]["generate"], plan["gpt"]["generate_train"]] if c["name"] == name)


def _sequence(plan, evidence, run, name, key=GenerateCase.first):
    case = _case(plan, name)
    b, t = case["ids"].shape
    n = case["max_new_tokens"]
    what = say("suite.generate_input_ids_of_shape_max", shape=(b, t), n=n, block=case["cfg"]["block_size"])
    rec = need(evidence, GptGenerate, run, what="MiniGPTWithWeightTying.generate")
    cases = rec.get(GptGenerate.cases)
    if not isinstance(cases, dict) or name not in cases:
        raise EvidenceError(say("judge.malformed_record", name=what))
    try:
        got = entry(cases[name], what)
    except EvidenceError as exc:
        error = str(cases[name].get("error", "")) if isinstance(cases[name], dict) else ""
        if error.startswith(_UNLOADABLE) and sizes_ignored(plan, evidence):
            # The runner could not load the plan's weights into a model of the sizes the wrapper built: the
            # loop was never run, and the sizes are the parameter counts tests' business.
            raise EvidenceError(
                say("judge.what_problem", what=what, problem=say("note.generation_not_checked_sizes"))
            ) from None
        within = cases.get("within_block")
        runs_in_block = isinstance(within, dict) and "error" not in within
        if (
            ("block_size" in error or "block size" in error or "position" in error)
            and "judge's weights" not in error
            and runs_in_block
        ):
            raise EvidenceError(f"{exc}" + say("suite.no_crop_wrong_crop_feed_only") + reread(9)) from None
        others = [c for c in plan["gpt"]["generate"] if c["name"] != name and c["ids"].shape[0] > 1]
        if b == 1 and any(isinstance(cases.get(c["name"]), dict) and "error" not in cases[c["name"]] for c in others):
            raise EvidenceError(f"{exc}" + say("judge.gen.batch_of_one") + reread(9)) from None
        raise
    _check_not_delegated(got, what)
    seq = plain_tensor(got, key, what=say("judge.label.returned_ids", what=what))
    # the tests judge the prompt
    problem = generated_ids_problem(seq, case["ids"], n, check_prompt=False, language=language())
    if problem is not None:
        raise EvidenceError(say("judge.what_problem", what=what, problem=problem))
    return case, seq, what


def _check_not_delegated(got, what) -> None:
    """Zero for the area when generate reached the library's withheld decoder (the runner's word: it only costs
    points)."""
    called = got.get(GenerateCase.delegated)
    if not isinstance(called, list) or not all(isinstance(name, str) for name in called):
        raise EvidenceError(say("judge.gen.malformed_decoders", what=what))
    if called:
        names = ", ".join(name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1] for name in called)[:300]
        problem = say("judge.gen.delegated", names=names)
        raise EvidenceError(say("judge.what_problem", what=what, problem=problem) + reread(9))


def _diagnose(seq, variants) -> str:
    labels = [
        say(_VARIANT_WORDS[name]) if "crop" not in name else say("judge.gen.no_crop_or", name=say(_VARIANT_WORDS[name]))
        for name, out in variants.items()
        if name != "correct" and torch.equal(seq, out)
    ]
    if labels:
        return say("suite.it_matches_a_decoder_with_this", labels=say("judge.gen.or").join(labels)) + reread(9)
    want = variants["correct"]
    rows_alike = all(torch.equal(seq[i, -3:], seq[0, -3:]) for i in range(1, seq.shape[0]))
    want_alike = all(torch.equal(want[i, -3:], want[0, -3:]) for i in range(1, seq.shape[0]))
    if seq.shape[0] > 1 and rows_alike and not want_alike:
        return say("suite.every_row_continues_like_row_0") + reread(9)
    return say("suite.it_matches_no_greedy_decoder_sampling") + reread(9)


def _check_greedy(plan, evidence, run, name):
    case, seq, what = _sequence(plan, evidence, run, name)
    want = _decoded(case)["correct"]
    t = case["ids"].shape[1]
    assert torch.equal(seq[:, :t], case["ids"]), say(
        "judge.what_problem", what=what, problem=say("judge.gen.prompt_not_preserved")
    ) + reread(9)
    if not torch.equal(seq, want):
        variants = _variants(case)
        step = int((seq != want).any(0).nonzero()[0]) - t + 1
        why = _diagnose(seq, variants)
        raise AssertionError(
            say("judge.gen.not_greedy", what=what, got=seq[:, t:].tolist(), want=want[:, t:].tolist(), n=step, why=why)
        )
    return seq


@graded
def test_generate_returns_prompt_plus_int64_tokens(plan, evidence, run):
    """int64, shape (B, T + max_new_tokens), the prompt unchanged in front."""
    for case in plan["gpt"]["generate"]:
        _, seq, what = _sequence(plan, evidence, run, case["name"])
        t = case["ids"].shape[1]
        assert torch.equal(seq[:, :t], case["ids"]), say(
            "judge.what_problem", what=what, problem=say("judge.gen.prompt_not_preserved")
        ) + reread(9)
        assert bool(((seq >= 0) & (seq < case["cfg"]["vocab_size"])).all()), say(
            "judge.what_problem", what=what, problem=say("suite.token_ids_outside_0_v")
        ) + reread(9)


@graded
def test_generate_greedy_within_block_size(plan, evidence, run):
    """Exact greedy tokens while the context still fits in block_size."""
    _check_greedy(plan, evidence, run, "within_block")


@graded
def test_generate_greedy_past_block_size(plan, evidence, run):
    """Exact greedy tokens past block_size: a context that grows past it, a prompt of exactly block_size
    (B = 1) and a prompt longer than it; each step sees only the last block_size tokens."""
    for name in PAST_BLOCK:
        _check_greedy(plan, evidence, run, name)


@graded
def test_generate_is_deterministic_argmax(plan, evidence, run):
    """Two calls give the same greedy tokens (flat-ish next-token distributions expose sampling)."""
    for case in plan["gpt"]["generate"]:
        _, first, what = _sequence(plan, evidence, run, case["name"], GenerateCase.first)
        _, second, _ = _sequence(plan, evidence, run, case["name"], GenerateCase.second)
        problem = greedy_problem(first, first, again=second, language=language())
        assert problem is None, say("judge.what_problem", what=what, problem=problem)
    # Equal calls prove nothing on their own (a constant answer repeats too): they must be the argmax path.
    try:
        _check_greedy(plan, evidence, run, "within_block")
    except AssertionError as exc:
        raise AssertionError(say("note.determinism_not_credited", problem=exc)) from None


def _dropout_on(case) -> torch.Tensor:
    """The sequence a decoder gives that leaves the model in train mode (dropout 1: every activation zeroed, so
    it is fully determined)."""
    done = _decoded(case)
    if "train" not in done:
        done["train"] = decode(copy.deepcopy(done["model"]).train(), case["ids"], case["max_new_tokens"])[0]
    return done["train"]


@graded
def test_generate_turns_dropout_off(plan, evidence, run):
    """generate called on a model with dropout 1 that is in train mode: a decoder switches the model to eval
    mode, so the tokens are the greedy ones, on both calls (putting the mode back afterwards is good practice,
    not graded)."""
    for key in (GenerateCase.first, GenerateCase.second):
        case, seq, what = _sequence(plan, evidence, run, "train_mode", key)
        if not torch.equal(seq, _decoded(case)["correct"]):
            break
    else:
        return
    what = say("suite.generate_train_mode_what", what=what, p=case["cfg"]["dropout"])
    # Dropout is judged only where eval-mode decoding is right: a wrong decoder's tokens can match the
    # dropout-on ones by chance (dropout 1 zeroes every activation), and its own test already charges it.
    try:
        _check_greedy(plan, evidence, run, "within_block")
    except AssertionError:
        raise AssertionError(say("suite.dropout_not_checked_eval_wrong", what=what)) from None
    t = case["ids"].shape[1]
    if torch.equal(seq, _dropout_on(case)):
        raise AssertionError(say("suite.dropout_on_while_decoding", what=what, got=seq[:, t:].tolist()) + reread(9))
    want = _decoded(case)["correct"]
    raise AssertionError(
        say("suite.generate_depends_on_mode", what=what, got=seq[:, t:].tolist(), want=want[:, t:].tolist()) + reread(9)
    )
