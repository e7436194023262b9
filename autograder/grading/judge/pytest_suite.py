"""Trusted: a hidden suite under pytest's own runner, on one hand-in's kept evidence (``--evidence DIR``).

An instructor debugs one verdict the way they debug any test::

    python -m autograder grade hand-in.ipynb --keep-evidence DIR         (judge.kept)
    pytest autograder/graders/weight_tying/judge/suite --evidence DIR -k test_x -x --pdb -v -l

Each suite folder's ``conftest.py`` takes from here the option, the collector of the suite's files, the fixtures
``plan``, ``evidence`` and ``run``, and the hook that, with ``--evidence``, registers this session's plugin
(``Judging``: the judgement's inputs read once, each failure's finding, and what differs from the kit's grade
kept with the evidence). The inputs are read as the judge process reads them: the plan drawn again from the kept
seed (refused when it is not the plan the runner measured), the evidence decoded and the run's facts derived by
``server.judged_inputs``. Without ``--evidence``, every file of the suite is skipped, saying how to keep some:
the kit's own test run never collects a hidden test.

The suite's modules are imported by the kit's runner (``judge.suite.Suite.load``), never by pytest's: pytest
would rewrite each ``assert ..., said`` so that its message reached the runner as text, not as the value whose
finding the kit grades. So each test is the very function the kit calls, its failure the same exception, and
the finding printed beside it the one the kit's runner makes of that exception (``findings.finding_of``);
``-l`` shows a failing test's locals in place of pytest's rewritten comparisons.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.grading.judge.kept import Kept, read_kept

# What each suite's conftest takes (``from ... import *``): pytest finds hooks and fixtures by name. ``judged`` (the
# inputs kept in a folder, as the judge reads them) and ``session_judgement`` (a session's) are for checks of the kit.
__all__ = ["pytest_addoption", "pytest_configure", "pytest_pycollect_makemodule", "plan", "evidence", "run"]

PLUGIN = "autograder-hidden-suite"  # this session's plugin, registered once whatever the suites given
_JUDGED = pytest.StashKey["Judged"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    try:
        parser.addoption(
            "--evidence",
            metavar="DIR",
            default=None,
            help="run the hidden suite on the evidence kept in DIR (python -m autograder grade FILE "
            "--keep-evidence DIR)",
        )
    except ValueError:  # two suites' conftests in one command: the option is there already
        pass


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("evidence", None) and not config.pluginmanager.has_plugin(PLUGIN):
        config.pluginmanager.register(Judging(), PLUGIN)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.File | None:
    return SuiteFile.from_parent(parent, path=module_path)


@pytest.fixture(scope="session")
def plan(request: pytest.FixtureRequest) -> dict:
    """The judge's plan for the kept seed (the one the runner measured)."""
    return session_judgement(request.config).plan


@pytest.fixture(scope="session")
def evidence(request: pytest.FixtureRequest) -> dict:
    """The run's records, decoded as the judge decodes them (the run's own records set aside)."""
    return session_judgement(request.config).evidence


@pytest.fixture(scope="session")
def run(request: pytest.FixtureRequest) -> dict:
    """How the run went (``RunFacts.to_dict()``), as the kit's runner passes it."""
    return session_judgement(request.config).run


@dataclass(frozen=True)
class Judged:
    """What one judgement reads, as the judge process has it, and the suite loaded to judge it."""

    folder: Path
    kept: Kept
    spec: object  # graders.spec.AssignmentSpec
    plan: dict
    evidence: dict
    run: dict  # RunFacts.to_dict(), as the kit's runner passes it
    suite: object  # judge.suite.Suite

    def kit_outcome(self, name: str) -> dict | None:
        """The kit's judge's outcome for test `name` (``file.py::test_x``) when it was graded, or None."""
        return next((o for o in self.kept.outcomes if o.get("name") == name), None)


def session_judgement(config: pytest.Config) -> Judged | None:
    """The judgement a session with ``--evidence`` runs on (None before its start, or without the option)."""
    return config.stash.get(_JUDGED, None)


