"""Trusted: the rich console the command line prints with: the terminal's width in a terminal, no wrapping
anywhere else (a pipe, a CI log, a file), so a sentence is never cut in the middle of a phrase."""

from __future__ import annotations

__all__ = ["make_console", "LOG_WIDTH"]

LOG_WIDTH = 240  # columns a table may use when the output is not a terminal; plain text is never wrapped


def make_console(*, stderr: bool = False, file=None):
    """A rich Console for stdout (or stderr, or `file`)."""
    from rich.console import Console

    console = Console(stderr=stderr, file=file)
    if console.is_terminal:
        return console
    return Console(stderr=stderr, file=file, width=LOG_WIDTH, soft_wrap=True)
