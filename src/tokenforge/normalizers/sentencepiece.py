"""sentencepiece's normalizer, driven by the normalizer spec stored in a `.model` file.

The rule itself (nmt_nfkc, nfkc, ...) is a precompiled character map: a double-array trie over
UTF-8 strings whose longest match at each position is replaced (identity has no map). Around
that: leading, trailing and repeated spaces go (remove_extra_whitespaces), a space goes in front
(add_dummy_prefix), and spaces become "▁" (escape_whitespaces). The model's user-defined
symbols pass through unchanged. It runs natively (src/native/spm_normalizer.h).
"""
from __future__ import annotations

from typing import Sequence

from .. import _core

SPACE = "\u2581"


class SentencePieceNormalizer:
    def __init__(self, precompiled_charsmap: bytes = b"", add_dummy_prefix: bool = True,
                 remove_extra_whitespaces: bool = True, escape_whitespaces: bool = True,
                 treat_whitespace_as_suffix: bool = False, user_defined_symbols: Sequence[str] = ()) -> None:
        self._native = _core.SpmNormalizer(bytes(precompiled_charsmap), add_dummy_prefix, remove_extra_whitespaces,
                                           escape_whitespaces, treat_whitespace_as_suffix, list(user_defined_symbols))

    @classmethod
    def from_spec(cls, spec, treat_whitespace_as_suffix: bool = False,
                  user_defined_symbols: Sequence[str] = ()) -> "SentencePieceNormalizer":
        return cls(spec["precompiled_charsmap"], spec["add_dummy_prefix"], spec["remove_extra_whitespaces"],
                   spec["escape_whitespaces"], treat_whitespace_as_suffix, user_defined_symbols)

    def normalize(self, text: str) -> str:
        return self._native.normalize(text)

    def normalize_with_offsets(self, text: str) -> tuple[str, list[int]]:
        """The normalized text and, for each of its characters and for its end, the index of the
        input character it came from (sentencepiece's normalize(text, with_offsets=True))."""
        return self._native.normalize_with_offsets(text)
