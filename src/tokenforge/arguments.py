"""Argument checks: one reading of numbers, flags, choices and token ids for every surface.

Encoding, Tokenizer, the trainers and the CLI call these before anything is stored or any
native call is made; a bad value is a TypeError (wrong kind) or ValueError (out of range) that
names the argument and what it accepts. NumPy integers read as ints; bools are not numbers.
Neighbours: `threads.resolve_threads` (thread counts), `errors.FormatError` (bad files).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

INT64_MAX = 2**63 - 1
UINT32_MAX = 2**32 - 1
MAX_VOCAB = 1 << 24  # the most tokens a vocabulary may have (the native .tiktoken parser's bound)
MAX_PAD_LENGTH = 1 << 24  # padding to more tokens than this is a mistake (or a corrupt file), and would exhaust memory


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bound(n: int) -> str:
    """A range's end as people write it: 2**63-1 rather than 9223372036854775807."""
    for k in range(20, 65):
        if n == 2**k or n == -(2**k):
            return f"{'-' if n < 0 else ''}2**{k}"
        if n == 2**k - 1:
            return f"2**{k}-1"
    return str(n)


def _int_range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"an int in {_bound(low)}..{_bound(high)}"
    if low is not None:
        return f"an int >= {_bound(low)}"
    return "an int" if high is None else f"an int <= {_bound(high)}"


class NegativeIntError(ValueError, OverflowError):
    """A negative int where only those >= 0 go: a ValueError (tokenforge's range check) and an
    OverflowError, as HF tokenizers' conversion to an unsigned integer raises."""


class TokenIdOverflowError(ValueError, OverflowError):
    """A token id a u32 cannot hold (negative, or 2**32 and above) handed to decode, decode_batch,
    a DecodeStream or id_to_token: HF tokenizers' OverflowError, and the ValueError tokenforge
    raised before for it (an id outside the vocabulary)."""


U32_IDS = 2**32


def _u32_overflow(ids: Any) -> int | None:
    """The first id of `ids` (integers) that a u32 cannot hold, None where every one fits."""
    for value in ids:
        try:
            i = operator.index(value)
        except TypeError:
            return None  # (a TypeError of its own, raised where the ids are read)
        if not 0 <= i < U32_IDS:
            return i
    return None


def _token_id_overflow(i: int) -> TokenIdOverflowError:
    return TokenIdOverflowError(
        f"token id {i} is not in this tokenizer's vocabulary: a token id is an int in 0..2**32-1 "
        "(HF tokenizers' OverflowError)"
    )


def _check_int(
    value: Any, name: str, low: int | None = None, high: int | None = None, *, none: str | None = None, why: str = ""
) -> Any:
    """`value` as an int in low..high: any integer (int, NumPy integer scalars: whatever has
    `__index__`) but bool. `none`: None is accepted too, meaning that (e.g. "no limit").
    Otherwise TypeError (not an integer) or ValueError (out of range) naming `name`."""
    if value is None and none is not None:
        return None
    if type(value) is int and (low is None or value >= low) and (high is None or value <= high):
        return value  # the common case, before any message is made
    allowed = (f"None ({none}) or " if none is not None else "") + _int_range(low, high) + why
    if not isinstance(value, bool):
        try:
            n = operator.index(value)
        except TypeError:
            pass
        else:
            if (low is None or n >= low) and (high is None or n <= high):
                return n
            if n < 0 <= (low or 0):
                raise NegativeIntError(f"{name} must be {allowed}, got {n}")
            raise ValueError(f"{name} must be {allowed}, got {n}")
    raise TypeError(f"{name} must be {allowed}, got {type(value).__name__} {_shown(value)}")


def _file_value(value: Any, name: str, high: int) -> int:
    """An id or rank of a vocabulary handed to a constructor: an int in 0..high. Any wrong value
    is a ValueError, as a bad entry of a vocabulary file is (tiktoken's constructors agree)."""
    try:
        return _check_int(value, name, 0, high)
    except TypeError as e:
        raise ValueError(str(e)) from None


def _check_float(value: Any, name: str, low: float, high: float, *, low_open: bool = False, why: str = "") -> float:
    """`value` (an int or a float, NumPy's too, not bool) as a float in [low, high] ((low, high]
    with low_open); NaN is out of range."""
    allowed = f"{'(' if low_open else '['}{low}, {high}]{why}"
    if _is_bool(value) or (not isinstance(value, (int, float)) and not hasattr(value, "__float__")):
        raise TypeError(f"{name} must be a number in {allowed}, got {type(value).__name__} {_shown(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{name} must be a number in {allowed}, got {type(value).__name__} {_shown(value)}") from None
    if not ((low < x) if low_open else (low <= x)) or not x <= high:  # NaN fails both
        raise ValueError(f"{name} must be in {allowed}, got {_shown(value)}")
    return x


def _is_bool(value: Any) -> bool:
    """A bool, Python's or NumPy's."""
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"))


def _check_bool(value: Any, name: str) -> bool:
    """`value` as a bool: True or False (NumPy's bool too); anything else is a TypeError."""
    if value is True or value is False:
        return value
    if _is_bool(value):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {type(value).__name__} {_shown(value)}")


def _id_array(ids: Any, name: str, ndim: int) -> Any:
    """Token ids as the native parsers read them fastest: a NumPy integer array of `ndim`
    dimensions (1: one sequence, 2: a batch) becomes (nested) lists of ints; a NumPy array of
    any other kind (float, bool) or shape is a TypeError. Lists, tuples and other sequences pass
    as they are (their items may be any integers)."""
    what = "a sequence of token ids (ints)" if ndim == 1 else "a sequence of token id sequences"
    kind = getattr(getattr(ids, "dtype", None), "kind", None)
    if kind is None or not hasattr(ids, "tolist"):
        if isinstance(ids, (str, bytes)):
            raise TypeError(f"{name} must be {what}, got {type(ids).__name__}")
        return ids
    if kind not in "iu":
        raise TypeError(f"{name} must be token ids (integers), got an array of {ids.dtype}")
    if getattr(ids, "ndim", ndim) != ndim:
        raise TypeError(f"{name} must be a {ndim}-D array of token ids ({what}), got a {ids.ndim}-D array")
    return ids.tolist()


def _token_ids(ids: Any, name: str = "ids") -> Any:
    """One sequence of token ids (see _id_array)."""
    return _id_array(ids, name, 1)


def _batch_ids(batch: Any, name: str = "batch") -> Any:
    """A batch of id sequences: a 2-D NumPy integer array becomes a list of lists of ints."""
    return _id_array(batch, name, 2)


def _token_id(value: Any, name: str = "token id") -> int:
    """One token id: any integer (NumPy's too; bool counts as 0 and 1, as in tiktoken, HF and
    sentencepiece); anything else is a TypeError."""
    if type(value) is int:
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {_shown(value)}") from None


def _check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    allowed = " or ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be {allowed}, got {type(value).__name__} {_shown(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be {allowed}, got {_shown(value)}")
    return value
