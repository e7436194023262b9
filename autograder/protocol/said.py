"""Both sides: a message as a value (an id and its parameters), rendered in a language only where it is shown.

Every word the kit says to a student or a TA lives in a catalog: an id with its English and Chinese templates
side by side (``Message``). Whoever owns messages (the engine, a grader, the pages) registers them once
(``register``); an id belongs to one owner. Code that decides something builds a ``Said`` (the id and its
parameters), never a sentence: a Said travels between processes as plain JSON (``to_wire`` / ``from_wire``) and
is rendered in the reader's language at the edge (``render``). A parameter is verbatim text (what the student's
code raised, a tensor's name: quoted, never interpreted) or another Said, rendered in the same language; so no
text a student controls can become an id. ``a + b`` joins two Saids into one message; ``"Name" + said`` puts
code that reads the same in every language (``verbatim``) in front.

A message may name one of its grader's misconceptions (``Message.names``, the marking scheme's id): a finding
reads that id, never the wording. Imports the standard library only (the students' self-check ships it).
"""

from __future__ import annotations

import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Union

__all__ = [
    "LANGUAGES",
    "Message",
    "Said",
    "Joined",
    "Text",
    "verbatim",
    "register",
    "registered",
    "owner_of",
    "message",
    "render",
    "ended",
    "parameters",
    "problems",
    "from_wire",
]

LANGUAGES = ("en", "zh")
_MAX_DEPTH = 16  # a Said nests a few levels (a test's frame, its problem, where to reread); never deeper


@dataclass(frozen=True)
class Message:
    en: str  # a str.format template; {name} is a parameter
    zh: str  # the same parameters
    names: str | None = None  # the marking scheme's misconception this message names, if any

    def template(self, language: str) -> str:
        if language not in LANGUAGES:
            raise ValueError(f"no {language!r} rendering: choose one of {', '.join(LANGUAGES)}")
        return getattr(self, language)


_REGISTRY: dict[str, Message] = {}
_OWNER: dict[str, str] = {}


def register(owner: str, messages: Mapping[str, Message | tuple[str, str]]) -> None:
    """Make `messages` (id -> Message, or (English, Chinese)) renderable, as `owner`'s. Registering the same
    owner again replaces its entries; an id another owner registered is a ValueError naming both."""
    for key in [k for k, o in _OWNER.items() if o == owner and k not in messages]:
        del _REGISTRY[key], _OWNER[key]
    for key, entry in messages.items():
        if _OWNER.get(key, owner) != owner:
            raise ValueError(f"message id {key!r} of {owner} is already {_OWNER[key]}'s: give it another id")
        _REGISTRY[key] = entry if isinstance(entry, Message) else Message(*entry)
        _OWNER[key] = owner


def registered(owner: str | None = None) -> dict[str, Message]:
    """Every registered message (or `owner`'s), by id."""
    return {k: m for k, m in _REGISTRY.items() if owner is None or _OWNER[k] == owner}


def owner_of(key: str) -> str | None:
    return _OWNER.get(key)


def message(key: str) -> Message:
    """The registered message `key`; KeyError naming the id when no owner registered it."""
    try:
        return _REGISTRY[key]
    except KeyError:
        raise KeyError(f"no message {key!r} is registered: add it to its owner's catalog") from None


