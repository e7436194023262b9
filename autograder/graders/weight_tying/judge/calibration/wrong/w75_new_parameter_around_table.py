# expect: wrong data_sharing
# why: TiedEmbeddingLM wraps the embedding's table in a new nn.Parameter for the head: one storage, two Parameter objects.
# fails: test_tied_lm_counts_one_table, test_tied_lm_float64, test_tied_lm_head_is_the_embedding_parameter, test_tied_lm_shared_gradient_is_sum_of_paths, test_tied_lm_tie_survives_state_dict_reload, test_tied_lm_tie_survives_to_float64
# marks: 70-82
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

import dnnlpy.nn as dnn
from dnnlpy.models import gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = nn.Parameter(self.token_embed.weight)  # a new Parameter over the same storage

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.lm_head(self.token_embed(input_ids))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size: int, block_size: int, embed_dim: int = 128, num_layers: int = 4,
                 num_heads: int = 4, hidden_dim: int = 512, dropout: float = 0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout, weight_tying=True)

    def forward(self, input_ids: Tensor) -> Tensor:
        return self.minigpt(input_ids)

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids: Tensor, max_new_tokens: int) -> Tensor:
        self.eval()
        ids = input_ids
        for _ in range(max_new_tokens):
            logits = self.minigpt(ids[:, -self.minigpt.block_size:])
            nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=1)
        return ids
