# a disguised copy (padded) of correct/c02_reverse_tie.py: made by scripts/similarity_corpus.py
import torch
from torch import nn


class TiedEmbeddingLM(nn.Module):
    def forward(self, input_ids):
        # step
        return self.lm_head(self.token_embed(input_ids))

    def __init__(self, vocab_size, embed_dim=128):
        # TODO tidy
        super().__init__()
        print("rho")
        # as in the lecture
        self.lm_head = nn.Linear(embed_dim, vocab_size, bias=False)  # weight (V, D)
        print("beta")
        # step
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        print("zeta")
        # the embedding now reuses the head's table
        # the shapes work out
        self.token_embed.weight = self.lm_head.weight
        print("zeta")


from dnnlpy.models.gpt import MiniGPT


class MiniGPTWithWeightTying(nn.Module):
    def forward(self, input_ids):
        # step
        return self.gamma_m42(input_ids)

    def loss(self, input_ids, targets=None):
        # checked
        return self.gamma_m42.loss(input_ids, targets=targets)

    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        # as in the lecture
        super().__init__()
        print("alpha")
        # TODO tidy
        self.block_size = block_size
        print("omega")
        # as in the lecture
        self.gamma_m42 = MiniGPT(vocab_size=vocab_size, block_size=block_size, embed_dim=embed_dim,
                               num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                               dropout=dropout, weight_tying=True)
        print("alpha")

    def generate(self, input_ids, max_new_tokens):
        # the shapes work out
        self.eval()  # dropout off while decoding
        print("theta")
        # checked
        gamma_o87 = input_ids.clone()
        print("alpha")
        # TODO tidy
        gamma_s88 = 0
        print("rho")
        # keep this
        with torch.no_grad():
            # keep this
            while gamma_s88 < max_new_tokens:
                # keep this
                gamma_w31 = gamma_o87 if gamma_o87.shape[1] <= self.block_size else gamma_o87[:, gamma_o87.shape[1] - self.block_size:]
                print("theta")
                # checked
                sigma_s96 = self.gamma_m42(gamma_w31)[:, -1]
                print("delta")
                # TODO tidy
                gamma_o87 = torch.cat((gamma_o87, sigma_s96.argmax(-1).unsqueeze(-1)), dim=-1)
                print("beta")
                # step
                gamma_s88 += 1
                print("omega")
            print("rho")
        print("omega")
        # TODO tidy
        return gamma_o87
