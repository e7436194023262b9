"""Both sides: the weight_tying evidence records, declared once (experiments write them, the suite reads them).

Every experiment builds the student's classes with the plan's sizes and seeds (a size and seed built once a
run, handed to each experiment as it was built: ``builds.py``), pokes them, and sends one of these records
(or ``{"error": ...}`` when the student's code raised). ``checked=False`` marks the runner's word: kept for
diagnosis and the instructor's eyes, never a point on its own. EVIDENCE.md is generated from this module
(``python -m autograder.protocol.schema`` prints it; a test keeps it in step).
"""

from __future__ import annotations

from autograder.protocol.schema import Field, Record

__all__ = [
    "Sealed",
    "TieFacts",
    "TableFollow",
    "LmIdentity",
    "LmReload",
    "LmFloat64",
    "LmShapeCase",
    "LmShapes",
    "LmGrad",
    "GptIdentity",
    "GptReload",
    "GptFloat64",
    "ForwardCase",
    "GptShapes",
    "HeadsCase",
    "GptHeads",
    "CountCase",
    "GptCounts",
    "DropoutRun",
    "GptDropout",
    "GptGrad",
    "LossCase",
    "GptLoss",
    "GenerateCase",
    "GptGenerate",
    "RECORDS",
]


class Sealed(Record):
    """Every experiment record carries its seal (``seal.py``); the judge recomputes it before reading the rest."""

    seal = Field(
        "str",
        "SHA-256 of the record's declared fields as the experiment measured them, or 'tampered: ...' naming what "
        "of the runner was changed while the student's code ran: a record without a matching seal earns nothing",
    )


class TieFacts(Record):
    """What the runner sees of the tie (the runner's word: it can cost points, never earn one)."""

    head_is_embed = Field("bool", "lm_head.weight is token_embed.weight (object identity)", checked=False)
    same_data_ptr = Field("bool", "the two weights start at the same memory address", checked=False)


class TableFollow(TieFacts):
    """The judge's table written into token_embed.weight in place, before any forward call."""

    head_after_inplace = Field("tensor", "lm_head.weight right after the write: a tied head shows the judge's table")
    logits = Field(
        "tensor?",
        "the model's output for the plan's ids, with the judge's table in place (None: it raised); read only when "
        "head_logits is None (a head no one can call, which forward multiplies by itself)",
        checked=False,
    )
    forward_error = Field(
        "str", "what that forward call raised ('' when it returned): the tie is judged without it", checked=False
    )
    head_after_forward = Field(
        "tensor", "lm_head.weight after that forward call (tells 'tied only in forward' apart)", checked=False
    )
    head_logits = Field(
        "tensor?",
        "what the constructed model computes without the student's forward, before it: lm_head(table[ids]) for "
        "TiedEmbeddingLM, minigpt(ids) for the wrapper (None: it raised): the tie is a fact of construction, "
        "judged on this, never on what forward returns",
    )


class LmIdentity(TableFollow, Sealed, name="lm_identity"):
    """TiedEmbeddingLM(vocab_size=V, embed_dim=D) built with the plan's seed; W1 written in place."""

    n_param_objects = Field("int", "distinct Parameter objects in named_parameters()", checked=False)
    unique_numel = Field("int", "scalars in the distinct Parameters (judged with the logits: one table, no bias)")
    param_names = Field("names", "named_parameters(remove_duplicate=False) as [name, shape]", checked=False)
    embed_in_parameters = Field(
        "bool", "token_embed.weight is among model.parameters() (it can cost points, never earn one)", checked=False
    )
    head_has_bias = Field("bool", "lm_head has a bias (the logits show it)", checked=False)
    library_tie = Field(
        "bool",
        "token_embed.weight or lm_head.weight is the table of a dnnlpy MiniGPT built with weight_tying=True while "
        "TiedEmbeddingLM was constructed (the pair borrowed, tied by the library); it can cost points, never earn one",
        checked=False,
    )


class LmReload(TableFollow, Sealed, name="lm_reload"):
    """A state_dict saved and loaded into a fresh TiedEmbeddingLM, then W2 written in place."""


class LmFloat64(TableFollow, Sealed, name="lm_float64"):
    """TiedEmbeddingLM after .to(torch.float64), then W3 (float64) written in place."""

    embed_weight = Field("tensor", "token_embed.weight after the write", checked=False)


class LmShapeCase(Record):
    """One (V, D, B, T) of lm_shapes: the judge's table W written into a fresh model."""

    embed_weight = Field("tensor", "token_embed.weight after the write (must be W)")
    head_weight = Field(
        "tensor",
        "lm_head.weight (shape (V, D)): the logits may follow it instead of the table (identity judges the tie), "
        "so it only widens what counts as a forward pass, never a point alone",
        checked=False,
    )
    hidden = Field("tensor", "token_embed(ids): (B, T, D)")
    logits = Field("tensor", "model(ids): (B, T, V)")


class LmShapes(Sealed, name="lm_shapes"):
    """TiedEmbeddingLM over random V, D, B, T (B = 1 and T = 1 included)."""

    cases = Field("cases", "one record per plan case", of=LmShapeCase)


