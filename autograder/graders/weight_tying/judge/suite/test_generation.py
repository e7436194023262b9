"""Trusted: hidden suite, argmax generation: the exact greedy sequence on judge-chosen weights, past block_size,
and with dropout off on a model handed over in train mode.

Each test checks one fact. A wrong sequence names a misconception only when one of the judge's models of
`generate` (``judge/decoders.py``: greedy decoding with one mistake) gives it token for token, or raises where it
raised; what no model gives costs the test's own points. The int64, determinism and dropout tests judge their own
fact, but credit it only for tokens some model decodes from the model's logits (a constant answer has the right
shape and repeats too): otherwise they wait on the greedy test.

The generation loop is the student's: the graded run's dnnlpy withholds `MiniGPT.generate` and dnnlpy's sampling
helpers (stubs that raise), and a `generate` that reached one (the case's `delegated`) fails every test of this
area. Calling the model itself and torch's argmax is the loop.
"""

from __future__ import annotations

import torch

from autograder.graders.weight_tying.judge.decoders import (
    FULL,
    GREEDY,
    RAISES,
    Model,
    explain,
    gives,
    outcome,
    same_outcome,
)
from autograder.graders.weight_tying.judge.sealed import entry, need
from autograder.graders.weight_tying.judge.words import before_reread, reread, say, title_of
from autograder.graders.weight_tying.runner.evidence import GenerateCase, GptGenerate
from autograder.grading.judge.memo import Memo
from autograder.grading.judge.suite_api import Failed, plain_tensor
from autograder.protocol.said import Said, verbatim

AREA = "argmax generation"
# The greedy tests and the cases each judges: within_block is the one the other tests' credit rests on.
_GREEDY = "test_generate_greedy_within_block_size"
_PAST = "test_generate_greedy_past_block_size"
PAST_BLOCK = ("past_block", "at_block", "long_prompt")
_CASES = ("within_block", *PAST_BLOCK)
# What each judgement found: the models that give each case's output (keyed on the record itself).
_FOUND = Memo("judgement", 1 << 20, measure=lambda entry: 0)


def _case(plan, name) -> dict:
    return next(c for c in [*plan["gpt"]["generate"], plan["gpt"]["generate_train"]] if c["name"] == name)


def _twice(plan, name) -> bool:
    """Whether the plan had generate called a second time in case `name` (guarantee 6: where sampling shows)."""
    return _case(plan, name)["calls"] > 1


def _call(case) -> dict:
    """The generate call's inputs as a message's parameters: the shape of its ids, max_new_tokens, block_size."""
    return {"shape": tuple(case["ids"].shape), "n": case["max_new_tokens"], "block": case["cfg"]["block_size"]}


def _what(case) -> Said:
    return say("suite.case.generate_call", **_call(case))


def train_mode_what(case) -> Said:
    """The train-mode call as the page shows it: its dropout is a probability, so a float reads 1.0, never 1
    (a Said shows a float with :g, and "dropout=1" reads as "dropout on"). The call's inputs come along for its
    form as a label's value (messages.label_form: the call first, then the mode and the inputs)."""
    p = case["cfg"]["dropout"]
    p = repr(float(p)) if isinstance(p, float) else p
    return say("suite.generate_train_mode_what", what=_what(case), p=p, **_call(case))


def _returned(plan, evidence, run, name, key=GenerateCase.first):
    """(case, what generate returned: a plain tensor or RAISES, what, the failure a raise is said with)."""
    case = _case(plan, name)
    what = _what(case)
    try:
        rec = need(evidence, GptGenerate, run, what="MiniGPTWithWeightTying.generate")
    except Failed as failed:
        raise _stopped(failed) or failed from None
    cases = rec.get(GptGenerate.cases)
    if not isinstance(cases, dict) or name not in cases:
        raise Failed(say("judge.malformed_record", name=what), owed=True)
    try:
        got = entry(cases[name], what)
    except Failed as failed:
        if failed.finding.owed:
            raise
        hung = _stopped(failed)
        return case, (hung or RAISES), what, hung or failed  # a hang is no model's: it raised nothing
    _check_not_delegated(got, what)
    seq = plain_tensor(got, key, what=say("judge.label.returned_ids", what=what))
    return case, seq, what, None


def _stopped(failed: Failed) -> Failed | None:
    """generate stopped at its time budget (the runner's word), said with where the notebook says when its loop
    ends, as every other failure of generate is; None for any other failure."""
    if failed.finding.owed or failed.finding.said.first().key != "judge.did_not_finish_within":
        return None
    return Failed(failed.finding.said + reread(9))


