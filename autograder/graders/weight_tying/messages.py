"""Both sides (what the self-check says is built into each release): the weight_tying message catalog.

Each student-facing message has an id, its parameters and its English and Chinese templates side by side;
``autograder.protocol.said`` holds the mechanism, and importing this module registers the catalog there (as
"weight_tying"). The hidden suite builds each message as a value (``judge/words.say``: a ``Said``), and the
pages render it in the reader's language; where the language is known (the self-check's ``tell``, diagnosis
rendered for a student), ``render("its.id", language, param=...)`` fills one in at once.

A message that names one of the marking scheme's misconceptions (``marking.toml``) says so beside its text, as
the third item of its entry; ``NAMES`` is derived from those: a finding reads that id, never the wording, so a
message can be reworded in either language without moving a mark. Each misconception has a title,
``misconception.<id>``, the heading the pages and the class report show.

Adding or rewording a message: put ``"its.id": ("English {param}", "中文 {param}")`` in the part where it is built
(messages_diagnosis.py, messages_checks*.py, messages_suite*.py, messages_judge.py, messages_notes.py; the engine's
own words, the run summary and refused hand-ins, are in autograder/grading/catalog.py), with the same parameters in
both (test_messages.py fails on a missing or mismatched one), and the misconception it names as a third item if it
names one. What the student's code raised is a parameter, kept verbatim (between “” in Chinese). Then run ``python
scripts/build_notebook.py`` to refresh the release copies. Imports the standard library, its sibling catalog parts
(messages_*.py) and the catalog mechanism (``autograder.protocol.said``, copied beside it into the release) only."""

from __future__ import annotations

from autograder.protocol.said import LANGUAGES, Message, Said, register
from autograder.protocol.said import render as render_said

from . import (
    messages_checks,
    messages_checks_failures,
    messages_checks_loss,
    messages_diagnosis,
    messages_judge,
    messages_notes,
    messages_suite,
    messages_suite_values,
)

# The catalog's parts (an id is unique across them: test_messages.py).
_PARTS = (
    messages_checks,
    messages_checks_failures,
    messages_checks_loss,
    messages_diagnosis,
    messages_notes,
    messages_suite,
    messages_suite_values,
    messages_judge,
)

__all__ = [
    "OWNER",
    "LANGUAGES",
    "Message",
    "CATALOG",
    "NAMES",
    "render",
    "area_name",
    "misconception_title",
    "title",
    "title_cases",
    "label_form",
    "experiment_title",
]

OWNER = "weight_tying"

# ---------------------------------------------------------------------------------------- graded areas
# The marking scheme's area names (marking.toml [areas]) are the English renderings.
_AREAS = {
    "parameter identity": "共享同一参数对象",
    "shape flow": "形状与输出数值",
    "parameter counts": "参数量与超参数",
    "gradient accumulation": "两条路径的梯度相加",
    "argmax generation": "贪心生成",
}

