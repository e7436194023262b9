"""Trusted: one result in a terminal (rich): the score, the charges that make up the points lost, the areas.

The result as rendered when it was graded, in the student's language (``Result.shown_in``), read top to bottom:
its charges as the pages show them (``outputs.charges``: each once, with what it costs and the tests it covers,
so the costs shown sum to the points lost), the headings from the pages' words (``wording.page_words``).
Student text (the title, which is a file name, messages) goes in as ``rich.text.Text``: brackets in a name
like ``x[/a].py`` are shown, never read as markup.
"""

from __future__ import annotations

from autograder.grading.catalog import render as render_catalog
from autograder.grading.result import Result
from autograder.grading.terminal import printable
from autograder.outputs.charges import cards
from autograder.outputs.html import number
from autograder.outputs.wording import all_passed, cards_words, mistake_charged, readable_test

__all__ = ["readable_name", "render"]

readable_name = readable_test  # the name this module has always exported


def render(result: Result, *, title: str = "", console=None, language: str | None = None) -> None:
    """The score, how the run went, then one row per charge (its cost, what it is for, its message, its tests),
    then the areas: the result as rendered in its language (``Result.shown_in``; `language`, the run's
    ``--language``, for a file that does not say its own: ``Result.read_in``), read top to bottom. A blank
    hand-in is that one fact and what to do, an unreadable one why it was not read and the fix."""
    from rich.table import Table
    from rich.text import Text

    from autograder.outputs.console import Words, make_console, say

    shown = result.shown_in(result.read_in(language) if language else None)
    score, top, run = result.score, result.max_score, result.run
    # what the result is, read from its values (as wording.run_state reads them): nothing written yet, a file not
    # read at all; every test passed
    unread = run is not None and run.refusal is not None and result.grader_error is None
    blank = result.blank
    failing = result.failing()
    full = bool(result.tests) and not failing
    charged = cards(shown)
    rule = mistake_charged(failing)  # as the page: the rule is said only where a common mistake is charged
    # each card's cost line and its tests' costs, and the points lost in all ("1 point"), worded as the page's
    w, said = cards_words(charged, shown.language, top - score)
    console = console or make_console()
    if title:
        console.print(Text(printable(title, newlines=False), style="bold"))
    console.print(Text(w["score"].format(score=number(score), top=number(top)), style="bold"))
    if blank or unread:  # as the page says it: nothing written yet (or not read), and what to do; no row per test
        for line in (*shown.run_lines, *([] if unread else [w["blank_todo"]])):
            say(console, printable(line))
        return
    # how the run went, headed as on the page so that a message can point at it; always first, under the score, as
    # the page's status line is (one place whatever happened: a syntax error's charges follow from it)
    ran = [w["how_it_ran_line"], *map(printable, shown.run_lines)] if shown.run_lines else []
    for line in ran:
        say(console, line)
    if charged:
        say(console, printable(w["lost_said"]))
        table = Table(show_lines=True)
        table.add_column(w["cost_column"], justify="right", no_wrap=True)
        table.add_column(w["charge_column"], overflow="fold", ratio=1)
        # a line ends between words, never inside an area's name or a word of the kit's own ("其他评分项")
        keep = (*(a.name for a in shown.areas), *w["terminal_words"].split())
        for card, (costs, test_costs) in zip(charged, said, strict=True):
            cell = Words(printable(card.title), style="bold", keep=keep)
            if card.misconception:
                message = w["same_message"].format(title=card.same_as) if card.same_as else card.message
                cell.append("\n" + printable(message), style="red")
                cell.append("\n" + printable(costs), style="")  # the page's line: what the rule below counts
            if by_area := _by_area(card, run):  # nothing of it ran: a line per area, not every test's title (issue 48)
                for area, (n, lost) in by_area.items():  # the card lists its tests area by area (charges.cards)
                    count = w["test"] if n == 1 else w["tests"].format(n=n)
                    line = w["area_tests_lost"].format(area=area, tests=count, lost=number(lost))
                    cell.append(f"\n  · {printable(line)}", style="")
                table.add_row(Text(number(card.points), style="bold red"), cell)
                continue
            for item, cost in zip(card.tests, test_costs, strict=True):  # worth and cost as the page says them
                line = w["item_detail"].format(area=item["area"], points=cost)
                cell.append(f"\n  · {printable(item['name'])}{printable(line)}", style="")
                if item["part"]:
                    cell.append("\n    " + printable(w["part_charged"].format(part=item["part"])), style="")
                if item["cap"]:  # once per area, under its last test (the card lists its tests area by area)
                    cell.append("\n    " + printable(w["part_charged"].format(part=item["cap"])), style="")
            table.add_row(Text(number(card.points), style="bold red"), cell)  # under "cost": 22, not "-22"
        console.print(table)
        # how cells are counted, once, as the page says it: where a message names a cell by its number (where the
        # code raised: cell.place.bare in the findings' values) and the run's lines above have not said it (issue
        # 48, round 19)
        counted = render_catalog("run.cells_counted", shown.language)
        parts = (s for t in failing if t.finding is not None for s in t.finding.said.walk())
        if any(s.key == "cell.place.bare" for s in parts) and counted not in shown.run_lines:
            say(console, counted)
        if rule:
            say(console, printable(w["rule"]))
    elif full:  # as the page says it, where the charges would be
        n = len(result.tests)
        say(console, all_passed(result, w, w["test"] if n == 1 else w["tests"].format(n=n)))
    if shown.areas:
        scores = [
            w["area_score"].format(area=printable(a.name, newlines=False), got=f"{a.got:g}", top=f"{a.top:g}")
            for a in shown.areas
        ]
        # the page's separator (its area_line): two spaces read as one gap among many; a line ends between areas
        say(console, " · ".join(scores), keep=tuple(scores))


def _by_area(card, run) -> dict[str, tuple[int, float]]:
    """{area: (tests, points lost)} for a card whose tests could not run at all because a cell did not compile
    (each loses all its points for the one reason the card says): empty for any other card, listed test by test."""
    if run is None or not run.compile_failed or card.misconception or len(card.tests) < 2:
        return {}
    if any(item["lost"] != item["points"] for item in card.tests):
        return {}
    out: dict[str, tuple[int, float]] = {}
    for item in card.tests:
        n, lost = out.get(item["area"], (0, 0.0))
        out[item["area"]] = (n + 1, lost + item["lost"])
    return out
