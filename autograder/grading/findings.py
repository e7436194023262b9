"""Trusted: why a hidden-suite test failed, as values: what marking, the report and every page read.

A suite's test fails by raising ``Failed`` (or a plain ``assert ..., said`` with a catalog message). The suite's
runner turns that into a ``Finding``: the message (``protocol.said``, rendered in each reader's language where
it is shown), and what marking needs to know, decided by the judge's code and never read from any text:

- ``names``: the marking scheme's misconception this failure shows (from the test, or from the one message in
  it that names one: ``Message.names``), and ``also``: the others the same test shows (a test of several forms
  or cases charges every distinct misconception they show, never only the first);
- ``waits_on``: a knock-on: the test (its function name) whose failure this one only reports ("not checked
  because ..."); it costs nothing when that test is charged for a misconception in the same exercise;
- ``owed``: evidence the runner owed this test was missing, refused, sent twice or malformed: never a knock-on,
  it costs the test's points and puts the submission in *Needs a look* (erasing evidence must never pay);
- ``internal``: the judge's own code failed (the grader's bug): costs the test's points, and *Needs a look*.

What a student's code raised, a tensor's or a key's name, a printed value: each is only ever a verbatim
parameter of a message, so no text a student controls can name a misconception or make a knock-on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.protocol import said as catalog
from autograder.protocol.said import Said, Text

__all__ = ["Finding", "Failed", "finding_of", "named_in", "STARTER_CODE"]

# The judge's message for a test whose call reached the starter code's own exception (judge/suite_api.entry)
STARTER_CODE = "judge.starter_code"


@dataclass(frozen=True)
class Finding:
    said: Text  # the message the student reads, in any language
    names: str | None = None  # the marking scheme's misconception id, or None
    also: tuple[str, ...] = ()  # other misconceptions the same test shows (only beside `names`)
    waits_on: str | None = None  # a knock-on: the function name of the test it waits on
    owed: bool = False  # evidence the runner owed is missing, refused, duplicated or malformed
    internal: bool = False  # the judge's own code failed

    def __post_init__(self) -> None:
        kinds = [self.names is not None, self.waits_on is not None, self.owed, self.internal]
        if sum(kinds) > 1:
            raise ValueError(f"a finding is one kind: names, waits_on, owed or internal, not several ({self!r:.300})")
        if self.also and (self.names is None or self.names in self.also or len(set(self.also)) != len(self.also)):
            raise ValueError(f"a finding's `also` lists other misconceptions beside `names`, once each ({self!r:.300})")

    @property
    def shown(self) -> tuple[str, ...]:
        """Every misconception this failure shows: ``names`` first, then ``also``."""
        return () if self.names is None else (self.names, *self.also)

    @property
    def kind(self) -> str:
        """ "misconception", "knock-on", "owed", "internal" or "plain" (a crash or a value nobody named)."""
        if self.names is not None:
            return "misconception"
        if self.waits_on is not None:
            return "knock-on"
        if self.owed:
            return "owed"
        return "internal" if self.internal else "plain"

    @property
    def starter(self) -> bool:
        """Whether the test failed on the starter code's own exception: the judge said so (``STARTER_CODE``)."""
        return self.kind == "plain" and any(part.key == STARTER_CODE for part in self.said.walk())

    @property
    def unwritten(self) -> str:
        """What a starter-code failure says is not written yet (the judge's ``what``: a class, or a class's
        method); "" for any other failure, or when the judge named it by the test's words."""
        if self.kind != "plain":
            return ""
        what = next((part.params.get("what") for part in self.said.walk() if part.key == STARTER_CODE), None)
        return what if isinstance(what, str) else ""

    def render(self, language: str = "en") -> str:
        """The message in `language` (English for a language the kit does not speak: a result read back from
        a folder may say anything), as a paragraph reads it: a Chinese one ends each of its sentences."""
        language = language if language in catalog.LANGUAGES else "en"
        shown = catalog.render(self.said, language)
        return catalog.ended(shown) if language == "zh" else shown

    def to_wire(self) -> dict:
        out: dict[str, Any] = {"said": self.said.to_wire()}
        if self.names is not None:
            out["names"] = self.names
        if self.also:
            out["also"] = list(self.also)
        if self.waits_on is not None:
            out["waits_on"] = self.waits_on
        if self.owed:
            out["owed"] = True
        if self.internal:
            out["internal"] = True
        return out

    @classmethod
    def from_wire(cls, data: Any) -> Finding:
        """ValueError naming the field that is not what it should be."""
        if (
            not isinstance(data, dict)
            or "said" not in data
            or set(data) - {"said", "names", "also", "waits_on", "owed", "internal"}
        ):
            raise ValueError(
                "a finding is {'said', 'names'?, 'also'?, 'waits_on'?, 'owed'?, 'internal'?}, "
                f"not {str(data)[:120]!r}"
            )
        also = data.get("also", [])
        if not isinstance(also, list) or not all(isinstance(m, str) for m in also):
            raise ValueError(f"a finding's also must be a list of str, not {also!r:.80}")
        for name in ("names", "waits_on"):
            if data.get(name) is not None and not isinstance(data[name], str):
                raise ValueError(f"a finding's {name} must be a str, not {data[name]!r:.80}")
        for name in ("owed", "internal"):
            if not isinstance(data.get(name, False), bool):
                raise ValueError(f"a finding's {name} must be true or false, not {data[name]!r:.80}")
        return cls(
            catalog.from_wire(data["said"]),
            data.get("names"),
            tuple(also),
            data.get("waits_on"),
            data.get("owed", False),
            data.get("internal", False),
        )


def named_in(said: Text) -> str | None:
    """The misconception the messages of `said` name: the first one, in reading order, whose catalog entry
    names one (a message that cannot tell two causes apart names none)."""
    for part in said.walk():
        names = catalog.message(part.key).names
        if names is not None:
            return names
    return None


class Failed(AssertionError):
    """A hidden-suite test's failure, with its finding: ``raise Failed(say(...), waits_on="test_x")``."""

    def __init__(
        self,
        said: Text,
        *,
        names: str | None = None,
        also: tuple[str, ...] = (),
        waits_on: str | None = None,
        owed: bool = False,
    ) -> None:
        if not isinstance(said, (Said, catalog.Joined)):
            raise TypeError(
                f"a failure's message is a Said (a catalog id and its parameters), not {type(said).__name__}"
            )
        if waits_on is None and not owed and names is None:
            names = named_in(said)
        self.finding = Finding(said, names, tuple(also), waits_on, owed)
        super().__init__(said)

    def __str__(self) -> str:
        return self.finding.render("en")


def finding_of(exc: BaseException) -> Finding:
    """What a test's exception says, as a finding: a ``Failed``'s own; an ``assert ..., said``'s message and the
    misconception it names; anything else is the judge's own failure, quoted."""
    if isinstance(exc, Failed):
        return exc.finding
    message = exc.args[0] if isinstance(exc, AssertionError) and len(exc.args) == 1 else None
    if isinstance(message, (Said, catalog.Joined)):
        return Finding(message, named_in(message))
    what = f"{type(exc).__name__}: {exc}"[:2000]
    return Finding(Said("judge.the_grader_hit_an_internal_error", what=what), internal=True)
