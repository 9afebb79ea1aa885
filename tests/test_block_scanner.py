"""The windowed (bitmask) scanner must cut every text exactly where the character-by-character
scanner does: both are exact rewrites of the same patterns, and the windows only take over
ASCII stretches, so random texts dense in the cases each rule handles are compared piece by
piece. (Ids against tiktoken are covered by the parity suites.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _core
from tokenforge.pre_tokenizers.patterns import CL100K, O200K, TEKKEN, scanner_id

# (Llama 3's and Qwen2's scanners, 3 and 4, are cl100k's letter rules with o200k's whitespace
# rules and single digits: no pattern string names them here.)
PATTERNS = {
    "cl100k": scanner_id(CL100K),
    "o200k": scanner_id(O200K),
    "tekken": scanner_id(TEKKEN),
    "llama3": 3,
    "qwen2": 4,
}

# Each atom exercises a rule: whitespace runs before letters, digits and punctuation (prefixes,
# the space before a punctuation run, \s+(?!\S)), newlines and slashes after punctuation (the
# tail), indentation after newlines, case changes inside words (o200k), digit groups, and the
# bytes that end a window (apostrophes, non-ASCII digits and spaces).
ATOMS = [
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "a",
    "z",
    "A",
    "Z",
    "hello",
    "World",
    "HTTP",
    "iPhone",
    "1",
    "9",
    "12345",
    "0",
    ".",
    ",",
    "/",
    "//",
    "-",
    "(",
    "_",
    "'",
    "'s",
    "'ll",
    "é",
    "世",
    "٣",
    "\u00a0",
    "\u3000",
    # letters the windows classify: two- and three-byte, upper (Lu, Lt), lower (Ll) and
    # caseless (Lo, Lm), whose runs o200k splits by case; then bytes that still end a
    # window: marks, punctuation, digits and four-byte characters outside ASCII
    "Д",
    "д",
    "Привет",
    "МИР",
    "É",
    "ß",
    "ǅ",
    "ʰ",
    "ª",
    "世界",
    "カタ",
    "ー",
    "Ａ",
    "ａ",
    "Ωω",
    "\u0301",
    # two-byte marks: letters to o200k and tekken (but after punctuation, whose run takes them),
    # punctuation to cl100k, Llama 3 and Qwen2 (a lone one prefixes the letters after it)
    "\u064e",
    "\u0651",
    "\u0628\u064e",
    "\u062a\u0650\u0651",
    "\u05b4",
    "\u0488",
    "e\u0301",
    "?\u064e",
    " \u064e",
    "\u064e\n",
    "«",
    "—",
    "²",
    "😀",
    # apostrophes that are punctuation (quotes in code) and those that may be contractions
    "'x",
    "')",
    "''",
    "'S",
    "'t",
    "'M",
    "'d",
    "'Re",
    "'VE",
    "'ſ",
    "'é",
]


def ends(text: str, pattern: int, windowed: bool) -> list[int]:
    return _core._piece_ends(text, pattern, windowed)


def random_text(rng: random.Random) -> str:
    alphabet = ATOMS[: rng.randint(4, len(ATOMS))]  # many texts stay ASCII-only
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90)))
    if rng.random() < 0.25:  # long runs reach across window boundaries
        text = "".join(rng.choice(ATOMS[:6]) for _ in range(rng.randint(0, 200))) + text
    return text


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_windows_cut_like_the_scalar_scanner(name):
    rng = random.Random(f"block-scanner-{name}")
    pattern = PATTERNS[name]
    for _ in range(30000):
        text = random_text(rng)
        assert ends(text, pattern, True) == ends(text, pattern, False), repr(text)


@pytest.mark.parametrize("name", sorted(PATTERNS))
@pytest.mark.parametrize("length", [62, 63, 64, 65, 66, 127, 128, 129])
def test_window_edges(name, length):
    """Texts whose pieces end exactly at and around a 64-byte window's last bytes."""
    pattern = PATTERNS[name]
    for tail in [
        "",
        " ",
        "  ",
        "\n",
        " \n ",
        "a",
        " a",
        ".",
        "..\n",
        "12",
        "'s",
        "é",
        "世",
        "Дa",
        "世A",
        "\u064e",
        "\u064eب",
    ]:
        for filler in ["a", " ", "1", ".", "\n", "a ", " .", "/\n", "д", "世", "Aд ", "بَ", ".\u064e"]:
            text = (filler * length)[: max(0, length - len(tail))] + tail
            assert ends(text, pattern, True) == ends(text, pattern, False), repr(text)


@settings(max_examples=500, deadline=None, database=None)
@given(st.lists(st.sampled_from(ATOMS), max_size=150), st.sampled_from(sorted(PATTERNS)))
def test_windows_cut_like_the_scalar_scanner_hypothesis(atoms, name):
    text = "".join(atoms)
    pattern = PATTERNS[name]
    assert ends(text, pattern, True) == ends(text, pattern, False)
