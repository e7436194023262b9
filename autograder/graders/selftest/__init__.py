"""Both sides: a toy grader that exercises the engine end to end (and shows how to write one).

Contract: a submission defines ``add(a, b)`` returning ``a + b`` for float tensors (broadcasting included).
The plan (trusted) draws the tensors, ``runner/experiments.py`` (untrusted) calls ``add`` and emits plain
tensors, and ``judge/suite/`` (trusted) recomputes ``a + b`` from the plan.
"""
