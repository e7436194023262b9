"""The English edition's prose: one markdown text per key of lessons.py (`{{name}}` is filled by the build)."""

from __future__ import annotations

__all__ = [
    "LANGUAGE",
    "TEXT",
    "AREA_NAMES",
    "AREA_SPLIT",
    "TABLE_HEADER",
    "JOIN_WRAPPED_LINES",
    "PRINTED",
    "PRACTICE_CHECK",
    "README",
    "COMMENTS",
]

LANGUAGE = "en"
AREA_NAMES = {}  # graded areas are named as the grader names them
# Markdown renders a line break inside a paragraph as a space: right for English, so the text keeps its wrapping.
JOIN_WRAPPED_LINES = False
TABLE_HEADER = ("graded area", "exercise 1", "exercise 2", "total")
# How a graded area's points fall between the exercises (points.area_split).
AREA_SPLIT = {"both": "{ex1} from exercise 1, {ex2} from exercise 2", "one": "all from exercise {n}"}
# The code's comments and docstrings are written in English (comments.py): nothing to translate.
COMMENTS: dict[str, str] = {}
# A practice cell's first line ({group}: the catalog's name of its group of checks, check.group.*).
PRACTICE_CHECK = "Practice check ({group}): 0 points, the hidden suite grades"
# What the demo cells print and draw, by the key a cell writes as `{{key}}`: a whole string literal, inside an
# f-string where the words hold the cell's own {names} (every edition the same ones).
PRINTED = {
    "embedded": "embedded",
    "shape_row": "{name:>16}: {tuple(tensor.shape)}",
    "vocab_size": "vocab_size: {tokenizer.vocab_size}",
    "encoded_ids": "ids:    {encoding.ids}",
    "generated_ids": "ids:  {out[0].tolist()}",
    "lookup_same": "same vectors: {same}",
    "lookup_row": "row 2 of the table: {embedding.weight[2].detach()}",
    "sample_text": "Weight tying shares one table.",
    "tokens": "tokens: {encoding.tokens}",
    "round_trip": "round trip: {tokenizer.decode(encoding.ids)}",
    "token_table": "token table:    {tuple(token_table.weight.shape)}",
    "position_table": "position table: {tuple(position_table.weight.shape)}",
    "ids_to_x": "ids {tuple(ids.shape)} -> x {tuple(x.shape)}",
    "rows_sum_to_1": "rows of probs sum to 1: {rows_sum_to_1}",
    "loss_on_logits": "loss on logits: {loss_on_logits:.3f}",
    "loss_on_probs": (
        "loss on probabilities (wrong): {loss_on_probs:.3f}, held between {math.log(V - 1 + math.e) - 1:.3f} and "
        "{math.log(V - 1 + math.e):.3f}; ln V = {math.log(V):.3f}"
    ),
    "rows_touched": "rows the lookup path touches: {touched}",
    "grad_is_the_sum": "shared grad == lookup grad + head grad: {summed}",
    "one_grad": "one .grad object for both names: {one_grad}",
    "untied_ends": "untied ends: {untied:,} parameters",
    "tied_ends": "tied ends:   {tied:,} parameters",
    "saved": "saved:       {untied - tied:,} parameters = {saved_bytes / 1e6:.1f} MB = {saved_bytes / 2**20:.1f} MiB",
    "n_lm": "TiedEmbeddingLM(1000, 64): {n_lm:,} parameters = V * D",
    "minigpt_counts": "MiniGPT untied {n_untied:,} vs tied {n_tied:,}: difference {n_untied - n_tied:,} = V * D",
    "plot_untied": "untied: 2VD",
    "plot_tied": "tied: VD",
    "plot_gpt2": "GPT-2's V",
    "plot_x": "vocabulary size V",
    "plot_y": "parameters at both ends (millions)",
    "plot_title": "Embedding + LM head parameters, D = {D}",
    "head_is_the_table": "token table is the head: {tied}",
    "positional_table": "positional table: {tuple(inner.pos_embed.weight.shape)} (separate, not tied)",
    "prompt": "The model",
    "next_id": "next token id: {next_id}",
    "generated_text": "text: {tokenizer.decode(out[0])!r}",
}

