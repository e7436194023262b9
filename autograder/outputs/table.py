"""Trusted: the readable per-area table of one result in a terminal (rich), failures' messages under their rows.

Student text (the title, which is a file name, test messages) goes in as ``rich.text.Text``: brackets in a
name like ``x[/a].py`` are shown, never read as markup.
"""

from __future__ import annotations

from autograder.grading.result import Result
from autograder.grading.terminal import printable
from autograder.outputs.wording import clean_message, readable_test, run_lines

__all__ = ["readable_name", "render"]

readable_name = readable_test  # the name this module has always exported


def render(result: Result, *, title: str = "", console=None, kind: str = "ipynb") -> None:
    """A readable per-area table; a failing test's message sits under its name, wrapped (rich)."""
    from rich.table import Table
    from rich.text import Text

    from autograder.outputs.console import make_console

    console = console or make_console()
    table = Table(title=Text(printable(title, newlines=False)) if title else None, show_lines=True)
    table.add_column("area", overflow="fold", max_width=24)
    table.add_column("test", overflow="fold", ratio=1)
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("", justify="center", no_wrap=True)
    for test in sorted(result.tests, key=lambda t: (t.passed, t.area)):  # failures first, suite order inside
        cell = Text(printable(readable_test(test.name)), style="bold" if not test.passed else "")
        if not test.passed and test.output:
            cell.append("\n" + printable(clean_message(test.output)), style="red")
        verdict = Text("pass", style="green") if test.passed else Text("FAIL", style="bold red")
        table.add_row(Text(printable(test.area, newlines=False)), cell, f"{test.score:g}/{test.points:g}", verdict)
    console.print(table)
    if result.areas:
        areas = "  ".join(f"{printable(a, newlines=False)}: {s:g}/{m:g}" for a, (s, m) in result.areas.items())
        console.print(areas, markup=False, highlight=False)
    for line in run_lines(result, kind=kind):
        console.print(printable(line), markup=False, highlight=False)
    console.print(Text(f"Score: {result.score:g} / {result.max_score:g}", style="bold"))
