# expect: wrong positional_tied
# why: wrapper builds an untied MiniGPT and ties the head to pos_embed.weight instead of token_embed.weight.
# fails: test_wrapper_counts_untied_minus_vd, test_wrapper_dropout_honoured, test_wrapper_float64, test_wrapper_head_is_the_embedding_parameter, test_wrapper_loss_values, test_wrapper_num_heads_honoured, test_wrapper_positional_embedding_not_tied, test_wrapper_sgd_step_updates_table_once, test_wrapper_shapes_and_values, test_wrapper_shared_gradient_is_sum_of_paths, test_wrapper_state_dict_matches_hyperparameters, test_wrapper_tie_survives_state_dict_reload, test_wrapper_tie_survives_to_float64
# marks: 58-68
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import dnnlpy.nn as dnn
import dnnlpy.models.gpt as gpt


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = dnn.Linear(embed_dim, vocab_size, bias=False)
        self.lm_head.weight = self.token_embed.weight

    def forward(self, input_ids):
        x = self.token_embed(input_ids)  # (B, T, D)
        return self.lm_head(x)  # (B, T, V)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim=embed_dim, num_layers=num_layers,
                                   num_heads=num_heads, hidden_dim=hidden_dim, dropout=dropout,
                                   weight_tying=False)
        self.minigpt.lm_head.weight = self.minigpt.pos_embed.weight

    def forward(self, input_ids):
        return self.minigpt(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        ids = input_ids
        for _ in range(max_new_tokens):
            context = ids[:, -self.minigpt.block_size:]
            logits = self.minigpt(context)  # (B, t, V)
            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)  # (B, 1)
            ids = torch.cat([ids, next_id], dim=1)
        return ids
