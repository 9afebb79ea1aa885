"""sentencepiece's normalizer, driven by the normalizer spec stored in a `.model` file.

The rule itself (nmt_nfkc, nfkc, ...) is a precompiled character map: a 4-byte size, a
double-array trie (darts-clone units) over UTF-8 byte strings, then the replacement strings,
NUL-terminated. At each position the longest key in the trie that prefixes the rest of the text
is replaced; without a match the character stays (identity has no map at all). Around that:
leading, trailing and repeated spaces go (remove_extra_whitespaces), a space goes in front
(add_dummy_prefix), and spaces become "▁" (escape_whitespaces).
"""
from __future__ import annotations

from array import array

SPACE = "\u2581"


class CharsMap:
    """A precompiled character map (sentencepiece's Normalizer::DecodePrecompiledCharsMap)."""

    def __init__(self, blob: bytes) -> None:
        if len(blob) < 4:
            raise ValueError("precompiled_charsmap: shorter than its 4-byte header (corrupt model)")
        trie_size = int.from_bytes(blob[:4], "little")
        if trie_size % 4 or 4 + trie_size > len(blob) or trie_size == 0:
            raise ValueError(f"precompiled_charsmap: trie size {trie_size} does not fit the {len(blob)}-byte map "
                             "(corrupt model)")
        self.units = array("I", blob[4 : 4 + trie_size])
        if self.units.itemsize != 4:  # pragma: no cover - every platform Python runs on has 4-byte "I"
            raise RuntimeError("array('I') is not 32-bit here")
        self.replacements = blob[4 + trie_size :]

    def longest_prefix(self, data: bytes, pos: int) -> tuple[int, bytes]:
        """(length, replacement) of the longest key at data[pos:], or (0, b"") for none."""
        units, n = self.units, len(self.units)
        node = 0
        unit = units[0]
        node ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        best_len, best_value = 0, -1
        for i in range(pos, len(data)):
            label = data[i]
            node ^= label
            if node >= n:
                break
            unit = units[node]
            if unit & ((1 << 31) | 0xFF) != label:
                break
            node ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                if node >= n:
                    raise ValueError("precompiled_charsmap: a trie leaf points outside the trie (corrupt model)")
                best_len, best_value = i + 1 - pos, units[node] & ((1 << 31) - 1)
        if best_value < 0:
            return 0, b""
        end = self.replacements.find(b"\0", best_value)
        if best_value >= len(self.replacements) or end < 0:
            raise ValueError("precompiled_charsmap: a replacement string runs past the map (corrupt model)")
        return best_len, self.replacements[best_value:end]


class SentencePieceNormalizer:
    def __init__(self, precompiled_charsmap: bytes = b"", add_dummy_prefix: bool = True,
                 remove_extra_whitespaces: bool = True, escape_whitespaces: bool = True,
                 treat_whitespace_as_suffix: bool = False) -> None:
        self.charsmap = CharsMap(precompiled_charsmap) if precompiled_charsmap else None
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix

    @classmethod
    def from_spec(cls, spec, treat_whitespace_as_suffix: bool = False) -> "SentencePieceNormalizer":
        return cls(spec["precompiled_charsmap"], spec["add_dummy_prefix"], spec["remove_extra_whitespaces"],
                   spec["escape_whitespaces"], treat_whitespace_as_suffix)

    def _pieces(self, text: str):
        """The text's normalized pieces, one per matched key or character."""
        if self.charsmap is None:
            yield from text
            return
        data = text.encode("utf-8", "surrogatepass")
        pos = 0
        while pos < len(data):
            length, replacement = self.charsmap.longest_prefix(data, pos)
            if length:
                yield replacement.decode("utf-8", "replace")
                pos += length
            else:
                b = data[pos]
                size = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
                yield data[pos : pos + size].decode("utf-8", "replace")
                pos += size

    def normalize(self, text: str) -> str:
        if self.charsmap is None:  # identity: only the whitespace rules, as string operations
            if self.remove_extra_whitespaces:
                text = " ".join(part for part in text.split(" ") if part)
            if not text:
                return ""
            if self.add_dummy_prefix:
                text = text + " " if self.treat_whitespace_as_suffix else " " + text
            return text.replace(" ", SPACE) if self.escape_whitespaces else text
        pieces = list(self._pieces(text))
        if self.remove_extra_whitespaces:
            while pieces and pieces[0] == " ":
                pieces.pop(0)
        if not pieces:
            return ""
        out = []
        space = SPACE if self.escape_whitespaces else " "
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            out.append(space)
        prev_space = self.remove_extra_whitespaces
        for piece in pieces:
            if prev_space:
                piece = piece.lstrip(" ")
            if piece:
                out.append(piece.replace(" ", space) if self.escape_whitespaces else piece)
                prev_space = piece.endswith(" ")
            if not self.remove_extra_whitespaces:
                prev_space = False
        result = "".join(out)
        if self.remove_extra_whitespaces:
            while result.endswith(space):
                result = result[: -len(space)]
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            result += space
        return result
