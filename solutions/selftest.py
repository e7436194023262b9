"""Reference answer of the toy selftest assignment: the notebook's solution cell (its solution region verbatim) and
what ``calibrate`` grades as the grader's reference."""


def add(a, b):
    """The elementwise sum of a and b, broadcast as torch broadcasts."""
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION
