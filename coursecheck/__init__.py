"""Both sides: coursecheck, a course notebook read and checked as the grader reads it, for the students'
self-check and the grader alike (the book's own library is ``dnnlpy``).

- ``coursecheck.notebook``: a notebook's (or a script's) code cells run as a kernel would, and cells named to
  people (``coursecheck.cells``: a cell's code as it runs, what it binds and reads; ``coursecheck.reach``: whether
  it can reach names without naming them);
- ``coursecheck.selfcheck``: a released assignment's submission found and loaded for its ``pytest`` self-check.

Nothing is imported with the package itself: ``import coursecheck.notebook``, which the grader's coordinator
needs for cell names, pulls in no torch.
"""

__all__: list[str] = []