def _text(value: object) -> str:
    """A parameter that is not a Said, as it is shown: tuples as (2, 3) in every language."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class Said:
    """A catalog message with its parameters, not yet in any language (see the module)."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, /, **params: object) -> None:
        if not isinstance(key, str) or not key:
            raise TypeError(f"a message id must be a non-empty str, not {key!r}")
        self.key = key
        self.params: dict[str, Text | str] = {
            name: value if isinstance(value, (Said, Joined)) else _text(value) for name, value in params.items()
        }

    def __add__(self, other: Text) -> Joined:
        return Joined((self, other))

    def __radd__(self, other: str) -> Joined:
        return Joined((verbatim(other), self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Said) and (self.key, self.params) == (other.key, other.params)

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Said({self.key!r}, {self.params!r})"

    def __str__(self) -> str:  # what pytest shows when a kit test fails on one: the English
        return render(self, "en")

    def first(self) -> Said:
        """The message itself (a Joined's first part: what it opens with)."""
        return self

    def walk(self) -> Iterator[Said]:
        """This message and every message nested in its parameters, in reading order."""
        yield self
        for value in self.params.values():
            if isinstance(value, (Said, Joined)):
                yield from value.walk()

    def to_wire(self) -> dict:
        return {"id": self.key, "params": {k: v if isinstance(v, str) else v.to_wire() for k, v in self.params.items()}}


class Joined:
    """Messages read one after the other (``a + b``)."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple) -> None:
        flat: list[Said] = []
        for part in parts:
            if isinstance(part, Joined):
                flat.extend(part.parts)
            elif isinstance(part, Said):
                flat.append(part)
            else:  # words outside a catalog would reach a student in one language only
                raise TypeError(f"only a Said joins a Said, not {type(part).__name__}: put the words in a catalog")
        self.parts = tuple(flat)

    def __add__(self, other: Text) -> Joined:
        return Joined((self, other))

    def __radd__(self, other: str) -> Joined:
        return Joined((verbatim(other), self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Joined) and self.parts == other.parts

    def __hash__(self) -> int:
        return hash(self.parts)

    def __repr__(self) -> str:
        return f"Joined({list(self.parts)!r})"

    def __str__(self) -> str:
        return render(self, "en")

    def first(self) -> Said:
        return self.parts[0]

    def walk(self) -> Iterator[Said]:
        for part in self.parts:
            yield from part.walk()

    def to_wire(self) -> dict:
        return {"join": [p.to_wire() for p in self.parts]}


Text = Union[Said, Joined]  # noqa: UP007 - a runtime alias (isinstance needs the classes, not the union)

# Text that reads the same in every language (a class name, a call: ``"TiedEmbeddingLM" + say(...)``).
register("said", {"verbatim": ("{text}", "{text}")})


def verbatim(text: str) -> Said:
    """`text` as it is, in every language: code (a class name, an expression), never words."""
    if not isinstance(text, str):
        raise TypeError(f"only a str is verbatim, not {type(text).__name__}")
    return Said("verbatim", text=text)


def render(text: Text, language: str = "en") -> str:
    """`text` in `language`: each message's template with its parameters filled in (nested ones rendered in
    the same language, verbatim ones as they are)."""
    return _render(text, language, 0)


def _render(text: Text, language: str, depth: int) -> str:
    if depth > _MAX_DEPTH:
        raise ValueError(f"a message nested more than {_MAX_DEPTH} deep: {text!r:.200}")
    if isinstance(text, Joined):
        parts = [_render(p, language, depth + 1) for p in text.parts]
        if language != "zh":
            return "".join(parts)
        out = ""  # a space where code meets Chinese across two parts too ("loss(ids)" + "（不给 targets）" has none)
        for part in parts:
            out, part = _one_stop(out, part)
            if out and part and ((_cjk(out[-1]) and _latin(part[0])) or (_latin(out[-1]) and _cjk(part[0]))):
                out += " "
            out += part
        return out
    values = {k: v if isinstance(v, str) else _render(v, language, depth + 1) for k, v in text.params.items()}
    template = message(text.key).template(language)
    return _spaced(template, values) if language == "zh" else template.format(**values)


# A Chinese sentence ends once: a full stop after one of these is dropped ("死循环？" + "。请重读" -> "死循环？请重读")
_ENDED = "。？！"
# A clause a full stop closes: the mark before it gives way ("如下：" + "。请重读" -> "如下。请重读")
_OPEN = "：，；、"


def _one_stop(before: str, after: str) -> tuple[str, str]:
    """`before` and `after` about to be joined, with one mark between a sentence and the full stop that follows it:
    never "？。", "。。", "：。" or "，。" where two messages (or a template and a parameter) meet."""
    if before and after.startswith("。"):
        if before[-1] in _ENDED:
            return before, after[1:]
        if before[-1] in _OPEN:
            return before[:-1], after
    return before, after


def ended(text: str) -> str:
    """A Chinese message rendered as a paragraph: each line whose last sentence has no mark of its own ends with
    。 ("……请换成你自己的代码" -> "……请换成你自己的代码。"); a line that introduces what follows (：) or
    already ends (。？！；) stays as it is. A message is built of parts that may each end a sentence or not, so
    the sentence is ended where the message is shown whole."""
    return "\n".join(line + "。" if line and _open_end(line[-1]) else line for line in text.split("\n"))


def _open_end(char: str) -> bool:
    return _cjk(char) or (char.isascii() and char.isalnum()) or char in ")]）”’\"'_"


def _cjk(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"


def _latin(char: str) -> bool:
    """A character code ends or starts with: an ASCII letter or digit, an underscore, a closing bracket."""
    return char.isascii() and (char.isalnum() or char in "_)]")


_FORMATTER = string.Formatter()


def _wide(char: str) -> bool:
    """A Chinese character or a full-width mark (（）“”，。：；): no space goes beside it."""
    return _cjk(char) or "\u3000" <= char <= "\u303f" or "\uff00" <= char <= "\uffef" or char in "“”‘’…—"


def _spaced(template: str, values: Mapping[str, str]) -> str:
    """A Chinese template filled in, with a space where a parameter meets the template's words and one side is a
    Chinese character, the other code (``_latin``: ``generate 没有结束``, as the book sets code in running
    text), and none where a full-width mark or a Chinese character meets another (a template's ``{what} 是``
    with ``{what}`` ending in ``）``). Nothing inside the template's words or a parameter's text changes."""
    out, after_value = "", False
    for literal, name, spec, conversion in _FORMATTER.parse(template):
        if literal:
            if after_value and _wide(out[-1]) and literal[0] == " " and _wide(literal[1:2] or "a"):
                literal = literal[1:]
            if after_value:
                out, literal = _one_stop(out, literal)
            if after_value and literal and _latin(out[-1]) and _cjk(literal[0]):
                out += " "
            out, after_value = out + literal, False
        if name is None:
            continue
        value = format(_FORMATTER.convert_field(values[name], conversion), spec or "")
        out, value = _one_stop(out, value)
        if value and len(out) > 1 and out[-1] == " " and _wide(out[-2]) and _wide(value[0]):
            out = out[:-1]
        if value and out and ((_cjk(out[-1]) and _latin(value[0])) or (_latin(out[-1]) and _cjk(value[0]))):
            out += " "
        out, after_value = out + value, bool(value) or after_value
    return out


def from_wire(data: Any, depth: int = 0) -> Text:
    """A Said or Joined from ``to_wire``'s dict; ValueError naming what is not a message. Ids are only checked
    for shape here: an id no catalog registers fails where it is rendered."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"a message nested more than {_MAX_DEPTH} deep")
    if isinstance(data, dict) and set(data) == {"join"} and isinstance(data["join"], list) and data["join"]:
        return Joined(tuple(from_wire(p, depth + 1) for p in data["join"]))
    if not (isinstance(data, dict) and set(data) == {"id", "params"}):
        raise ValueError(f"not a message: expected {{'id', 'params'}} or {{'join'}}, got {str(data)[:120]!r}")
    key, params = data["id"], data["params"]
    if not isinstance(key, str) or not key or not isinstance(params, dict):
        raise ValueError(f"not a message: id {str(key)[:80]!r}, params of type {type(params).__name__}")
    said = Said(key)
    for name, value in params.items():
        if not isinstance(name, str):
            raise ValueError(f"message {key!r}: a parameter name must be a str, not {name!r:.80}")
        said.params[name] = value if isinstance(value, str) else from_wire(value, depth + 1)
    return said


def parameters(template: str) -> set[str]:
    """The names a template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def problems(owner: str | Mapping[str, Message | tuple[str, str]] | None = None) -> list[str]:
    """Why a catalog is incomplete: an id without a template in some language, or whose languages fill in
    different parameters. Empty when every message renders in every language. `owner`: one owner's registered
    messages, or a catalog's own table (id -> Message or (English, Chinese)); every registered one by default."""
    table = owner if isinstance(owner, Mapping) else registered(owner)
    out = []
    for key, entry in table.items():
        entry = entry if isinstance(entry, Message) else Message(*entry)
        wanted = parameters(entry.en)
        for language in LANGUAGES:
            template = entry.template(language)
            if not template.strip():
                out.append(f"{key}: no {language} template")
            elif parameters(template) != wanted:
                out.append(f"{key}: {language} fills {sorted(parameters(template))}, English {sorted(wanted)}")
    return out
