"""dnnlpy: the kit's teaching library, call-compatible with the book's package.

Subpackages: ``dnnlpy.nn`` (layers; ``dnnlpy.nn.functional`` for the maths), ``dnnlpy.models.gpt``
(MiniGPT) and ``dnnlpy.tokenizers`` (byte-level BPE and a small shipped corpus).

Each subpackage is imported when first named (``import dnnlpy; dnnlpy.nn.Linear`` works as the book writes it).
The notebook reader and the self-check the kit builds around the chapter are ``coursecheck``'s, not the book's.
"""

import importlib

__version__ = "0.1.0"

__all__ = ["nn", "models", "tokenizers", "__version__"]

_SUBPACKAGES = frozenset({"nn", "models", "tokenizers"})


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_SUBPACKAGES})