def _check_not_delegated(got, what) -> None:
    """Zero for the area when generate reached the library's withheld decoder (the runner's word: it only costs
    points)."""
    called = got.get(GenerateCase.delegated)
    if not isinstance(called, list) or not all(isinstance(name, str) for name in called):
        raise Failed(say("judge.gen.malformed_decoders", what=what), owed=True)
    if called:
        short = list(dict.fromkeys(name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1] for name in called))[:6]
        names = verbatim(short[0][:80])  # listed with the reader's mark: "MiniGPT.generate、sampling.greedy"
        for name in short[1:]:
            names = names + Said("run.names_sep") + verbatim(name[:80])
        # the area it zeroes, named as the page names it (marking.toml: every generate test is in this one)
        raise Failed(say("judge.gen.delegated", what=what, names=names, area=say("area.argmax generation")) + reread(9))


def _explained(plan, evidence, run) -> list[Model]:
    """The judge's models of generate that give what it returned for every case (its first call; a sampler its
    second call too), the fewest mistakes first; [] when none does. One generate decodes every case: a model
    that gives one case but not another does not explain the hand-in."""
    rec = need(evidence, GptGenerate, run, what="MiniGPTWithWeightTying.generate")

    def compute() -> list[Model]:
        calls = {GenerateCase.first: [], GenerateCase.second: []}
        for key, returned in calls.items():
            for name in _CASES if key == GenerateCase.first else [n for n in _CASES if _twice(plan, n)]:
                try:
                    case, got, _, _ = _returned(plan, evidence, run, name, key)
                except Failed as failed:  # not a tensor, or delegated: no model gives it
                    if failed.finding.owed:
                        raise
                    return []
                if not isinstance(got, (torch.Tensor, str)):  # stopped at its budget: no model hangs
                    return []
                returned.append((case, "first" if key == GenerateCase.first else "second", got))
        found = explain(calls[GenerateCase.first])
        return [
            m
            for m in found
            if not m.sampling or all(gives(m, case, got, call="second") for case, _, got in calls[GenerateCase.second])
        ]

    return _FOUND.get(("models", id(rec)), lambda: (rec, compute()))[1]


def _named_model(plan, evidence, run) -> Model | None:
    """The model that explains the hand-in with a mistake (None: none does, or generate is right)."""
    return next((m for m in _explained(plan, evidence, run) if m.misconceptions), None)


def _named(model, said: Said) -> Failed:
    """A failure that names what `model` shows (a decoder's mistake, a way of returning, or both)."""
    names = model.misconceptions
    return Failed(said, names=names[0], also=tuple(names[1:]))


def _labels(model) -> Said:
    parts = [say(m) for m in (model.decoder.message, model.returned.message) if m]
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + say("judge.gen.and") + part
    return joined


def _greedy_failure(plan, evidence, run, name) -> Failed | AssertionError | None:
    """None when case `name` decodes greedily; else its failure: named by the model that gives it, or plain."""
    case, got, what, raised = _returned(plan, evidence, run, name)
    if isinstance(got, torch.Tensor) and got.dtype == torch.int64 and torch.equal(got, outcome(case, GREEDY)):
        return None
    model = _named_model(plan, evidence, run)
    if raised is not None:  # what raised is never read: which models raise on this case tells the mistake
        return _named(model, raised.finding.said + _labels(model) + reread(9)) if model is not None else raised
    want = outcome(case, GREEDY)
    t = case["ids"].shape[1]
    only_new = model is not None and model.returned.name == "the new tokens only"
    shown = got[:, t:].tolist() if got.dim() == 2 and got.shape[1] > t and not only_new else got.tolist()
    params = dict(what=what, got=shown, want=want[:, t:].tolist(), n=_first_difference(got, want, t))
    if model is not None:
        gloss = {"gloss": say(model.decoder.gloss)} if model.decoder.gloss else {}  # its own value, never in quotes
        key = "suite.gen.matches_decoder.gloss" if gloss else "suite.gen.matches_decoder"
        why = say(key, labels=_labels(model), **gloss) + reread(9)
        return _named(model, say("judge.gen.not_greedy", **params, why=why))
    return AssertionError(say("judge.gen.not_greedy", **params, why=say("judge.gen.no_model") + reread(9)))


