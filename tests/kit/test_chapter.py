"""Every code cell of chapter 18.4, typed as the chapter writes it, runs against the kit.

The cells run in order in one namespace (as in a notebook). Each cell's printed lines that do not depend on
random numbers (shapes, True flags, parameter counts) must equal the chapter's printed output; the lines
that do (losses, random tables) are checked for plausibility.
"""

import contextlib
import io
import math
import re

import pytest
import torch

# (cell source as the chapter writes it, the chapter's printed lines that must match exactly)
CELLS = [
    (
        """\
import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF
import dnnlpy.models.gpt as gpt
import torch
import torch.nn as nn
from torch import Tensor

print('PyTorch version:', torch.__version__)
""",
        [],
    ),
    (
        """\
vocab_size = 10
embed_dim = 4
batch_size = 2
block_size = 5

input_ids = torch.tensor(
    [
        [1, 3, 5, 7, 9],
        [2, 4, 6, 8, 0],
    ]
)

embedding = nn.Embedding(vocab_size, embed_dim)
lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)

x_emb = embedding(input_ids)
logits = lm_head(x_emb)

print('Embedding weight shape:', embedding.weight.shape)
print('LM head weight shape:', lm_head.weight.shape)

print('input_ids.shape:', input_ids.shape)
print('x_emb.shape:', x_emb.shape)
print('logits.shape:', logits.shape)
""",
        [
            "Embedding weight shape: torch.Size([10, 4])",
            "LM head weight shape: torch.Size([10, 4])",
            "input_ids.shape: torch.Size([2, 5])",
            "x_emb.shape: torch.Size([2, 5, 4])",
            "logits.shape: torch.Size([2, 5, 10])",
        ],
    ),
    (
        """\
vocab_size = 5
embed_dim = 3

embedding = nn.Embedding(vocab_size, embed_dim)
token_id = torch.tensor([2])

lookup_result = embedding(token_id)
manual_result = embedding.weight[2]

print('Embedding table:', embedding.weight, sep='\\n')
print('Lookup result:', lookup_result)
print('Manual result:', manual_result)

flag = torch.allclose(lookup_result.squeeze(0), manual_result)
print('Is lookup result equal to manual result?', flag)
""",
        ["Is lookup result equal to manual result? True"],
    ),
    (
        """\
vocab_size = 100
block_size = 8
embed_dim = 16

input_ids = torch.tensor([[10, 25, 31, 7]])
B, T = input_ids.size()

tok_embed = nn.Embedding(vocab_size, embed_dim)  # word/token embedding
pos_embed = nn.Embedding(block_size, embed_dim)  # positional embedding

positions = torch.arange(T)
x_tok = tok_embed(input_ids)
x_pos = pos_embed(positions)
x = x_tok + x_pos

print('input_ids.shape:', input_ids.shape)
print('positions.shape:', positions.shape)
print('x_tok.shape:', x_tok.shape)
print('x_pos.shape:', x_pos.shape)
print('x.shape:', x.shape)
""",
        [
            "input_ids.shape: torch.Size([1, 4])",
            "positions.shape: torch.Size([4])",
            "x_tok.shape: torch.Size([1, 4, 16])",
            "x_pos.shape: torch.Size([4, 16])",
            "x.shape: torch.Size([1, 4, 16])",
        ],
    ),
    (
        """\
B, T, D = 2, 4, 16
V = 100

h = torch.randn(B, T, D)
lm_head = dnn.Linear(D, V, bias=False)
logits = lm_head(h)

labels = torch.randint(0, V, (B, T))
loss = dF.cross_entropy_loss(
    logits.reshape(B * T, V),
    labels.reshape(B * T),
)

print('h.shape:', h.shape)
print('logits.shape:', logits.shape)
print('labels.shape:', labels.shape)
print('Loss:', loss.item())
""",
        [
            "h.shape: torch.Size([2, 4, 16])",
            "logits.shape: torch.Size([2, 4, 100])",
            "labels.shape: torch.Size([2, 4])",
        ],
    ),
    (
        """\
class TiedEmbeddingLM(nn.Module):
    \"\"\"A tiny model that only demonstrates embedding, LM head, and weight tying.\"\"\"

    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)

        # Weight tying: both modules share the same Parameter object.
        self.lm_head.weight = self.token_embed.weight
        assert self.lm_head.weight is self.token_embed.weight

    def forward(self, input_ids: Tensor) -> Tensor:
        x = self.token_embed(input_ids)
        logits = self.lm_head(x)
        return logits
""",
        [],
    ),
    (
        """\
model = TiedEmbeddingLM(vocab_size=20, embed_dim=8)

print('Embedding weight shape:', model.token_embed.weight.shape)
print('LM head weight shape: ', model.lm_head.weight.shape)

flag1 = model.token_embed.weight is model.lm_head.weight
flag2 = model.token_embed.weight.data_ptr() == model.lm_head.weight.data_ptr()
print('Is the same object?', flag1)
print('Do they share the same data pointer?', flag2)
""",
        [
            "Embedding weight shape: torch.Size([20, 8])",
            "LM head weight shape:  torch.Size([20, 8])",
            "Is the same object? True",
            "Do they share the same data pointer? True",
        ],
    ),
    (
        """\
V = 50000
D = 768

untied_params = 2 * V * D
tied_params = V * D
saved_params = untied_params - tied_params
saved_params = saved_params * 4 / pow(1024, 2)  # Convert to MB

print(f'Untied params: {untied_params:,}')
print(f'Tied params: {tied_params:,}')
print(f'Saved params: {saved_params:.4f} MB')
""",
        ["Untied params: 76,800,000", "Tied params: 38,400,000", "Saved params: 146.4844 MB"],
    ),
    (
        """\
vocab_size = 10
model = TiedEmbeddingLM(vocab_size=vocab_size, embed_dim=4)
input_ids = torch.tensor([[1, 2, 3]])
labels = torch.tensor([[2, 3, 4]])

logits = model(input_ids)
loss = dF.cross_entropy_loss(
    logits.reshape(-1, vocab_size),
    labels.reshape(-1),
)
loss.backward()

print('Loss:', loss.item())
print('Embedding grad shape:', model.token_embed.weight.grad.shape)

flag = model.lm_head.weight.grad is model.token_embed.weight.grad
print('Is the gradient the same object?', flag)
""",
        ["Embedding grad shape: torch.Size([10, 4])", "Is the gradient the same object? True"],
    ),
    (
        """\
class MiniGPTWithWeightTying(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        block_size: int,  # or context window
        embed_dim: int = 128,
        num_layers: int = 4,
        num_heads: int = 4,
        hidden_dim: int = 512,
        dropout: float = 0.0,
    ):
        super().__init__()
        self.minigpt = gpt.MiniGPT(
            vocab_size,
            block_size,
            embed_dim=embed_dim,
            num_layers=num_layers,
            num_heads=num_heads,
            hidden_dim=hidden_dim,
            dropout=dropout,
            weight_tying=True,  # Enable weight tying
        )

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.minigpt(input_ids)

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        return self.minigpt.loss(input_ids, targets)
""",
        [],
    ),
    (
        """\
model = MiniGPTWithWeightTying(
    vocab_size=100,
    block_size=8,
    embed_dim=32,
)

token_ids = torch.tensor([[10, 25, 31, 7, 42]])
input_ids = token_ids[:, :-1]
labels = token_ids[:, 1:]

logits = model(input_ids)
loss = model.loss(token_ids, labels)

print('input_ids.shape:', input_ids.shape)
print('labels.shape:', labels.shape)
print('logits.shape:', logits.shape)
print('Loss:', loss.item())

flag = model.minigpt.token_embed.weight is model.minigpt.lm_head.weight
print('Is embedding weight the same object as LM head weight?', flag)
""",
        [
            "input_ids.shape: torch.Size([1, 4])",
            "labels.shape: torch.Size([1, 4])",
            "logits.shape: torch.Size([1, 4, 100])",
            "Is embedding weight the same object as LM head weight? True",
        ],
    ),
    (
        """\
prefix = torch.tensor([[10, 25, 31]])
logits = model(prefix)

last_logits = logits[:, -1, :]
next_token = last_logits.argmax(dim=-1)

print('Prefix:', prefix)
print('Last_logits shape:', last_logits.shape)
print('Next token:', next_token)
""",
        ["Prefix: tensor([[10, 25, 31]])", "Last_logits shape: torch.Size([1, 100])"],
    ),
]