class LmGrad(Sealed, name="lm_grad"):
    """W1 written in place, SGD built over model.parameters() before any forward; sum(logits * G).backward();
    one step."""

    logits = Field("tensor?", "model(ids): what forward computes, so a gradient is judged as such (None: it raised)")
    forward_error = Field("str", "what forward raised ('' when it returned): nothing after it ran", checked=False)
    grad_same_object = Field(
        "bool", "lm_head.weight.grad is token_embed.weight.grad (it can cost points, never earn one)", checked=False
    )
    embed_grad = Field("tensor?", "token_embed.weight.grad: must be the lookup path's plus the head path's")
    head_grad = Field("tensor?", "lm_head.weight.grad: must equal embed_grad")
    table_after = Field("tensor?", "token_embed.weight after one SGD step: moved once, by lr * the sum")
    head_after = Field("tensor?", "lm_head.weight after the step", checked=False)


class GptIdentity(TableFollow, Sealed, name="gpt_identity"):
    """MiniGPTWithWeightTying built with the plan's cfg and seed; the judge's weights loaded into minigpt,
    then W1 written into minigpt.token_embed."""

    flag_off = Field(
        "bool",
        "model.minigpt is a dnnlpy MiniGPT whose config says weight_tying=False (the flag left out or False): only "
        "names an untied head in the message",
        checked=False,
    )
    n_param_objects = LmIdentity.FIELDS["n_param_objects"]
    unique_numel = Field("int", "scalars in the distinct Parameters", checked=False)
    param_names = LmIdentity.FIELDS["param_names"]
    embed_in_parameters = LmIdentity.FIELDS["embed_in_parameters"]
    head_is_pos = Field(
        "bool", "minigpt.lm_head.weight is minigpt.pos_embed.weight (it can cost points, never earn one)", checked=False
    )
    pos_before = Field("tensor", "minigpt.pos_embed.weight before the write (the judge's positional table)")
    pos_after = Field("tensor", "minigpt.pos_embed.weight after the write (must not move)")
    state_shapes = Field("shapes", "minigpt.state_dict() shapes: the judge builds the same architecture")


class GptReload(TableFollow, Sealed, name="gpt_reload"):
    """The judge's weights loaded, a state_dict saved and loaded into a fresh wrapper, then W2 written into
    minigpt.token_embed."""

    flag_off = Field(
        "bool",
        "model.minigpt is a dnnlpy MiniGPT whose config says weight_tying=False (the flag left out or False): only "
        "names an untied head in the message",
        checked=False,
    )
    state_shapes = GptIdentity.FIELDS["state_shapes"]


class GptFloat64(TableFollow, Sealed, name="gpt_float64"):
    """The judge's weights loaded, the wrapper moved .to(torch.float64), then W3 (float64) written into
    minigpt.token_embed."""

    flag_off = Field(
        "bool",
        "model.minigpt is a dnnlpy MiniGPT whose config says weight_tying=False (the flag left out or False): only "
        "names an untied head in the message",
        checked=False,
    )
    state_shapes = GptIdentity.FIELDS["state_shapes"]


class ForwardCase(Record):
    """One input of the wrapper built with a plan cfg and seed, the judge's weights loaded, in eval mode (cases of
    one build and one draw of weights are inputs of one model, loaded once)."""

    hidden = Field("tensor", "minigpt.token_embed(ids): (B, T, D)")
    logits = Field("tensor", "model(ids): (B, T, V)")
    state_shapes = Field("shapes", "minigpt.state_dict() shapes: the judge builds the same architecture")


class GptShapes(Sealed, name="gpt_shapes"):
    """The plan's wrapper over inputs of B = 1, T = 1, T < block_size and T = block_size, and one case with tiny
    weights."""

    cases = Field("cases", "one record per plan case", of=ForwardCase)


class HeadsCase(Record):
    """One wrapper built with a plan cfg and seed, the judge's weights loaded, in eval mode."""

    logits = Field("tensor", "model.minigpt(ids): (B, T, V), the inner MiniGPT's own forward")
    state_shapes = ForwardCase.FIELDS["state_shapes"]


class GptHeads(Sealed, name="gpt_heads"):
    """Equal shapes, num_heads 1 / 4 / 6: only the logits can tell them apart."""

    cases = Field("cases", "one record per plan case", of=HeadsCase)


class CountCase(Record):
    """One wrapper built with a plan cfg and seed, counted; then the judge's weights loaded (eval mode) and a
    second judge table written into minigpt.token_embed only."""

    unique_numel = Field("int", "scalars in the distinct Parameters (judged with the logits below)")
    state_shapes = Field("shapes", "minigpt.state_dict() keys and shapes (judged with the logits below)")
    logits = Field("tensor", "model.minigpt(ids) with the judge's weights: a MiniGPT of exactly these sizes?")
    logits_after_write = Field("tensor", "model.minigpt(ids) after the second table: one table at both ends?")
    dropout_settings = Field("dropouts", "every dropout probability inside minigpt, as built")


