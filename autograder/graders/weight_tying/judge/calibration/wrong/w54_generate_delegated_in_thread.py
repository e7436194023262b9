# expect: wrong delegated_generate
# why: everything right except generate, which hands the loop to MiniGPT.generate(do_sample=False) on another thread (threading.Thread for a batch of several prompts, _thread.start_new_thread for one), hoping the grader watches only the calling thread.
# fails: test_generate_greedy_past_block_size, test_generate_greedy_within_block_size, test_generate_is_deterministic_argmax, test_generate_returns_prompt_plus_int64_tokens
# marks: 78-85
# self-check: grader only: a thread _thread starts is outside the self-check's profile hook; the grader's runs have no decoder to hand the loop to
import _thread
import threading
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from dnnlpy.models import gpt


class SharedHead(nn.Module):
    """Output projection that owns no table of its own: it borrows the embedding's."""

    def __init__(self, weight: nn.Parameter):
        super().__init__()
        self.weight = weight  # registers the very same Parameter object

    def forward(self, h):
        return F.linear(h, self.weight)


class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int = 128):
        super().__init__()
        self.token_embed = nn.Embedding(vocab_size, embed_dim)
        self.lm_head = SharedHead(self.token_embed.weight)

    def forward(self, input_ids):
        h = self.token_embed(input_ids)
        return F.linear(h, self.token_embed.weight)


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        super().__init__()
        self.minigpt = gpt.MiniGPT(vocab_size, block_size, embed_dim, num_layers, num_heads, hidden_dim,
                                   dropout=dropout, weight_tying=True)

    def forward(self, input_ids):
        return self.minigpt.forward(input_ids)

    def loss(self, input_ids, targets=None):
        return self.minigpt.loss(input_ids, targets)

    def generate(self, input_ids, max_new_tokens):
        self.eval()  # dropout off while decoding
        out = {}

        def work():
            out["ids"] = self.minigpt.generate(input_ids, max_new_tokens, do_sample=False)

        if input_ids.shape[0] > 1:
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
        else:  # a thread threading does not know about
            _thread.start_new_thread(work, ())
            while "ids" not in out:
                time.sleep(0.001)
        return out["ids"]
