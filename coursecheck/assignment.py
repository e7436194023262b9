"""Untrusted: one assignment's self-check, as its release's checks package declares it (``Assignment``) and runs it
(``SelfCheck``).

The framework is the same for every assignment: a released folder holds ``<name>.ipynb``, a ``conftest.py`` and a
``test_<name>.py`` that hand ``pytest`` to ``coursecheck.plugin``, and a checks package ``<name>_checks/`` that
makes one ``SelfCheck`` and declares its checks with it::

    SELF_CHECK = SelfCheck(Assignment(name="selftest", names=("add",), catalog=messages, edition=LANGUAGE))

    @SELF_CHECK.check(cls="add", group="add", area="values", section=1, title="add(a, b) is a + b")
    def test_add_adds(add):
        if not torch.equal(SELF_CHECK.call("add(a, b)", add, a, b), a + b):
            raise SELF_CHECK.failed("selftest.not_sum")

What differs between assignments is data: its name (``<name>.ipynb``, ``$<NAME>_SUBMISSION``, ``$<NAME>_LANG``,
``$<NAME>_SECONDS``), the names its checks build from, its catalog (the release's ``messages.py``: the grader's
messages its checks say, with the framework's own), its edition's language, the demonstration cells it released,
where its notebook explains a point, and what only its hidden suite checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .budget import Clock, clock_from_environment
from .calls import Calls
from .checks import Check, Failed, Session
from .demos import Loaded, load
from .practice import practice
from .words import Words

__all__ = ["Assignment", "SelfCheck"]


@dataclass(frozen=True)
class Assignment:
    name: str  # the grader's name: its notebook is <name>.ipynb, its settings $<NAME>_SUBMISSION, _LANG, _SECONDS
    names: tuple[str, ...]  # the classes (or functions) a submission defines, which the checks build from
    catalog: ModuleType  # the release's messages.py (CATALOG, Said, render_said, area_name)
    edition: str  # this edition's language (the release's edition.py)
    released_demos: frozenset[str] = frozenset()  # the release's released_demos.DIGESTS: cells left out as released
    # section -> where the notebook explains it (a message as a value: the diagnosis's `reread`); None: no sections
    reread: Callable[[int], object] | None = None
    # section -> where the notebook sets the task, for what is not written yet (the diagnosis's `see`); None: reread
    see: Callable[[int], object] | None = None
    # the end of a hint that would give the answer away, cut from what a check says (the grader's diagnosis may
    # end one with the fixing line); None: nothing is cut
    answer: re.Pattern | None = None
    covers: tuple[str, ...] = ()  # what only the hidden suite checks, named in the summary (<ids>covers.<line>)
    libraries: tuple[str, ...] = ()  # packages whose frames are never the student's code (the course's library)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"assignment name {self.name!r}: write it as the grader's folder is, e.g. 'weight_tying'")
        if not self.names:
            raise ValueError(f"the {self.name} self-check builds from no names: give names=('ClassName', ...)")

    @property
    def notebook(self) -> str:
        """The file the self-check checks by default, beside its conftest.py."""
        return f"{self.name}.ipynb"

    def setting(self, what: str) -> str:
        """The environment variable of one of its settings: ``setting("SUBMISSION")`` is WEIGHT_TYING_SUBMISSION."""
        return f"{self.name.upper()}_{what}"


class SelfCheck:
    """An assignment's self-check: its checks, in the order they are declared, the words it says them in, and how
    they run (``session`` for classes already loaded, ``load`` for a file, ``practice`` for the
    notebook's practice cells)."""

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment
        self.words = Words(assignment.name, assignment.catalog, assignment.edition)
        package = str(Path(assignment.catalog.__file__).resolve().parent)
        self.calls = Calls(self.words, assignment.libraries, package)
        self.checks: dict[str, Check] = {}  # in the order they were declared
        # How a reread opens ("(reread section 7, ...)") in each language: a message that names its section already
        # is not given a second one.
        self._rereads: dict[str, str] = {}

    # ------------------------------------------------------------------------------------------- declaring

    def check(self, *, cls: str, group: str, area: str, section: int, title: str, needs: tuple[str, ...] = ()):
        """Declare a check; the function's name is the test's name."""
        if cls not in self.assignment.names:
            raise ValueError(
                f"a check of {cls!r}: the {self.assignment.name} self-check builds one of {self.assignment.names}"
            )

        def register(fn: Callable[[type], None]) -> Callable[[type], None]:
            if fn.__name__ in self.checks:
                raise ValueError(f"two checks are called {fn.__name__}: rename one")
            unknown = [n for n in needs if n not in self.checks]
            if unknown:
                raise ValueError(f"{fn.__name__} needs {unknown}, which are not declared before it")
            self.checks[fn.__name__] = Check(fn.__name__, cls, group, area, section, title, fn, tuple(needs))
            return fn

        return register

    @property
    def groups(self) -> tuple[str, ...]:
        """The notebook's practice cells, in the order their checks were declared."""
        return tuple(dict.fromkeys(c.group for c in self.checks.values()))

    def title(self, chk: Check) -> str:
        """What a pass of `chk` means, in the student's language."""
        return self.words.tell(self.words.own(f"title.{chk.name}"))

    # --------------------------------------------------------------------- what the checks call and raise

    def call(self, what: str, fn: Callable, *args, **kwargs):
        """Run the student's code (``Calls.call``): a stub or an exception becomes one short Failed message."""
        return self.calls.call(what, fn, *args, **kwargs)

    def attribute(self, obj: object, name: str, owner: str):
        return self.calls.attribute(obj, name, owner)

    def failed(self, key: str, **params: object) -> Failed:
        """A check's failure, the catalog's message `key`, to raise."""
        return self.calls.failed(key, **params)

    # --------------------------------------------------------------------------------------------- running

    def session(self, classes: Mapping[str, object], missing: Mapping[str, str] | None = None, clock=None) -> Session:
        """A session of these checks on `classes` (name -> class, or None when it is not defined)."""
        return Session(self, classes, dict(missing or {}), clock)

    def clock(self) -> Clock:
        """The run's clock, its budget from $<NAME>_SECONDS; ValueError naming a bad value."""
        return clock_from_environment(self.words, self.assignment.setting("SECONDS"))

    def load(self, path: Path, clock: Clock | None = None) -> Loaded:
        """The file at `path` run as the grader runs it (``coursecheck.demos.load``)."""
        return load(self, path, clock)

    def practice(self, group: str, **classes) -> None:
        """A practice cell's checks (``coursecheck.practice``)."""
        practice(self, group, **classes)

    # ------------------------------------------------------------------------- how a failure is worded

    def reread(self, message: str, chk: Check) -> str:
        """`message` ending with where to reread: the diagnosis's own section(s) when it names them, else the
        check's (a Chinese sentence ended once: the catalog's joining of two messages)."""
        language = self.words.language()
        where = self.assignment.reread
        if where is None or self._reread_opening(language) in message:
            ended = message
        else:
            ended = self.assignment.catalog.render_said(message + where(chk.section), language)
        return self._ended(ended, language)

    def see(self, message: str, chk: Check) -> str:
        """`message` (what is not written yet) ending with where the notebook sets the task: nothing to reread yet."""
        where = self.assignment.see
        if where is None:
            return self.reread(message, chk)
        language = self.words.language()
        return self._ended(self.assignment.catalog.render_said(message + where(chk.section), language), language)

    @staticmethod
    def _ended(text: str, language: str) -> str:
        """A Chinese message ends its sentence."""
        if language == "zh" and text and text[-1] not in "。！？：”）":
            text += "。"
        return text

    def _reread_opening(self, language: str) -> str:
        if language not in self._rereads:
            said = self.assignment.reread(1)
            bare = type(said)(said.key, **dict.fromkeys(said.params, "\0"))
            # its words, not the mark before them (a Chinese one drops its 。 after a question: "死循环？请重读")
            self._rereads[language] = self.assignment.catalog.render_said(bare, language).split("\0")[0].lstrip(" (。")
        return self._rereads[language]

    def without_the_answer(self, message: str) -> str:
        """`message` without the assignment's ``answer`` (the line that would fix it)."""
        return message if self.assignment.answer is None else self.assignment.answer.sub("", message)
