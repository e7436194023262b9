"""The weight-tying notebook's cells in order: prose keys, demos, the two exercises and their practice checks.

What a demo prints or draws is written `{{key}}`: each edition's words (text_en.py, text_zh.py: ``PRINTED``).
"""

from __future__ import annotations

from .cells import code, demo, md, practice, solution, task

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

INTRO = md("intro")

IMPORTS = code(r"""
import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF
from dnnlpy.models import gpt

warnings.filterwarnings("ignore")  # keep the output readable; warnings are not errors here
torch.manual_seed(0)
print("PyTorch", torch.__version__)
""")

SHAPES = [
    md("shapes"),
    demo(r"""
V, D = 10, 4
input_ids = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 0]])  # (B, T) = (2, 5)

embedding = nn.Embedding(V, D)
head = dnn.Linear(D, V, bias=False)

x = embedding(input_ids)  # (B, T) -> (B, T, D)
logits = head(x)  # (B, T, D) -> (B, T, V)
for name, tensor in [("input_ids", input_ids), ("{{embedded}}", x), ("logits", logits),
                     ("embedding.weight", embedding.weight), ("head.weight", head.weight)]:
    print(f"{{shape_row}}")
"""),
]

LOOKUP = [
    md("lookup"),
    demo(r"""
ids = torch.tensor([2, 0, 2])
one_hot = F.one_hot(ids, num_classes=V).float()  # (3,) -> (3, V)
via_matmul = one_hot @ embedding.weight  # (3, V) @ (V, D) -> (3, D)
via_lookup = embedding(ids)  # (3,) -> (3, D), no one-hot built
same = torch.allclose(via_matmul, via_lookup)
print(f"{{lookup_same}}")
print(f"{{lookup_row}}")
"""),
]

TOKENIZER = [
    md("tokenizer"),
    demo(r"""
from dnnlpy.tokenizers import Tokenizer, load_corpus

corpus = load_corpus()
tokenizer = Tokenizer.train_from_iterator(corpus.splitlines(), vocab_size=300)
encoding = tokenizer.encode("{{sample_text}}")
print(f"{{vocab_size}}")
print(f"{{tokens}}")
print(f"{{encoded_ids}}")
print(f"{{round_trip}}")
"""),
    md("tokenizer_after"),
]

POSITIONS = [
    md("positions"),
    demo(r"""
block_size, width = 8, 16
token_table = nn.Embedding(tokenizer.vocab_size, width)  # (V, D)
position_table = nn.Embedding(block_size, width)  # (block_size, D)

ids = torch.tensor([tokenizer.encode("the model reads tokens").ids[:block_size]])  # (1, T)
T = ids.shape[1]
x = token_table(ids) + position_table(torch.arange(T))  # (1, T, D) + (T, D) -> (1, T, D)
print(f"{{token_table}}")
print(f"{{position_table}}")
print(f"{{ids_to_x}}")
"""),
]

LOGITS = [
    md("logits"),
    demo(r"""
B, T, V = 2, 4, 100
logits = 6 * torch.randn(B, T, V)  # (B, T, V): a confident model's scores
targets = logits.argmax(dim=-1)  # (B, T): each target is the top-scored token, so it is right everywhere
probs = logits.softmax(dim=-1)  # (B, T, V), each row sums to 1

loss_on_logits = dF.cross_entropy_loss(logits.reshape(B * T, V), targets.reshape(B * T))
loss_on_probs = dF.cross_entropy_loss(probs.reshape(B * T, V), targets.reshape(B * T))
rows_sum_to_1 = torch.allclose(probs.sum(dim=-1), torch.ones(B, T))
print(f"{{rows_sum_to_1}}")
print(f"{{loss_on_logits}}")
print(f"{{loss_on_probs}}")
"""),
]

EXERCISE_1 = [
    md("exercise_1"),
    solution("TiedEmbeddingLM"),
    practice("practice_tied", "exercise 1", "TiedEmbeddingLM"),
]

