"""Untrusted: which dnnlpy a graded run imports: the grader's copy, when the sandbox names one.

A grader may withhold part of the teaching library from the runs it grades (``autograder.sandbox.library``
builds the copy). The sandbox names the copy's folder in ``LIBRARY_ENV``; the runner, before it imports
anything of the library, and the warm zygote, before its imports, put that folder first on ``sys.path``, so
``import dnnlpy`` finds the copy. Student code runs later and may undo it: then it finds no dnnlpy in the
sandbox's view at all, or (without namespaces) the real one, which is its own code, not a way to earn.
"""

from __future__ import annotations

import os
import sys

__all__ = ["LIBRARY_ENV", "put_first"]

LIBRARY_ENV = "AUTOGRADER_LIBRARY"  # the folder holding the copy's dnnlpy/, set by the sandbox's config


def put_first(folder: str | None = None) -> None:
    """`folder` (default: the one ``LIBRARY_ENV`` names, if any) first on ``sys.path``, once."""
    folder = folder if folder is not None else os.environ.get(LIBRARY_ENV)
    if folder and (not sys.path or sys.path[0] != folder):
        sys.path.insert(0, folder)
