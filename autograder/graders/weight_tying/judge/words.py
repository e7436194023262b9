"""Trusted: the hidden suite's words: every message rendered from the catalog in the judgement's language.

The suite's runner sets the language of a judgement (``autograder.grading.judge.suite_api.language``:
English while the marking scheme's judgement runs, then the submission's for a failed test's message).
``say(id, **params)`` renders one catalog message (``messages.py``) in it; ``reread`` and ``language`` pass it
on to the diagnosis. What is not ours (what the student's code or torch raised) is a parameter, kept verbatim.
The engine's helpers (``suite_api``: missing records, shapes, dtypes) speak from the engine's catalog.
"""

from __future__ import annotations

from autograder.graders.weight_tying import diagnosis, messages
from autograder.grading.judge import suite_api

__all__ = ["say", "reread", "language"]


def language() -> str:
    """The language of the judgement in progress ("en" or "zh")."""
    return suite_api.language()


def say(key: str, /, **params: object) -> str:
    """The catalog message `key` in the judgement's language, its parameters filled in."""
    return messages.render(key, suite_api.language(), **params)


def reread(*numbers: int) -> str:
    """Where to reread in the notebook, in the judgement's language (``diagnosis.reread``)."""
    return diagnosis.reread(*numbers, language=suite_api.language())