def _first_difference(got: torch.Tensor, want: torch.Tensor, t: int) -> int:
    """The first new token (counted from 1) where `got` is not the greedy sequence `want`."""
    if got.dim() != 2 or got.shape[0] != want.shape[0]:
        return 1
    n = min(got.shape[1], want.shape[1])
    differ = (got[:, :n].double() != want[:, :n].double()).any(0).nonzero()
    return max(1, int(differ[0]) - t + 1) if len(differ) else n - t + 1


def _nothing_returned(plan, evidence, run, name, what, raised: Failed):
    """generate raised (or hung) on case `name`: no fact of this test can be read there. Where a model of generate
    that raises there explains the hand-in, the greedy test of the case names it and this test waits on it;
    otherwise the raise is this test's failure too."""
    if isinstance(_returned(plan, evidence, run, name)[1], str) and _named_model(plan, evidence, run) is not None:
        test = _GREEDY if name == "within_block" else _PAST
        raise Failed(say("judge.gen.not_checked_raised", what=what, test=title_of(test)), waits_on=test)
    raise raised


def _decoded(plan, evidence, run) -> bool:
    """Some model the judge holds (greedy or one mistake, no sampler) decodes the within-block case's tokens:
    what they come from is the model's logits, so a fact about them is worth crediting. Greedy decoding itself,
    tried first, is one of them when it gives every case (a correct generate): the other models, each decoded
    once a plan, are then not needed (``_explained`` would list greedy among them)."""
    greedy = Model(GREEDY, FULL)
    try:
        first = [_returned(plan, evidence, run, name) for name in _CASES]
    except Failed:
        first = []  # what ``_explained`` makes of it is the answer
    if first and all(raised is None and gives(greedy, case, got) for case, got, _, raised in first):
        return True
    return any(not m.sampling for m in _explained(plan, evidence, run))


def _credited_only_if_decoded(plan, evidence, run, note: str, **params) -> None:
    if not _decoded(plan, evidence, run):
        raise Failed(say(note, test=title_of(_GREEDY), **params), waits_on=_GREEDY)


def test_generate_returns_prompt_plus_int64_tokens(plan, evidence, run):
    """int64, shape (B, T + max_new_tokens), the prompt unchanged in front, tokens in [0, V); credited when the
    tokens are decoded from the model's logits (greedy, or a mistake a model of generate gives)."""
    for case in plan["gpt"]["generate"]:
        name = case["name"]
        _, seq, what, raised = _returned(plan, evidence, run, name)
        if raised is not None:
            _nothing_returned(plan, evidence, run, name, what, raised)
        b, t = case["ids"].shape
        want = (b, t + case["max_new_tokens"])
        problem = None
        if seq.dtype != torch.int64:
            problem = say("judge.gen.dtype", dtype=seq.dtype)
        elif tuple(seq.shape) != want:
            problem = say("judge.gen.length", got=tuple(seq.shape), want=want)
        elif not torch.equal(seq[:, :t], case["ids"]):
            problem = say("judge.gen.prompt_changed")
        elif not bool(((seq >= 0) & (seq < case["cfg"]["vocab_size"])).all()):
            problem = say("suite.gen.ids_out_of_range")
        if problem is None:
            continue
        model = _named_model(plan, evidence, run)
        if model is not None and model.returned.misconception:  # float greedy ids, the new tokens alone, ...
            raise _named(
                model,
                say("judge.what_problem", what=what, problem=problem + say("judge.gen.arrow") + _labels(model))
                + reread(9),
            )
        raise AssertionError(say("judge.what_problem", what=what, problem=problem) + reread(9))
    _credited_only_if_decoded(plan, evidence, run, "note.shape_not_credited")


def test_generate_greedy_within_block_size(plan, evidence, run):
    """Exact greedy tokens while the context still fits in block_size."""
    failure = _greedy_failure(plan, evidence, run, "within_block")
    if failure is not None:
        raise failure


def test_generate_greedy_past_block_size(plan, evidence, run):
    """Exact greedy tokens past block_size: a context that grows past it, a prompt of exactly block_size
    (B = 1) and a prompt longer than it; each step sees only the last block_size tokens. Every mistake the
    cases show is charged; a case no model explains costs the test's points."""
    failures = [f for f in (_greedy_failure(plan, evidence, run, name) for name in PAST_BLOCK) if f is not None]
    if not failures:
        return
    plain = [f for f in failures if not isinstance(f, Failed) or f.finding.names is None]
    first = plain[0] if plain else failures[0]
    said = first.finding.said if isinstance(first, Failed) else first.args[0]
    if len(failures) > 1:
        said = before_reread(said, say("suite.case.more", n=len(failures) - 1))  # the section to reread: last
    if plain:
        raise AssertionError(said)
    names = list(dict.fromkeys(m for f in failures for m in f.finding.shown))
    raise Failed(said, names=names[0], also=tuple(names[1:]))