TEXT = {
    "intro": r"""
# Weight tying: one vocabulary table at both ends of a language model

A GPT-style model meets its vocabulary twice: the **token embedding** turns token ids into vectors on the way
in, and the **LM head** turns hidden states into one score per vocabulary entry on the way out. This notebook
looks at both ends, then makes them share a single table: **weight tying**.

You implement two classes: `TiedEmbeddingLM` (section 6), the smallest model with a tied embedding and head,
and `MiniGPTWithWeightTying` (section 9), `dnnlpy`'s `MiniGPT` with tying switched on and a greedy `generate`
loop you write yourself.

**Working in this notebook**

- Write your code where it says `# YOUR CODE HERE`, replacing `raise NotImplementedError()`. Keep the class
  names and signatures: the grader calls exactly those.
- Before you hand in: *Kernel → Restart Kernel and Run All Cells…*, then save. The grader runs your saved
  notebook from the top in a fresh process and grades the classes it defines.
- The grader leaves out the practice checks. No other cell uses what the demonstration cells (listed below)
  compute. As long as you leave the demonstrations as released, the grader and the `pytest` self-check skip
  them: an error in one is neither reported nor graded. A demonstration you changed runs as usual, and an error
  in it is reported. The demonstrations are:
  - the examples of sections 1 to 5;
  - the cell of section 7 that calls your `TiedEmbeddingLM`;
  - the sum and the plot of section 8;
  - *Try it* in section 10.

**How it is graded**

The grade is the kit's grader's: it runs your classes in a sandbox against a hidden suite of tests worth
{{total}} points, on sizes, seeds and weights of its own. Every correct implementation gets full marks, in
whatever style it is written; only section 9 sets one rule on how `generate` is written. A common mistake is
charged once within the same exercise. For each common mistake, each graded area charges one fixed cost (it may
be 0) instead of charging one by one the tests it makes fail; this fixed cost is never more than those tests'
points together. For example, where an area's fixed cost is 6 and the tests involved are worth 9, they cost 6.
A test that fails for any other reason costs its own points. The feedback names each mistake and lists what it
cost, and the costs add up to the points you lost. The points per graded area and exercise:

{{points_table}}

Two things help you before that, and they are worth **0 points**:

- the cells that start with `# Practice check`, after each exercise: they run a public subset of the same
  checks on your classes and print one line per check;
- the self-check: open a terminal in this folder and run `pytest`. Like the grader, it runs the notebook from the
  top in a fresh process, then takes the two classes you wrote. When a check fails, it names the misconception
  and the section to reread. It reads the notebook file **on disk: save first** (Ctrl+S). It never hangs: a
  cell or a check that runs longer than {{step_seconds}} s (an endless loop?) is stopped and named, and the
  whole run is given {{run_minutes}} minutes.

Notation: `B` batch size, `T` sequence length, `D` embedding width, `V` vocabulary size.
""",
    "shapes": r"""
## 1. Two ends, one vocabulary

At the input, an embedding table *E* of shape `(V, D)` holds one row per token: token *i* becomes the vector
*E*<sub>*i*</sub>. At the output, the LM head is a linear layer whose weight *W*<sub>out</sub> also has shape
`(V, D)`: the score (logit) of token *j* at position *t* is the dot product of the hidden state at position *t*
and row *j* of *W*<sub>out</sub>, *h*<sub>*t*</sub> · *W*<sub>out,*j*</sub>.

Same shape, opposite directions: id → vector at the input, vector → one score per id at the output. Along the
way the shapes go `(B, T) → (B, T, D) → (B, T, V)`.
""",
    "lookup": r"""
## 2. An embedding is a lookup, not arithmetic on ids

Token ids are names, not quantities: id 503 is not "more" than id 12, and the distance between two ids means
nothing. So the model never computes with the id itself. Formally, embedding token *i* multiplies its one-hot
row vector *e*<sub>*i*</sub> (length *V*, a single 1) with *E*, which selects row *i*. Building a length-*V*
one-hot vector for every token would waste memory and time, so `nn.Embedding` indexes the row directly. Both
give the same vectors:
""",
    "tokenizer": r"""
## 3. Where `V` comes from: the tokenizer

`V` is not the model's free choice: it is the size of the tokenizer's vocabulary, and every id the tokenizer
can produce must index a row of *E* (and a column of the logits). Train a small byte-level BPE tokenizer on
the corpus shipped with `dnnlpy` (300 entries keeps it fast: 256 bytes, one special token, and the merges):
""",
    "tokenizer_after": r"""
Change the tokenizer and `V` changes with it: the embedding table and the head must both be rebuilt, and a
trained model's weights only make sense with the token ids of the tokenizer it was trained with.
""",
    "positions": r"""
## 4. Positions have their own table, and it is never tied

GPT adds a **positional embedding**: a second lookup table, of shape `(block_size, D)`, indexed by the position
`0 … T-1` instead of the token id. Once the two rows are added, the vector at each position carries both
*which* token sits there and *where* in the sequence it sits. The head predicts *which token* comes next,
never a position, so only the token table has a counterpart at the output; the positional table stays separate.
""",
    "logits": r"""
## 5. Logits, not probabilities

The head gives *V* real numbers per position: **logits**, unnormalised scores. Softmax turns them into a
probability distribution over the next token,
*p*<sub>*j*</sub> = exp(logit<sub>*j*</sub>) / Σ<sub>*k*</sub> exp(logit<sub>*k*</sub>).

Cross-entropy losses (`dF.cross_entropy_loss`, `torch.nn.functional.cross_entropy`) apply `log_softmax`
themselves, so they expect logits. Given probabilities instead, softmax is applied twice: the code still runs,
but the loss it computes says almost nothing about the model.

The reason is the range of probabilities. They lie between 0 and 1 and sum to 1, so the second softmax's inputs
differ by at most 1 and its output is close to uniform (no probability is more than e times another). Whatever
probabilities the model gives, the loss is pinned to a band of width 1, from ln(*V* − 1 + e) − 1 to
ln(*V* − 1 + e), and ln *V* lies inside it, near the top.

ln *V* is the loss of a model that has learnt nothing and gives every token the same probability. However well
the model learns, the loss on probabilities stays less than 1 away from it and barely moves while it trains.

**Why this band (optional):** with *y* the token to predict and *p* the model's probabilities, the loss is
ln Σ<sub>*k*</sub> exp(*p*<sub>*k*</sub>) − *p*<sub>*y*</sub>. That is a convex function of the probabilities
(log-sum-exp is convex, and *p*<sub>*y*</sub> enters linearly), so it is largest at a distribution where one
probability is 1 and the others 0: ln(*V* − 1 + e) when that probability belongs to another token,
ln(*V* − 1 + e) − 1 when it belongs to *y*. The latter is also the smallest: moving a little probability from any
other token *k* to *y* changes the loss at the rate *q*<sub>*y*</sub> − *q*<sub>*k*</sub> − 1 (*q* is the second
softmax's output), which is always below 0, so the more of the probability sits on *y*, the lower the loss.

Below, *V* = 100: ln *V* ≈ 4.61 and the band is about 3.62 to 4.62. Compare on a confident model that is right at
every position: its loss on logits is far smaller, its loss on probabilities is in the band:
""",
    "exercise_1": r"""
## 6. Exercise 1: `TiedEmbeddingLM` ({{ex1}} points)

Both ends hold a `(V, D)` table for the same vocabulary, so let them hold **the same** table: then the score
of token *j* at position *t* is *h*<sub>*t*</sub> · *E*<sub>*j*</sub>, and a token's input vector is also the
vector it is scored with at the output. Implement:

- `self.token_embed`: `nn.Embedding(vocab_size, embed_dim)`, weight `(V, D)`;
- `self.lm_head`: a linear layer `D → V` **without bias** (`dnn.Linear`) whose `.weight` is the **very same
  `nn.Parameter` object** as `self.token_embed.weight`: one table, not two tables with equal values;
- `forward(input_ids)`: `(B, T)` int64 → logits `(B, T, V)` = *E*[`input_ids`] *E*<sup>⊤</sup> (no positional
  embedding, no softmax).

Ways to get it almost right, each of which the grader names:

- *copying* the table (`.clone()`, `copy_`, `copy.deepcopy`): two tables that drift apart after the first
  optimizer step;
- sharing only `.data`: the same memory but two Parameters, so the gradients of the two ends never meet; and a
  cast or a move to another device (`.to(torch.float64)`, `.half()`), or `copy.deepcopy` of the model, gives
  each its own memory again;
- tying inside `forward` instead of once, in `__init__`;
- a bias on the head, or returning probabilities (softmax) instead of logits.
""",
    "gradients": r"""
## 7. Gradients from both ends add up

The shared table is used twice in one forward pass: at the input, the rows of the token ids are *read*; at the
output, each hidden state is dotted with *every* row, which *scores* every token of the vocabulary.
One backward pass reaches the table along both uses, and autograd accumulates both contributions into the
one `.grad`; the
optimizer then updates the table once, with the sum. It is not "two copies updated separately", and not "the
gradient times two". To see it, give each use its own independent copy of the table and compare the gradients.

The cell below is a demonstration: it calls your `TiedEmbeddingLM`, but no other cell uses anything it
computes. Like every demonstration left as released, it is not run when you are graded or self-checked
(*Working in this notebook*, at the top, says which cells run).
""",
    "savings": r"""
## 8. What tying saves

Untied, the two ends hold 2*VD* parameters; tied, *VD*. At GPT-2's scale (*V* = 50,257, *D* = 768) and
4 bytes per float32 parameter:
""",
    "savings_after": r"""
The chapter does the same sum with *V* = 50000 and divides the bytes by 1024², so its "146.4844 MB" is really
MiB (153.6 MB in units of 10⁶ bytes); here *V* is GPT-2's real vocabulary size, 50,257, and MB and MiB are kept
apart, hence the different figures.

The saving grows linearly with the vocabulary, and for a small model the two ends can be most of the model.
Memory is not the only point, though: tying also makes the input and the output agree on one vector per
token, a sensible constraint since both ends talk about the same tokens.

The plot shows both ends' parameters at *D* = 768: the vocabulary size *V* across, millions of parameters up;
the upper line is 2*VD* (untied), the lower one *VD* (tied), and the dotted line marks GPT-2's *V* = 50,257.
""",
    "exercise_2": r"""
## 9. Exercise 2: `MiniGPTWithWeightTying` ({{ex2}} points)

`dnnlpy.models.gpt.MiniGPT` is a full GPT: token and positional embeddings, pre-LayerNorm decoder blocks, a
final LayerNorm and the LM head; its `weight_tying` argument ties its head to its token table. It does not
tie by default: left out, the flag is off and the head keeps a table of its own (the chapter, too, passes
`weight_tying=True` to turn tying on). Wrap it:

- `__init__`: build `self.minigpt`, a `gpt.MiniGPT` with exactly the given hyper-parameters (all seven reach
  it) and weight tying switched on.
- `forward(input_ids)`: `(B, T)` → logits `(B, T, V)`.
- `loss(input_ids, targets=None)`: a scalar, the **mean** next-token cross-entropy over every predicted
  position. Three forms of `targets` exist, and the grader checks all three:

  | call | the model reads | and must predict |
  |---|---|---|
  | `loss(ids)` | `ids[:, :-1]` | `ids[:, 1:]` |
  | `loss(ids, targets)`, `targets` of shape `(B, T-1)` (the chapter's form) | `ids[:, :-1]` | `targets` |
  | `loss(ids, targets)`, `targets` of shape `(B, T)` (nanoGPT's form: already shifted) | `ids` | `targets` |

  `MiniGPT.loss` means exactly this, and calling it is allowed; so is writing the loss yourself with
  `F.cross_entropy` or `dF.cross_entropy_loss`. Another `targets` shape is an error (not graded).
- `generate(input_ids, max_new_tokens)`: greedy decoding, **written by you**, one token at a time. At each
  step, keep only the last `block_size` tokens of the context (the position table has only `block_size` rows), run
  `self.minigpt` on it, take the logits of the **last** position, pick their `argmax` (no sampling) and
  append it. Return the prompt followed by the new tokens: `(B, T + max_new_tokens)`, int64.

  Decode with dropout off. A model with `dropout > 0` in train mode zeroes a random share of its activations
  on every forward pass, which jitters the logits: where two of them are close, the argmax may pick the other
  token, and the same prompt may then decode to different text from one call to the next. So a
  decoder switches the model to evaluation mode first (the grader also calls `generate` on a model with
  dropout left in train mode). Putting the model back in the mode it was in before you return is good
  practice, so a training loop that samples between steps keeps its dropout, but it is not graded.

  The loop is what this part grades, so `generate` must not hand it to the library: no `MiniGPT.generate`,
  and none of `dnnlpy.models.sampling`'s helpers (`greedy`, `sample_top_k`, `sample_top_p`,
  `sample_next_token`). A `generate` that calls one of them scores 0 in the argmax generation area. Keeping
  the last `block_size` tokens, calling the model, `torch.argmax` and concatenation (`torch.cat`) are all the
  loop needs.
""",
    "try_it": r"""
## 10. Try it

Put the pieces together with the tokenizer from section 3. The model is untrained, so the continuation is
gibberish (often one token repeated), but every step is the one a trained GPT takes: ids → vectors → blocks →
logits of the last position → argmax → append.
""",
    "try_it_after": r"""
If the text above shows `�`, nothing is broken. The tokenizer is byte-level: a token can hold a piece of a
character that UTF-8 spells with several bytes, and an untrained model strings tokens together at random, so
some byte runs are not valid UTF-8. Decoding replaces each such run with `�` (U+FFFD, the replacement
character). A trained model usually puts the pieces back together.

## Summary

- The token embedding maps `(B, T)` ids to `(B, T, D)` vectors by lookup; the LM head maps `(B, T, D)` hidden
  states to `(B, T, V)` logits; `V` is the tokenizer's vocabulary size.
- Tying makes the head's weight *the same Parameter* as the token table: `VD` parameters instead of `2VD`,
  one `.grad` that sums the contributions of both ends, one update per step.
- The positional table has its own shape `(block_size, D)` and is never tied.
- Losses take logits; greedy generation takes the last position's logits and their argmax.

**Before you hand in:** restart the kernel and run all cells (see *Working in this notebook* at the top), save,
then run `pytest` in this folder.
""",
    "grade_cells": r"""
## Your grade, area by area

The cells below are not exercises; leave them as they are. They are where the course's gradebook keeps the
grader's score for each graded area, {{total}} points in all. The practice checks count 0 points there, so
the gradebook's total is exactly the grader's.
""",
    "graded_area": r"""
**Graded area: {{area}}**: {{points}} points ({{area_split}}), scored by the hidden suite.
""",
}

