"""The teaching cells of the weight-tying notebook: prose, demos and the two exercises' statements."""

from __future__ import annotations

from .cells import code, md, solution

__all__ = [
    "INTRO",
    "IMPORTS",
    "SHAPES",
    "LOOKUP",
    "TOKENIZER",
    "POSITIONS",
    "LOGITS",
    "EXERCISE_1",
    "GRADIENTS",
    "SAVINGS",
    "EXERCISE_2",
    "TRY_IT",
]

INTRO = md(r"""
# Weight tying: one vocabulary table at both ends of a language model

A GPT-style model touches its vocabulary twice: the **token embedding** turns token ids into vectors on the way
in, and the **LM head** turns hidden states into one score per vocabulary entry on the way out. This notebook
looks at both ends and then makes them share a single table, which is called **weight tying**.

You implement two classes:

1. `TiedEmbeddingLM`: the smallest model with a tied embedding and head (6 points);
2. `MiniGPTWithWeightTying`: `dnnlpy`'s `MiniGPT` with tying switched on, plus greedy `generate` (7 points).

**How this notebook works**

- Write your code where it says `# YOUR CODE HERE`, replacing `raise NotImplementedError()`. Keep the class
  names and signatures: the grader calls exactly those.
- Cells that start with `# Tests:` are read-only checks. They are a part of what grading runs, not all of it:
  hidden tests add other sizes and seeds, gradients after an optimizer step, and generation past the context
  window. Passing the visible tests is necessary, not sufficient.
- Self-check at any time: open a terminal in this folder and run `pytest`. It loads your classes from this
  notebook the way the grader does (a fresh process, cells top to bottom, test cells skipped) and names the
  mistake when a check fails.
- Before you hand in: *Kernel → Restart & Run All*. The grader only sees what the notebook defines when run
  from the top.

Notation: `B` batch size, `T` sequence length, `D` embedding width, `V` vocabulary size.
""")

IMPORTS = code(r"""
import math
import warnings

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF
from dnnlpy.models import gpt
from dnnlpy.tokenizers import Tokenizer, load_corpus

warnings.filterwarnings("ignore")  # keep the output readable; warnings are not errors here
torch.manual_seed(0)
print("PyTorch", torch.__version__)
""")

SHAPES = [
    md(r"""
## 1. Two ends, one vocabulary

At the input, an embedding table $E$ of shape `(V, D)` holds one row per token: token $i$ becomes the vector
$E_i$. At the output, the LM head is a linear layer whose weight $W_{out}$ also has shape `(V, D)`: the score
(logit) of token $j$ at position $t$ is the dot product $h_t \cdot W_{out,j}$.

Same shape, opposite directions: id → vector at the input, vector → one score per id at the output. Along the
way the shapes go `(B, T) → (B, T, D) → (B, T, V)`.
"""),
    code(r"""
V, D = 10, 4
input_ids = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 0]])  # (B, T) = (2, 5)

embedding = nn.Embedding(V, D)
head = dnn.Linear(D, V, bias=False)

x = embedding(input_ids)  # (B, T) -> (B, T, D)
logits = head(x)  # (B, T, D) -> (B, T, V)
for name, tensor in [("input_ids", input_ids), ("embedded", x), ("logits", logits),
                     ("embedding.weight", embedding.weight), ("head.weight", head.weight)]:
    print(f"{name:>16}: {tuple(tensor.shape)}")
"""),
]

LOOKUP = [
    md(r"""
## 2. An embedding is a lookup, not arithmetic on ids

Token ids are names, not quantities: id 503 is not "more" than id 12, and nothing about the distance between
two ids means anything. So the model never computes with the id itself. Formally, embedding token $i$ is the
product of its one-hot row vector $e_i$ (length $V$, a single 1) with $E$, which selects row $i$. Building a
length-$V$ one-hot vector for every token would waste memory and time, so `nn.Embedding` indexes the row
directly. Both give the same vectors:
"""),
    code(r"""
ids = torch.tensor([2, 0, 2])
one_hot = F.one_hot(ids, num_classes=V).float()  # (3,) -> (3, V)
via_matmul = one_hot @ embedding.weight  # (3, V) @ (V, D) -> (3, D)
via_lookup = embedding(ids)  # (3,) -> (3, D), no one-hot built
print("same vectors:", torch.allclose(via_matmul, via_lookup))
print("row 2 of the table:", embedding.weight[2].detach())
"""),
]

