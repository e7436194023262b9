"""Student text printed on the instructor's terminal: escape sequences and control characters never get through."""

from __future__ import annotations

import pytest

from autograder.grading.terminal import printable

CASES = {
    "\x1b[31mred\x1b[0m": "red",
    "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07": "click",
    "\x1b]0;title\x1b\\after": "after",
    "\x9b2Jclear": "clear",
    "\x9d8;;https://evil\x9clink": "link",
    "\x1bPdevice control\x1b\\x": "x",
    "bell\x07 back\x08space": "bell backspace",
    "abc\rXYZ": "abc\nXYZ",
    "right\u202eleft\u2066iso\u2069": "rightleftiso",
    "lone \ud800 surrogate": "lone \\ud800 surrogate",
    "\x1b": "",
    "keep tabs\tand\nlines, ünïcode ✓": "keep tabs\tand\nlines, ünïcode ✓",
}


@pytest.mark.parametrize("text", list(CASES))
def test_escapes_and_controls_are_removed(text):
    out = printable(text)
    assert out == CASES[text]
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in out)
    out.encode("utf-8")  # printable means encodable too


def test_one_line_and_limit():
    assert printable("a\nb\tc\x1b[1m", newlines=False) == "a b c"
    assert printable("x" * 100 + "\x1b[2J", limit=10) == "x" * 10
    assert printable(ValueError("e\x1b[1m")) == "e"
