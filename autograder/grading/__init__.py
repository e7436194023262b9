"""Trusted: grading one submission (``pipeline``: read → job → run → decode → facts → judge → Result) and
the executors that decide which process runs which step (``fresh``, ``pool/``, ``gradescope/``; ``judge/``
is the judge process)."""
