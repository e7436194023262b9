"""Trusted: the toy grader's reference answer (graded by calibrate like any submission)."""


def add(a, b):
    return a + b