# ----------------------------------------------------------------------------------- misconceptions
# The marking scheme's misconception id -> its title (English, Chinese): the heading of its charge on every page.
MISCONCEPTIONS = {
    "two_tables": (
        "a second table (copied table or untied head)",
        "多了第二张表（复制了一份表，或者 LM head 没有共享 token embedding 的表）",
    ),
    "delegated_tie": (
        "delegated tie (a library MiniGPT tied the pair)",
        "weight tying 交给了库（是库里的 MiniGPT 让两端共享了权重）",
    ),
    "data_sharing": (
        "one storage, two Parameters (.data shared, or a new nn.Parameter around the token table)",
        "一块内存，两个参数对象（只共享了 .data，或者用新的 nn.Parameter 包住了 token embedding 的表）",
    ),
    "tied_after_forward": ("tied only after forward", "到 forward 里才共享（应在 __init__ 中共享）"),
    "positional_tied": ("positional embedding tied", "位置表（positional embedding）被卷进了权重共享"),
    "head_bias": ("bias on the head", "LM head 带了偏置"),
    "probabilities": ("probabilities instead of logits", "输出了概率而不是 logits"),
    "transposed": ("transposed (x @ W, or a (D, V) head)", "转置了（x @ W，或者 LM head 的形状是 (D, V)）"),
    "logits_shape": ("logits not (B, T, V)", "logits 的形状不是 (B, T, V)"),
    "logits_scaled": ("logits scaled", "logits 被缩放"),
    "max_norm": ("max_norm on the embedding", "token embedding 设置了 max_norm"),
    "layernorm_eps": ("LayerNorm eps", "LayerNorm 的 eps 不对"),
    "skips_minigpt": ("skips part of MiniGPT", "跳过了 MiniGPT 的一部分"),
    "loss_not_written": ("loss raises for every target form", "loss 在三种 targets 形式下都抛出异常"),
    "loss_shift": ("loss target shift wrong", "loss 的目标没有正确错开一位"),
    "loss_ignore_index": ("ignore_index in the loss", "loss 设置了 ignore_index"),
    "loss_not_mean": ("loss not mean (summed)", "loss 不是平均值（用了求和）"),
    "loss_scaled": ("loss scaled (doubled or halved)", "loss 被缩放（翻倍或减半）"),
    "loss_detached": ("loss detached", "loss 脱离了计算图"),
    "hyperparameter_ignored": ("hyper-parameter ignored", "忽略了某个超参数"),
    "only_one_path": ("only one path's gradient", "只有一条路径的梯度"),
    "gradient_scaled": ("gradient doubled or halved", "梯度翻倍或减半"),
    "embedding_gradient_option": (
        "padding_idx or scale_grad_by_freq on the embedding",
        "token embedding 设置了 padding_idx 或 scale_grad_by_freq",
    ),
    "delegated_generate": ("delegated generate", "把生成循环交给了库函数"),
    "sampling": ("sampling instead of argmax", "用了采样而不是 argmax"),
    "crop": ("no crop or wrong crop", "没有截断上下文，或者截断方式不对"),
    "position_or_append": ("wrong position or missing append", "取错了位置，或者没有把新 token 接到末尾"),
    "prompt_not_preserved": ("prompt not preserved (wrong length)", "没有保留前缀（长度不对）"),
    "dropout_in_generate": ("dropout on while decoding", "生成时没有关闭 dropout"),
    "ids_dtype": ("token ids not int64", "token id 不是 int64"),
    "batch_rows": ("batch rows not independent", "batch 中各行没有各自独立计算"),
    "argmax_axis": ("argmax over the wrong axis", "argmax 取错了维度"),
    "loss_softmax": ("softmax before cross-entropy", "在交叉熵之前先做了 softmax"),
    "loss_nll": ("nll_loss on raw logits", "把原始 logits 交给了 nll_loss"),
}

# ------------------------------------------------------------------------------------ hidden suite titles
# test function name without "test_" -> its Chinese title (the English title is the name, spaced)
# where the spaced name would not say what the test checks: the English title
_EN_TITLES = {
    # the shape and dtype alone do not pass it: the new tokens must be decoded from the logits, not sampled
    "generate_returns_prompt_plus_int64_tokens": "generate returns the prompt plus int64 tokens picked by argmax",
    # the crop is what a context past block_size tests (the self-check's check says it too)
    "generate_greedy_past_block_size": "past block_size, each step reads only the last block_size tokens, then "
    "takes the argmax",
}
_TITLES = {
    "tied_lm_counts_one_table": "TiedEmbeddingLM 的参数只有一张表：恰好 V * D 个，没有偏置",
    "wrapper_counts_untied_minus_vd": "MiniGPTWithWeightTying 的参数量等于不共享时的参数量减去 V * D",
    "wrapper_state_dict_matches_hyperparameters": "MiniGPTWithWeightTying 的 state_dict 与传入的超参数一致",
    "wrapper_num_heads_honoured": "MiniGPTWithWeightTying 使用传入的 num_heads",
    "wrapper_dropout_honoured": "MiniGPTWithWeightTying 使用传入的 dropout",
    "generate_returns_prompt_plus_int64_tokens": "生成结果为前缀加上 int64 的新 token，新 token 取自 logits 的 argmax",
    "generate_greedy_within_block_size": "上下文不超过 block_size 时，每一步都取 argmax",
    "generate_greedy_past_block_size": "上下文超过 block_size 之后，每一步只看最后 block_size 个 token，再取 argmax",
    "generate_is_deterministic_argmax": "生成结果是确定的：每一步取 argmax，不随机选取",
    "generate_turns_dropout_off": "生成时关闭 dropout，切换到评估模式",
    "tied_lm_shared_gradient_is_sum_of_paths": "TiedEmbeddingLM 共享表的梯度是两条路径的梯度之和",
    "tied_lm_sgd_step_updates_table_once": "TiedEmbeddingLM 一步 SGD 只更新共享表一次",
    "wrapper_shared_gradient_is_sum_of_paths": "MiniGPTWithWeightTying 共享表的梯度是两条路径的梯度之和",
    "wrapper_sgd_step_updates_table_once": "MiniGPTWithWeightTying 一步 SGD 只更新共享表一次",
    "tied_lm_head_is_the_embedding_parameter": "TiedEmbeddingLM 的 LM head 与 token embedding 是同一个参数对象",
    "tied_lm_tie_survives_state_dict_reload": "TiedEmbeddingLM 重新加载 state_dict 后两端仍然共享",
    "tied_lm_tie_survives_to_float64": "TiedEmbeddingLM 转为 float64 后两端仍然共享",
    "wrapper_head_is_the_embedding_parameter": "MiniGPTWithWeightTying 的 LM head 与 token embedding 是同一个参数对象",
    "wrapper_positional_embedding_not_tied": "MiniGPTWithWeightTying 的位置表（positional embedding）不参与共享",
    "wrapper_tie_survives_state_dict_reload": "MiniGPTWithWeightTying 重新加载 state_dict 后两端仍然共享",
    "wrapper_tie_survives_to_float64": "MiniGPTWithWeightTying 转为 float64 后两端仍然共享",
    "wrapper_loss_values": "targets 取三种形式时，MiniGPTWithWeightTying 的 loss 都是预测下一个 token 的平均交叉熵",
    "wrapper_loss_reaches_the_model": "MiniGPTWithWeightTying 的 loss 能把梯度反向传播到模型的参数",
    "tied_lm_shapes_and_values": "TiedEmbeddingLM 的输出形状与数值正确",
    "tied_lm_float64": "TiedEmbeddingLM 在 float64 下输出正确",
    "wrapper_shapes_and_values": "MiniGPTWithWeightTying 的输出形状与数值正确",
    "wrapper_float64": "MiniGPTWithWeightTying 在 float64 下输出正确",
}

