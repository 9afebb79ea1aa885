"""The split patterns of OpenAI's encodings and Mistral's tekken, and which have a native scanner.

The strings are tiktoken's, character for character: an `Encoding` built with one of them runs
the hand-written scanner in `src/native/pre_tokenizers/scanner.h`; any other pattern is split with the
`regex` module and then merged natively.
"""

from __future__ import annotations

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# Mistral's tekken.json pattern: o200k's without the contraction suffixes, with single digits.
TEKKEN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*""",
        r"""\p{N}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# No split: each text is one chunk (minbpe's BasicTokenizer).
WHOLE_TEXT = r"[\s\S]+"

BY_NAME = {"gpt2": GPT2, "r50k": GPT2, "p50k": GPT2, "cl100k": CL100K, "o200k": O200K}

# Pattern text -> native scanner id (see `Pattern` in src/native/pre_tokenizers/scanner.h).
NATIVE_SCANNERS = {GPT2: 0, CL100K: 1, O200K: 2, TEKKEN: 5}


def scanner_id(pattern: str) -> int:
    """The native scanner for `pattern`, or -1 if it must be split with the `regex` module."""
    return NATIVE_SCANNERS.get(pattern, -1)
