"""Trusted: the options that shape a mark, recorded in the output folder before anything is graded, and a later
run's options settled against that record.

    seed                  the judge's plan, one for the class (``--seed``)
    timeout, memory       each run's limits (``--timeout``, ``--memory``): a longer time can turn a timeout into marks
    due                   ``--due`` as an aware UTC time (ISO 8601); none: each edition's duedate in the gradebook
    late_penalty          ``--late-penalty`` (none, zero, P/hour); none: the course's ``nbgrader_config.py``
    extensions            ``--extension`` / ``--extensions``: each student's extra time, in seconds
    course, gradebook     ``--nbgrader-course`` / ``--gradebook``: due dates, extensions and the late policy come
                          from there, and the marks go there
    gradebook_assignment  ``--gradebook-assignment``
    scheme                a digest of the marking scheme's values (the grader's ``marking.toml``; not an option,
                          but a change of it moves marks as one does)

The rule (``settle``): what a run does not give is the folder's, so the same command again, after a kill or with
``--force``, keeps every penalty and writes the same gradebook; what it gives that differs from the record stops
the run before anything is graded, naming both values, unless ``--accept-new-options`` accepts the change (the
regrade record, ``outputs.regrades``, then says which option moved whom). A folder an older kit wrote recorded
only the seed, the due date and the late policy: the rest is taken as given.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

__all__ = [
    "MarkOptions",
    "Change",
    "OptionsChanged",
    "settle",
    "scheme_digest",
    "recorded_options",
    "match_extensions",
    "FLAGS",
]

# field -> how the command line names it (messages say what to type)
FLAGS = {
    "seed": "--seed",
    "timeout": "--timeout",
    "memory": "--memory",
    "due": "--due",
    "late_penalty": "--late-penalty",
    "extensions": "--extension",
    "course": "--nbgrader-course",
    "gradebook": "--gradebook",
    "gradebook_assignment": "--gradebook-assignment",
    "scheme": "the marking scheme",
}
_LEGACY = ("seed", "due", "late_penalty")  # what a manifest recorded before the options were


@dataclass(frozen=True)
class MarkOptions:
    """The options that shape a mark; None: not given (asked) or none (recorded)."""

    seed: int | None = None
    timeout: float | None = None  # wall seconds per submission
    memory: int | None = None  # bytes per submission
    due: str | None = None  # ISO 8601, UTC
    late_penalty: str | None = None  # as given: none, zero or P/hour
    extensions: tuple[tuple[str, float], ...] | None = None  # (student, seconds), sorted by student
    course: str | None = None  # absolute
    gradebook: str | None = None  # absolute
    gradebook_assignment: str | None = None
    scheme: str | None = None  # scheme_digest of the grader's marking scheme

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["extensions"] = None if self.extensions is None else {s: t for s, t in self.extensions}
        return data

    @classmethod
    def from_manifest(cls, options: object, legacy: dict) -> tuple[MarkOptions, frozenset[str]]:
        """(the options a manifest recorded, the names it recorded); `legacy`: the manifest's seed, due and
        late_penalty, for a folder written before the options were recorded."""
        if not isinstance(options, dict):
            return cls(**{k: legacy.get(k) for k in _LEGACY}), frozenset(_LEGACY)
        values: dict = {}
        for field in dataclasses.fields(cls):
            value = options.get(field.name)
            if field.name == "extensions":
                value = _extensions(value)
            elif field.name in ("seed", "memory"):
                value = value if isinstance(value, int) and not isinstance(value, bool) else None
            elif field.name == "timeout":
                value = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
            elif not isinstance(value, str):
                value = None
            values[field.name] = value
        return cls(**values), frozenset(f.name for f in dataclasses.fields(cls))


def _extensions(value: object) -> tuple[tuple[str, float], ...] | None:
    if not isinstance(value, dict):
        return None
    kept = {str(k): float(v) for k, v in value.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    return tuple(sorted(kept.items()))


@dataclass(frozen=True)
class Change:
    """One option whose value differs between the folder's record and this run."""

    name: str  # a MarkOptions field
    before: object
    after: object

    def words(self) -> str:
        if self.name == "extensions":
            return "--extension: " + "; ".join(_extension_changes(self.before, self.after))
        if self.name == "scheme":
            return (
                f"the marking scheme changed (digest {str(self.before)[:12]} in this folder, {str(self.after)[:12]} "
                "now: `--dry-run` lists whose marks it moves)"
            )
        return f"{FLAGS[self.name]}: {shown(self.name, self.before)} in this folder, {shown(self.name, self.after)} now"