TOKENIZER = [
    md(r"""
## 3. Where `V` comes from: the tokenizer

`V` is not the model's free choice: it is the size of the tokenizer's vocabulary, and every id the tokenizer
can produce must index a row of $E$ (and a column of the logits). Train a small byte-level BPE tokenizer on
the corpus shipped with `dnnlpy` (300 entries keeps it fast: 256 bytes, one special token, and the merges):
"""),
    code(r"""
corpus = load_corpus()
tokenizer = Tokenizer.train_from_iterator(corpus.splitlines(), vocab_size=300)
encoding = tokenizer.encode("Weight tying shares one table.")
print("vocab_size:", tokenizer.vocab_size)
print("tokens:", encoding.tokens)
print("ids:   ", encoding.ids)
print("round trip:", tokenizer.decode(encoding.ids))
"""),
    md(r"""
Change the tokenizer and `V` changes with it: the embedding table and the head must both be rebuilt, and a
trained model's weights only make sense with the token ids of the tokenizer it was trained with.
"""),
]

POSITIONS = [
    md(r"""
## 4. Positions have their own table, and it is never tied

GPT adds a **positional embedding**: a second lookup table, of shape `(block_size, D)`, indexed by the position
`0 … T-1` instead of the token id. Adding the two tells every position both *which* token it holds and
*where* it is. The head predicts *which token* comes next, never a position, so only the token table has a
counterpart at the output; the positional table stays separate.
"""),
    code(r"""
block_size, width = 8, 16
token_table = nn.Embedding(tokenizer.vocab_size, width)  # (V, D)
position_table = nn.Embedding(block_size, width)  # (block_size, D)

ids = torch.tensor([tokenizer.encode("the model reads tokens").ids[:block_size]])  # (1, T)
T = ids.shape[1]
x = token_table(ids) + position_table(torch.arange(T))  # (1, T, D) + (T, D) -> (1, T, D)
print("token table:   ", tuple(token_table.weight.shape))
print("position table:", tuple(position_table.weight.shape))
print("ids", tuple(ids.shape), "-> x", tuple(x.shape))
"""),
]

LOGITS = [
    md(r"""
## 5. Logits, not probabilities

The head gives $V$ real numbers per position: **logits**, unnormalised scores. Softmax turns them into a
probability distribution over the next token,
$p_j = \exp(\text{logit}_j) / \sum_k \exp(\text{logit}_k)$.

Cross-entropy losses (`dF.cross_entropy_loss`, `torch.nn.functional.cross_entropy`) apply the (log-)softmax
themselves, so they expect logits. Given probabilities instead, softmax runs twice: the code still runs, but
the loss is squashed towards $\ln V$ and barely moves when the model improves. Compare on a confident model
that is right everywhere:
"""),
    code(r"""
B, T, V = 2, 4, 100
logits = 6 * torch.randn(B, T, V)  # (B, T, V): a confident model's scores
targets = logits.argmax(dim=-1)  # (B, T): ... and it is right at every position
probs = logits.softmax(dim=-1)  # (B, T, V), each row sums to 1

loss_on_logits = dF.cross_entropy_loss(logits.reshape(B * T, V), targets.reshape(B * T))
loss_on_probs = dF.cross_entropy_loss(probs.reshape(B * T, V), targets.reshape(B * T))
print("rows of probs sum to 1:", torch.allclose(probs.sum(dim=-1), torch.ones(B, T)))
print(f"loss on logits: {loss_on_logits:.3f}")
print(f"loss on probabilities (wrong): {loss_on_probs:.3f}  vs  ln V = {math.log(V):.3f}")
"""),
]