# The release folder's README.md (the build fills {{folder}}, {{other}}, {{wheel}} and {{torch}}): what a student
# does with the folder, from an empty machine to a hand-in.
README = """
# Weight tying: your assignment

This folder is the assignment: you get it from Jupyter's *Assignments* tab, with
`nbgrader fetch_assignment {{folder}}`, or from your instructor. The notebook you fill in is `weight_tying.ipynb`.
Running `pytest` in this folder checks it; the files the check reads are in `weight_tying_checks/`.
Your instructor also gives you the course library, the file `{{wheel}}`. You need
Python 3.11 or newer. The same assignment comes in Chinese too, `{{other}}/`: do one of the two.

## 1. Install, once

In a new folder outside any other project, a virtual environment, then PyTorch (its CPU build: the course needs no
GPU), then the course library. Install torch first: otherwise installing the course library makes pip pick a
torch for you (on Linux, the GPU build, several GB).

```bash
python3 -m venv .venv
source .venv/bin/activate            # Windows: .venv\\Scripts\\activate
# Linux: the CPU build from PyTorch's own index (a plain `pip install torch` downloads a GPU build of several GB)
pip install "{{torch}}" --index-url https://download.pytorch.org/whl/cpu
# macOS and Windows: the builds on PyPI are CPU builds already
pip install "{{torch}}"
pip install {{wheel}}   # the course library, with numpy, pytest, matplotlib and the rest it needs
pip install jupyterlab                 # if you have no Jupyter yet
```

## 2. Work, then check

```bash
cd {{folder}}
jupyter lab weight_tying.ipynb       # fill in the two classes, then save
pytest                               # checks weight_tying.ipynb as it is saved on disk
```

For each check that fails, `pytest` names the mistake and the section of the notebook to reread; for a class or
a method not written yet, the section that sets the task. It runs the same cells as the grader (both leave out
the cells that start with `# Practice check` and the demonstrations left as released), but it is worth no
points: your grade comes from hidden tests that check more (the table at the top of the notebook).
`WEIGHT_TYING_LANG=zh pytest` gives its messages in Chinese; `WEIGHT_TYING_SUBMISSION=copy.ipynb pytest` checks
another file.

## 3. Hand in

1. *Kernel → Restart Kernel and Run All Cells…*: the notebook must run from top to bottom, since the grader runs
   it once, from the top, in a fresh process. Save, and run `pytest` once more.
2. Submit this folder the way your course collects it: in Jupyter's *Assignments* tab (*Submit*), or with
   `nbgrader submit {{folder}}` in the folder above this one. Keep the notebook's name, `weight_tying.ipynb`: a
   renamed copy or a second notebook is not graded.
3. Hand in one of the two editions, English or Chinese. If you hand in both, only the later one is graded.

Your feedback page comes back the same way (*Assignments* tab, or `nbgrader fetch_feedback {{folder}}`): each
mistake named, with what it cost and the tests it covers.
"""
