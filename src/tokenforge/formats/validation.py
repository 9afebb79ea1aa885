"""Checks the loaders share: JSON read without surprises, values of the kind a field needs, and
the rule for token ids far beyond the vocabulary.

Every failure is a `FormatError` naming the file and the field (a JSON path such as
`post_processor.special_tokens['[CLS]'].ids[0]`, a line, a metadata key), raised before a value
reaches a native constructor, so that no corrupt file gets as far as `std::bad_cast` or a
crash.

Sparse ids. Tokenizers keep tables indexed by token id, so an id far beyond the vocabulary (a
corrupt `"id": 268435456`) would allocate a table that size. The rule, the same for every
format: a file that defines `n` tokens (vocabulary entries, added and special tokens together)
may use ids below ``2 * n + 65536`` (`id_limit`). Real files leave at most a few reserved gaps
(cl100k_base's specials sit 20 ids past its 100,256 ranks, o200k_base's 22 past 199,998), so
this refuses only corrupt ids, and bounds every table a loader builds to about twice what the
file itself holds.
"""

from __future__ import annotations

import gc
import json
import os
from typing import Any, Callable, NoReturn

from ..errors import FormatError

_orjson: Any
try:  # a faster parser for the same documents (see _fast_json); json alone gives the same values
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency, but the loaders never need it
    _orjson = None

SPARSE_ID_MARGIN = 1 << 16

__all__ = [
    "SPARSE_ID_MARGIN",
    "Fields",
    "FormatError",
    "id_limit",
    "key_path",
    "read_json",
]


def id_limit(n_tokens: int) -> int:
    """Ids in a file that defines `n_tokens` tokens must be below this (see the module's doc)."""
    return 2 * n_tokens + SPARSE_ID_MARGIN


def key_path(parent: str, key: str | int) -> str:
    """`parent` and `key` as a JSON path: `model.vocab['##s']`, `added_tokens[3]`."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if key.isidentifier():
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{key!r}]"


def read_json(
    path: str,
    data: bytes,
    what: str,
    *,
    pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    where: str = "",
) -> Any:
    """`data` (the bytes of `path`) parsed as JSON; anything that is not JSON (bad UTF-8, a syntax
    error, nesting too deep for the parser, an integer too long to convert) is a FormatError
    that says the file is not `what`."""
    # The parse makes only containers that hold no cycles, millions for a big vocabulary: the
    # cyclic collector, which would run over them again and again, is paused meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        fast = _fast_json(data) if pairs_hook is None else _NOT_FAST
        if fast is not _NOT_FAST:
            return fast
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(path, where, f"not {what}: not UTF-8 text (invalid byte at offset {e.start})") from None
        return json.loads(text, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as e:
        raise FormatError(
            path, where or f"line {e.lineno}", f"not {what}: invalid JSON ({e.msg}, column {e.colno})"
        ) from None
    except RecursionError:
        raise FormatError(path, where, f"not {what}: the JSON nests too deeply to read") from None
    except FormatError:  # from pairs_hook, or the UTF-8 above
        raise
    except ValueError as e:  # integers longer than Python converts (sys.set_int_max_str_digits)
        raise FormatError(path, where, f"not {what}: {e}") from None
    finally:
        if collecting:
            gc.enable()


_NOT_FAST = object()
# Bytes -> b"0" for an ASCII digit, b" " for any other byte (_fast_json's check for long integers).
_DIGITS = bytes(48 if 48 <= b < 58 else 32 for b in range(256))


def _fast_json(data: bytes) -> Any:
    """`data` parsed by orjson where that gives exactly json.loads's value, else _NOT_FAST.

    orjson reads what json.loads reads to the same values (str, int, float, list, dict with the
    later of repeated keys, in the same order), except that it refuses what json.loads accepts
    beyond strict JSON (NaN and Infinity, lone surrogates, numbers beyond a double) and reads an
    integer beyond 64 bits as a float. A refusal gives _NOT_FAST (json.loads then reads the
    document, or names its error as before; orjson checks the UTF-8 itself), and so does a run of
    19 digits anywhere in the bytes (in a string too: only a false alarm), the shortest integer
    that may lie beyond 64 bits (-9223372036854775809). A tokenizer.json's vocabulary and merges
    are read in two thirds of json's time."""
    if _orjson is None or b"0" * 19 in data.translate(_DIGITS):
        return _NOT_FAST
    try:
        return _orjson.loads(data)
    except ValueError:  # orjson.JSONDecodeError, for any refusal: json.loads decides, with its own errors
        return _NOT_FAST


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class Fields:
    """Typed reads of values from one file: each method returns the value when it is of the
    kind asked for and raises FormatError(path, where, ...) otherwise."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)

    def fail(self, where: str, message: str) -> NoReturn:
        raise FormatError(self.path, where, message)

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, f"must be an object, got {_kind(value)}")
        return value

    def array(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(where, f"must be an array, got {_kind(value)}")
        return value

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            self.fail(where, f"must be true or false, got {_kind(value)}")
        return value

    def text(self, value: Any, where: str, *, nonempty: bool = False) -> str:
        if not isinstance(value, str):
            self.fail(where, f"must be a string, got {_kind(value)}")
        if nonempty and not value:
            self.fail(where, "must not be empty")
        self.utf8(value, where)
        return value

    def utf8(self, value: str, where: str) -> None:
        """A string must have a UTF-8 form: JSON's "\\ud800" escapes give lone surrogates."""
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            self.fail(
                where, f"{_kind(value)} holds a lone surrogate (U+{ord(value[e.start]):04X}), which has no UTF-8 form"
            )

    def integer(self, value: Any, where: str, low: int = 0, high: int | None = None, *, what: str = "") -> int:
        """An integer in low..high (bool is not one); `what` says what the range is."""
        if type(value) is not int:
            shown = f"from {low} to {high}" if high is not None else f">= {low}"
            self.fail(where, f"must be an integer {shown}{what}, got {_kind(value)}")
        if value < low or (high is not None and value > high):
            shown = f"from {low} to {high}" if high is not None else f">= {low}"
            self.fail(where, f"must be an integer {shown}{what}, got {value}")
        return value

    def choice(self, value: Any, where: str, choices: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in choices:
            self.fail(where, f"must be one of {', '.join(repr(c) for c in choices)}, got {_kind(value)}")
        return value