# Sections of the chapter whose cells appear above, by index, to name failures readably.
CELL_IDS = [
    "imports",
    "shapes",
    "lookup",
    "positions",
    "lm-head-loss",
    "tied-class",
    "tied-check",
    "param-savings",
    "shared-grad",
    "minigpt-class",
    "minigpt-test",
    "next-token",
]


@pytest.fixture(scope="module")
def chapter_run():
    """Run all cells in order in one namespace; return (namespace, printed lines per cell)."""
    torch.manual_seed(0)
    namespace: dict = {"__name__": "chapter_18_4"}
    outputs = []
    for index, (source, _) in enumerate(CELLS):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(source, f"<chapter 18.4 cell {index}>", "exec"), namespace)
        outputs.append(buffer.getvalue().splitlines())
    return namespace, outputs


@pytest.mark.parametrize("index", range(len(CELLS)), ids=CELL_IDS)
def test_cell_prints_the_chapters_shapes_and_flags(chapter_run, index):
    _, outputs = chapter_run
    printed = outputs[index]
    for line in CELLS[index][1]:
        assert line in printed, f"cell {CELL_IDS[index]}: expected {line!r} among {printed}"
    assert not any(line.endswith("False") for line in printed)


def _printed_float(lines, prefix):
    (line,) = [line for line in lines if line.startswith(prefix)]
    return float(line[len(prefix) :])


