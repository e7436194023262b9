"""Trusted: what the pipeline needs to know about one assignment's grader (``AssignmentSpec``).

The pipeline (``autograder.grading``) is assignment-agnostic: a grader brings a plan maker (trusted, runs in
the grader), an experiments function (untrusted side: runs inside the sandbox, next to student code) and a
hidden suite (plain test functions, ``grading.judge.suite``) that judges the evidence those experiments emitted
(trusted, never imports student code). On disk a grader
is one folder with two halves::

    autograder/graders/<name>/
        spec.py        SPEC = AssignmentSpec(...)                       (trusted)
        runner/        experiments + evidence schema: the sandbox shows this folder whole
        judge/         plan, reference, suite/, calibration/: never shown to a sandbox
        diagnosis.py   names each misconception (public: the self-check and the release share it)
        marking.toml   areas, points and misconception costs (``grading.marking``: the spec's ``scheme``)
        messages.py    its catalog (``catalog``): every word its suite, checks and pages say, in each language
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["AssignmentSpec", "Plan", "Record", "Emit"]

# A plan and an evidence record hold only what a frame carries (`autograder.protocol.frames`): CPU tensors of the
# dtypes in `bounds.ALLOWED_DTYPES`, ints, floats, bools, str, None, and lists/tuples (they arrive as lists) and
# dicts with str keys of these.
Plan = dict[str, Any]
Record = dict[str, Any]
Emit = Callable[[str, Record], None]


@dataclass(frozen=True)
class AssignmentSpec:
    name: str  # the nbgrader assignment name, e.g. "weight_tying"
    required_names: tuple[str, ...]  # classes (or functions) a submission must define
    make_plan: Callable[[int], Plan]  # seed -> the experiments' random choices (trusted side)
    experiments: str  # "package.module:function" in the grader's runner package, called as fn(namespace, plan, emit)
    judge_dir: Path  # what only the judge reads: suite/, calibration/, plan and reference code
    solution_path: Path  # reference answer, graded by `calibrate` and the timing check
    # The grader's message catalog: a module that registers its messages on import (autograder.protocol.said)
    # and names its tests, areas and misconceptions in a language (``title(readable, language)``,
    # ``area_name(area, language)``, ``misconception_title(id, language)``; ``experiment_title(name, language)``
    # if it has one: what its runner was doing); None: English names only.
    catalog: ModuleType | None = None
    # The grader's marking scheme (autograder.grading.marking.Scheme, loaded from its marking.toml): every suite
    # test's points, area and exercise, and what each misconception costs.
    scheme: Any = field(default=None, compare=False)  # a spec is hashed by its name and files, not its scheme
    # The languages its feedback is written in: a submission written in one of them reads it in that language.
    languages: tuple[str, ...] = ("en",)
    # What this assignment's submissions commonly import: each warm worker's fork server imports them once, so
    # that a run does not (a notebook's first cell spends most of its time importing matplotlib.pyplot). A
    # module that fails to import is left to the runs. Each one costs every worker's start-up its import time.
    warm_imports: tuple[str, ...] = ()
    # What each run pays the first time in a process that the fork server can pay once: "package.runner.module:
    # function" in its runner package, called with no arguments after the warm imports, before any fork. It runs
    # no submission, and leaves nothing a run could tell apart from a fresh interpreter's state (figures closed,
    # random states put back): the pool must still equal the fresh path. "": none.
    warm_up: str = ""
    # What every run of one plan draws alike, drawn once a plan in each fork server: "package.runner.module:
    # function" in its runner package, called with the part every job of the plan holds (``pipeline.job_part``,
    # decoded: the plan and the grader's fixed fields) before the plan's first run there, and with None to drop
    # it. A memo of the runs' own computation only: a run that misses it computes the same values itself, so the
    # pool still equals the fresh path. "": none.
    plan_ready: str = ""
    # What of the teaching library the runs it grades cannot call, because writing it is the exercise: each
    # "dnnlpy.module:Class.method", "dnnlpy.module:function" or "dnnlpy.module" (every function in it). Graded
    # runs import a copy of dnnlpy in which these are stubs that raise (``autograder.sandbox.library``), so
    # there is nothing to delegate to; the grader's experiments see which stubs the student's code reached.
    withheld: tuple[str, ...] = ()
    # The demonstration cells the course released, as the digests of their texts (``coursecheck.cells.demo_digest``,
    # recorded by the build): a graded run leaves out those nothing else needs, as the self-check does; a cell
    # whose text is not one of them is the student's and runs. Empty: every cell runs.
    released_demos: frozenset[str] = frozenset()
    # What the demonstration rule reads of every released cell but the exercises and tests, by its text's digest:
    # [bound, used, spelled, reaches] (``coursecheck.cells.cell_facts``, as plain lists, recorded by the build with the
    # digests): a graded run reads only the cells the student wrote or changed.
    released_facts: Mapping[str, list] = field(default_factory=dict, compare=False)  # (derived from the digests)
    # What pages and reports call the assignment, in every language ("Weight Tying": a name, like a chapter's
    # title); "": its name.
    title: str = ""

    def __post_init__(self) -> None:
        if self.scheme is None:
            raise ValueError(f"the {self.name} grader has no marking scheme: give its spec scheme=load_scheme(...)")
        module, _, func = self.experiments.partition(":")
        if "." not in module or not func:
            raise ValueError(
                f"experiments={self.experiments!r}: write 'package.runner.module:function' (a module inside "
                "the grader's runner package, which the sandbox shows whole)"
            )

        for field_name in ("warm_up", "plan_ready"):
            target = getattr(self, field_name)
            where, _, name = target.partition(":")
            if target and (not where.startswith(self.runner_package + ".") or not name):
                raise ValueError(
                    f"{field_name}={target!r}: write '{self.runner_package}.<module>:<function>' (a function of the "
                    "grader's runner package, which its fork servers import), or leave it out"
                )

    @property
    def shown_title(self) -> str:
        """The assignment as a page's title names it: its title, else its name."""
        return self.title or self.name

    @property
    def runner_package(self) -> str:
        """The package holding the experiments: the sandbox exposes its folder whole, and nothing else of the grader."""
        return self.experiments.partition(":")[0].rpartition(".")[0]

    @property
    def suite_dir(self) -> Path:
        return Path(self.judge_dir) / "suite"

    @property
    def calibration_dir(self) -> Path:
        return Path(self.judge_dir) / "calibration"
