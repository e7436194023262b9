"""Trusted: the judge, which runs a grader's hidden suite on plain evidence, never beside student code.

- ``suite``: the one suite runner (plain test functions of ``plan``, ``evidence``, ``run``; points from the
  marking scheme; each failure a ``Finding``);
- ``suite_api``: what suites call to fetch records, check values and fail (``need``, ``plain_tensor``, ``Failed``);
- ``server`` / ``client`` / ``wire``: the judge process, the grader's side of it, its messages;
- ``memo``: what the judge keeps between submissions of one plan, bounded.
"""
