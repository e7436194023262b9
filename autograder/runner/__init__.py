"""Untrusted: what runs inside the sandbox, next to student code (started as ``python -m autograder.runner``).

Everything in this package may be read, patched or broken by the submission it runs with: it only loads the
submission, calls the grader's experiments and writes plain evidence. Nothing here judges.
"""
