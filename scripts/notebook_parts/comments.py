"""The code's teaching comments and the solution classes' docstrings, in each edition's words.

The code cells and the solutions file (solutions/<assignment>.py) are written once, with English comments; an
edition whose
``COMMENTS`` maps a comment's (or a docstring's) English words to its own gets them in its notebook. Shape
comments (``# (B, T) -> (B, T, D)``) read the same in every language and stay. What nbgrader replaces for
students (between ``### BEGIN SOLUTION`` and ``### END SOLUTION``) is the reference answer: its code stays as
the solutions file writes it, token for token, and its comments are in the edition's words too (a teacher
reads them in the source notebook; nbgrader releases none of them). ``translate`` raises, naming the comment and
the fix, when an edition other than English would keep an English comment.
"""

from __future__ import annotations

import io
import tokenize

__all__ = ["translate", "comments_of", "without_comments"]

_BEGIN, _END = "### BEGIN SOLUTION", "### END SOLUTION"


def comments_of(source: str, *, solutions: bool = True) -> list[tuple[tokenize.TokenInfo, str]]:
    """(token, its words) of every comment and docstring of `source` (`solutions` False: outside the solution
    regions only); the regions' own markers aside."""
    out, inside, previous = [], False, tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string.strip()
        if token.type == tokenize.COMMENT:
            inside = (inside or text == _BEGIN) and text != _END
            if (solutions or not inside) and not text.startswith("###"):
                out.append((token, text.removeprefix("#").strip()))
        elif (
            token.type == tokenize.STRING
            and previous in (tokenize.INDENT, tokenize.NEWLINE)
            and (solutions or not inside)
        ):
            if text.startswith('"""'):  # a docstring: a string alone on its line
                out.append((token, text[3:-3]))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.type
    return out


def translate(source: str, edition) -> str:
    """`source` with its teaching comments and docstrings in `edition`'s words (``edition.COMMENTS``)."""
    from autograder.graders.weight_tying.zh_text import english  # the kit's check of English left in Chinese

    words = getattr(edition, "COMMENTS", {})
    lines = source.split("\n")
    for token, text in reversed(comments_of(source)):
        if text in words:
            new = f"# {words[text]}" if token.type == tokenize.COMMENT else f'"""{words[text]}"""'
        elif edition.LANGUAGE != "en" and english(text):
            raise ValueError(
                f"{edition.__name__} has no words for the comment {text!r}: add it to its COMMENTS "
                "(a shape comment needs none)"
            )
        else:
            continue
        (row, start), (end_row, end) = token.start, token.end
        if row != end_row:
            raise ValueError(f"a docstring of several lines cannot be translated: {text[:60]!r}: write it on one line")
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "\n".join(lines)


def without_comments(source: str) -> list[str]:
    """`source`'s code, token by token, without its comments and layout: what two editions' solution regions
    share (their comments are each edition's words)."""
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    lines = [line.strip() for line in source.splitlines()]  # a region is indented: its code, dedented
    tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
    return [token.string for token in tokens if token.type not in skip]
