"""Public self-check of the selftest assignment: run `pytest` in this folder (every cell in time, then one test per
check of selftest_checks, each after the checks it needs). The graded suite is hidden."""

from __future__ import annotations

from selftest_checks import SELF_CHECK

from coursecheck.plugin import as_tests

globals().update(as_tests(SELF_CHECK))
