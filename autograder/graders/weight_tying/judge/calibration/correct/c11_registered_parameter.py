# expect: correct
# why: lm_head is a bare nn.Module given the shared Parameter with register_parameter; logits via torch.matmul and transpose(0, 1); generate keeps a Python list of new columns.
import torch
import torch.nn as nn

from dnnlpy.models.gpt import MiniGPT


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = nn.Module()
        self.lm_head.register_parameter("weight", self.token_embed.weight)

    def forward(self, input_ids):
        emb = self.token_embed(input_ids)
        return torch.matmul(emb, self.lm_head.weight.transpose(0, 1))


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        config = dict(embed_dim=embed_dim, num_layers=num_layers, num_heads=num_heads,
                      hidden_dim=hidden_dim, dropout=dropout)
        self.minigpt = MiniGPT(vocab_size, block_size, weight_tying=True, **config)

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        new_cols = []
        ids = input_ids
        for _ in range(max_new_tokens):
            logits = self.minigpt(ids[:, -self.minigpt.block_size:])
            col = logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
            new_cols.append(col)
            ids = torch.cat([ids, col], dim=1)
        return torch.cat([input_ids] + new_cols, dim=1)