EXERCISE_1 = [
    md(r"""
## 6. Exercise 1: `TiedEmbeddingLM` (6 points)

Both ends hold a `(V, D)` table for the same vocabulary, so let them hold **the same** table: then the score
of token $j$ at position $t$ is $h_t \cdot E_j$, and a token's input vector is also the vector it is scored
with at the output. Implement:

- `self.token_embed`: `nn.Embedding(vocab_size, embed_dim)`, weight `(V, D)`;
- `self.lm_head`: a linear layer `D → V` **without bias** (`dnn.Linear`) whose `.weight` is the **very same
  `nn.Parameter` object** as `self.token_embed.weight`;
- `forward(input_ids)`: `(B, T)` int64 → logits `(B, T, V)` $= E[\text{input\_ids}]\,E^\top$ (no positional
  embedding, no softmax).

Classic mistakes, each of which the grader catches:

- *copying* the table (`.clone()`, `copy_`, `nn.Parameter(token_embed.weight.clone())`): two tables that drift
  apart after the first optimizer step;
- sharing only `.data` (`nn.Parameter(token_embed.weight.data)`): the same memory but two Parameters, so the
  gradients of the two ends never meet and the tie breaks on `.to(...)` or `load_state_dict`;
- a bias on the head;
- returning probabilities (softmax) instead of logits.
"""),
    solution("TiedEmbeddingLM"),
]

GRADIENTS = [
    md(r"""
## 7. Gradients from both ends add up

The shared table is used twice in one forward pass: some of its rows are *read* at the input, and the whole
table *scores* the hidden states at the output. Backpropagation follows both uses, and autograd accumulates
both contributions into the one `.grad`; the optimizer then updates the table once, with the sum. It is not
"two copies updated separately", and not "the gradient times two". To see it, give each use its own
independent copy of the table and compare the gradients:
"""),
    code(r"""
torch.manual_seed(0)
model = TiedEmbeddingLM(vocab_size=10, embed_dim=4)
ids, targets = torch.tensor([[1, 2, 3]]), torch.tensor([[2, 3, 4]])
dF.cross_entropy_loss(model(ids).reshape(-1, 10), targets.reshape(-1)).backward()
shared_grad = model.token_embed.weight.grad

E_in = model.token_embed.weight.detach().clone().requires_grad_()  # used only by the lookup
E_out = model.token_embed.weight.detach().clone().requires_grad_()  # used only by the head
logits = F.embedding(ids, E_in) @ E_out.T  # (1, 3) -> (1, 3, D) -> (1, 3, V)
dF.cross_entropy_loss(logits.reshape(-1, 10), targets.reshape(-1)).backward()

print("rows the lookup path touches:", E_in.grad.abs().sum(dim=1).nonzero().flatten().tolist())
print("shared grad == lookup grad + head grad:", torch.allclose(shared_grad, E_in.grad + E_out.grad))
print("one .grad object for both names:", model.lm_head.weight.grad is model.token_embed.weight.grad)
"""),
]

SAVINGS = [
    md(r"""
## 8. What tying saves

Untied, the two ends hold $2VD$ parameters; tied, $VD$. At GPT-2's scale ($V = 50{,}000$, $D = 768$) and
4 bytes per float32 parameter:
"""),
    code(r"""
V, D = 50_000, 768
untied, tied = 2 * V * D, V * D
saved_mb = (untied - tied) * 4 / 1024**2
print(f"untied ends: {untied:,} parameters")
print(f"tied ends:   {tied:,} parameters")
print(f"saved:       {untied - tied:,} parameters = {saved_mb:.1f} MB of float32")

# The same count on real models: a shared Parameter is counted once.
print("TiedEmbeddingLM(1000, 64):", gpt.count_parameters(TiedEmbeddingLM(1000, 64)), "parameters = V * D")
small = dict(vocab_size=1000, block_size=32, embed_dim=64, num_layers=2, num_heads=2, hidden_dim=128)
n_untied = gpt.count_parameters(gpt.MiniGPT(**small, weight_tying=False))
n_tied = gpt.count_parameters(gpt.MiniGPT(**small, weight_tying=True))
print(f"MiniGPT untied {n_untied:,} vs tied {n_tied:,}: difference {n_untied - n_tied:,} = V * D")
"""),
    md(r"""
The saving grows linearly with the vocabulary, and for a small model the two ends can be most of the model.
Saving memory is not the only point, though: tying also makes the input and the output agree on one vector
per token, which is a sensible constraint since both ends talk about the same tokens.
"""),
    code(r"""
vocab_sizes = torch.linspace(1_000, 100_000, 100)
D = 768
fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.plot(vocab_sizes, 2 * vocab_sizes * D / 1e6, label="untied: 2VD")
ax.plot(vocab_sizes, vocab_sizes * D / 1e6, label="tied: VD")
ax.axvline(50_257, color="gray", linestyle=":", label="GPT-2's V")
ax.set_xlabel("vocabulary size V")
ax.set_ylabel("parameters at both ends (millions)")
ax.set_title(f"Embedding + LM head parameters, D = {D}")
ax.legend()
plt.show()
"""),
]