# test function name without "test_" -> the catalog ids of the case its title names already ("转为 float64 后"):
# a message's subject built on one of them is not said again under the title (rendering.show)
_RELOAD = ("suite.state_dict_save_load", "suite.case.after_reload")
_FLOAT64 = ("suite.to_torch_float64", "suite.case.after_float64")
_TITLE_CASES = {
    "tied_lm_tie_survives_state_dict_reload": _RELOAD,
    "wrapper_tie_survives_state_dict_reload": _RELOAD,
    "tied_lm_tie_survives_to_float64": _FLOAT64,
    "wrapper_tie_survives_to_float64": _FLOAT64,
    "tied_lm_float64": _FLOAT64,
    "wrapper_float64": _FLOAT64,
}

# ------------------------------------------------------------------------------ the runner's experiments
# experiment name (runner/experiments.py EXPERIMENTS) -> (English, Chinese): what the grader was doing with the
# student's classes, named where a run stopped at the time limit in the middle of one
EXPERIMENTS = {
    "lm_identity": ("building TiedEmbeddingLM and checking its tie", "构造 TiedEmbeddingLM 并检查两端是否共享"),
    "lm_reload": ("TiedEmbeddingLM after load_state_dict", "重新加载 state_dict 之后的 TiedEmbeddingLM"),
    "lm_float64": ("TiedEmbeddingLM after .to(torch.float64)", "转为 float64 之后的 TiedEmbeddingLM"),
    "lm_shapes": ("TiedEmbeddingLM's forward at several sizes", "TiedEmbeddingLM 在几种尺寸下的 forward"),
    "lm_grad": ("TiedEmbeddingLM's gradient and one SGD step", "TiedEmbeddingLM 的梯度与一步 SGD"),
    "gpt_identity": (
        "building MiniGPTWithWeightTying and checking its tie",
        "构造 MiniGPTWithWeightTying 并检查两端是否共享",
    ),
    "gpt_reload": (
        "MiniGPTWithWeightTying after load_state_dict",
        "重新加载 state_dict 之后的 MiniGPTWithWeightTying",
    ),
    "gpt_float64": ("MiniGPTWithWeightTying after .to(torch.float64)", "转为 float64 之后的 MiniGPTWithWeightTying"),
    "gpt_shapes": (
        "MiniGPTWithWeightTying's forward at several sizes",
        "MiniGPTWithWeightTying 在几种尺寸下的 forward",
    ),
    "gpt_heads": ("MiniGPTWithWeightTying with other num_heads", "换用其他 num_heads 的 MiniGPTWithWeightTying"),
    "gpt_counts": ("MiniGPTWithWeightTying's parameter count", "MiniGPTWithWeightTying 的参数量"),
    "gpt_dropout": ("MiniGPTWithWeightTying with dropout", "带 dropout 的 MiniGPTWithWeightTying"),
    "gpt_grad": ("MiniGPTWithWeightTying's gradient and one SGD step", "MiniGPTWithWeightTying 的梯度与一步 SGD"),
    "gpt_loss": ("MiniGPTWithWeightTying.loss", "MiniGPTWithWeightTying.loss 的计算"),
    "gpt_generate": ("MiniGPTWithWeightTying.generate", "MiniGPTWithWeightTying.generate 的生成"),
}

