"""Trusted: the result of grading one submission, one model for every output (JSON, CSV, pages, gradebook).

``Result`` holds the tests' outcomes and the run's facts; it alone derives the status, the score and the
per-area totals. It carries what every output shows of it, rendered once per language at step 8 (``shown``:
``grading.shown``, ``grading.rendering``). Between the kit's processes, and in a class folder's
``results/<id>.json``, it travels as ``to_wire`` / ``from_wire``. Gradescope's results format is an output
only, made from it by ``grading.gradescope.results`` (the kit never parses it back).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from autograder.grading.catalog import cell_name, render
from autograder.grading.findings import Finding
from autograder.grading.readable import CELL_STOPPED, SYNTAX_ERRORS, syntax_parts
from autograder.grading.refusals import refused_lines
from autograder.grading.shown import Shown
from autograder.protocol.said import LANGUAGES, Said, Text, ended
from autograder.protocol.said import from_wire as said_from_wire
from autograder.protocol.typed import fields_from_wire, wire_fields
from coursecheck.notebook import CellPlace

__all__ = [
    "TestOutcome",
    "RunFacts",
    "Result",
    "STATUS_MESSAGES",
    "RUN_HEADERS",
    "SYNTAX_ERRORS",
    "syntax_parts",
    "status_words",
    "GRADER_ERROR",
    "JUDGE_LIMIT",
]

GRADER_ERROR = "grader error"  # the status of a submission the grader itself could not grade
JUDGE_LIMIT = "judge limit"  # the judge stopped at its time or memory limit while judging this submission

CELLS_COUNTED = render("run.cells_counted")
# "NotImplementedError:   (at cell 3, ...)": an exception without a message reads as its bare name.
_EMPTY_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*):\s*(?=\(at |$)")

# A blank submission's one line (RunFacts.summary), by whether the file holds no code at all (RunFacts.empty)
_BLANK = {True: "run.blank.empty", False: "run.blank.starter"}
# The run's first line when cells did not finish, by (all syntax errors, what ran: "cells", "parts", a one-part "file")
RUN_HEADERS = {
    (True, "cells"): "run.syntax_cells",
    (True, "parts"): "run.syntax_parts",
    (True, "file"): "run.syntax_file",
    (False, "cells"): "run.ran_but_cells_raised",
    (False, "parts"): "run.ran_but_parts_raised",
    (False, "file"): "run.file_raised",
}
_LISTED = {k: "run.listed." + k[4:] for k in ("run.cell_raised", "run.cell_stopped", "run.cell_starter")}  # headed
_ONE_CELL = {"run.syntax_cells": "run.syntax_cell"}  # a header's words when one cell did not compile

# How a run ended, in words: the engine's catalog (autograder.grading.catalog) renders each in a language.
STATUS_MESSAGES = {s: f"run.{s}" for s in ("ok", "timeout", "memory", "exited", "crashed")} | {
    JUDGE_LIMIT: "run.judge_limit"
}


def status_words(run: RunFacts, language: str = "en", *, stopped: list[str] | tuple[str, ...] = ()) -> str:
    """How `run` ended, one sentence in `language` ("Unknown run status ..." for a status no message has);
    `stopped`: what the checks stopped at their time budget were calling, in `language` (a run that ended
    normally then says so, not "without an error")."""
    key = STATUS_MESSAGES.get(run.status, "run.unknown")
    key = "run.ok.file" if key == "run.ok" and run.unit != "cells" else key  # a .py file has no cells
    key = f"{key}.stopped" if key in ("run.ok", "run.ok.file") and stopped else key
    limit = _num(run.limit)
    return render(
        key,
        language,
        status=run.status,
        limit=f"{limit:g}",
        memory=run.memory,
        what=render("run.names_sep", language).join(stopped),
        exit_code=run.exit_code,
        signal=run.signal,
    )


def _num(value: Any) -> float:
    """A finite float from a JSON field, 0.0 for anything else (missing, text, NaN, bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0.0
    return float(value)


@dataclass
class TestOutcome:
    __test__ = False  # not a pytest test class, whatever its name

    name: str  # test id relative to the suite, e.g. "test_identity.py::test_same_parameter"
    points: float  # what the test is worth
    area: str  # the graded area it belongs to
    passed: bool
    # Why it failed, as values (autograder.grading.findings): None when it passed. Marking reads this; its
    # message is rendered in each language once, at step 8 (``message``, ``Result.shown``), and shown as rendered.
    finding: Finding | None = None
    # The points this test loses under the assignment's marking scheme (autograder.grading.marking): None without
    # one, i.e. all its points when it failed. Never more than its points, and 0 when it passed.
    charged: float | None = None
    # What the charge is for: "misconception:<id>" (one charge per root cause and exercise), "test" (its own
    # points: a crash, a wrong value nobody named, missing evidence), or "" (nothing charged here).
    charged_to: str = ""
    # When the charge is split between several causes (a test of several forms or cases showing several
    # misconceptions): {"misconception:<id>": points, ...}, summing to `charged`; empty for one cause.
    shares: dict = field(default_factory=dict)

    @property
    def score(self) -> float:
        if self.charged is None:
            return self.points if self.passed else 0.0
        return round(max(0.0, self.points - self.charged), 6)

    def message(self, language: str = "en") -> str:
        """What the student reads about this test in `language` ("" when it passed)."""
        return self.finding.render(language) if self.finding is not None else ""

    def to_wire(self) -> dict:
        """Its form between the judge, the workers and this process (``from_wire`` reads it back)."""
        out = wire_fields(self, skip=("finding",))
        out["finding"] = self.finding.to_wire() if self.finding is not None else None
        return out

    @classmethod
    def from_wire(cls, data: Any) -> TestOutcome:
        """A TestOutcome from ``to_wire``'s dict; ValueError naming the field that is not what it should be."""
        fields = fields_from_wire(cls, data, "a test outcome", skip=("finding",))
        finding = data.get("finding")
        outcome = cls(**fields, finding=None if finding is None else Finding.from_wire(finding))
        if outcome.passed == (outcome.finding is not None):
            raise ValueError(f"a test outcome {outcome.name!r:.80}: a failed test has a finding, a passed one none")
        shares = outcome.shares
        if not all(type(k) is str and type(v) in (int, float) and math.isfinite(v) for k, v in shares.items()):
            raise ValueError(f"a test outcome {outcome.name!r:.80}: shares are {{cause: points}}, not {shares!r:.120}")
        return outcome


@dataclass
class RunFacts:
    status: str  # "ok" | "timeout" | "memory" | "exited" | "crashed" (grading.run_status) | "judge limit"
    exit_code: int | None = None
    signal: int | None = None
    wall_seconds: float = 0.0
    limit: float = 0.0  # the wall-time limit, seconds
    memory: str = ""  # the memory limit, in words ("2 GiB")
    stdout_tail: str = ""
    stderr_tail: str = ""
    load_errors: list[list] = field(default_factory=list)  # [[cell index, "Exc: message"], ...]
    defined: list[str] = field(default_factory=list)  # required names the submission defines
    required_names: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the sandbox and the decoder noticed
    isolation: dict = field(default_factory=dict)  # mode, enforced, not_enforced
    # Why the file was not run at all (e.g. too large): the engine's catalog message (autograder.grading.catalog),
    # rendered in each language with the run's summary; None for a run.
    refusal: Said | None = None
    running: dict = field(default_factory=dict)  # the runner's last word on what ran: {"cell": i} or {"check": name}
    # Where the judge stopped, past its limits (``pipeline.judge_stop``: the engine's catalog message, e.g.
    # judge.stopped.time; None when it did not): the not-judged tests' message says it in the student's language.
    judge_stop: Text | None = None
    # The notebook cells the run and its findings name (Jupyter numbers none): index as text -> [heading, first line]
    cells: dict = field(default_factory=dict)
    # What the run tried that its sandbox refused, [kind, what] (grading.refusals: output, files, call): no point
    refused: list[list[str]] = field(default_factory=list)
    # The hand-in holds no code at all (``submissions.holds_code``: blank lines, comments and markdown only), read
    # from the file itself: a blank submission, not one whose classes are misspelt
    empty: bool = False
    # How many parts a .py hand-in runs as (``submissions.py_parts``: ``# %%`` lines split it); 0 for a notebook
    parts: int = 0
    # What the hand-in is (``Submission.kind``, the pipeline's step 1): "ipynb" or "py"; "" in a result written
    # before it was recorded (``unit`` then reads it from the cells named and the parts counted)
    kind: str = ""

    def to_dict(self) -> dict:
        out = asdict(self)
        out["refusal"] = None if self.refusal is None else self.refusal.to_wire()
        out["judge_stop"] = None if self.judge_stop is None else self.judge_stop.to_wire()
        for name in ("refusal", "judge_stop", "cells", "refused", "empty", "parts", "kind"):  # what only some runs have
            if not out[name]:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, data: Any) -> RunFacts | None:
        if not isinstance(data, dict) or not isinstance(data.get("status"), str):
            return None
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        try:
            known["refusal"] = None if known.get("refusal") is None else said_from_wire(known["refusal"])
            known["judge_stop"] = None if not known.get("judge_stop") else said_from_wire(known["judge_stop"])
            return cls(**known)
        except (TypeError, ValueError):
            return cls(status=data["status"])

    @property
    def unit(self) -> str:
        """What the hand-in runs as: "cells" (a notebook), "parts" (a .py file split by ``# %%``) or "file"."""
        if self.kind == "ipynb" or (not self.kind and self.cells):  # a notebook, whether a cell was named or not
            return "cells"
        return "file" if self.parts == 1 else "parts"

    @property
    def compile_failed(self) -> bool:
        """Whether a cell (a .py file's part) did not compile: Python ran none of it."""
        return any(isinstance(i, int) and str(m).startswith(SYNTAX_ERRORS) for i, m in self.load_errors)

    def cell_name(self, index: int, language: str = "en") -> str:
        """Cell `index`'s name in `language`: with its section and first line when this run knows them; a .py
        file's part by its number, or the file itself when it is one part."""
        named = self.cells.get(str(index)) if isinstance(self.cells, dict) else None
        if isinstance(named, list) and len(named) == 2 and all(isinstance(part, str) for part in named):
            return cell_name(CellPlace(index + 1, named[0][:80], named[1][:80]), language)
        form = {"cells": "cell.place.bare", "file": "cell.place.file"}.get(self.unit, "cell.place.part")
        return render(form, language, number=index + 1)

    def syntax_where(self, index: int, line: int, language: str = "en") -> str:
        """Where Python stopped reading cell `index` (a .py file's part): "cell 15 (...), line 13" in a notebook,
        whose lines count from its cell's top; "line 13" in a .py file, whose lines are the file's."""
        if not line:
            return self.cell_name(index, language)
        if self.unit == "cells":
            return render("run.cell_line", language, cell=self.cell_name(index, language), line=line)
        return render("run.file_line", language, line=line)

    def summary(self, language: str = "en", *, blank: bool = False, stopped: list[str] | tuple[str, ...] = ()) -> str:
        """The top-level `output`, in `language` (the engine's catalog): run status, cells that raised,
        required names not defined; a `blank` submission (``Result.blank``) said so, and nothing else.
        `stopped`: what the checks stopped at their time budget were calling (``status_words``)."""
        if self.refusal is not None:  # nothing ran: how a run ends does not apply
            return render("run.not_run", language, why=self.refusal)
        if blank:
            return "\n".join([render(_BLANK[self.empty], language)] + refused_lines(self.refused, language))
        lines = [status_words(self, language, stopped=stopped)]
        errors = [(cell, message) for cell, message in self.load_errors[:10] if isinstance(cell, int)]
        unit = self.unit
        if errors:
            if self.status == "ok":  # a cell Python could not compile did not run at all: not "ran to the end"
                syntax_only = all(str(message).startswith(SYNTAX_ERRORS) for _, message in errors)
                header = RUN_HEADERS[syntax_only, unit]
                lines = [render(_ONE_CELL.get(header, header) if len(errors) == 1 else header, language, n=len(errors))]
        syntax, headed = False, bool(errors) and self.status == "ok"  # a RUN_HEADERS line came first
        numbered = False  # a line names a cell (a part) by its number: the note on numbering then follows
        for cell, message in errors:
            message = _EMPTY_EXCEPTION.sub(r"\1 ", str(message)).strip()
            parsed = syntax_parts(message)
            if parsed is not None:  # where Python stopped reading, the line as it reads, then Python's words
                error, line, code = parsed
                where = self.syntax_where(cell, line, language)
                before = render("run.syntax_before", language) if line > 1 else ""
                said = render("run.syntax_at", language, where=where, before=before, code=code, error=error)
                lines.append(
                    said if code else render("run.syntax_bare", language, where=where, before=before, error=error)
                )
                syntax, numbered = True, numbered or unit == "cells" or not line  # a .py file's line is the file's
                continue
            # what the starter code's own exception means, so the student looks in the right place
            key = "run.file_error" if unit == "file" else "run.cell_raised"
            if message.startswith("NotImplementedError"):
                key = "run.cell_starter"
            elif message.startswith(CELL_STOPPED):  # the runner's budget stopped it (runner/budget.py)
                key = "run.cell_stopped"
            key = _LISTED.get(key, key) if headed else key  # the header says the grader ran it: "loading" once
            lines.append(render(key, language, cell=self.cell_name(cell, language), error=message))
            numbered = True
        if numbered and unit != "file":  # after the cells it counts (a file of one part is named as the file)
            lines.append(render("run.cells_counted" if unit == "cells" else "run.parts_counted", language))
        missing = [n for n in self.required_names if n not in self.defined]
        if missing and self.status in ("ok", "memory"):  # "neither A nor B"; "none of A, B and C": "A、B 和 C 都…"
            many = "" if len(missing) == 1 else "_both" if len(missing) == 2 else "_all"
            head = render("run.names_sep", language).join(missing[:-1])
            names = head + render("run.names_last_sep", language) + missing[-1] if head else missing[-1]
            key = f"run.not_defined_syntax{many}" if syntax else "run.not_defined"
            lines.append(render(key, language, names=names, first=missing[0], second=missing[-1]))
        said = "\n".join(lines + refused_lines(self.refused, language))
        return ended(said) if language == "zh" else said  # each Chinese line a sentence, as a finding's message


