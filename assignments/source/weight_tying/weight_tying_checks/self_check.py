"""The weight-tying self-check as ``coursecheck`` runs it: this release's catalog, edition and demonstrations, and
the names its checks are written with (``check``, ``call``, ``tell``, ...)."""

from __future__ import annotations

import re

from coursecheck.assignment import Assignment, SelfCheck
from coursecheck.checks import Failed

from . import messages
from .diagnosis import reread, see
from .edition import LANGUAGE
from .released_demos import DIGESTS

__all__ = ["SELF_CHECK", "Failed", "check", "call", "attribute", "failed", "tell", "listed", "shown", "language"]

SELF_CHECK = SelfCheck(
    Assignment(
        name="weight_tying",
        names=("TiedEmbeddingLM", "MiniGPTWithWeightTying"),
        catalog=messages,
        edition=LANGUAGE,
        released_demos=DIGESTS,
        reread=reread,
        see=see,
        # The grader's diagnosis may end a hint with the tie line itself; a hint names the mistake, not the answer.
        answer=re.compile(r"[.;,]?\s*[Aa]ssign the Parameter itself: lm_head\.weight = token_embed\.weight"),
        covers=("sizes", "tie", "gradient", "generation"),  # check.covers.<line>: what only the hidden suite checks
        libraries=("dnnlpy",),
    )
)

check = SELF_CHECK.check
call = SELF_CHECK.call
failed = SELF_CHECK.failed
attribute = SELF_CHECK.attribute
tell = SELF_CHECK.words.tell
listed = SELF_CHECK.words.listed
shown = SELF_CHECK.words.shown
language = SELF_CHECK.words.language
