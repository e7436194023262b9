"""Trusted: hidden suite, argmax generation: the exact greedy sequence on judge-chosen weights, past block_size,
and with dropout off on a model handed over in train mode.

The generation loop is the student's: the graded run's dnnlpy withholds `MiniGPT.generate` and dnnlpy's sampling
helpers (stubs that raise), and a `generate` that reached one (the case's `delegated`) fails every test of this
area. Calling the model itself and torch's argmax is the loop.
"""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.diagnosis import generated_ids_problem, greedy_problem
from autograder.graders.weight_tying.judge.models import training
from autograder.graders.weight_tying.judge.reference import (
    DECODE_VARIANTS,
    IdentityMemo,
    decode,
    minigpt_from_state,
)
from autograder.graders.weight_tying.judge.sealed import need
from autograder.graders.weight_tying.judge.words import reread, say, title_of
from autograder.graders.weight_tying.runner.evidence import GenerateCase, GptGenerate
from autograder.grading.judge.suite_api import Failed, entry, plain_tensor
from autograder.protocol.said import Said

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
        raise Failed(say("judge.malformed_record", name=what), owed=True)
    try:
        got = entry(cases[name], what)
    except Failed as failed:
        if failed.finding.owed:
            raise
        # What raised is never read: which cases run tells a batch-of-one bug or a missing crop apart.
        alike = [
            c["name"]
            for c in plan["gpt"]["generate"]
            if c["name"] != name and (c["name"] in PAST_BLOCK) == (name in PAST_BLOCK)
        ]
        if b == 1 and any(_runs(cases, other) and _case(plan, other)["ids"].shape[0] > 1 for other in alike):
            raise Failed(failed.finding.said + say("judge.gen.batch_of_one") + reread(9)) from None
        if name in PAST_BLOCK and _runs(cases, "within_block") and not any(_runs(cases, other) for other in PAST_BLOCK):
            raise Failed(failed.finding.said + say("suite.no_crop_wrong_crop_feed_only") + reread(9)) from None
        raise
    _check_not_delegated(got, what)
    seq = plain_tensor(got, key, what=say("judge.label.returned_ids", what=what))
    # the tests judge the prompt
    problem = generated_ids_problem(seq, case["ids"], n, check_prompt=False)
    if problem is not None:
        raise Failed(say("judge.what_problem", what=what, problem=problem))
    return case, seq, what


def _runs(cases: dict, name: str) -> bool:
    """The runner reports that generate returned for this case (its value is judged elsewhere)."""
    return isinstance(cases.get(name), dict) and "error" not in cases[name]


def _check_not_delegated(got, what) -> None:
    """Zero for the area when generate reached the library's withheld decoder (the runner's word: it only costs
    points)."""
    called = got.get(GenerateCase.delegated)
    if not isinstance(called, list) or not all(isinstance(name, str) for name in called):
        raise Failed(say("judge.gen.malformed_decoders", what=what), owed=True)
    if called:
        names = ", ".join(name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1] for name in called)[:300]
        problem = say("judge.gen.delegated", names=names)
        raise Failed(say("judge.what_problem", what=what, problem=problem) + reread(9))


def _diagnose(seq, variants, again) -> Said:
    """Which decoder gives `seq`: one of the simulated misconceptions, a sampler (a second call differs), or
    none the judge can name."""
    labels = [
        say(_VARIANT_WORDS[name]) if "crop" not in name else say("judge.gen.no_crop_or", name=say(_VARIANT_WORDS[name]))
        for name, out in variants.items()
        if name != "correct" and torch.equal(seq, out)
    ]
    if labels:
        joined = labels[0]
        for label in labels[1:]:
            joined = joined + say("judge.gen.or") + label
        return say("suite.it_matches_a_decoder_with_this", labels=joined) + reread(9)
    if again is not None and not torch.equal(seq, again):
        return say("diag.generate.sampling") + reread(9)
    want = variants["correct"]
    rows_alike = all(torch.equal(seq[i, -3:], seq[0, -3:]) for i in range(1, seq.shape[0]))
    want_alike = all(torch.equal(want[i, -3:], want[0, -3:]) for i in range(1, seq.shape[0]))
    # Row 0 right and every other row copying it: a constant answer (all zeros) repeats too, and names nothing.
    if seq.shape[0] > 1 and rows_alike and not want_alike and torch.equal(seq[0], want[0]):
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
        second = _sequence(plan, evidence, run, name, GenerateCase.second)[1]
        why = _diagnose(seq, variants, second)
        raise AssertionError(
            say("judge.gen.not_greedy", what=what, got=seq[:, t:].tolist(), want=want[:, t:].tolist(), n=step, why=why)
        )
    return seq


# The test whose exact greedy tokens the others rest on: what they check proves nothing if it fails.
_GREEDY = "test_generate_greedy_within_block_size"


def _credited_only_if_greedy(plan, evidence, run, note: str, **params) -> None:
    """A check that passed proves something only with greedy tokens behind it (a constant answer has the right
    shape and repeats too): when the greedy test fails, this is not credited (a knock-on of that test)."""
    try:
        _check_greedy(plan, evidence, run, "within_block")
    except AssertionError:
        raise Failed(say(note, test=title_of(_GREEDY), **params), waits_on=_GREEDY) from None


