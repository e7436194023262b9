"""Trusted: what of the toy grader's catalog its release carries (``autograder.graders.release`` writes it).

Its self-check says its own ``selftest.check.*`` messages and the hidden suite's words for the mistakes it previews (the
toy keeps no diagnosis of its own: the suite and the checks name a mistake with the same message ids); nothing
else of the catalog leaves the grader.
"""

from __future__ import annotations

from .messages import CATALOG

__all__ = ["RELEASED_FUNCTIONS", "RELEASED_FILES", "SELF_CHECK_IDS", "released_catalog"]

# The suite's messages the self-check's checks say (selftest_checks/checks.py).
SAID_BY_CHECKS = (
    "selftest.not_tensor",
    "selftest.subtraction",
    "selftest.not_sum",
    "selftest.broadcast_shape",
    "selftest.broadcast_values",
)
RELEASED_FUNCTIONS = ("area_name",)  # the catalog's functions the release's messages.py keeps
RELEASED_FILES = ()  # no grader file is copied into the release
SELF_CHECK_IDS = "selftest.check."  # the prefix of the self-check's own ids (its header, titles, ...)


def released_catalog() -> dict:
    """id -> Message: the self-check's own messages and the suite's words its checks say."""
    wanted = {key for key in CATALOG if key.startswith(SELF_CHECK_IDS)} | set(SAID_BY_CHECKS)
    return {key: CATALOG[key] for key in sorted(wanted)}
