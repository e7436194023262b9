"""Trusted: grading where courses already grade: a Gradescope autograder package.

- ``package``: ``python -m autograder gradescope-package`` builds the zip Gradescope expects;
- ``run``: what the zip's ``run_autograder`` calls for each submission;
- ``results``: a result as Gradescope's results.json; ``messages``: the engine's words at this edge.
"""
