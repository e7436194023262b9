"""Trusted: the judge, which runs a grader's hidden pytest suite on plain evidence in the grader's process.

- ``plugin``: ``run_suite`` and the pytest plugin behind it (fixtures ``plan``, ``evidence``, ``run``;
  markers ``points(n)`` and ``area(name)``; messages only, never tracebacks);
- ``evidence``: what suites call to fetch records and check values (``need``, ``plain_tensor``, ...).
"""