def shown(name: str, value: object) -> str:
    """An option's value as messages show it."""
    from autograder.outputs.times import shown_duration

    if value is None:
        return "none"
    if name == "due":
        return datetime.fromisoformat(str(value)).strftime("%Y-%m-%d %H:%M:%S UTC")
    if name == "timeout":
        return f"{float(value):g} s"  # type: ignore[arg-type]
    if name == "memory":
        return f"{int(value) / 2**30:g}GiB"  # type: ignore[call-overload]
    if name == "extensions":
        return ", ".join(f"{s} {shown_duration(t)}" for s, t in value) or "none"  # type: ignore[attr-defined]
    return str(value)


def _extension_changes(before, after) -> list[str]:
    from autograder.outputs.times import shown_duration

    old, new = dict(before or ()), dict(after or ())
    said = []
    for student in sorted({*old, *new}):
        if old.get(student) != new.get(student):
            was = shown_duration(old[student]) if student in old else "none"
            now = shown_duration(new[student]) if student in new else "none"
            said.append(f"{student} {was} in this folder, {now} now")
    return said


class OptionsChanged(ValueError):
    """A run gave options that differ from those the output folder recorded; nothing was graded."""

    def __init__(self, out: Path, changes: list[Change]) -> None:
        self.changes = changes
        super().__init__(
            f"{str(out)!r} was graded with other options than this command's: "
            + "; ".join(c.words() for c in changes)
            + ". Run it without them to keep the folder's, or add --accept-new-options to regrade with the new ones "
            "(regrades.jsonl in the folder records whose marks move, and why); nothing was graded"
        )


def _same(name: str, now: object, before: object) -> bool:
    if name == "late_penalty" and isinstance(now, str) and isinstance(before, str):
        from autograder.outputs.lateness import policy_from_option

        try:
            return policy_from_option(now).name == policy_from_option(before).name
        except ValueError:
            return now == before
    if name == "due" and isinstance(now, str) and isinstance(before, str):
        try:
            return datetime.fromisoformat(now) == datetime.fromisoformat(before)
        except ValueError:
            return now == before
    return now == before


def settle(
    asked: MarkOptions,
    recorded: MarkOptions | None,
    *,
    known: frozenset[str] = frozenset(FLAGS),
    out: Path = Path("."),
    accept: bool = False,
) -> tuple[MarkOptions, list[Change]]:
    """(the options this run uses, what changed from the record); OptionsChanged when something changed and
    `accept` is False. `known`: the names the record holds (an older folder's: seed, due and late policy only)."""
    values: dict = {}
    changes: list[Change] = []
    for field in dataclasses.fields(MarkOptions):
        now = getattr(asked, field.name)
        before = getattr(recorded, field.name) if recorded is not None else None
        if recorded is None or field.name not in known:
            values[field.name] = now
        elif now is None:  # not given: the folder's
            values[field.name] = before
        else:
            if not _same(field.name, now, before):
                changes.append(Change(field.name, before, now))
            values[field.name] = now
    if changes and not accept:
        raise OptionsChanged(out, changes)
    return MarkOptions(**values), changes


def scheme_digest(scheme) -> str:
    """A digest of a marking scheme's values (areas, tests' points, misconceptions' costs): an edited comment in
    ``marking.toml`` leaves it alone, a changed point does not."""
    data = {f.name: getattr(scheme, f.name) for f in dataclasses.fields(scheme) if f.name != "path"}
    text = json.dumps(data, sort_keys=True, default=_plain)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    raise TypeError(f"a marking scheme holds {type(value).__name__}: not a value to digest")


def recorded_options(manifest) -> tuple[MarkOptions | None, frozenset[str]]:
    """(the options an output folder's ``Manifest`` recorded, the names it recorded); (None, {}) for no folder."""
    if manifest is None:
        return None, frozenset()
    legacy = {"seed": manifest.seed, "due": manifest.due, "late_penalty": manifest.late_penalty}
    return MarkOptions.from_manifest(manifest.options, legacy)


def match_extensions(roster: list, options: MarkOptions, *, given: bool) -> dict[str, timedelta]:
    """uid -> the extension of each roster student (``outputs.roster.Student``) an extension names (by nbgrader id,
    name or id); `given` (this run named them): a name that matches no hand-in is a ValueError naming it."""
    from autograder.outputs.roster import display_name

    granted: dict[str, timedelta] = {}
    for text, seconds in options.extensions or ():
        found = [s.uid for s in roster if s.matches(text)]
        if not found and given:
            sample = ", ".join(s.nbgrader_id or s.name for s in roster[:5]) + (" ..." if len(roster) > 5 else "")
            raise ValueError(
                f"--extension {display_name(text)!r} matches no hand-in of this class ({len(roster)} students, e.g. "
                f"{sample}): give the student's nbgrader id or name as grades.csv lists them (a student who has "
                "not handed in yet gets theirs once they have); nothing was graded"
            )
        granted.update(dict.fromkeys(found, timedelta(seconds=seconds)))
    return granted
