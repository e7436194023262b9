"""Both sides: evidence records declared once, as classes, for the runner, the judge and the docs.

A grader declares one ``Record`` subclass per experiment (and one per nested case); each ``Field`` says
what the value is and whether the judge checks it. After the class body runs, each field's attribute is its
key, so both sides spell keys through the class and a typo fails loudly::

    class LmGrad(Record, name="lm_grad"):
        embed_grad = Field("tensor?", "token_embed.weight.grad after one backward")

    emit(LmGrad.NAME, LmGrad.make(embed_grad=grad))     # runner
    grad = record[LmGrad.embed_grad]                      # judge ("embed_grad")

An experiment that raised sends ``{"error": "ExcType: message"}`` instead of its record, anywhere a record
(or a case) is expected.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Field", "Record", "KINDS", "ERROR_KEY", "render_markdown"]

ERROR_KEY = "error"  # a record (or case) that is only {"error": "..."} reports the student's exception

# kind -> (what it is, for the docs)
KINDS = {
    "tensor": "plain torch.Tensor",
    "tensor?": "plain torch.Tensor or None",
    "bool": "bool",
    "int": "int",
    "float": "float",
    "str": "str",
    "strs": "list of str",
    "pairs": "list of [int, str]",
    "state": "{name: tensor} (a state_dict)",
    "shapes": "{name: [int, ...]} (state_dict shapes)",
    "names": "list of [name, [int, ...]]",
    "dropouts": "list of [module name, probability]",
    "cases": "list of case records",
    "named cases": "{name: case record}",
    "record": "a nested record",
}


class Field:
    """One key of a record: its kind (see KINDS), what it holds, and whether any test checks it.

    ``checked=False`` marks the runner's word: recorded for the instructor's eyes or for diagnosis, never a
    point on its own (a forged value changes no score); the doc says why.
    """

    def __init__(self, kind: str, doc: str, *, checked: bool = True, of: type[Record] | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"field kind {kind!r} is not one of {sorted(KINDS)}")
        if (kind in ("cases", "named cases", "record")) != (of is not None):
            raise ValueError(f"field kind {kind!r}: give `of=` exactly for cases, named cases and record")
        self.kind, self.doc, self.checked, self.of = kind, doc, checked, of
        self.key = ""  # set when the record class is made


class Record:
    """Base of a grader's evidence records. Subclass with ``name=`` for an experiment, without for a case."""

    NAME: ClassVar[str | None] = None  # the experiment's name on the channel; None for a nested record
    FIELDS: ClassVar[dict[str, Field]] = {}

    def __init_subclass__(cls, *, name: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.NAME = name
        # Fields of base records first (a record may extend another), then this class's own.
        cls.FIELDS = {k: f for base in reversed(cls.__mro__[1:]) for k, f in vars(base).get("FIELDS", {}).items()}
        for key, value in list(vars(cls).items()):
            if isinstance(value, Field):
                value.key = key
                cls.FIELDS[key] = value
                setattr(cls, key, key)  # from now on Cls.key is the key itself

    @classmethod
    def make(cls, **values: Any) -> dict[str, Any]:
        """The record as a plain dict, refusing keys the schema does not declare (a runner bug)."""
        unknown = sorted(set(values) - set(cls.FIELDS))
        if unknown:
            raise TypeError(f"{cls.__name__} declares no field {unknown}: add it to the schema first")
        return dict(values)

    @classmethod
    def problems(cls, record: Any, where: str = "") -> list[str]:
        """What in `record` disagrees with the schema (missing, unknown or mistyped keys); [] if nothing.

        For the kit's own tests of its experiments: the judge itself never trusts a record's types and
        checks each value it uses.
        """
        where = where or (cls.NAME or cls.__name__)
        if not isinstance(record, dict):
            return [f"{where}: a {type(record).__name__}, not a dict"]
        if set(record) == {ERROR_KEY}:
            return []
        out = [f"{where}: missing {key!r}" for key in cls.FIELDS if key not in record]
        out += [f"{where}: undeclared {key!r}" for key in record if key not in cls.FIELDS]
        for key, field in cls.FIELDS.items():
            if key in record:
                out += _kind_problems(field, record[key], f"{where}.{key}")
        return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind_problems(field: Field, value: Any, where: str) -> list[str]:
    import torch

    kind = field.kind
    if kind == "cases":
        if not isinstance(value, list):
            return [f"{where}: not a list of cases"]
        return [p for i, case in enumerate(value) for p in field.of.problems(case, f"{where}[{i}]")]
    if kind == "named cases":
        if not isinstance(value, dict):
            return [f"{where}: not a dict of cases"]
        return [p for name, case in value.items() for p in field.of.problems(case, f"{where}[{name!r}]")]
    if kind == "record":
        return field.of.problems(value, where)
    checks = {
        "tensor": lambda v: type(v) is torch.Tensor,
        "tensor?": lambda v: v is None or type(v) is torch.Tensor,
        "bool": lambda v: isinstance(v, bool),
        "int": _is_int,
        "float": lambda v: isinstance(v, float),
        "str": lambda v: isinstance(v, str),
        "strs": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "pairs": lambda v: (
            isinstance(v, list)
            and all(isinstance(x, list) and len(x) == 2 and _is_int(x[0]) and isinstance(x[1], str) for x in v)
        ),
        "state": lambda v: isinstance(v, dict) and all(type(t) is torch.Tensor for t in v.values()),
        "shapes": lambda v: (
            isinstance(v, dict) and all(isinstance(s, list) and all(map(_is_int, s)) for s in v.values())
        ),
        "names": lambda v: (
            isinstance(v, list) and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) for x in v)
        ),
        "dropouts": lambda v: isinstance(v, list) and all(isinstance(x, list) and len(x) >= 2 for x in v),
    }
    return [] if checks[kind](value) else [f"{where}: expected {KINDS[kind]}, got {type(value).__name__}"]


def render_markdown(records: list[type[Record]]) -> str:
    """The records as Markdown tables: the experiments' records in order, then each nested case record once."""
    ordered: list[type[Record]] = []
    pending = list(records)
    while pending:
        record = pending.pop(0)
        if record in ordered:
            continue
        ordered.append(record)
        pending += [f.of for f in record.FIELDS.values() if f.of is not None]
    lines: list[str] = []
    for record in ordered:
        title = f"`{record.NAME}`" if record.NAME else f"case `{record.__name__}`"
        lines += ["", f"### {title}", "", " ".join((record.__doc__ or "").split()), ""]
        if not record.FIELDS:
            lines.append("No fields.")
            continue
        lines += ["| key | kind | judged | what it holds |", "|---|---|---|---|"]
        for key, field in record.FIELDS.items():
            kind = KINDS[field.kind] if field.of is None else f"{field.kind} of `{field.of.__name__}`"
            judged = "yes" if field.checked else "no (reported)"
            lines.append(f"| `{key}` | {kind} | {judged} | {' '.join(field.doc.split())} |")
    return "\n".join(lines).lstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.protocol.schema MODULE``: print MODULE.RECORDS as Markdown."""
    import importlib
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m autograder.protocol.schema package.runner.evidence", file=sys.stderr)
        return 2
    records = getattr(importlib.import_module(args[0]), "RECORDS", None)
    if not records:
        print(f"{args[0]} has no RECORDS tuple of Record classes", file=sys.stderr)
        return 2
    sys.stdout.write(render_markdown(list(records)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
