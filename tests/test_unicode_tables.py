"""The native character classes agree with tiktoken's regex engine on every code point."""

from __future__ import annotations

import pytest

import tokenforge
from tokenforge import _core

ALL = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
CLASSES = {  # flag bit -> the regex class it stands for
    1: r"\p{L}",
    2: r"\p{N}",
    4: r"\s",
    8: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
    16: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
}


def test_unicode_version_is_tiktokens():
    assert tokenforge.UNICODE_VERSION == "16.0.0"


@pytest.mark.parametrize("bit", sorted(CLASSES))
def test_every_code_point(bit, tiktoken_module):
    # A pattern matching only the class drops every other character, so decoding the ids gives
    # exactly the characters tiktoken's engine puts in the class.
    byte_ranks = {bytes([b]): b for b in range(256)}
    probe = tiktoken_module.Encoding("probe", pat_str=CLASSES[bit], mergeable_ranks=byte_ranks, special_tokens={})
    expected = set(probe.decode(probe.encode_ordinary(ALL)))
    flags = _core.char_classes(0, 0x10FFFF)
    ours = {chr(c) for c in range(0x110000) if flags[c] & bit and not 0xD800 <= c < 0xE000}
    assert ours == expected, sorted(hex(ord(c)) for c in ours ^ expected)[:20]


HF_CLASSES = {  # flag bit -> the class of HF's patterns (DeepSeek's) it stands for
    32: r"\p{M}",
    64: r"\p{P}",
    128: r"\p{S}",
}


@pytest.mark.parametrize("bit", sorted(HF_CLASSES))
def test_every_code_point_as_oniguruma_reads_it(bit):
    # The classes only HF's patterns use, against Oniguruma (HF's engine): the code points a
    # run of the class covers.
    regex = _core.Regex(HF_CLASSES[bit] + "+")
    expected = {c for start, end, is_match in regex.find_matches(ALL) if is_match for c in ALL[start:end]}
    flags = _core.char_classes(0, 0x10FFFF)
    ours = {chr(c) for c in range(0x110000) if flags[c] & bit and not 0xD800 <= c < 0xE000}
    assert ours == expected, sorted(hex(ord(c)) for c in ours ^ expected)[:20]
