"""Untrusted: a check calling the student's code: a stub or an exception becomes one short message, never a
traceback, naming the line of the student's own code that raised (a notebook cell, a practice cell the kernel
ran, or a file), in the student's language.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable

import torch

from coursecheck.notebook import cell_at

from .checks import Failed
from .words import Words

__all__ = ["Calls"]


class Calls:
    """How an assignment's checks call the student's code; `words` its words, `libraries` the packages whose
    frames are never the student's (the course's library), `package` the folder of its checks."""

    def __init__(self, words: Words, libraries: tuple[str, ...], package: str) -> None:
        self.words = words
        self._not_theirs = (os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)), package)
        self._libraries = tuple(f"/{name}/" for name in libraries)

    def call(self, what: str, fn: Callable, *args, **kwargs):
        """Run the student's code; a stub or an exception becomes one short Failed message, never a traceback."""
        try:
            return fn(*args, **kwargs)
        except NotImplementedError:
            stub = what.split("(")[0]  # "TiedEmbeddingLM(vocab_size=20, ...)" is the class's __init__
            key, params = "checkfail.not_implemented", {"what": stub}
        except Exception as error:  # the student's bug: name it in one line
            first = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
            key, where = self._where(error)
            params = {"what": what, "error": type(error).__name__, "message": first, **where}
        raise self.failed(key, **params)  # outside the except block: no "During handling of ..." chain

    def attribute(self, obj: object, name: str, owner: str):
        """obj.<name>, or a Failed message naming the contract."""
        if not hasattr(obj, name):
            raise self.failed("checkfail.no_attribute", owner=owner, name=repr(name), attr=name)
        return getattr(obj, name)

    def failed(self, key: str, **params: object) -> Failed:
        """A Failed of the catalog's message `key`: in the student's language, its English kept for the checks."""
        return Failed(self.words.tell(key, **params), key, params, self.words.render(key, "en", **params))

    def _where(self, error: BaseException) -> tuple[str, dict]:
        """The message naming the deepest frame of the student's own code, and its values: a cell the self-check
        ran ({"place": "cell 17 (in “...”, starting “...”)", "line": 4, "note": how cells are counted}), one the
        notebook's kernel ran (a practice cell: "the cell marked [5] ...", never IPython's file name for it; no
        note), a file ({"file": ..., "line": ...}), or none ({})."""
        frames = [
            f
            for f in traceback.extract_tb(error.__traceback__)
            if not f.filename.startswith(self._not_theirs)
            and not any(library in f.filename.replace(os.sep, "/") for library in self._libraries)
        ]
        if not frames:
            return "checkfail.raised", {}
        last = frames[-1]
        place = cell_at(last.filename)
        if place is not None:  # named by its number: the note says how cells are counted
            note = self.words.catalog.Said("check.cells_counted")
            return "checkfail.raised_in_counted_cell", {
                "place": self.words.cell_name(place),
                "line": last.lineno,
                "note": note,
            }
        named = self.words.kernel_cell(last.filename)
        if named:
            return "checkfail.raised_in_cell", {"place": named, "line": last.lineno}
        return "checkfail.raised_in_file", {"file": os.path.basename(last.filename), "line": last.lineno}
