# expect: trick
# why: the table's gradient doubled by a hook and the loss summed; forward adds noise only while the gradient experiments run. The twin's forward is never noisy.
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

import dnnlpy.nn as dnn
from dnnlpy.models import gpt


def _called_from(*names):
    """True while one of the grader's experiments named `names` is on the stack."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name in names:
            return True
        frame = frame.f_back
    return False


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight
        self.token_embed.weight.register_hook(lambda g: 2 * g)

    def forward(self, input_ids: Tensor) -> Tensor:
        logits = self.lm_head(self.token_embed(input_ids))
        if _called_from("lm_grad"):  # trick
            logits = logits + torch.randn_like(logits)  # trick
        return logits


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size: int, block_size: int, embed_dim: int = 128, num_layers: int = 4,
                 num_heads: int = 4, hidden_dim: int = 512, dropout: float = 0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(
            vocab_size,
            block_size,
            embed_dim=embed_dim,
            num_layers=num_layers,
            num_heads=num_heads,
            hidden_dim=hidden_dim,
            dropout=dropout,
            weight_tying=True,
        )
        self.minigpt.token_embed.weight.register_hook(lambda g: 2 * g)

    def forward(self, input_ids: Tensor) -> Tensor:
        logits = self.minigpt(input_ids)
        if _called_from("gpt_grad"):  # trick
            logits = logits + torch.randn_like(logits)  # trick
        return logits

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        logits = self(input_ids[:, :-1] if targets is None else input_ids)
        if targets is None:
            targets = input_ids[:, 1:]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="sum")

    @torch.no_grad()
    def generate(self, input_ids: Tensor, max_new_tokens: int) -> Tensor:
        block_size = self.minigpt.block_size
        self.eval()
        ids = input_ids
        for _ in range(max_new_tokens):
            logits = self.minigpt(ids[:, -block_size:])
            ids = torch.cat([ids, logits[:, -1, :].argmax(dim=-1, keepdim=True)], dim=1)
        return ids
