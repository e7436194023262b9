"""The selftest self-check as ``coursecheck`` runs it: this release's catalog, edition and demonstrations."""

from __future__ import annotations

from coursecheck.assignment import Assignment, SelfCheck

from . import messages
from .edition import LANGUAGE
from .released_demos import DIGESTS

__all__ = ["SELF_CHECK"]

SELF_CHECK = SelfCheck(
    Assignment(
        name="selftest",
        names=("add",),
        catalog=messages,
        edition=LANGUAGE,
        released_demos=DIGESTS,
        covers=("seeds",),  # check.covers.seeds: what only the hidden suite checks
    )
)
