# expect: wrong delegated_tie
# why: exercise 1 builds a library MiniGPT(weight_tying=True) and keeps its token embedding and LM head: the pair is tied by the library, not by the student's code.
# fails: test_tied_lm_head_is_the_embedding_parameter
# marks: 70-82
import torch
import torch.nn as nn
from torch import Tensor

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        # Borrow an already-tied pair from the library's MiniGPT instead of tying one.
        library = gpt.MiniGPT(vocab_size, 1, embed_dim=embed_dim, num_layers=0, num_heads=1, weight_tying=True)
        self.token_embed = library.token_embed
        self.lm_head = library.lm_head

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
            weight_tying=True,
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
