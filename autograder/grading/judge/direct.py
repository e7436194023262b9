"""Trusted: run a hidden suite's plain pytest files without ``pytest.main``, for a warm judge.

``pytest.main`` costs more than the suite itself for every submission (configuration, plugins, collection).
A warm judge imports a suite's files once per plan and then, for each submission, calls its test functions
the way the judge's pytest plugin has them run (``plugin.run_suite``): the same order, node ids, markers
(``points``, ``area``), fixtures (``plan``, ``evidence``, ``run``, and the suite's own: conftest.py and
module fixtures, any scope, ``autouse``, ``yield``), and the same messages-only failures. Anything else
pytest would do differently (parametrize, classes, other markers, fixtures it provides, sub-folders) makes
``DirectSuite.load`` raise ``Unsupported``, and the caller runs that suite with ``pytest.main`` instead.

Finding a suite's fixtures needs pytest's private ``_pytest.fixtures.getfixturemarker`` (no public API says
whether a function is a fixture). It is used only on the pytest majors this runner is tested on
(``TESTED_PYTEST``; pyproject.toml pins pytest below the next one, and a test fails when the installed pytest
is not among them); on any other pytest, or if the private name is gone, ``load`` raises ``Unsupported``:
grading falls back to ``pytest.main``, slower but never wrong.

Sharing across submissions: the modules (and their memos keyed on the plan's objects) live as long as the
plan; what a suite memoises from a submission's evidence (``judge.memo``) is dropped when its run ends.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import itertools
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder.grading.judge.memo import end_judgement
from autograder.grading.judge.plugin import message_for
from autograder.grading.judge.suite_api import said_again_in, say
from autograder.grading.result import TestOutcome

__all__ = ["DirectSuite", "Unsupported", "PROVIDED", "TESTED_PYTEST", "pytest_supported"]

TESTED_PYTEST = (8, 9)  # the pytest majors this runner is tested on (pyproject.toml: pytest<10)

PROVIDED = ("plan", "evidence", "run")  # the judge's own fixtures (see plugin.JudgePlugin)
_MARKS = {"points", "area"}
_counter = itertools.count()
_SKIPS = (pytest.skip.Exception, pytest.xfail.Exception)
_WIDTH = {"function": 0, "module": 1, "session": 2}


class Unsupported(Exception):
    """The suite uses something only pytest itself runs faithfully; run it with ``pytest.main``."""


def _fixture_marker_reader() -> Callable | None:
    """pytest's (private) reader of a fixture's marker, on a tested pytest; None otherwise."""
    if not pytest_supported(pytest.__version__):
        return None
    try:
        from _pytest.fixtures import getfixturemarker
    except ImportError:
        return None
    return getfixturemarker


def pytest_supported(version: str) -> bool:
    """Whether `version` (pytest's) is one of the majors this runner is tested on."""
    major = version.split(".", 1)[0]
    return major.isdigit() and int(major) in TESTED_PYTEST


@dataclass
class _Fixture:
    name: str
    func: Callable
    scope: str  # "session" | "module" | "function"
    autouse: bool
    module: str | None  # the test module it belongs to; None for conftest.py
    params: list[str] = field(default_factory=list)


@dataclass
class _Test:
    nodeid: str
    func: Callable
    module: str
    points: float
    area: str
    params: list[str]


def _is_test_file(path: Path) -> bool:
    return path.suffix == ".py" and (path.name.startswith("test_") or path.stem.endswith("_test"))


class DirectSuite:
    """A suite's test files, imported once; ``run`` judges one submission's evidence."""

    def __init__(self, suite_dir: Path) -> None:
        self.suite_dir = Path(suite_dir)
        self.fixtures: dict[tuple[str | None, str], _Fixture] = {}
        self.tests: list[_Test] = []
        self._module_names: list[str] = []

    @classmethod
    def load(cls, suite_dir: Path) -> DirectSuite:
        suite = cls(suite_dir)
        try:
            suite._load()
        except BaseException:
            suite.close()
            raise
        return suite

    def _load(self) -> None:
        marker_of = _fixture_marker_reader()
        if marker_of is None:
            raise Unsupported(f"pytest {pytest.__version__}: the direct runner is tested on pytest {TESTED_PYTEST}")
        self._marker_of = marker_of
        entries = sorted(self.suite_dir.iterdir())
        if any(p.is_dir() and p.name != "__pycache__" for p in entries):
            raise Unsupported("sub-folders")
        if any(p.name == "__init__.py" for p in entries):
            raise Unsupported("the suite folder is a package")
        conftest = self.suite_dir / "conftest.py"
        if conftest.exists():
            self._fixtures_of(self._import(conftest), None)
        for path in entries:
            if _is_test_file(path):
                module = self._import(path)
                self._fixtures_of(module, path.name)
                self._tests_of(module, path.name)
        if not self.tests:
            raise RuntimeError(f"the hidden suite {str(self.suite_dir)!r} has no tests")
        for test in self.tests:  # every fixture a test needs must be one we can provide
            for name in test.params:
                self._resolve(name, test.module, set())

    def _import(self, path: Path):
        name = f"_autograder_suite_{next(_counter)}_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        self._module_names.append(name)
        spec.loader.exec_module(module)
        return module

    def _fixtures_of(self, module, owner: str | None) -> None:
        for name, obj in vars(module).items():
            marker = self._marker_of(obj)
            if marker is None:
                continue
            if marker.params is not None:
                raise Unsupported(f"parametrized fixture {name}")
            wrapped = getattr(obj, "_get_wrapped_function", None)
            func = wrapped() if wrapped else getattr(getattr(obj, "__pytest_wrapped__", None), "obj", None)
            if func is None:
                raise Unsupported(f"fixture {name} of an unknown pytest version")
            scope = marker.scope if isinstance(marker.scope, str) else "function"
            if scope not in ("session", "package", "module", "class", "function"):
                raise Unsupported(f"fixture scope {scope!r}")
            scope = {"package": "session", "class": "function"}.get(scope, scope)
            fixture_name = marker.name or name
            self.fixtures[(owner, fixture_name)] = _Fixture(
                fixture_name, func, scope, bool(marker.autouse), owner, _arguments(func)
            )

    def _tests_of(self, module, filename: str) -> None:
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and name.startswith("Test"):
                raise Unsupported(f"test class {name}")
            if not name.startswith("test") or self._marker_of(obj) is not None:
                continue
            if not inspect.isfunction(obj):
                continue
            marks = {m.name: m for m in getattr(obj, "pytestmark", [])}
            if set(marks) - _MARKS:
                raise Unsupported(f"{name} has markers {sorted(set(marks) - _MARKS)}")
            if inspect.isgeneratorfunction(obj) or inspect.iscoroutinefunction(obj):
                raise Unsupported(f"{name} is not a plain function")
            points, area = marks.get("points"), marks.get("area")
            if points is None or not points.args:
                raise RuntimeError(f"{filename}::{name} has no @pytest.mark.points(n): every graded test needs one")
            self.tests.append(
                _Test(
                    f"{filename}::{name}",
                    obj,
                    filename,
                    float(points.args[0]),
                    str(area.args[0]) if area and area.args else "other",
                    _arguments(obj),
                )
            )

    def _resolve(self, name: str, module: str, seen: set[str]) -> _Fixture | None:
        """The fixture `name` as a test of `module` sees it (None for the judge's own); Unsupported if none."""
        if name in PROVIDED and (module, name) not in self.fixtures and (None, name) not in self.fixtures:
            return None
        fixture = self.fixtures.get((module, name)) or self.fixtures.get((None, name))
        if fixture is None:
            raise Unsupported(f"fixture {name!r} (pytest's own, or a plugin's)")
        if name in seen:
            raise Unsupported(f"fixture {name!r} depends on itself")
        width = _WIDTH[fixture.scope]
        for param in fixture.params:
            if param == "request":
                raise Unsupported(f"fixture {name!r} uses request")
            needed = self._resolve(param, module, seen | {name})
            if _WIDTH[needed.scope if needed else "function"] < width:  # pytest's ScopeMismatch error
                raise Unsupported(f"{fixture.scope} fixture {name!r} needs the narrower {param!r}")
        return fixture

    def collect(self) -> list[tuple[str, float, str]]:
        return [(t.nodeid, t.points, t.area) for t in self.tests]

    def run(self, *, plan: dict, evidence: dict, run: dict, language: str = "en") -> Iterator[TestOutcome]:
        """Judge one submission: yields each test's outcome as it is decided, in collection order. Every test
        runs in English (the marking scheme reads it); in another `language`, a failed test runs once more with
        that language set (``suite_api.speaking``) for its ``localized`` message."""
        session = _Session(self, {"plan": plan, "evidence": evidence, "run": run})
        sink = io.StringIO()
        try:
            for index, test in enumerate(self.tests):
                last_in_module = index + 1 == len(self.tests) or self.tests[index + 1].module != test.module
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    passed, output = session.call(test)
                    localized = said_again_in(language, passed, lambda test=test: session.call(test))
                    # Teardown errors fail the test that ran last before them, as pytest reports them.
                    problem = session.finish("function")
                    if last_in_module:
                        problem = problem or session.finish("module")
                    if index + 1 == len(self.tests):
                        problem = problem or session.finish("session")
                if problem and passed:
                    passed, output = False, problem
                yield TestOutcome(test.nodeid, test.points, test.area, passed, output, localized)
                sink.seek(0)
                sink.truncate()
        finally:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                for scope in ("function", "module", "session"):
                    session.finish(scope)
            end_judgement()  # nothing this submission's evidence decided is kept for the next one

    def close(self) -> None:
        """Forget the suite's modules (the next load imports them afresh)."""
        for name in self._module_names:
            sys.modules.pop(name, None)
        self._module_names.clear()


def _arguments(func: Callable) -> list[str]:
    out = []
    for param in inspect.signature(func).parameters.values():
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise Unsupported(f"{func.__name__} takes *args or **kwargs")
        if param.default is param.empty:
            out.append(param.name)
    return out


class _Session:
    """Fixture values of one submission's run, set up on demand and torn down by scope."""

    def __init__(self, suite: DirectSuite, provided: dict) -> None:
        self.suite, self.provided = suite, provided
        self.values: dict[tuple[str, str | None, str], object] = {}  # (scope, owner, name) -> value
        self.failed: dict[tuple[str, str | None, str], BaseException] = {}
        self.teardowns: dict[str, list[tuple[str, Iterator]]] = {"session": [], "module": [], "function": []}

    def call(self, test: _Test) -> tuple[bool, str]:
        try:
            autouse = [f for (owner, _), f in self.suite.fixtures.items() if f.autouse and owner in (None, test.module)]
            order = {"session": 0, "module": 1, "function": 2}
            for fixture in sorted(autouse, key=lambda f: (order[f.scope], f.module is not None)):
                self._value(fixture, test.module)
            kwargs = {name: self._get(name, test.module) for name in test.params}
            test.func(**kwargs)
        except _SKIPS:
            return False, say("judge.not_run_skipped")
        except (AssertionError, pytest.fail.Exception, Exception) as exc:
            return False, message_for(exc)
        return True, ""

    def _get(self, name: str, module: str):
        fixture = self.suite._resolve(name, module, set())
        return self.provided[name] if fixture is None else self._value(fixture, module)

    def _value(self, fixture: _Fixture, module: str):
        key = (fixture.scope, fixture.module if fixture.scope != "module" else module, fixture.name)
        if key in self.failed:
            raise self.failed[key]
        if key in self.values:
            return self.values[key]
        try:
            kwargs = {name: self._get(name, module) for name in fixture.params}
            result = fixture.func(**kwargs)
            if inspect.isgenerator(result):
                gen, result = result, next(result)
                self.teardowns[fixture.scope].append((fixture.name, gen))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            self.failed[key] = exc
            raise
        self.values[key] = result
        return result

    def finish(self, scope: str) -> str:
        """Tear down `scope`'s fixtures (last set up, first torn down); the first error's message, or ""."""
        problem = ""
        while self.teardowns[scope]:
            name, gen = self.teardowns[scope].pop()
            try:
                next(gen)
                problem = problem or say("judge.fixture_yielded_twice", name=name)
            except StopIteration:
                pass
            except (AssertionError, pytest.fail.Exception, Exception) as exc:
                problem = problem or message_for(exc)
        for key in [k for k in self.values if k[0] == scope]:
            del self.values[key]
        for key in [k for k in self.failed if k[0] == scope]:
            del self.failed[key]
        return problem