GRADIENTS = [
    md("gradients"),
    demo(r"""
torch.manual_seed(0)
model = TiedEmbeddingLM(vocab_size=10, embed_dim=4)
ids, targets = torch.tensor([[1, 2, 3]]), torch.tensor([[2, 3, 4]])
dF.cross_entropy_loss(model(ids).reshape(-1, 10), targets.reshape(-1)).backward()
shared_grad = model.token_embed.weight.grad

E_in = model.token_embed.weight.detach().clone().requires_grad_()  # used only by the lookup
E_out = model.token_embed.weight.detach().clone().requires_grad_()  # used only by the head
logits = F.embedding(ids, E_in) @ E_out.T  # (1, 3) -> (1, 3, D) -> (1, 3, V)
dF.cross_entropy_loss(logits.reshape(-1, 10), targets.reshape(-1)).backward()

touched = E_in.grad.abs().sum(dim=1).nonzero().flatten().tolist()
summed = torch.allclose(shared_grad, E_in.grad + E_out.grad)
one_grad = model.lm_head.weight.grad is model.token_embed.weight.grad
print(f"{{rows_touched}}")
print(f"{{grad_is_the_sum}}")
print(f"{{one_grad}}")
"""),
    practice("practice_gradients", "gradients", "TiedEmbeddingLM"),
]

SAVINGS = [
    md("savings"),
    demo(r"""
V, D = 50_257, 768  # GPT-2
untied, tied = 2 * V * D, V * D
saved_bytes = (untied - tied) * 4  # float32: 4 bytes per parameter
print(f"{{untied_ends}}")
print(f"{{tied_ends}}")
print(f"{{saved}}")

# The same count on real models: a shared Parameter is counted once.
n_lm = gpt.count_parameters(TiedEmbeddingLM(1000, 64))
print(f"{{n_lm}}")
small = dict(vocab_size=1000, block_size=32, embed_dim=64, num_layers=2, num_heads=2, hidden_dim=128)
n_untied = gpt.count_parameters(gpt.MiniGPT(**small, weight_tying=False))
n_tied = gpt.count_parameters(gpt.MiniGPT(**small, weight_tying=True))
print(f"{{minigpt_counts}}")
"""),
    md("savings_after"),
    demo(r"""
import matplotlib.pyplot as plt

vocab_sizes = torch.linspace(1_000, 100_000, 100)
D = 768
fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.plot(vocab_sizes, 2 * vocab_sizes * D / 1e6, label="{{plot_untied}}")
ax.plot(vocab_sizes, vocab_sizes * D / 1e6, label="{{plot_tied}}")
ax.axvline(50_257, color="gray", linestyle=":", label="{{plot_gpt2}}")
ax.set_xlabel("{{plot_x}}")
ax.set_ylabel("{{plot_y}}")
ax.set_title(f"{{plot_title}}")
ax.legend()
plt.show()
"""),
]

EXERCISE_2 = [
    md("exercise_2"),
    solution("MiniGPTWithWeightTying"),
    practice("practice_wrapper", "exercise 2", "MiniGPTWithWeightTying"),
    practice("practice_loss", "loss", "MiniGPTWithWeightTying"),
    practice("practice_generate", "generate", "MiniGPTWithWeightTying"),
]

TRY_IT = [
    md("try_it"),
    demo(r"""
torch.manual_seed(0)
model = MiniGPTWithWeightTying(vocab_size=tokenizer.vocab_size, block_size=16,
                               embed_dim=32, num_layers=2, num_heads=2, hidden_dim=64)
inner = model.minigpt
tied = inner.token_embed.weight is inner.lm_head.weight
print(f"{{head_is_the_table}}")
print(f"{{positional_table}}")

prompt = torch.tensor([tokenizer.encode("{{prompt}}").ids])  # (1, T)
last_logits = model(prompt)[:, -1, :]  # (1, T, V) -> (1, V)
next_id = last_logits.argmax(dim=-1).item()
print(f"{{next_id}}")
out = model.generate(prompt, max_new_tokens=20)  # (1, T + 20)
print(f"{{generated_ids}}")
print(f"{{generated_text}}")
"""),
    md("try_it_after"),
]

# One task cell per graded area of the hidden suite: where nbgrader's gradebook keeps the kit's score. The
# build checks this list against the suite's area markers (a new area needs its cell here). Any other cell the
# gradebook needs goes here too.
GRADE_CELLS = [
    md("grade_cells"),
    task("parameter identity"),
    task("shape flow"),
    task("parameter counts"),
    task("gradient accumulation"),
    task("argmax generation"),
]
