"""`PackedInts`: a read-only sequence of ints stored 4 bytes each, for results too large to hold
as lists (a list costs 8 bytes a slot plus 32 for each int object past the small ones).

`Encoding.encode_with_offsets` returns its ids and offsets this way: a 200 MB text has ~50
million tokens, whose character and byte offsets as lists would take ~4 GB. A `PackedInts`
indexes, slices, iterates and compares equal to a list (or any sequence) with the same items;
`tolist()` makes the list, and `numpy.asarray(x)` shares its memory (dtype uint32).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload


class PackedInts(Sequence[int]):
    """Non-negative ints below 2**32, 4 bytes each, read-only."""

    __slots__ = ("_view",)

    def __init__(self, data: bytes | bytearray | memoryview | array | Iterable[int] = b"") -> None:
        if isinstance(data, memoryview) and data.format == "I":
            self._view = data
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self._view = memoryview(data).cast("B").cast("I")
        elif isinstance(data, array) and data.typecode == "I":
            self._view = memoryview(data)
        else:
            self._view = memoryview(array("I", data))
        if not self._view.readonly:
            self._view = self._view.toreadonly()

    def __len__(self) -> int:
        return len(self._view)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> PackedInts: ...
    def __getitem__(self, index: int | slice) -> int | PackedInts:
        if isinstance(index, slice):
            return PackedInts(self._view[index])
        return int(self._view[index])

    def __iter__(self) -> Iterator[int]:
        return iter(self._view)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedInts):
            return self._view == other._view
        if isinstance(other, (list, tuple)):
            return len(other) == len(self) and self._view.tolist() == list(other)
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self) and all(a == b for a, b in zip(self._view, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compares equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"PackedInts({self._view.tolist()!r})"

    def tolist(self) -> list[int]:
        return self._view.tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        out = np.frombuffer(self._view, dtype=np.uint32)
        return out.astype(dtype) if dtype is not None else out
