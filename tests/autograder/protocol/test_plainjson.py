"""Bounded JSON: every bound is checked before ``json.loads`` builds anything; what passes is plain data."""

from __future__ import annotations

import math

import pytest

import autograder.protocol.plainjson as plainjson
from autograder.protocol.bounds import Facts, Refused
from autograder.protocol.plainjson import parse_bounded


def parse(data: bytes, max_bytes: int = 1 << 20, max_values: int = 1000, max_depth: int = 8):
    return parse_bounded(
        data, "the text", max_bytes=max_bytes, max_values=max_values, max_depth=max_depth, spent=Facts()
    )


@pytest.fixture
def no_parsing(monkeypatch):
    """Fail the test if json.loads is reached: the bound must refuse the text before it."""

    def loads(*args, **kwargs):
        raise AssertionError("json.loads ran on a text a bound should have refused")

    monkeypatch.setattr(plainjson.json, "loads", loads)


def test_plain_values_come_out_with_an_upper_bound_on_their_count():
    spent = Facts()
    text = b'{"a": [1, 2.5, "x,[{:", null, true], "b": {"c": NaN, "d": -Infinity}}'
    value = parse_bounded(text, "the text", max_bytes=1000, max_values=1000, max_depth=8, spent=spent)
    count = spent.values_read
    assert value["a"] == [1, 2.5, "x,[{:", None, True] and math.isnan(value["b"]["c"]) and value["b"]["d"] < 0
    assert count == 14  # 10 values and 4 keys; the commas and colons in the string do not count


def test_bytes_values_and_depth_are_refused_before_parsing(no_parsing):
    with pytest.raises(Refused, match="over the bound of 10"):
        parse(b"[" + b"0," * 10 + b"0]", max_bytes=10)
    with pytest.raises(Refused, match="over 1000 values"):
        parse(b"[" + b"[]," * 1000 + b"[]]")
    with pytest.raises(Refused, match="over 1000 values"):  # a nesting bomb is first of all many values
        parse(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(Refused, match="over 8 levels"):
        parse(b"[" * 9 + b"]" * 9)
    with pytest.raises(Refused, match="over 8 levels"):
        parse(b'{"a":' * 9 + b"1" + b"}" * 9)


def test_nesting_at_the_bound_passes_and_brackets_inside_strings_do_not_count():
    assert parse(b"[" * 8 + b"]" * 8) == [[[[[[[[]]]]]]]]
    assert parse(b'["' + b'[[[[[[[[[[\\"' + b'"]') == ['[[[[[[[[[["']


def test_keys_given_twice_are_refused():
    with pytest.raises(Refused, match="key twice"):
        parse(b'{"name": "a", "name": "b"}')


def test_integers_are_bounded_before_they_are_converted():
    assert parse(b"[9223372036854775807, -9223372036854775808]") == [2**63 - 1, -(2**63)]
    with pytest.raises(Refused, match="outside the 64-bit range"):
        parse(b"9223372036854775808")
    with pytest.raises(Refused, match="5000 digits"):
        parse(b"1" * 5000)
    assert parse(b"1e999") == math.inf  # a float too large is infinity, as Python's json gives it
    with pytest.raises(Refused, match="outside the 64-bit range"):
        parse(b'{"a": [1, {"b":-9223372036854775809}]}')  # anywhere, after any punctuation
    # digits that are no integer: inside a string, a fraction's, an exponent's, a float's whole part
    long = "12345678901234567890123"
    assert parse(f'["{long}", 0.{long}, 1e-{long}, 2E+{long}, {long}.5]'.encode())[0] == long


def test_what_is_not_utf8_json_is_refused():
    with pytest.raises(Refused, match="not UTF-8"):
        parse(b'["\xff"]')
    for bad in (b"[1,", b"{'a': 1}", b"[1] [2]", b"", b'["a\x01"]', b"nan"):
        with pytest.raises(Refused, match="not valid JSON"):
            parse(bad)


@pytest.mark.parametrize(
    ("text", "outside"),
    [
        ('["a\\",", 1]', "[, 1]"),  # an escaped quote does not end the string
        ('["a\\\\", 1]', "[, 1]"),  # an escaped backslash does not escape the quote after it
        ('["a\\\\\\"],", "b"]', "[, ]"),  # both, one after the other
        ('{"k\\\\": [1, {"x": "]\\u0022,"}]}', "{: [1, {: }]}"),  # a \\u escape is text, whatever it stands for
    ],
)
def test_strings_are_told_apart_from_structure_through_every_escape(text, outside):
    assert plainjson._outside_strings(text) == outside
    assert parse(text.encode()) is not None  # and the parser agrees that the text is JSON
