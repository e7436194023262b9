"""Trusted: what of the grader's message catalog each release carries (``autograder.graders.release`` writes it).

The self-check and the diagnosis (copied into each release beside ``protocol/said.py``) say the messages of
``RELEASED_PARTS`` and name areas, misconceptions and the notebook's sections; the release's
``weight_tying_checks/messages.py`` holds exactly those (with the self-check framework's own words), as data,
with the catalog's own functions that render them. The hidden suite's titles and the judge's words never leave
the grader (``tests/assignments/test_source_notebook.py`` looks for them in a fresh build).
"""

from __future__ import annotations

import importlib

from .messages import CATALOG

__all__ = [
    "RELEASED_PARTS",
    "RELEASED_PREFIXES",
    "RELEASED_FUNCTIONS",
    "RELEASED_FILES",
    "SELF_CHECK_IDS",
    "released_catalog",
]

# The catalog's parts the self-check and the diagnosis say, and the ids of its other entries they name.
RELEASED_PARTS = ("messages_checks", "messages_checks_failures", "messages_checks_loss", "messages_diagnosis")
RELEASED_PREFIXES = ("area.", "misconception.", "section.")
# The catalog's functions the release's messages.py keeps, copied from the grader's messages.py.
RELEASED_FUNCTIONS = ("render", "area_name", "misconception_title")
# The grader's files copied into the release's checks package: the diagnosis the self-check names mistakes with.
RELEASED_FILES = ("diagnosis.py",)
# The prefix of the self-check's own ids (messages_checks.py: check.header, check.title.<check>, ...).
SELF_CHECK_IDS = "check."


def released_catalog() -> dict:
    """id -> Message: the grader's catalog entries the release says (``RELEASED_PARTS``, ``RELEASED_PREFIXES``)."""
    wanted = set()
    for part in RELEASED_PARTS:
        wanted |= set(importlib.import_module(f"{__package__}.{part}").MESSAGES)
    wanted |= {key for key in CATALOG if key.startswith(RELEASED_PREFIXES)}
    return {key: CATALOG[key] for key in sorted(wanted)}
