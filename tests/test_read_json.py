"""formats/validation.read_json: the loaders' JSON reader gives json.loads's values exactly (it
parses with orjson where orjson is installed and agrees, else with json), and the same
FormatError where the bytes are not JSON."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.errors import FormatError
from tokenforge.formats import validation
from tokenforge.formats.validation import read_json

# Documents where orjson and json.loads part ways: read_json must give json.loads's value.
EDGES = [
    b'{"a": 1, "b": 2, "a": 3}',  # a repeated key: the later value, in the first place
    b'"\\ud800"',  # a lone surrogate (json keeps it; orjson refuses)
    b'["\\udbff\\udfff", "\\u0000"]',
    b"1e400",  # beyond a double: inf
    b"-1e400",
    b"123456789012345678901234567890",  # beyond 64 bits: an int (orjson: a float)
    b"18446744073709551615",
    b"18446744073709551616",
    b"-9223372036854775809",
    b'{"vocab": {"a": 99999999999999999999}}',
    b'["12345678901234567890123", 7]',  # a long run of digits in a string
    b"NaN",
    b"[Infinity, -Infinity]",
    b"1.5e-400",
    b"-0",
    b"[1.0000000000000002, 0.1, 1e22, 5e-324]",
    b' {"x": [true, false, null]} ',
    b'"\xe2\x96\x81"',
]


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)  # type: ignore[index]
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    return a == b


@pytest.mark.parametrize("data", EDGES)
def test_same_values_as_json(data: bytes) -> None:
    assert _same(read_json("x.json", data, "a test"), json.loads(data.decode("utf-8")))


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b'{"a": 1,}', b"\xef\xbb\xbf{}", b'"a\x01"', b'"\xed\xa0\x80"', b'"\xff"', b"[1] 2", b"[" * 100000],
)
def test_not_json_is_format_error(data: bytes) -> None:
    with pytest.raises(FormatError, match="not a test"):
        read_json("x.json", data, "a test")


def test_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validation, "_orjson", None)
    for data in EDGES:
        assert _same(read_json("x.json", data, "a test"), json.loads(data.decode("utf-8")))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(_json, st.booleans())
def test_any_document(value: object, ascii_only: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    try:
        expected = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:  # a lone surrogate written raw: not UTF-8
        with pytest.raises(FormatError):
            read_json("x.json", data, "a test")
        return
    assert _same(read_json("x.json", data, "a test"), expected)
