"""Untrusted: the weight_tying experiments and their evidence schema (shown whole to the sandbox)."""
