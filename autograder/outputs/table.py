"""Trusted: the readable per-area table of one result in a terminal (rich), failures' messages under their rows."""

from __future__ import annotations

from autograder.result import Result
from autograder.terminal import printable

__all__ = ["readable_name", "render"]


def readable_name(test_id: str) -> str:
    """'test_generation.py::test_generate_respects_block_size[2]' -> 'generate respects block size [2]'."""
    func = str(test_id).rpartition("::")[2] or str(test_id)
    base, bracket, params = func.partition("[")
    base = base[5:] if base.startswith("test_") else base
    return base.replace("_", " ").strip() + (f" [{params}" if bracket else "")


def render(result: Result, *, title: str = "", console=None) -> None:
    """A readable per-area table; a failing test's message sits under its name, wrapped (rich)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    table = Table(title=printable(title, newlines=False) or None, show_lines=True)
    table.add_column("area", overflow="fold", max_width=24)
    table.add_column("test", overflow="fold", ratio=1)
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("", justify="center", no_wrap=True)
    for test in sorted(result.tests, key=lambda t: t.area):
        # Text(): names and messages may quote student values; never read them as rich markup, and
        # printable(): never let them drive the terminal either.
        cell = Text(printable(readable_name(test.name)), style="bold" if not test.passed else "")
        if not test.passed and test.output:
            cell.append("\n" + printable(test.output.strip()), style="red")
        verdict = Text("pass", style="green") if test.passed else Text("FAIL", style="bold red")
        table.add_row(Text(printable(test.area, newlines=False)), cell, f"{test.score:g}/{test.points:g}", verdict)
    console.print(table)
    if result.areas:
        areas = "  ".join(f"{printable(a, newlines=False)}: {s:g}/{m:g}" for a, (s, m) in result.areas.items())
        console.print(areas, markup=False, highlight=False)
    console.print(f"Run: {printable(result.output)}", markup=False, highlight=False)
    console.print(f"[bold]Score: {result.score:g} / {result.max_score:g}[/bold]")
