"""sentencepiece's normalizer, driven by the normalizer spec stored in a `.model` file.

The rule itself (nmt_nfkc, nfkc, ...) is a precompiled character map: a double-array trie over
UTF-8 strings whose longest match at each position is replaced (identity has no map). Around
that: leading, trailing and repeated spaces go (remove_extra_whitespaces), a space goes in front
(add_dummy_prefix), and spaces become "▁" (escape_whitespaces). The model's user-defined
symbols pass through unchanged. It runs natively (src/native/normalizers/spm_normalizer.h).

A map is checked when it is loaded, as sentencepiece checks it (`charsmap_problem`), so that a
corrupt one is refused there instead of normalizing to garbage.
"""

from __future__ import annotations

import functools
import sys
from array import array
from collections.abc import Sequence

from .. import _core

SPACE = "\u2581"


@functools.lru_cache(maxsize=8)  # a model's map is checked once; most models share one of a few maps
def charsmap_problem(blob: bytes) -> str | None:
    """What is wrong with a precompiled charsmap, or None if it is sound.

    The checks sentencepiece's Normalizer makes when it loads a model (normalizer.cc,
    DecodePrecompiledCharsMap and darts' validate()): a 4-byte trie size, a trie of whole
    256-unit blocks that leaves room for the replacement strings, those strings ending with a
    NUL, a root unit that is a root, every transition landing inside the trie, every value
    (where a replacement starts) inside the strings. One more, which sentencepiece leaves to
    chance: a unit that says it has a leaf must point at a value unit, so that no replacement
    is ever read from a unit that holds none. An empty map (identity) is sound.
    """
    if not blob:
        return None
    if len(blob) <= 4:
        return f"{len(blob)} bytes, no room for its 4-byte header and a trie"
    trie_size = int.from_bytes(blob[:4], "little")
    if trie_size >= len(blob) - 4:
        return f"its trie size {trie_size} leaves no room for the replacements in the {len(blob)}-byte map"
    if trie_size < 1024 or trie_size % 1024:
        return f"its trie size {trie_size} is not a whole number of 256-unit blocks (1024 bytes each)"
    replacements = len(blob) - 4 - trie_size
    if blob[-1] != 0:
        return "its replacement strings do not end with a NUL byte (cut short?)"
    units = array("I")
    units.frombytes(blob[4 : 4 + trie_size])
    if sys.byteorder == "big":
        units.byteswap()
    n = len(units)

    def offset(u: int) -> int:
        return (u >> 10) << ((u & (1 << 9)) >> 6)

    root = units[0]
    if root & 0x800000FF or (root >> 8) & 1 or offset(root) == 0 or offset(root) | 0xFF >= n:
        return "its trie's root unit is not a root (corrupt trie)"
    for i in range(1, n):
        u = units[i]
        if u >> 31:  # a value unit: where a replacement starts
            if u & 0x7FFFFFFF >= replacements:
                return f"trie unit {i} points past the replacement strings (corrupt trie)"
            continue
        child = i ^ ((u >> 10) << ((u & 0x200) >> 6))
        if child | 0xFF >= n:
            return f"trie unit {i} points outside the trie (corrupt trie)"
        if u & 0x100 and not units[child] >> 31:
            return f"trie unit {i} has a leaf that holds no value (corrupt trie)"
    return None


class SentencePieceNormalizer:
    def __init__(
        self,
        precompiled_charsmap: bytes = b"",
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
        user_defined_symbols: Sequence[str] = (),
    ) -> None:
        charsmap = bytes(precompiled_charsmap)
        problem = charsmap_problem(charsmap)
        if problem is not None:
            raise ValueError(f"precompiled_charsmap: {problem}")
        self._native = _core.SpmNormalizer(
            charsmap,
            add_dummy_prefix,
            remove_extra_whitespaces,
            escape_whitespaces,
            treat_whitespace_as_suffix,
            list(user_defined_symbols),
        )

    @classmethod
    def from_spec(
        cls, spec, treat_whitespace_as_suffix: bool = False, user_defined_symbols: Sequence[str] = ()
    ) -> SentencePieceNormalizer:
        return cls(
            spec["precompiled_charsmap"],
            spec["add_dummy_prefix"],
            spec["remove_extra_whitespaces"],
            spec["escape_whitespaces"],
            treat_whitespace_as_suffix,
            user_defined_symbols,
        )

    def normalize(self, text: str) -> str:
        return self._native.normalize(text)

    def normalize_with_offsets(self, text: str) -> tuple[str, list[int]]:
        """The normalized text and, for each of its characters and for its end, the index of the
        input character it came from (sentencepiece's normalize(text, with_offsets=True))."""
        return self._native.normalize_with_offsets(text)
