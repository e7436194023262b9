"""Neural-network layers of the teaching library, each a small readable ``torch.nn.Module``.

The chapter imports this package as ``dnn``: ``dnn.Linear(embed_dim, vocab_size, bias=False)``.

At the float limits
-------------------
What the functions of ``dnnlpy.nn.functional`` and the modules here return at +-inf, nan and near the float
maximum, the same on every machine. torch's own kernels, which the modules run, differ there by CPU, tensor
length and code path (its GELU gives inf for 3e38 in a float32 tensor of two elements, 3e38 in one of one),
so this is dnnlpy's statement, not torch's. ``tests/dnnlpy/nn/test_nn_float_limits.py`` holds both to it.

- ``gelu`` and ``GELU``, both forms: nan -> nan, +inf -> +inf, -inf -> 0. A finite x gives a finite value of
  x's sign (or 0), never larger than |x|: x itself from 10 up to the float maximum, 0 within 1e-22 from -10
  down (GELU's exact values round to those in every float dtype). Its gradient is 1 above 10 and 0 below
  -10, +-inf included.
- ``softmax`` and ``log_softmax`` along ``dim``: a row of finite logits, however large, gives probabilities
  in [0, 1] that sum to 1 (log-probabilities <= 0, -inf only where the exact value is below minus the float
  maximum). A -inf logit gets probability 0 (log: -inf) and leaves the others as if it were absent. A row
  holding a nan or a +inf, or only -inf, is nan throughout, as in torch.
- ``layer_norm`` and ``LayerNorm``: a row (the trailing ``normalized_shape`` entries) holding a nan or an inf is nan
  throughout. A finite row is normalised, to rounding, while the sum of its entries' squares is finite in
  its dtype (entries up to ~1e19 / sqrt(n) in float32, ~1e154 / sqrt(n) in float64, for n entries); past
  that each entry comes back as its normalised value, 0 (before ``weight`` and ``bias``: the variance
  overflowed) or nan, by the kernel, nothing else. A normalised value lies within +-sqrt(n - 1); ``weight``
  and ``bias`` then apply in plain IEEE arithmetic.
- ``cross_entropy_loss``: finite logits, however large, give a finite loss >= 0, except +inf where what it
  reads passes the float maximum: the target's log-probability (a -inf logit, or one further than the float
  maximum below the row's largest) and, with ``label_smoothing`` > 0, every class's and their sum (with
  ``label_smoothing`` = 1 the target's own term weighs 0: nan where it is -inf, 0 * inf, as in torch). A
  counted position whose logits hold a nan or a +inf gives nan; an ignored one adds nothing; a mean over no
  counted target is nan (0 / 0), a sum 0. With probability targets, a -inf logit whose target probability
  is 0 gives nan (0 * -inf), as in torch.
- ``linear``, ``attention_weights``, ``scaled_dot_product_attention``, ``Linear`` and ``MultiheadAttention``:
  IEEE arithmetic, no guard. Finite inputs whose products and sums stay finite give finite outputs, the
  attention weights of each query probabilities that sum to 1 (0 for a query with no key left); a nan or
  an inf reaches the outputs that read it, and a sum that overflows in one order of addition but not in
  another (near the float maximum) comes back +-inf or finite, by the kernel.
"""

from . import functional
from .activation import GELU
from .attention import MultiheadAttention
from .dropout import Dropout
from .embedding import Embedding
from .linear import Linear
from .normalization import LayerNorm

__all__ = ["Linear", "Embedding", "LayerNorm", "GELU", "Dropout", "MultiheadAttention", "functional"]