def test_generate_is_deterministic_argmax(plan, evidence, run):
    """Two calls give the same tokens (flat-ish next-token distributions expose sampling: the cases the plan calls
    twice); credited when the tokens are decoded from the model's logits."""
    for case in plan["gpt"]["generate"]:
        name = case["name"]
        if not _twice(plan, name):  # one call: nothing to compare, but a raise there is waited on as before
            _called_once(plan, evidence, run, name)
            _, _, what, raised = _returned(plan, evidence, run, name)
            if raised is not None:
                _nothing_returned(plan, evidence, run, name, what, raised)
            continue
        _, first, what, raised = _returned(plan, evidence, run, name, GenerateCase.first)
        _, second, _, raised_again = _returned(plan, evidence, run, name, GenerateCase.second)
        if raised is not None and raised_again is not None:
            _nothing_returned(plan, evidence, run, name, what, raised)
        if same_outcome(first, second):
            continue
        model = _named_model(plan, evidence, run)
        if model is not None and model.sampling:  # a draw from the model's own softmax gives both calls
            problem = say("diag.generate.sampling")
            raise _named(model, say("judge.what_problem", what=what, problem=problem) + reread(9))
        raise AssertionError(say("judge.what_problem", what=what, problem=say("judge.gen.calls_differ")) + reread(9))
    _credited_only_if_decoded(plan, evidence, run, "note.determinism_not_credited")


def _called_once(plan, evidence, run, name) -> None:
    """A case the plan has generate called once in holds no second call's output: anything there is not what the
    runner recorded."""
    try:
        rec = need(evidence, GptGenerate, run, what="MiniGPTWithWeightTying.generate")
    except Failed:  # no record to read: the calls' own checks say why
        return
    got = rec.get(GptGenerate.cases, {}).get(name) if isinstance(rec.get(GptGenerate.cases), dict) else None
    if isinstance(got, dict) and GenerateCase.second in got and got[GenerateCase.second] is not None:
        raise Failed(say("judge.malformed_record", name=_what(_case(plan, name))), owed=True)


def test_generate_turns_dropout_off(plan, evidence, run):
    """generate called on a model with dropout 1 that is in train mode decodes as it does in eval mode (a
    decoder switches the model to eval mode; putting the mode back afterwards is good practice, not graded).
    Judged against the student's own eval-mode answer for the same prompt, so that it is seen beside any other
    mistake of the loop; credited when those tokens are decoded from the model's logits."""
    case = _case(plan, "train_mode")
    what = train_mode_what(case)
    same = True
    train_twice = _twice(plan, "train_mode")
    if not train_twice:
        _called_once(plan, evidence, run, "train_mode")
    twice = train_twice and _twice(plan, "within_block")
    for key in (GenerateCase.first, GenerateCase.second) if twice else (GenerateCase.first,):
        _, train, _, raised = _returned(plan, evidence, run, "train_mode", key)
        _, evaluated, _, raised_eval = _returned(plan, evidence, run, "within_block", key)
        if raised is not None and raised_eval is not None:  # nothing to compare in either mode
            _nothing_returned(plan, evidence, run, "within_block", what, raised_eval)
        same = same and same_outcome(train, evaluated)
    if same:  # the mode changes nothing
        _credited_only_if_decoded(plan, evidence, run, "suite.dropout_not_checked_eval_wrong", what=what)
        return
    train = _returned(plan, evidence, run, "train_mode")[1]
    if isinstance(train, (torch.Tensor, str)):
        # The student's own decoder (as it decodes in eval mode), with dropout left on: the mode is then the one
        # mistake of this test. A loop the judge cannot model in eval mode is tried as the greedy one.
        own = [m for m in _explained(plan, evidence, run) if not m.sampling] or [Model(GREEDY, FULL)]
        if any(gives(Model(m.decoder, m.returned, train=True), case, train) for m in own):
            got = train[:, -case["max_new_tokens"] :].tolist() if isinstance(train, torch.Tensor) else train
            said = say("suite.dropout_on_while_decoding", what=what, got=got) + reread(9)
            raise Failed(said, names="dropout_in_generate")
    got = train.tolist() if isinstance(train, torch.Tensor) else None
    want = outcome(case, GREEDY)[:, -case["max_new_tokens"] :].tolist()
    raise AssertionError(say("suite.generate_depends_on_mode", what=what, got=got, want=want) + reread(9))
