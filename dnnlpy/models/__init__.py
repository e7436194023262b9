"""Models of the teaching library. ``dnnlpy.models.gpt`` holds MiniGPT."""

from . import gpt
from .gpt import MiniGPT, count_parameters

__all__ = ["gpt", "MiniGPT", "count_parameters"]
