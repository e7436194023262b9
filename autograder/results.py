"""Results: the Gradescope-style dict, the per-area summary, and the readable table.

Format (a common interchange format that Gradescope and other tools read)::

    {"score": 7.0, "max_score": 10.0, "execution_time": 2.9, "output": "<run status in plain words>",
     "tests": [{"name", "score", "max_score", "status": "passed"|"failed", "output", "tags": [area]}],
     "extra_data": {"run": {...}, "seed": 123, "areas": {area: [score, max]}}}
"""
from __future__ import annotations

from typing import Any, Iterable

from autograder.judge import TestResult

__all__ = ["run_summary", "build_result", "error_result", "area_scores", "render", "readable_name", "STATUS_WORDS"]

STATUS_WORDS = {
    "ok": "Your code ran to the end.",
    "timeout": "Your code was stopped after {limit:g} s (time limit): tests that needed results it had not "
               "produced yet score 0. Look for an endless loop or a very slow computation.",
    "memory": "Your code ran out of memory (limit {memory}): tests that needed results it had not produced "
              "score 0. Look for a huge tensor or a list that grows without end.",
    "exited": "Your code ended the grading process early (exit code {exit_code}): remove sys.exit(), "
              "os._exit() or quit() from the submission; tests that needed later results score 0.",
    "crashed": "The Python process running your code crashed (signal {signal}): tests that needed later "
               "results score 0.",
}


def run_summary(run: dict[str, Any]) -> str:
    """The top-level `output`: run status, cells that raised, required names not defined."""
    words = STATUS_WORDS.get(run["status"], "Unknown run status {status}.").format(**run)
    lines = [words]
    if run.get("rejected"):
        lines.insert(0, f"Your submission was not run: {run['rejected']}.")
    for cell, message in run.get("load_errors", [])[:10]:
        lines.append(f"While loading your submission, cell/part {cell} raised {message}")
    missing = [n for n in run.get("required_names", []) if n not in run.get("defined", [])]
    if missing and run["status"] in ("ok", "memory"):
        lines.append("Not defined by your submission: " + ", ".join(missing) + " (check the exact class names).")
    return "\n".join(lines)


def area_scores(tests: Iterable[dict]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for test in tests:
        area = (test.get("tags") or ["other"])[0]
        got, total = out.setdefault(area, [0.0, 0.0]), test["max_score"]
        got[0] += test["score"]
        got[1] += total
    return out


def build_result(*, tests: list[TestResult], run: dict[str, Any], seed: int, execution_time: float) -> dict:
    rows = [{"name": t.name, "score": t.points if t.passed else 0.0, "max_score": t.points,
             "status": "passed" if t.passed else "failed", "output": t.output, "tags": [t.area]} for t in tests]
    return {
        "score": round(sum(r["score"] for r in rows), 6),
        "max_score": round(sum(r["max_score"] for r in rows), 6),
        "execution_time": round(execution_time, 3),
        "output": run_summary(run),
        "tests": rows,
        "extra_data": {"seed": seed, "areas": area_scores(rows), "run": run},
    }


def error_result(message: str, *, max_score: float = 0.0) -> dict:
    """What a batch records for a submission the grader itself could not grade."""
    return {"score": 0.0, "max_score": max_score, "execution_time": 0.0,
            "output": f"The grader could not grade this submission: {message}", "tests": [],
            "extra_data": {"grader_error": message}}


def readable_name(test_id: str) -> str:
    """'test_generation.py::test_generate_respects_block_size[2]' -> 'generate respects block size [2]'."""
    func = str(test_id).rpartition("::")[2] or str(test_id)
    base, bracket, params = func.partition("[")
    base = base[5:] if base.startswith("test_") else base
    return base.replace("_", " ").strip() + (f" [{params}" if bracket else "")


def render(result: dict, *, title: str = "", console=None) -> None:
    """A readable per-area table; a failing test's message sits under its name, wrapped (rich)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    table = Table(title=title or None, show_lines=True)
    table.add_column("area", overflow="fold", max_width=24)
    table.add_column("test", overflow="fold", ratio=1)
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("", justify="center", no_wrap=True)
    for test in sorted(result["tests"], key=lambda t: (t["tags"] or [""])[0]):
        passed = test["status"] == "passed"
        # Text(): names and messages may quote student values; never read them as rich markup.
        cell = Text(readable_name(test["name"]), style="bold" if not passed else "")
        if not passed and test["output"]:
            cell.append("\n" + test["output"].strip(), style="red")
        table.add_row(Text((test["tags"] or [""])[0]), cell, f"{test['score']:g}/{test['max_score']:g}",
                      Text("pass", style="green") if passed else Text("FAIL", style="bold red"))
    console.print(table)
    areas = result.get("extra_data", {}).get("areas", {})
    if areas:
        console.print("  ".join(f"{a}: {s:g}/{m:g}" for a, (s, m) in areas.items()), markup=False, highlight=False)
    console.print(f"Run: {result['output']}", markup=False, highlight=False)
    console.print(f"[bold]Score: {result['score']:g} / {result['max_score']:g}[/bold]")
