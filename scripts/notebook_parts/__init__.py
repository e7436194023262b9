"""What every assignment's notebook is built from (``scripts/build_notebook.py``): cell constructors (``cells``), an
edition's words in code cells (``printed``, ``comments``) and markdown (``wrapping``), the hidden suite's points
(``points``), the release's README (``readme``) and the notebook's assembly (``build``). An assignment's content,
``scripts/<grader>_notebook/``, holds only what is its own: its cells, each edition's words, its points' rule."""

from . import build, cells, comments, points, printed, readme, wrapping

__all__ = ["build", "cells", "comments", "points", "printed", "readme", "wrapping"]
