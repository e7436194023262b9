"""dnnlpy: the kit's teaching library, call-compatible with the book's package.

Subpackages: ``dnnlpy.nn`` (layers; ``dnnlpy.nn.functional`` for the maths), ``dnnlpy.models.gpt``
(MiniGPT) and ``dnnlpy.tokenizers`` (byte-level BPE and a small shipped corpus).
"""

from . import models, nn

__version__ = "0.1.0"

__all__ = ["nn", "models", "tokenizers", "__version__"]


def __getattr__(name: str):
    # The tokenizer pulls in Hugging Face `tokenizers`; load it only when asked for.
    if name == "tokenizers":
        import importlib

        return importlib.import_module(".tokenizers", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
