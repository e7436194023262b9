"""Trusted: what a batch and a calibration print: a summary table, the JSON summary, the calibration table.

Names and notes go in as ``rich.text.Text`` (never markup). The calibration table keeps each file name on
one line: the expectation and the note sit under it in the same cell, so the table fits 80 columns.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["print_batch", "batch_json", "print_calibration"]


def batch_json(outcome, gradebook: Path | None) -> dict:
    """The last line a batch prints with --json: where things are, who was graded now, every score and how its
    run went (as the class table says it: ``wording.run_state``)."""
    from autograder.outputs.wording import run_state

    names = {s.uid: s.name for s in outcome.roster}
    students = {}
    for s in outcome.roster:
        r = outcome.results.get(s.uid)
        students[s.name] = {
            "id": s.uid,
            "score": r.score if r is not None else None,
            "max_score": r.max_score if r is not None else None,
            "status": run_state(r) if r is not None else "no result",
            "late_penalty": outcome.late[s.uid].penalty if s.uid in outcome.late else 0.0,
        }
    return {
        "out": str(outcome.out),
        "seed": outcome.seed,
        "grades_csv": str(outcome.csv_path) if outcome.csv_path else None,
        "report": str(outcome.report) if outcome.report else None,
        "gradebook": str(gradebook) if gradebook else None,
        "graded": [names[u] for u in outcome.graded],
        "up_to_date": [names[u] for u in outcome.reused],
        "students": students,
    }


def print_batch(outcome, console=None, language: str = "en") -> None:
    """The class table (student, score, status) and the run's summary lines, in `language` (the instructor's)."""
    from rich.table import Table
    from rich.text import Text

    from autograder.outputs.console import make_console
    from autograder.outputs.messages_report import report_words
    from autograder.outputs.wording import run_state

    console = console or make_console()
    w = report_words(language)
    table = Table(title=w["batch.title"].format(n=len(outcome.roster)))
    table.add_column(w["col.student"], overflow="fold")  # a long name is folded, never cut to an ellipsis
    for col in ("col.score", "col.status"):
        table.add_column(w[col])
    for student in outcome.roster:
        result = outcome.results.get(student.uid)
        score = f"{result.score:g}/{result.max_score:g}" if result is not None else "-"
        state = run_state(result) if result is not None else ""
        status = w.get(f"kind.{state}", state) if result is not None else w["batch.no_result"]
        table.add_row(Text(student.name), score, status)
    console.print(table)
    # what a run graded and what it kept, never "0 of" either
    key = "batch.graded_now" if not outcome.reused else "batch.graded_and_kept" if outcome.graded else "batch.all_kept"
    if key == "batch.graded_now" and len(outcome.graded) == len(outcome.roster):  # the title said how many
        key = "batch.all_now"
    graded = w[key].format(graded=len(outcome.graded), reused=len(outcome.reused), seed=outcome.seed)
    lines = [graded]
    late = [one for one in outcome.late.values() if one.seconds > 0]
    unreadable = [one for one in outcome.late.values() if one.problem]
    counts = [
        w[key].format(n=len(some))
        for key, some in (("batch.late_after", late), ("batch.late_unreadable", unreadable))
        if some
    ]
    if counts:  # a clause that would say 0 is left out
        lines.append(w["batch.late"].format(counts=w["tests_sep"].join(counts)))
    if outcome.csv_path:
        lines.append(w["batch.grades"].format(csv=outcome.csv_path, results=outcome.out / "results"))
    if outcome.report:
        lines.append(w["batch.report"].format(report=outcome.report, feedback=outcome.out / "feedback"))
    chinese = _in_chinese([r for r in outcome.results.values() if r is not None], language)
    if chinese is not None:
        lines.append(w[chinese[0]].format(n=chinese[1], m=chinese[2]))
    for line in lines:
        console.print(line, markup=False, highlight=False)


def _in_chinese(results: list, language: str) -> tuple[str, int, int] | None:
    """(the words' key, how many, of how many) when a run in English read hand-ins most of which say they are in
    Chinese (``Result.language``, declared by the file); None otherwise."""
    if language != "en" or not results:
        return None
    n = sum(r.language == "zh" and r.language_declared for r in results)
    if 2 * n <= len(results):
        return None
    return ("batch.in_chinese_all" if n == len(results) else "batch.in_chinese_most"), n, len(results)


def print_calibration(verdicts: list, seconds: float, *, assignment: str, console=None) -> None:
    from rich.table import Table
    from rich.text import Text

    from autograder.outputs.console import make_console

    console = console or make_console()
    table = Table(title=Text(f"calibration of {assignment}"), show_lines=True)
    table.add_column("file: expected (note)", overflow="fold", ratio=1)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for v in verdicts:
        cell = Text(v.file, style="bold")
        cell.append(f"\n{v.expected}" + (f" ({v.note})" if v.note else ""), style="")
        verdict = Text("ok", style="green") if v.ok else Text("FAIL", style="bold red")
        table.add_row(cell, f"{v.score:g}/{v.max_score:g}", Text(v.status), verdict)
    console.print(table)
    target = "ok" if seconds < 5 else "SLOW (target < 5 s)"
    console.print(
        f"reference solution graded in {seconds:.2f} s ({target}); "
        f"{sum(v.ok for v in verdicts)}/{len(verdicts)} verdicts ok",
        markup=False,
        highlight=False,
    )
