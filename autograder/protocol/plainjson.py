"""Trusted: parse JSON from the runner within bounds checked before the parser builds anything.

Python's ``json`` is a C parser over text, with no code in the data; what it does not bound is how much it
builds (a 1 MiB text of ``[],`` is 350,000 lists), how deep it recurses, and how long an integer it converts.
So before ``json.loads`` runs, the text is measured with a few linear C passes: its bytes, an upper bound on
its values and keys (one more than its commas, colons and opening brackets outside strings), and its nesting
(from those brackets alone). Strings are told apart without a regex walking them (a regex over a string of
escapes costs seconds): escaped backslashes and quotes are dropped, then every other quote opens or closes
a string. An integer of more than 20 digits or outside 64 bits is refused from that same text without its strings
(any integer of 19 digits or more is read; every shorter one is inside 64 bits), so the parser converts the rest
itself; then ``json.loads`` parses it with a hook that refuses a key given twice. ``NaN`` and ``Infinity`` are
floats, as Python
writes them (a student's loss may be NaN); every other bound on the values is the caller's.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from autograder.protocol.bounds import Refused

__all__ = ["parse_bounded"]

_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = str.maketrans({"[": "1", "{": "1", "]": "2", "}": "2"})
_DEPTH_STEP = {"1": 1, "2": -1}
_INT64 = 1 << 63
# An integer's digits outside strings, 19 or more of them (2**63 has 19): not a fraction's or an exponent's
_LONG_INT = re.compile(r"(?<![\w.+-])-?\d{19,}(?![\d.eE])")


def parse_bounded(data: bytes, what: str, *, max_bytes: int, max_values: int, max_depth: int, spent: Any) -> Any:
    """The value `data` holds; Refused naming `what` and the bound when the text is over one, or is not UTF-8
    JSON. ``spent.values_read`` grows by the (upper bound on the) values and keys handed to the parser."""
    if len(data) > max_bytes:
        raise Refused(f"{what} is {len(data)} bytes, over the bound of {max_bytes}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{what} is not UTF-8 text") from None
    skeleton = _outside_strings(text)  # the structure alone: no bracket or comma inside a string counts
    values = 1 + sum(skeleton.count(c) for c in ",:[{")
    if values > max_values:
        raise Refused(f"{what} holds over {max_values} values")
    brackets = _NOT_BRACKET.sub("", skeleton).translate(_STEP)  # at most `values` of them
    depth = max(accumulate(map(_DEPTH_STEP.__getitem__, brackets), initial=0))
    if depth > max_depth:
        raise Refused(f"{what} is nested over {max_depth} levels deep")
    spent.values_read += values
    for digits in _LONG_INT.findall(skeleton):
        _int64(digits)
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except Refused:
        raise
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise Refused(f"{what} is not valid JSON ({str(exc)[:80]})") from None
    return value


def _outside_strings(text: str) -> str:
    """`text` without its JSON strings. Inside a string a backslash escapes the one character after it, so once
    the pairs ``\\\\`` and then ``\\"`` are dropped (left to right, as the parser pairs them), each quote left
    is a string's first or last: the pieces between them alternate outside, inside, outside..."""
    plain = text.replace("\\\\", "").replace('\\"', "") if "\\" in text else text
    return "".join(plain.split('"')[0::2])


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise Refused("a JSON object gives a key twice")
    return out


def _int64(digits: str) -> int:
    if len(digits) > 20:
        raise Refused(f"an integer of {len(digits)} digits: evidence integers fit in 64 bits")
    value = int(digits)
    if not -_INT64 <= value < _INT64:
        raise Refused("an integer outside the 64-bit range")
    return value
