"""Trusted: the words students and instructors read: test names, cleaned messages, the run in plain sentences.

Messages come from the hidden suite and quote the student's exceptions, so they are cleaned for reading, not
rewritten: repeated phrases and stray spaces go, and the runner's cell references (``<notebook> [cell 25]:16``,
counted from 0 with text cells included) become ``cell 26, line 16``, counted the way a student counts, with
``CELL_NOTE`` saying so once on each page. ::

    readable_test("test_identity.py::test_wrapper_head_is_the_embedding_parameter[2]")
        -> "wrapper head is the embedding parameter [2]"
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from autograder.messages import clean_message
from autograder.result import STATUS_WORDS, Result

__all__ = [
    "readable_test",
    "clean_message",
    "split_raised",
    "split_subject",
    "run_lines",
    "cell_starts",
    "CELL_NOTE",
    "PART_NOTE",
    "starter_code",
]

CELL_NOTE = "Cells are numbered from 1 at the top of the notebook, text cells included."
PART_NOTE = "Parts of a .py file are numbered from 1; a line starting with # %% begins a new part."

_RAISED = re.compile(r"^(?P<context>.*?)\s*failed: your code raised (?P<error>.+)$", re.DOTALL)
_SUBJECT = re.compile(
    r"^(?P<subject>[A-Za-z_][\w.]*(?:\([^()\n]{0,120}\))?(?: after [^:\n]{1,80})?): (?P<rest>.+)$", re.DOTALL
)


def readable_test(test_id: str) -> str:
    """'test_generation.py::test_generate_respects_block_size[2]' -> 'generate respects block size [2]'."""
    func = str(test_id).rpartition("::")[2] or str(test_id)
    base, bracket, params = func.partition("[")
    base = base[5:] if base.startswith("test_") else base
    return base.replace("_", " ").strip() + (f" [{params}" if bracket else "")


def split_raised(message: str) -> tuple[str, str] | None:
    """('MiniGPTWithWeightTying (SGD step)', 'NotImplementedError (at cell 26, line 16, in __init__)') for a
    cleaned 'X failed: your code raised E' message; None for any other message."""
    match = _RAISED.match(message)
    return (match.group("context").strip(), match.group("error").strip()) if match else None


def split_subject(message: str) -> tuple[str, str]:
    """('TiedEmbeddingLM after .to(torch.float64)', 'lm_head.weight did not change ...') for a message that
    opens with what it checked; ('', message) otherwise."""
    match = _SUBJECT.match(message)
    return (match.group("subject"), match.group("rest").strip()) if match else ("", message)


def starter_code(message: str) -> bool:
    """Whether a message reports the starter code's NotImplementedError (a part not written yet)."""
    return "NotImplementedError" in message


def cell_starts(path: str | Path | None) -> dict[int, str]:
    """cell index -> the cell's first line of code, from the submission on disk ({} when not a notebook)."""
    if path is None or Path(path).suffix != ".ipynb":
        return {}
    try:
        from autograder.submissions import read_submission

        cells = json.loads(read_submission(Path(path))[1]).get("cells", [])
    except Exception:  # without it the page says "cell 20" only
        return {}
    out: dict[int, str] = {}
    for index, cell in enumerate(cells if isinstance(cells, list) else []):
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        source = "".join(source) if isinstance(source, list) else str(source)
        first = next((line.strip() for line in source.splitlines() if line.strip()), "")
        if first:
            out[index] = first if len(first) <= 60 else first[:57] + "..."
    return out


def _place(index: int, kind: str, starts: dict[int, str]) -> str:
    if kind == "py":
        return f"part {index + 1}"
    start = starts.get(index)
    return f"cell {index + 1}" + (f" (starts with “{start}”)" if start else "")


def run_lines(result: Result, *, kind: str = "ipynb", starts: dict[int, str] | None = None) -> list[str]:
    """How the run went, for the student: a sentence, then one line per part that raised while loading."""
    run = result.run
    if result.grader_error is not None:
        return ["The grader could not grade this submission (its own failure, not yours): it will be graded again."]
    if run is None:
        return [clean_message(result.output)] if result.output else []
    values = {"limit": run.limit, "memory": run.memory, "exit_code": run.exit_code, "signal": run.signal}
    try:
        words = STATUS_WORDS.get(run.status, "The run ended with status {status}.").format(status=run.status, **values)
    except (KeyError, ValueError, IndexError):
        words = f"The run ended with status {run.status}."
    lines = [f"Your submission was not run: {clean_message(run.rejected)}."] if run.rejected else []
    errors = [(i, clean_message(m)) for i, m in run.load_errors if isinstance(i, int)][:10]
    if errors and run.status == "ok":
        what = "parts" if kind == "py" else "cells"
        words = f"Your code ran to the end, but {len(errors)} of its {what} raised an error:"
    lines.append(words)
    for index, message in errors:
        why = (
            ": it uses a part that still holds the starter code (raise NotImplementedError)"
            if starter_code(message)
            else ""
        )
        lines.append(f"• {_place(index, kind, starts or {})} raised {message}{why}")
    missing = [n for n in run.required_names if n not in run.defined]
    if missing and run.status in ("ok", "memory"):
        lines.append("Not defined by your submission: " + ", ".join(missing) + " (check the exact names).")
    return lines