def test_losses_are_plausible(chapter_run):
    _, outputs = chapter_run
    # A random head over V = 100 and an untrained MiniGPT with V = 100: both near ln(100) ~ 4.605.
    assert abs(_printed_float(outputs[4], "Loss:") - math.log(100)) < 0.5
    assert abs(_printed_float(outputs[10], "Loss:") - math.log(100)) < 0.1
    assert math.isfinite(_printed_float(outputs[8], "Loss:"))


def test_lookup_cell_prints_equal_rows(chapter_run):
    _, outputs = chapter_run
    lookup = re.search(r"tensor\(\[\[(.*)\]\]", " ".join(x for x in outputs[2] if x.startswith("Lookup"))).group(1)
    manual = re.search(r"tensor\(\[(.*)\]", " ".join(x for x in outputs[2] if x.startswith("Manual"))).group(1)
    assert lookup == manual


def test_next_token_is_the_argmax_of_the_kit_model(chapter_run):
    namespace, outputs = chapter_run
    model = namespace["model"]
    (line,) = [x for x in outputs[11] if x.startswith("Next token:")]
    token = int(re.search(r"tensor\(\[(\d+)\]\)", line).group(1))
    assert 0 <= token < 100
    assert model.minigpt.generate(torch.tensor([[10, 25, 31]]), 1)[0, -1].item() == token


def test_chapter_models_are_built_on_the_kit(chapter_run):
    namespace, _ = chapter_run
    import dnnlpy.nn as dnn
    from dnnlpy.models.gpt import MiniGPT, count_parameters

    model = namespace["model"]
    assert isinstance(model.minigpt, MiniGPT) and isinstance(model.minigpt.lm_head, dnn.Linear)
    untied = MiniGPT(100, 8, embed_dim=32, weight_tying=False)
    assert count_parameters(untied) - count_parameters(model) == 100 * 32


def test_chapter_demo_script_runs_end_to_end(capsys):
    import pathlib
    import runpy

    script = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "chapter_demo.py"
    threads = torch.get_num_threads()  # main() pins one thread; don't leak that into later tests
    try:
        # A short training run: the end-to-end path is the point here, not how far the loss falls.
        runpy.run_path(str(script))["main"](["--seed", "0", "--steps", "20"])
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "step   0  loss" in out and "step  20  loss" in out
    assert "same Parameter object? True" in out
    assert "difference 3,200 = V*D = 3,200" in out
    assert "greedy continuation:  'The embedding" in out