EXERCISE_2 = [
    md(r"""
## 9. Exercise 2: `MiniGPTWithWeightTying` (7 points)

`dnnlpy.models.gpt.MiniGPT` is a full GPT: token and positional embeddings, pre-LayerNorm decoder blocks, a
final LayerNorm and the LM head; `weight_tying=True` ties its head to its token table. Wrap it:

- `__init__`: build `self.minigpt = gpt.MiniGPT(...)` with exactly the given hyper-parameters and weight tying on;
- `forward(input_ids)`: logits `(B, T, V)`;
- `loss(input_ids, targets=None)`: the mean next-token cross-entropy, with the same meaning as `MiniGPT.loss`
  (`targets=None` predicts `input_ids[:, 1:]` from `input_ids[:, :-1]`);
- `generate(input_ids, max_new_tokens)`: greedy decoding, one token at a time. Each step crops the context to
  its last `block_size` tokens (the position table has only `block_size` rows), runs the model, takes the
  logits of the **last** position, picks the `argmax` (no sampling) and appends it. Return the prompt followed
  by the new tokens: `(B, T + max_new_tokens)`, int64.
"""),
    solution("MiniGPTWithWeightTying"),
]

TRY_IT = [
    md(r"""
## 10. Try it

Put the pieces together with the tokenizer from section 3. The model is untrained, so the continuation is
gibberish (often one token repeated), but every step is the one a trained GPT takes: ids → vectors → blocks →
logits of the last position → argmax → append.
"""),
    code(r"""
torch.manual_seed(0)
model = MiniGPTWithWeightTying(vocab_size=tokenizer.vocab_size, block_size=16,
                               embed_dim=32, num_layers=2, num_heads=2, hidden_dim=64)
inner = model.minigpt
print("token table is the head:", inner.token_embed.weight is inner.lm_head.weight)
print("positional table:", tuple(inner.pos_embed.weight.shape), "(separate, not tied)")

prompt = torch.tensor([tokenizer.encode("The model").ids])  # (1, T)
last_logits = model(prompt)[:, -1, :]  # (1, T, V) -> (1, V)
print("next token id:", last_logits.argmax(dim=-1).item())
out = model.generate(prompt, max_new_tokens=20)  # (1, T + 20)
print(repr(tokenizer.decode(out[0])))
"""),
    md(r"""
## Summary

- The token embedding maps `(B, T)` ids to `(B, T, D)` vectors by lookup; the LM head maps `(B, T, D)` hidden
  states to `(B, T, V)` logits; `V` is the tokenizer's vocabulary size.
- Tying makes `lm_head.weight` *the same Parameter* as `token_embed.weight`: `VD` parameters instead of `2VD`,
  one `.grad` that sums the contributions of both ends, one update per step.
- The positional table has its own shape `(block_size, D)` and is never tied.
- Losses take logits; generation takes the last position's logits and, greedily, their argmax.

**Before you hand in:** *Kernel → Restart & Run All*, then run `pytest` in this folder.
"""),
]
