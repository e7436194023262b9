"""Token lookup table: row ``i`` of ``weight`` is the vector of token id ``i``."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from .._checks import positive_int

__all__ = ["Embedding"]


class Embedding(nn.Embedding):
    """``(...) int ids -> (..., embedding_dim)`` by indexing rows of ``weight`` (num_embeddings, dim).

    A subclass of ``torch.nn.Embedding`` (same parameters, same N(0, 1) init) whose forward is the plain
    row lookup ``weight[ids]`` and whose errors name the bad id instead of an opaque index error.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, device=None, dtype=None):
        positive_int("num_embeddings", num_embeddings)
        positive_int("embedding_dim", embedding_dim)
        super().__init__(num_embeddings, embedding_dim, device=device, dtype=dtype)

    def forward(self, input: Tensor) -> Tensor:
        # Gather rows with index_select rather than weight[input]: same values, but its backward sums the
        # gradients of repeated ids in a fixed order, so training runs are reproducible on CPU. It refuses a
        # non-integer or out-of-range id itself, so the checks (a min and a max: two more ops) run only then.
        try:
            rows = self.weight.index_select(0, input.reshape(-1))  # (N,) -> (N, D)
        except (AttributeError, TypeError, IndexError, RuntimeError):
            rows = None  # checked below, out of this block, so that the clear error has no chained traceback
        if rows is None:
            self._check_ids(input)
            rows = self.weight.index_select(0, input.reshape(-1))  # the checks passed: torch's own error stands
        return rows.view(*input.shape, self.embedding_dim)  # (...) -> (..., D)

    def _check_ids(self, input: object) -> None:
        """Raise the clear error for ids the lookup refused."""
        if not isinstance(input, Tensor):
            raise TypeError(f"Embedding expects a tensor of token ids, got {type(input).__name__}")
        if input.dtype not in (torch.int64, torch.int32):
            raise TypeError(
                f"token ids must be an integer tensor (torch.long), got dtype {input.dtype}: convert with ids.long()"
            )
        if input.numel() > 0:
            lo, hi = int(input.min()), int(input.max())
            if lo < 0 or hi >= self.num_embeddings:
                bad = lo if lo < 0 else hi
                raise ValueError(
                    f"token id {bad} is outside [0, {self.num_embeddings}): the table has "
                    f"{self.num_embeddings} rows; check that the tokenizer's vocab_size matches the model"
                )