def judged(folder: Path) -> Judged:
    """The judgement's inputs kept in `folder`; ValueError naming what does not fit and the fix."""
    from autograder.graders import get_assignment
    from autograder.grading.judge.server import judged_inputs
    from autograder.grading.judge.suite import Suite
    from autograder.protocol.frames import encode_frame, read_frame

    kept = read_kept(folder)
    try:
        spec = get_assignment(kept.assignment)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{str(folder)!r} was kept for assignment {kept.assignment!r}: {exc}") from None
    plan = spec.make_plan(kept.seed)
    try:
        measured = read_frame(kept.job)[1]["plan"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(
            f"{str(folder / 'job.frame')!r} is not a runner's job ({exc}): keep the evidence again"
        ) from None
    if encode_frame("plan", {"plan": plan}) != encode_frame("plan", {"plan": measured}):
        raise ValueError(
            f"the kit draws another plan for seed {kept.seed} than the one the evidence in {str(folder)!r} was "
            "measured on (the plan's code changed since): keep it again with python -m autograder grade FILE "
            "--keep-evidence NEW_DIR"
        )
    box = dataclasses.replace(kept.box, notes=list(kept.box.notes))  # the judge's copy: the kept one stays as read
    run, evidence = judged_inputs(box, spec, kept.limits)
    suite = Suite.load(spec.suite_dir, spec.scheme)
    return Judged(folder, kept, spec, plan, evidence, run.to_dict(), suite)


class SuiteFile(pytest.File):
    """One ``test_*.py`` file of a hidden suite: its tests as the kit's runner loaded them."""

    def collect(self):
        judged = session_judgement(self.config)
        if judged is None:
            pytest.skip(
                "the hidden suite runs on a hand-in's kept evidence: python -m autograder grade FILE "
                "--keep-evidence DIR, then pytest this folder --evidence DIR",
                allow_module_level=True,
            )
        if self.path.parent.resolve() != Path(judged.spec.suite_dir).resolve():
            raise self.CollectError(
                f"{str(self.path)!r} is not {judged.kept.assignment}'s suite, which the evidence in "
                f"{str(judged.folder)!r} was kept for: run pytest {judged.spec.suite_dir} --evidence {judged.folder}"
            )
        for test in judged.suite.tests:
            if test.name.partition("::")[0] == self.path.name:
                yield SuiteItem.from_parent(self, name=test.function, callobj=test.func)


class SuiteItem(pytest.Function):
    """A hidden test, called by pytest with the fixtures its signature names (``plan``, ``evidence``, ``run``)."""

    def reportinfo(self):
        return self.path, self.obj.__code__.co_firstlineno - 1, self.name


class Judging:
    """This session's plugin when ``--evidence DIR`` is given: the judgement's inputs and what each test found."""

    def __init__(self) -> None:
        self.threads: int | None = None
        self.differs: list[str] = []  # what here is not what the kit's judge had or decided: tests, the run

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        import torch

        self.threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the judge process judges: one thread, the same float sums
        folder = Path(session.config.getoption("evidence"))
        try:
            session.config.stash[_JUDGED] = inputs = judged(folder)
        except ValueError as exc:
            torch.set_num_threads(self.threads)  # no session follows: pytest_sessionfinish is not called
            raise pytest.UsageError(f"--evidence {str(folder)!r}: {exc}") from None
        if inputs.kept.run is not None and inputs.run != inputs.kept.run:
            self.differs.append("the run's facts (the fixture run)")

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        import torch

        from autograder.grading.judge.memo import end_judgement

        end_judgement()  # as the kit's runner ends a judgement
        judged = session_judgement(session.config)
        if judged is not None:
            judged.suite.close()  # its modules leave sys.modules (a second session in this process loads its own)
        if self.threads is not None:
            torch.set_num_threads(self.threads)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        judged = session_judgement(config)
        if judged is None:
            return []
        failed = [o for o in judged.kept.outcomes if not o.get("passed")]
        stopped = f", the judge stopped ({judged.kept.judge_limit})" if judged.kept.judge_limit else ""
        return [
            f"evidence: {judged.folder} ({judged.kept.assignment}, seed {judged.kept.seed}, run "
            f"{judged.run.get('status')}); the kit's grade failed {len(failed)} of {len(judged.kept.outcomes)} "
            f"tests{stopped}"
        ]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        if not isinstance(item, SuiteItem) or call.when != "call":
            return report
        from autograder.grading.findings import Finding, finding_of

        judged = session_judgement(item.config)
        finding = None if call.excinfo is None else finding_of(call.excinfo.value)
        name = f"{item.path.name}::{item.name}"
        kit = judged.kit_outcome(name)
        report.user_properties.append(("finding", None if finding is None else finding.to_wire()))  # junitxml too
        if finding is not None:
            report.sections.append(("the kit's finding", _described(finding)))
        if kit is not None:
            same = bool(kit.get("passed")) == (finding is None) and kit.get("finding") == (
                None if finding is None else finding.to_wire()
            )
            if not same:
                self.differs.append(name)
                kit_finding = kit.get("finding")
                said = "passed" if kit.get("passed") else _described(Finding.from_wire(kit_finding))
                report.sections.append(("the kit's grade said otherwise", said))
        return report

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.differs:
            terminalreporter.write_line(
                f"not as the kit's judge had them with this evidence (the kit changed since it was kept, or the "
                f"evidence is not what the kit judged): {', '.join(self.differs)}",
                yellow=True,
            )


def _described(finding) -> str:
    """A finding as the marking reads it (its kind and ids), then its message in English."""
    kind = {
        "misconception": f"names {', '.join(finding.shown)}",
        "knock-on": f"a knock-on of {finding.waits_on}",
        "owed": "owed evidence (missing, refused or malformed)",
        "internal": "the judge's own error",
        "plain": "a failure that names no misconception",
    }[finding.kind]
    return f"{kind}\n{finding.render('en')}"
