"""Both sides: coursecheck, a course notebook read and checked as the grader reads it, for the students'
self-check and the grader alike (the book's own library is ``dnnlpy``).

- ``coursecheck.notebook``: a notebook's (or a script's) code cells run as a kernel would, and cells named to
  people (``coursecheck.cells``: a cell's code as it runs, what it binds and reads; ``coursecheck.reach``: whether
  it can reach names without naming them); the grader's runner reads submissions with it;
- ``coursecheck.selfcheck``: a released assignment's submission found and loaded for its ``pytest`` self-check;
- the self-check any assignment runs: ``coursecheck.assignment`` (``Assignment``: what differs between
  assignments, as data; ``SelfCheck``: the one object a release's checks package makes), ``checks`` (each check
  once, after what it needs), ``calls`` (the student's code called), ``words`` and ``messages`` (its words, in the
  student's language), ``budget`` (time budgets), ``demos`` (which cells run), ``practice`` (a notebook's practice
  cell) and ``plugin`` (``pytest`` in a released folder).

Nothing is imported with the package itself: ``import coursecheck.notebook``, which the grader's coordinator
needs for cell names, pulls in no torch.
"""

__all__: list[str] = []