@dataclass
class Result:
    tests: list[TestOutcome]
    run: RunFacts | None  # None when the grader could not run the submission at all
    seed: int | None = None  # the judge's plan
    execution_time: float = 0.0  # seconds, grading this submission end to end
    grader_error: str | None = None  # set when the grader itself failed (the student was not graded)
    output: str = ""  # the run's summary in words (derived from `run` unless given)
    language: str = "en"  # the language of `output`, the submission's (autograder.grading.language)
    # Whether the file said its language (False: an unreadable file, a .py file without "# language:"): then
    # `language` is only the default, and the outputs of a run show the result in the run's (``read_in``)
    language_declared: bool = True
    # What every output shows of it, per language (``grading.shown``): rendered once, at step 8
    # (``grading.rendering``); empty for a result nobody rendered yet
    shown: dict[str, Shown] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.output:
            if self.grader_error is not None:
                self.output = render("run.grader_error", self.language, why=self.grader_error)
            elif self.run is not None:
                self.output = self.run.summary(self.language, blank=self.blank)

    @classmethod
    def grader_failure(cls, message: str) -> Result:
        """What a batch records for a submission the grader itself could not grade (no tests, 0 / 0), shown
        as its summary in every language."""
        shown = {one: Shown.bare(one, render("run.grader_error", one, why=message)) for one in LANGUAGES}
        return cls(tests=[], run=None, grader_error=message, shown=shown)

    def shown_in(self, language: str | None = None) -> Shown:
        """What every output shows of this result in `language` (its own by default; one the kit does not speak
        is English), as rendered when it was graded; ValueError when it never was (``grading.rendering``)."""
        language = language or self.language
        language = language if language in LANGUAGES else "en"
        if language not in self.shown:
            raise ValueError(
                f"this result was never rendered in {language!r}: render it once with "
                "autograder.grading.rendering.rendered(result, spec) before showing it (the pipeline's step 8 does)"
            )
        return self.shown[language]

    def read_in(self, run_language: str) -> str:
        """The language this result is shown in by a run whose own language (``grade --language``) is
        `run_language`: the edition the student handed in, or the run's when the file did not say which."""
        language = self.language if self.language_declared else run_language
        return language if language in self.shown else self.language

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_score(self) -> float:
        return round(sum(t.points for t in self.tests), 6)

    @property
    def status(self) -> str:
        """The run status ("ok", "timeout", ...), "grader error", or "unknown"."""
        if self.grader_error is not None:
            return GRADER_ERROR
        return self.run.status if self.run is not None and self.run.status else "unknown"

    @property
    def areas(self) -> dict[str, tuple[float, float]]:
        """area -> (points earned, points possible), in the suite's order."""
        out: dict[str, list[float]] = {}
        for test in self.tests:
            pair = out.setdefault(test.area, [0.0, 0.0])
            pair[0] += test.score
            pair[1] += test.points
        return {area: (got, total) for area, (got, total) in out.items()}

    @property
    def blank(self) -> bool:
        """Nothing written yet: a run that ended normally with no syntax error and nothing refused, 0 points, and
        either no code at all in the file (``RunFacts.empty``) or every failure the starter code's own exception
        (``Finding.starter``). A syntax error, a misspelt class or code that raises is written work: graded."""
        run = self.run
        if run is None or self.status != "ok" or run.refusal is not None or run.refused or self.score != 0:
            return False
        if any(isinstance(cell, int) and str(message).startswith(SYNTAX_ERRORS) for cell, message in run.load_errors):
            return False
        failing = self.failing()
        return run.empty or (bool(failing) and all(t.finding is not None and t.finding.starter for t in failing))

    def failing(self) -> list[TestOutcome]:
        return [t for t in self.tests if not t.passed]

    def to_wire(self) -> dict:
        """Its form between a dask worker and this process, and in results/<id>.json: every field as it is."""
        return {
            **wire_fields(self, skip=("tests", "run", "shown")),
            "tests": [t.to_wire() for t in self.tests],
            "run": self.run.to_dict() if self.run is not None else None,
            "shown": {language: shown.to_wire() for language, shown in self.shown.items()},
        }

    @classmethod
    def from_wire(cls, data: Any) -> Result:
        """A Result from ``to_wire``'s dict; ValueError naming the field that is not what it should be."""
        fields = fields_from_wire(cls, data, "a result")  # tests: a list; run, shown: their own readers
        shown = fields.get("shown", {})
        if not all(language in LANGUAGES for language in shown):
            raise ValueError(f"a result is shown in {', '.join(LANGUAGES)}, not {sorted(map(str, shown))!r:.120}")
        return cls(
            **{k: v for k, v in fields.items() if k not in ("tests", "run", "shown")},
            tests=[TestOutcome.from_wire(t) for t in fields["tests"]],
            run=RunFacts.from_dict(data.get("run")),
            shown={language: Shown.from_wire(one) for language, one in shown.items()},
        )
