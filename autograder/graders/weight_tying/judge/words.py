"""Trusted: the hidden suite's words: every message a catalog id with its parameters (a ``Said``), never text.

``say(id, **params)`` builds one message of the grader's catalog (``messages.py``, registered on import);
``reread`` says where the notebook explains the point (``see``, where nothing is written yet to reread). A test
fails with them (``suite_api.Failed`` or a plain ``assert ..., said``); the pages render each in the reader's
language. What is not ours (what the student's code or torch raised, a name the runner reported) is a verbatim
parameter, never a message id.
"""

from __future__ import annotations

from autograder.graders.weight_tying import messages
from autograder.graders.weight_tying.diagnosis import reread
from autograder.protocol.said import Joined, Said, Text

__all__ = ["say", "reread", "see", "title_of", "before_reread"]

# The messages that close with the sections to read (``reread``, ``see``): what is added comes before them
_CLOSING = ("diag.reread", "judge.see")


def say(key: str, /, **params: object) -> Said:
    """The catalog message `key` with its parameters; KeyError naming an id the catalog lacks."""
    if key not in messages.CATALOG:
        raise KeyError(f"no message {key!r} in the weight_tying catalog: add it to messages.py")
    return Said(key, **params)


def see(*numbers: int) -> Said:
    """' (complete section 9, "Exercise 2: ...")': the exercise whose code is still to be written (there is
    nothing of the student's to reread: the starter code's own exception)."""
    return say("judge.see", sections=reread(*numbers).params["sections"])


def before_reread(message: Text, more: Text) -> Text:
    """`message` with `more` added before the section it sends the student to read (that comes last), if any."""
    parts = message.parts if isinstance(message, Joined) else (message,)
    if parts[-1].key in _CLOSING:
        return Joined((*parts[:-1], more, parts[-1]))
    return message + more


def title_of(test: str) -> Said:
    """A suite test's title (its function name, ``test_...``), as the pages name it."""
    return say(f"title.{test.removeprefix('test_')}")
