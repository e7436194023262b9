"""The command line's console: a terminal's width in a terminal, no wrapping in a pipe or a log."""

from __future__ import annotations

import io

from autograder.outputs.console import make_console


def test_a_sentence_is_never_wrapped_when_the_output_is_not_a_terminal():
    buffer = io.StringIO()
    sentence = "reference solution graded in 2.31 s (ok); " + "every verdict was checked against its header " * 3
    console = make_console(file=buffer)
    console.print(sentence, markup=False)
    assert buffer.getvalue() == sentence + "\n" and not console.is_terminal
