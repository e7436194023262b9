"""Walk through chapter 18.4's examples with the kit's dnnlpy, printing what each step shows.

Run:  .venv/bin/python scripts/chapter_demo.py [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import time

import torch
import torch.nn as nn
from torch import Tensor

import dnnlpy.models.gpt as gpt
import dnnlpy.nn as dnn
import dnnlpy.nn.functional as dF
from dnnlpy.tokenizers import Tokenizer, load_corpus


def section(title: str) -> None:
    print(f"\n== {title} ==")


class TiedEmbeddingLM(nn.Module):
    """Embedding -> LM head, with the head's weight being the embedding's Parameter."""

    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight  # one Parameter, two uses

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.lm_head(self.token_embed(input_ids))  # (B, T) -> (B, T, D) -> (B, T, V)


def both_directions() -> None:
    section("18.4.1 one vocabulary, two directions")
    embedding = nn.Embedding(10, 4)
    lm_head = dnn.Linear(4, 10, bias=False)
    input_ids = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 0]])
    x_emb = embedding(input_ids)
    logits = lm_head(x_emb)
    print("embedding.weight:", tuple(embedding.weight.shape), " lm_head.weight:", tuple(lm_head.weight.shape))
    print("input_ids", tuple(input_ids.shape), "-> x_emb", tuple(x_emb.shape), "-> logits", tuple(logits.shape))


def lookup_is_indexing() -> None:
    section("18.4.2 an embedding is a table lookup")
    embedding = nn.Embedding(5, 3)
    looked_up = embedding(torch.tensor([2]))
    one_hot = torch.nn.functional.one_hot(torch.tensor([2]), 5).float()
    print("embedding(2)        :", looked_up.detach().numpy().round(4))
    print("one_hot(2) @ table  :", (one_hot @ embedding.weight).detach().numpy().round(4))
    print("equal to weight[2]? ", torch.allclose(looked_up.squeeze(0), embedding.weight[2]))


def positions() -> None:
    section("18.4.3 token + position embeddings")
    tok_embed, pos_embed = nn.Embedding(100, 16), nn.Embedding(8, 16)
    input_ids = torch.tensor([[10, 25, 31, 7]])
    x = tok_embed(input_ids) + pos_embed(torch.arange(input_ids.size(1)))  # (1, 4, 16) + (4, 16)
    print("x_tok (1, 4, 16) + x_pos (4, 16) ->", tuple(x.shape))


def lm_head_loss() -> None:
    section("18.4.4 the LM head scores every token")
    B, T, D, V = 2, 4, 16, 100
    logits = dnn.Linear(D, V, bias=False)(torch.randn(B, T, D))
    labels = torch.randint(0, V, (B, T))
    loss = dF.cross_entropy_loss(logits.reshape(B * T, V), labels.reshape(B * T))
    print(f"logits {tuple(logits.shape)}, loss {loss.item():.4f} (a uniform guess scores ln V = {math.log(V):.4f})")


def tying() -> None:
    section("18.4.5-18.4.7 weight tying")
    model = TiedEmbeddingLM(vocab_size=20, embed_dim=8)
    print("same Parameter object?", model.token_embed.weight is model.lm_head.weight)
    print("same storage?         ", model.token_embed.weight.data_ptr() == model.lm_head.weight.data_ptr())
    V, D = 50_000, 768
    print(
        f"V={V:,}, D={D}: untied {2 * V * D:,} vs tied {V * D:,} numbers, "
        f"saving {V * D * 4 / 1024**2:.4f} MB in float32"
    )

    model = TiedEmbeddingLM(vocab_size=10, embed_dim=4)
    logits = model(torch.tensor([[1, 2, 3]]))
    loss = dF.cross_entropy_loss(logits.reshape(-1, 10), torch.tensor([2, 3, 4]))
    loss.backward()
    grad = model.token_embed.weight.grad
    print("one gradient tensor?  ", model.lm_head.weight.grad is grad)
    # Row 9 never appears as an input, so its gradient comes only from the head's path.
    print("row 9 (unused id) still gets a gradient from the head:", bool(grad[9].abs().sum() > 0))


def minigpt() -> gpt.MiniGPT:
    section("18.4.8 MiniGPT with weight tying")
    tied = gpt.MiniGPT(100, 8, embed_dim=32, weight_tying=True)
    untied = gpt.MiniGPT(100, 8, embed_dim=32, weight_tying=False)
    token_ids = torch.tensor([[10, 25, 31, 7, 42]])
    logits = tied(token_ids[:, :-1])
    loss = tied.loss(token_ids, token_ids[:, 1:])
    print("logits:", tuple(logits.shape), f" loss: {loss.item():.4f}")
    print("tied?", tied.token_embed.weight is tied.lm_head.weight)
    n_tied, n_untied = gpt.count_parameters(tied), gpt.count_parameters(untied)
    print(f"parameters: tied {n_tied:,}, untied {n_untied:,}, difference {n_untied - n_tied:,} = V*D = {100 * 32:,}")
    return tied


def generation(seed: int, steps: int) -> None:
    section("18.4.9 from logits to tokens, with a real tokenizer")
    start = time.perf_counter()
    corpus = load_corpus()
    tok = Tokenizer.train_from_iterator(corpus.split("\n\n"), vocab_size=512)
    print(
        f"trained a byte-level BPE tokenizer on {len(corpus):,} characters in "
        f"{time.perf_counter() - start:.2f} s: vocab_size = {tok.vocab_size}"
    )
    torch.manual_seed(seed)
    model = gpt.MiniGPT(
        tok.vocab_size, block_size=32, embed_dim=64, num_layers=2, num_heads=4, hidden_dim=128, weight_tying=True
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    stream = torch.tensor(tok.encode(corpus).ids)
    g = torch.Generator().manual_seed(seed)
    for step in range(steps + 1):
        x, y = gpt.get_batch(stream, model.block_size, 16, generator=g)
        loss = model.loss(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0 or step == steps:
            print(f"  step {step:3d}  loss {loss.item():.3f}")
    prompt = torch.tensor([tok.encode("The embedding").ids])
    out = model.generate(prompt, 30)
    print("greedy continuation: ", repr(tok.decode(out[0])))
    sampled = model.generate(prompt, 30, do_sample=True, top_k=20, generator=torch.Generator().manual_seed(seed))
    print("top-20 sample:       ", repr(tok.decode(sampled[0])))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--steps", type=int, default=300, help="training steps of the small MiniGPT in 18.4.9 (default 300, ~7 s)"
    )
    args = parser.parse_args(argv)
    if args.steps < 0:
        parser.error(f"--steps {args.steps}: give 0 or more training steps")
    # The models here are tiny: one thread is fastest, and extra threads only fight for shared cores.
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    print("PyTorch version:", torch.__version__)
    both_directions()
    lookup_is_indexing()
    positions()
    lm_head_loss()
    tying()
    minigpt()
    generation(args.seed, args.steps)


if __name__ == "__main__":
    main()
