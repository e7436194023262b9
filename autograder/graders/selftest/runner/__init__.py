"""Untrusted: the toy grader's experiments (shown whole to the sandbox)."""
