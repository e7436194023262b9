# expect: wrong two_tables
# why: no tie anywhere: exercise 1 keeps a head of its own and the wrapper builds MiniGPT(weight_tying=False): the lesson missed in both exercises.
# fails: test_tied_lm_counts_one_table, test_tied_lm_head_is_the_embedding_parameter, test_wrapper_counts_untied_minus_vd, test_wrapper_head_is_the_embedding_parameter
# marks: 48-59
import torch
import torch.nn as nn
from torch import Tensor

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)

    def forward(self, input_ids: Tensor) -> Tensor:
        x = self.token_embed(input_ids)
        return self.lm_head(x)


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
            weight_tying=False,
        )

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        for _ in range(max_new_tokens):
            context = input_ids[:, -self.minigpt.block_size:]
            logits = self(context)
            next_token = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            input_ids = torch.cat([input_ids, next_token], dim=1)
        return input_ids
