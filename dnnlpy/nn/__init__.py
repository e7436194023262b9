"""Neural-network layers of the teaching library, each a small readable ``torch.nn.Module``.

The chapter imports this package as ``dnn``: ``dnn.Linear(embed_dim, vocab_size, bias=False)``.
"""

from . import functional
from .activation import GELU
from .attention import MultiheadAttention
from .dropout import Dropout
from .embedding import Embedding
from .linear import Linear
from .normalization import LayerNorm

__all__ = ["Linear", "Embedding", "LayerNorm", "GELU", "Dropout", "MultiheadAttention", "functional"]
