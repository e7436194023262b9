# expect: wrong
# why: everything right except generate, whose while loop never moves its counter on: it never returns, so only the generation tests may be lost (the grader stops it at its time budget and grades the rest).
# fails: test_generate_greedy_past_block_size, test_generate_greedy_within_block_size, test_generate_is_deterministic_argmax, test_generate_returns_prompt_plus_int64_tokens
# marks: 80-84
import torch
import torch.nn as nn
from torch import Tensor

import dnnlpy.nn as dnn
from dnnlpy.models import gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
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

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()
        generated = 0
        while generated < max_new_tokens:  # the mistake: `generated += 1` is missing, so this never ends
            context = input_ids[:, -self.minigpt.block_size:]
            logits = self(context)
            next_token = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            input_ids = torch.cat([input_ids, next_token], dim=1)
        return input_ids