# ---------------------------------------------------------------------- the notebook's sections, reread
# number -> (English heading, Chinese heading): diagnosis.SECTIONS and the notebooks' "## N. ..." headings
SECTION_HEADINGS = {
    2: ("An embedding is a lookup, not arithmetic on ids", "embedding 是查表，而不是拿 id 做算术"),
    4: ("Positions have their own table, and it is never tied", "位置有自己的表，而且从不参与共享"),
    5: ("Logits, not probabilities", "输出的是 logits，不是概率"),
    6: ("Exercise 1: `TiedEmbeddingLM`", "练习 1：TiedEmbeddingLM"),
    7: ("Gradients from both ends add up", "两端的梯度相加"),
    8: ("What tying saves", "共享权重省下了多少参数"),
    9: ("Exercise 2: `MiniGPTWithWeightTying`", "练习 2：MiniGPTWithWeightTying"),
}

# ----------------------------------------------------------------------------- what each message names
# message id -> the marking scheme's misconception it names, as each part's entry declares it (the wording never
# decides). A message that cannot tell two causes apart names none; a knock-on ("not checked because ...") names
# none either: the test that raises it says which test it waits on.
NAMES = {key: entry[2] for part in _PARTS for key, entry in part.MESSAGES.items() if len(entry) == 3}

_ENTRIES = {
    **{f"area.{en}": (en, zh) for en, zh in _AREAS.items()},
    **{f"misconception.{name}": pair for name, pair in MISCONCEPTIONS.items()},
    **{f"title.{name}": (_EN_TITLES.get(name, name.replace("_", " ")), zh) for name, zh in _TITLES.items()},
    **{f"section.{n}": pair for n, pair in SECTION_HEADINGS.items()},
    **{f"experiment.{name}": pair for name, pair in EXPERIMENTS.items()},
    **{key: entry[:2] for part in _PARTS for key, entry in part.MESSAGES.items()},
}
CATALOG: dict[str, Message] = {key: Message(en, zh, NAMES.get(key)) for key, (en, zh) in _ENTRIES.items()}
register(OWNER, CATALOG)


def render(key: str, language: str = "en", /, **params: object) -> str:
    """The message `key` in `language`, its parameters filled in; KeyError naming the id when unknown."""
    if key not in CATALOG:
        raise KeyError(f"no message {key!r} in the weight_tying catalog: add it to messages.py")
    return render_said(Said(key, **params), language)


def area_name(area: str, language: str = "en") -> str:
    """A graded area's name (as marking.toml spells it) in `language`."""
    if language == "en" or f"area.{area}" not in CATALOG:
        return area
    return render(f"area.{area}", language)


def misconception_title(name: str, language: str = "en") -> str:
    """A misconception's title (its marking-scheme id) in `language`; KeyError naming an unknown id."""
    return render(f"misconception.{name}", language)


def title(readable: str, language: str = "en") -> str | None:
    """A hidden-suite test's title (its readable name, a parameter in brackets kept) in `language`; None when
    the catalog has no title for it."""
    base, bracket, rest = readable.partition(" [")
    key = f"title.{base.replace(' ', '_')}"
    if key not in CATALOG:
        return None
    return render(key, language) + (f" [{rest}" if bracket else "")


# the subjects that are an input a test fed the student's code (a call with its arguments), not a thing it checked:
# the page labels them "the call checked" (rendering.show: ShownTest.fed), not "checking"
_FED_SUBJECTS = frozenset(
    {
        "suite.case.generate_call",
        "suite.generate_train_mode_what",
        "suite.call.loss_short",
        "suite.call.loss_full",
        "suite.call.loss_none",
    }
)


# a subject's own form where it stands alone as a label's value (rendering.standalone): the call first, then its
# inputs; the key's message opens a sentence ("…时，generate(…)运行失败")
_LABEL_FORMS = {
    "suite.case.generate_call": "suite.case.generate_call.label",
    "suite.generate_train_mode_what": "suite.generate_train_mode_what.label",
    "suite.call.loss_short": "suite.call.loss_short.label",
    "suite.call.loss_full": "suite.call.loss_full.label",
    "suite.call.loss_none": "suite.call.loss_none.label",
}


def label_form(key: str) -> str | None:
    """The catalog id of the subject `key`'s form as a label's value, None when it reads the same there."""
    return _LABEL_FORMS.get(key)


def subject_fed(key: str) -> bool:
    """Whether the subject said by catalog id `key` is an input a hidden-suite test fed (a call, a prompt)."""
    return key in _FED_SUBJECTS


def title_cases(readable: str) -> tuple[str, ...]:
    """The catalog ids of the case a hidden-suite test's title names (its readable name), () for none."""
    return _TITLE_CASES.get(readable.partition(" [")[0].replace(" ", "_"), ())


def experiment_title(name: str, language: str = "en") -> str | None:
    """What the grader was doing in the runner's experiment `name`, in `language`; None for a name it does not run."""
    key = f"experiment.{name}"
    return render(key, language) if key in CATALOG else None