class GptCounts(Sealed, name="gpt_counts"):
    """Hyper-parameters away from the defaults, one changed at a time."""

    cases = Field("cases", "one record per plan case", of=CountCase)


class DropoutRun(Record):
    """One wrapper with the judge's weights in train mode, the RNG seeded before two calls of its MiniGPT (the
    model as built: the wrapper's forward is shape flow's), then eval mode."""

    train_1 = Field("tensor", "first train-mode logits of minigpt (dropout 1 zeroes every dropout's output)")
    train_2 = Field("tensor", "second train-mode logits of minigpt (equal to the first: both are determined)")
    eval = Field("tensor", "eval-mode logits of minigpt")
    state_shapes = Field("shapes", "minigpt.state_dict() shapes: the judge builds the same architecture")
    dropout_settings = Field("dropouts", "every dropout probability inside minigpt")


class GptDropout(Sealed, name="gpt_dropout"):
    """The wrapper with dropout 1.0 (cfg) and 0.0 (cfg0)."""

    cfg = Field("record", "dropout = 1.0", of=DropoutRun)
    cfg0 = Field("record", "dropout = 0.0", of=DropoutRun)


class GptGrad(Sealed, name="gpt_grad"):
    """The judge's weights loaded, SGD built before any forward; sum(model(ids) * G).backward() (a judge
    objective, so a wrong loss costs only the loss tests); one step."""

    state_shapes = Field("shapes", "minigpt.state_dict() shapes: the judge builds the same architecture")
    logits = LmGrad.FIELDS["logits"]
    forward_error = LmGrad.FIELDS["forward_error"]
    grad_same_object = LmGrad.FIELDS["grad_same_object"]
    embed_grad = Field("tensor?", "minigpt.token_embed.weight.grad: both paths' sum")
    head_grad = Field("tensor?", "minigpt.lm_head.weight.grad: must equal embed_grad")
    table_after = Field("tensor?", "minigpt.token_embed.weight after one SGD step")


class LossCase(Record):
    """One call of model.loss, then loss.backward() (when the loss requires grad)."""

    loss = Field("tensor", "the returned loss (a scalar)")
    pos_grad = Field(
        "tensor?",
        "minigpt.pos_embed.weight.grad after loss.backward(): the loss must be differentiable, and the positional "
        "table's gradient does not depend on the tie (None: backward never reached the model)",
    )


class GptLoss(Sealed, name="gpt_loss"):
    """The judge's (sharp) weights loaded; loss with no targets, targets of shape (B, T-1), targets of
    shape (B, T)."""

    state_shapes = Field("shapes", "minigpt.state_dict() shapes: the judge builds the same architecture")
    logits = Field(
        "tensor?",
        "model(ids) before any loss call (None: it raised): only chooses how a loss that is not the judge's own "
        "model's is judged (on these logits), so a wrong forward is not charged to the loss",
        checked=False,
    )
    forward_error = Field("str", "what that forward call raised ('' when it returned)", checked=False)
    none = Field("record", "model.loss(ids)", of=LossCase)
    short = Field("record", "model.loss(ids, targets (B, T-1))", of=LossCase)
    full = Field("record", "model.loss(ids, targets (B, T))", of=LossCase)


class GenerateCase(Record):
    """The plan's weights loaded into the wrapper (one build for every case of a configuration); generate called
    once or twice (the case's `calls`: RNG seeded 1, then 2), in a run whose dnnlpy withholds the decoder (each
    withheld function a stub that raises)."""

    first = Field(
        "tensor?", "generate(ids, max_new_tokens): (B, T + max_new_tokens) int64; None when it reached a stub"
    )
    second = Field("tensor?", "the second call's output (None where the plan asks one call): greedy repeats the first")
    delegated = Field(
        "strs",
        "the withheld library decoders generate called (MiniGPT.generate, dnnlpy.models.sampling's functions), as "
        "their stubs recorded them: any one zeroes the generation area; the runner's word, so it can cost "
        "points, never earn one",
        checked=False,
    )
    rebuilt = Field(
        "bool",
        "model.minigpt could not hold the plan's weights (an ignored size), so the runner replaced it by a MiniGPT "
        "of the plan's sizes holding them before calling generate: the loop is graded all the same",
        checked=False,
    )


class GptGenerate(Sealed, name="gpt_generate"):
    """Greedy generation: a prompt shorter than block_size that stays within it, one that grows past it, a
    prompt of exactly block_size (B = 1), and one longer than block_size, all on a model in eval mode; then
    the first one again on a model with dropout 1 left in train mode (train_mode)."""

    cases = Field("named cases", "within_block, past_block, at_block, long_prompt, train_mode", of=GenerateCase)


# Experiment records in the order the runner sends them.
RECORDS: tuple[type[Record], ...] = (
    LmIdentity,
    LmReload,
    LmFloat64,
    LmShapes,
    LmGrad,
    GptIdentity,
    GptReload,
    GptFloat64,
    GptShapes,
    GptHeads,
    GptCounts,
    GptDropout,
    GptGrad,
    GptLoss,
    GptGenerate,
)
