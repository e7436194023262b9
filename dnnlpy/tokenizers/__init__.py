"""Tokenizers of the teaching library: byte-level BPE and the shipped training corpus."""

from .bpe import END_OF_TEXT, Encoding, Tokenizer, load_corpus

__all__ = ["Tokenizer", "Encoding", "load_corpus", "END_OF_TEXT"]