def test_generate_returns_prompt_plus_int64_tokens(plan, evidence, run):
    """int64, shape (B, T + max_new_tokens), the prompt unchanged in front, tokens in [0, V); credited when the
    tokens are decoded (the greedy test within block_size passes, or fails for a mistake it names)."""
    for case in plan["gpt"]["generate"]:
        _, seq, what = _sequence(plan, evidence, run, case["name"])
        t = case["ids"].shape[1]
        assert torch.equal(seq[:, :t], case["ids"]), say(
            "judge.what_problem", what=what, problem=say("judge.gen.prompt_not_preserved")
        ) + reread(9)
        assert bool(((seq >= 0) & (seq < case["cfg"]["vocab_size"])).all()), say(
            "judge.what_problem", what=what, problem=say("suite.token_ids_outside_0_v")
        ) + reread(9)
    _credited_only_if_greedy(plan, evidence, run, "note.shape_not_credited")


def test_generate_greedy_within_block_size(plan, evidence, run):
    """Exact greedy tokens while the context still fits in block_size."""
    _check_greedy(plan, evidence, run, "within_block")


def test_generate_greedy_past_block_size(plan, evidence, run):
    """Exact greedy tokens past block_size: a context that grows past it, a prompt of exactly block_size
    (B = 1) and a prompt longer than it; each step sees only the last block_size tokens."""
    for name in PAST_BLOCK:
        _check_greedy(plan, evidence, run, name)


def test_generate_is_deterministic_argmax(plan, evidence, run):
    """Two calls give the same greedy tokens (flat-ish next-token distributions expose sampling)."""
    for case in plan["gpt"]["generate"]:
        _, first, what = _sequence(plan, evidence, run, case["name"], GenerateCase.first)
        _, second, _ = _sequence(plan, evidence, run, case["name"], GenerateCase.second)
        problem = greedy_problem(first, first, again=second)
        assert problem is None, say("judge.what_problem", what=what, problem=problem)
    _credited_only_if_greedy(plan, evidence, run, "note.determinism_not_credited")


def _dropout_on(case) -> torch.Tensor:
    """The sequence a decoder gives that leaves the model in train mode (dropout 1: every activation zeroed, so
    it is fully determined)."""
    done = _decoded(case)
    if "train" not in done:
        with training(done["model"]) as model:
            done["train"] = decode(model, case["ids"], case["max_new_tokens"])[0]
    return done["train"]


def _tokens(plan, evidence, run, name, key):
    """What generate returned for a case, whatever its length or dtype (the other tests judge those)."""
    rec = need(evidence, GptGenerate, run, what="MiniGPTWithWeightTying.generate")
    cases = rec.get(GptGenerate.cases)
    if not isinstance(cases, dict) or name not in cases:
        raise Failed(say("judge.malformed_record", name="gpt_generate"), owed=True)
    what = say(
        "suite.generate_input_ids_of_shape_max",
        shape=tuple(_case(plan, name)["ids"].shape),
        n=_case(plan, name)["max_new_tokens"],
        block=_case(plan, name)["cfg"]["block_size"],
    )
    got = entry(cases[name], what)
    _check_not_delegated(got, what)
    seq = plain_tensor(got, key, what=say("judge.label.returned_ids", what=what))
    return (seq if seq.dim() == 2 else None), what


def test_generate_turns_dropout_off(plan, evidence, run):
    """generate called on a model with dropout 1 that is in train mode decodes as it does in eval mode (a
    decoder switches the model to eval mode; putting the mode back afterwards is good practice, not graded).
    Judged against the student's own eval-mode answer for the same prompt, so that it is seen beside any other
    mistake of the loop."""
    case = _case(plan, "train_mode")
    n = case["max_new_tokens"]
    same = True
    for key in (GenerateCase.first, GenerateCase.second):
        train, what = _tokens(plan, evidence, run, "train_mode", key)
        evaluated, _ = _tokens(plan, evidence, run, "within_block", key)
        if train is None or evaluated is None or train.dtype != evaluated.dtype or train.shape != evaluated.shape:
            same = False
            break
        if not torch.equal(train, evaluated):
            same = False
            break
    what = say("suite.generate_train_mode_what", what=what, p=case["cfg"]["dropout"])
    if same:  # the mode changes nothing: credited when the eval-mode tokens are the greedy ones
        _credited_only_if_greedy(plan, evidence, run, "suite.dropout_not_checked_eval_wrong", what=what)
        return
    new = train[:, -n:] if train is not None and train.shape[1] >= n and train.dtype == torch.int64 else None
    if new is not None and torch.equal(new, _dropout_on(case)[:, -n:]):
        raise AssertionError(say("suite.dropout_on_while_decoding", what=what, got=new.tolist()) + reread(9))
    got = train.tolist() if train is not None else None
    want = _decoded(case)["correct"][:, -n:].tolist()
    raise AssertionError(say("suite.generate_depends_on_mode", what=what, got=got, want=want) + reread(9))
