"""The readable one-submission table: short test names, each failure's message under its row."""

from __future__ import annotations

from rich.console import Console

from autograder.outputs.table import readable_name, render
from autograder.result import Result

RESULT = {
    "score": 2.0,
    "max_score": 7.0,
    "output": "Your code ran to the end.",
    "extra_data": {"areas": {"parameter identity": [2.0, 2.0], "generation": [0.0, 5.0]}},
    "tests": [
        {
            "name": "test_identity.py::test_same_parameter",
            "score": 2.0,
            "max_score": 2.0,
            "status": "passed",
            "output": "",
            "tags": ["parameter identity"],
        },
        {
            "name": "test_generation.py::test_generate_respects_block_size_when_the_prompt_is_long[3]",
            "score": 0.0,
            "max_score": 5.0,
            "status": "failed",
            "tags": ["generation"],
            "output": "generate() kept 12 tokens of context but block_size is 8: crop to the last block_size "
            "tokens before each step [red]not markup[/red]",
        },
    ],
}


def test_readable_name_drops_file_and_test_prefix():
    assert readable_name("test_generation.py::test_generate_respects_block_size") == "generate respects block size"
    assert readable_name("test_x.py::test_shape[2-3]") == "shape [2-3]"
    assert readable_name("check_me") == "check_me".replace("_", " ")


def test_table_shows_whole_names_and_wrapped_messages_under_failures():
    console = Console(width=80, record=True, color_system=None)
    render(Result.from_gradescope(RESULT), title="alice.ipynb", console=console)
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text and "test_generation.py" not in text
    flat = " ".join(" ".join(line.strip("│ ").split()) for line in lines)
    assert "generate respects block size when the" in flat and "same parameter" in flat
    # the message is wrapped inside the table, after its test's name, and rich markup in it is shown as is
    name_row = next(i for i, line in enumerate(lines) if "generate respects" in line)
    message_row = next(i for i, line in enumerate(lines) if "generate() kept 12" in line)
    assert message_row > name_row and "[red]not" in text
    assert "Score: 2 / 7" in text
