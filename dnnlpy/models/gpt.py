"""MiniGPT: a small GPT-2-style language model, with embedding / LM-head weight tying when asked for.

The chapter imports this module as ``gpt``::

    model = gpt.MiniGPT(vocab_size=100, block_size=8, embed_dim=32, weight_tying=True)
    logits = model(input_ids)            # (B, T) -> (B, T, V)
    loss = model.loss(token_ids)         # next-token cross-entropy
    out = model.generate(prompt, 20)     # greedy, one token at a time
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from .. import nn as dnn
from .._checks import positive_int, probability
from ..nn import functional as dF
from .blocks import MiniGPTBlock, MiniGPTCausalSelfAttention, MiniGPTMLP
from .sampling import greedy, sample_next_token, sample_top_k, sample_top_p

__all__ = [
    "MiniGPTConfig",
    "MiniGPT",
    "MiniGPTBlock",
    "MiniGPTCausalSelfAttention",
    "MiniGPTMLP",
    "count_parameters",
    "get_batch",
    "greedy",
    "sample_top_k",
    "sample_top_p",
    "sample_next_token",
]

_INIT_STD = 0.02  # GPT-2's initialisation scale for embeddings and linear weights


@dataclass(frozen=True)
class MiniGPTConfig:
    """The hyper-parameters of a MiniGPT, checked once here. A model keeps its config as ``model.config``."""

    vocab_size: int  # V: rows of the token embedding, columns of the logits
    block_size: int  # longest context the model reads (rows of the positional embedding)
    embed_dim: int = 128  # D: width of every token vector and hidden state
    num_layers: int = 4  # number of decoder blocks
    num_heads: int = 4  # attention heads per block; must divide embed_dim
    hidden_dim: int = 512  # width of each block's MLP
    bias: bool = True  # biases in the blocks' Linear and LayerNorm layers (never in the LM head)
    dropout: float = 0.0  # dropout probability after embeddings, attention and MLP
    weight_tying: bool = False  # share token_embed.weight with lm_head.weight (only when asked, as in the book)

    def __post_init__(self) -> None:
        positive_int("vocab_size", self.vocab_size)
        positive_int("block_size", self.block_size)
        positive_int("embed_dim", self.embed_dim)
        positive_int("num_layers", self.num_layers, minimum=0)
        positive_int("num_heads", self.num_heads)
        positive_int("hidden_dim", self.hidden_dim)
        if self.embed_dim % self.num_heads != 0:
            raise ValueError(
                f"embed_dim={self.embed_dim} is not divisible by num_heads={self.num_heads}: "
                f"choose num_heads that divides embed_dim (e.g. num_heads=4 for embed_dim=32)"
            )
        probability("dropout", self.dropout)
        for name in ("bias", "weight_tying"):
            flag = getattr(self, name)
            if not isinstance(flag, bool):  # a string such as "False" would be truthy and silently mean True
                raise TypeError(f"{name} must be True or False, got {flag!r}")


class MiniGPT(nn.Module):
    """Token + position embeddings -> pre-LN decoder blocks -> final LayerNorm -> LM head.

    The LM head is ``dnnlpy.nn.Linear(D, V, bias=False)``. With ``weight_tying=True`` its weight *is*
    ``token_embed.weight`` (one Parameter of shape (V, D)); untied (``weight_tying=False``, the default, as the
    book's MiniGPT before it adds tying), it has its own (V, D) weight, so the two variants differ by exactly
    V*D parameters.
    """

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        embed_dim: int = 128,
        num_layers: int = 4,
        num_heads: int = 4,
        hidden_dim: int = 512,
        bias: bool = True,
        dropout: float = 0.0,
        weight_tying: bool = False,
    ):
        super().__init__()
        # The config is the one place the hyper-parameters live; vocab_size, block_size and weight_tying
        # below are read-only views of it, so the model and its config cannot disagree.
        self.config = MiniGPTConfig(
            vocab_size, block_size, embed_dim, num_layers, num_heads, hidden_dim, bias, dropout, weight_tying
        )
        cfg = self.config

        self.token_embed = dnn.Embedding(cfg.vocab_size, cfg.embed_dim)  # (V, D)
        self.pos_embed = dnn.Embedding(cfg.block_size, cfg.embed_dim)  # (block_size, D)
        self.embed_dropout = dnn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(
            MiniGPTBlock(cfg.embed_dim, cfg.num_heads, cfg.hidden_dim, bias=cfg.bias, dropout=cfg.dropout)
            for _ in range(cfg.num_layers)
        )
        self.final_norm = dnn.LayerNorm(cfg.embed_dim, bias=cfg.bias)
        self.lm_head = dnn.Linear(cfg.embed_dim, cfg.vocab_size, bias=False)  # (D -> V), weight (V, D)
        self.apply(self._init_weights)
        if cfg.weight_tying:
            # Tie after initialising, so the shared Parameter keeps the embedding's N(0, 0.02) values.
            self.lm_head.weight = self.token_embed.weight

    @property
    def vocab_size(self) -> int:
        """V, the number of token ids (``config.vocab_size``)."""
        return self.config.vocab_size

    @property
    def block_size(self) -> int:
        """The longest context the model reads (``config.block_size``)."""
        return self.config.block_size

    @property
    def weight_tying(self) -> bool:
        """Whether ``lm_head.weight`` is ``token_embed.weight`` (``config.weight_tying``)."""
        return self.config.weight_tying

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (dnn.Linear, nn.Linear)):
            nn.init.normal_(module.weight, mean=0.0, std=_INIT_STD)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=_INIT_STD)

    def _check_input_ids(self, input_ids: Tensor, *, any_length: bool = False) -> None:
        """Type, rank and id range of a (B, T) batch; ``any_length`` lifts the block_size limit (generate
        crops a long prompt itself)."""
        if not isinstance(input_ids, Tensor):
            raise TypeError(f"input_ids must be a torch.Tensor of token ids, got {type(input_ids).__name__}")
        if input_ids.dtype not in (torch.int64, torch.int32):
            raise TypeError(
                f"input_ids must be an integer tensor (torch.long), got dtype {input_ids.dtype}: "
                f"token ids are indices, convert with input_ids.long()"
            )
        if input_ids.dim() != 2:
            hint = ": add a batch dimension with input_ids.unsqueeze(0)" if input_ids.dim() == 1 else ""
            raise ValueError(f"input_ids must be 2-D (batch, seq_len), got shape {tuple(input_ids.shape)}{hint}")
        b, t = input_ids.shape
        if t == 0:
            raise ValueError(f"input_ids has shape {tuple(input_ids.shape)}: it needs at least one token")
        if t > self.block_size and not any_length:
            raise ValueError(
                f"input_ids has shape ({b}, {t}) but block_size is {self.block_size}: the positional table has "
                f"{self.block_size} rows, so the model reads at most {self.block_size} tokens at a time"
            )
        if input_ids.numel() == 0:
            return  # an empty batch (B = 0) has no ids to check; forward returns (0, T, V) as torch modules do
        lo, hi = (int(m) for m in torch.aminmax(input_ids))  # one pass for both ends
        if lo < 0 or hi >= self.vocab_size:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"input_ids contains token id {bad}, outside [0, {self.vocab_size}): build the model with "
                f"the tokenizer's vocab_size, or check the ids"
            )

    def forward(self, input_ids: Tensor) -> Tensor:
        """Logits for every position: (B, T) int64 -> (B, T, V)."""
        self._check_input_ids(input_ids)
        _, t = input_ids.shape
        positions = torch.arange(t, device=input_ids.device)  # (T,)
        x = self.token_embed(input_ids) + self.pos_embed(positions)  # (B, T, D) + (T, D) -> (B, T, D)
        x = self.embed_dropout(x)
        for block in self.blocks:
            x = block(x)  # (B, T, D)
        x = self.final_norm(x)
        return self.lm_head(x)  # (B, T, D) -> (B, T, V)

    def loss(self, input_ids: Tensor, targets: Tensor | None = None) -> Tensor:
        """Mean next-token cross-entropy.

        - ``targets=None``: predict ``input_ids[:, 1:]`` from ``input_ids[:, :-1]``.
        - ``targets`` of shape (B, T-1): predict ``targets`` from ``input_ids[:, :-1]`` (the chapter's
          ``model.loss(token_ids, token_ids[:, 1:])``).
        - ``targets`` of shape (B, T): predict ``targets`` from all of ``input_ids`` (already shifted).

        Target positions equal to -100 are ignored. If every one is, the mean has nothing to average: the
        loss is nan, as torch's, but every gradient is 0, so one fully padded batch cannot poison the weights.
        """
        if not isinstance(input_ids, Tensor) or input_ids.dim() != 2:
            self._check_input_ids(input_ids)  # raises the clear type/rank error
        b, t = input_ids.shape
        if targets is None:
            if t < 2:
                raise ValueError(
                    f"input_ids has shape {tuple(input_ids.shape)}: the shifted loss needs at least 2 tokens "
                    f"per row, or pass targets explicitly"
                )
            inputs, targets = input_ids[:, :-1], input_ids[:, 1:]
        elif not isinstance(targets, Tensor):
            raise TypeError(f"targets must be a tensor of token ids or None, got {type(targets).__name__}")
        elif tuple(targets.shape) == (b, t - 1):
            inputs = input_ids[:, :-1]
        elif tuple(targets.shape) == (b, t):
            inputs = input_ids
        else:
            raise ValueError(
                f"targets has shape {tuple(targets.shape)} but input_ids has shape {(b, t)}: pass targets of "
                f"shape {(b, t - 1)} (next tokens of input_ids[:, :-1]) or {(b, t)} (already shifted), or None"
            )
        if targets.is_floating_point() or targets.dtype == torch.bool:
            raise TypeError(f"targets must be integer token ids, got dtype {targets.dtype}: use targets.long()")
        logits = self(inputs)  # (B, T', V)
        v = logits.size(-1)
        # (B*T', V) vs (B*T',); int32 ids are accepted here as in forward, cross-entropy itself wants int64
        return dF.cross_entropy_loss(logits.reshape(-1, v), targets.reshape(-1).long())

    @torch.no_grad()
    def generate(
        self,
        input_ids: Tensor,
        max_new_tokens: int,
        *,
        do_sample: bool = False,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        generator: torch.Generator | None = None,
    ) -> Tensor:
        """Extend ``input_ids`` (B, T) by ``max_new_tokens`` tokens -> (B, T + max_new_tokens) int64.

        One token per step, each step reading only the last ``block_size`` tokens. Greedy (argmax) by
        default; ``do_sample=True`` samples with ``temperature`` and optional ``top_k`` / ``top_p``.
        Runs with dropout off (eval mode) and restores the previous mode afterwards.
        """
        self._check_input_ids(input_ids, any_length=True)  # also when max_new_tokens=0: the prompt is returned
        positive_int("max_new_tokens", max_new_tokens, minimum=0)
        was_training = self.training
        self.eval()
        try:
            ids = input_ids.long()
            for _ in range(max_new_tokens):
                context = ids[:, -self.block_size :]  # (B, <= block_size)
                last_logits = self(context)[:, -1, :]  # (B, V)
                next_id = sample_next_token(
                    last_logits,
                    do_sample=do_sample,
                    temperature=temperature,
                    top_k=top_k,
                    top_p=top_p,
                    generator=generator,
                )
                ids = torch.cat([ids, next_id.unsqueeze(1)], dim=1)  # (B, T) -> (B, T + 1)
            return ids
        finally:
            self.train(was_training)


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of scalar parameters in ``model`` (only those with ``requires_grad`` if ``trainable_only``).

    A tied table is counted once: ``model.parameters()`` yields every Parameter object once, however many
    modules hold it, because PyTorch skips a Parameter it has already seen (by identity, not by value).
    That is the saving of weight tying: ``count_parameters`` of an untied MiniGPT is exactly V * D more.
    """
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def get_batch(
    token_ids: Tensor,
    block_size: int,
    batch_size: int,
    *,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """Random training windows from one long 1-D token stream.

    Returns ``(x, y)``, both (batch_size, block_size) int64, with ``y`` = ``x`` shifted left by one.
    """
    if not isinstance(token_ids, Tensor):
        token_ids = torch.as_tensor(token_ids)
    if token_ids.dim() != 1 or token_ids.is_floating_point():
        raise ValueError(
            f"token_ids must be a 1-D integer tensor (the whole tokenised corpus), got shape "
            f"{tuple(token_ids.shape)} and dtype {token_ids.dtype}"
        )
    positive_int("block_size", block_size)
    positive_int("batch_size", batch_size)
    n = token_ids.numel()
    if n <= block_size:
        raise ValueError(
            f"token_ids has {n} tokens but block_size is {block_size}: a window needs block_size + 1 tokens, "
            f"use a longer text or a smaller block_size"
        )
    starts = torch.randint(0, n - block_size, (batch_size,), generator=generator)  # (batch_size,)
    offsets = torch.arange(block_size)  # (block_size,)
    index = starts[:, None] + offsets[None, :]  # (batch_size, block_size)
    ids = token_ids.long()
    return ids[index], ids[index + 1]
