"""Runs of three-byte characters (CJK, kana, hangul, fullwidth forms, symbols), the long pieces
of CJK text, and dense runs of two-byte characters (Cyrillic, Latin-1 and the rest of
U+0080..U+07FF, which the windows classify 16 bytes at a time) through both scanners (the windows of src/native/pre_tokenizers/block_scanner.h
and the character-by-character one): pieces must end exactly where the `regex` module's matches
of the same pattern end, for texts dense in characters of one class, characters of blocks that
mix classes (letters of either case, marks, numbers, punctuation, spaces), and their borders
with ASCII."""

from __future__ import annotations

import random
import unicodedata

import pytest
import regex

from tokenforge import _core
from tokenforge.pre_tokenizers.patterns import CL100K, O200K, TEKKEN, scanner_id

PATTERNS = {"cl100k": CL100K, "o200k": O200K, "tekken": TEKKEN}

ATOMS = [
    # uniform blocks: CJK ideographs, hangul syllables, kana (Lo)
    "世",
    "界中文字",
    "한국어",
    "텍스트",
    "カタカナ",
    "ひらがな",
    # blocks that mix classes: prolonged sound mark (Lm), ideographic number (Nl), CJK
    # punctuation, fullwidth upper / lower / digits, Latin and Greek extended (upper and lower
    # alternate), roman numerals (Nl), letterlike symbols, combining marks (Mn), superscripts
    # (No), bopomofo, hangul jamo, a line separator and the ideographic space (White_Space)
    "ー",
    "〇",
    "、",
    "。「」",
    "Ａ",
    "ａｂ",
    "１２３４",
    "Ḁḁ",
    "Ḃ",
    "ἀἈ",
    "ⅠⅡ",
    "ℕ",
    "℃",
    "\u20d0",
    "\u2070",
    "ㄅ",
    "ᄀ",
    "\u2028",
    "\u3000",
    "—",
    "€",
    # ASCII and two-byte neighbours: prefixes, contractions, digits, spaces, newlines
    "a",
    "A",
    "Hello",
    " ",
    "  ",
    "\n",
    "'",
    "'s",
    "'LL",
    "1",
    ".",
    "é",
    "Д",
]


def regex_ends(pattern: str, text: str) -> list[int]:
    out, pos = [], 0
    for m in regex.finditer(pattern, text):
        pos += len(m.group().encode("utf-8"))
        out.append(pos)
    return out


# Two-byte atoms: the Latin-1 and Cyrillic letters the windows classify in blocks (every case
# rule: U+00C0..U+00DE upper but U+00D7, U+00DF..U+00FF lower but U+00F7, U+0400..U+042F
# upper, U+0430..U+045F lower, U+0460..U+047F alternating), their neighbours that are not
# letters, and two-byte letters of other scripts.
TWO_BYTE_ATOMS = ["Привет", "мир", "ЁЖЗ", "ёжз", "ѠѡѢѣ", "Ѿѿ", "ҀҁҊҋ", "\u0482", "\u0483", "ÀÉÎÕÜ"]
TWO_BYTE_ATOMS += ["àéîõü", "ß", "ÿ", "Þþ", "×", "÷", "ĄąŁłŃń", "ΩωΆ", "ə", "\u0301", "«»", "\u00a0", "Ա", "א"]
TWO_BYTE_ATOMS += ["a", "Z", "Hello", " ", "\n", "'", "'s", "1", ".", "/", "世"]
# Random texts: (atoms, most atoms in one text's alphabet, most atoms in a text).
RUNS = {"three-byte": (ATOMS, len(ATOMS), 60), "two-byte": (TWO_BYTE_ATOMS, 8, 80)}


def random_text(rng: random.Random, runs: str) -> str:
    atoms, most, longest = RUNS[runs]
    alphabet = rng.sample(atoms, rng.randint(2, most))
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, longest)))


@pytest.mark.parametrize("runs", sorted(RUNS))
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_runs_cut_like_regex(name, runs):
    pattern = PATTERNS[name]
    native = scanner_id(pattern)
    rng = random.Random(f"{runs}-runs-{name}")
    for _ in range(4000):
        text = random_text(rng, runs)
        want = regex_ends(pattern, text)
        assert _core._piece_ends(text, native, False) == want, repr(text)
        assert _core._piece_ends(text, native, True) == want, repr(text)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_three_byte_character_alone_and_in_runs(name):
    """Each three-byte character (U+0800..U+FFFF) in runs of up to 64, alone, doubled, after an
    uppercase letter and a space, and before a lowercase letter and an apostrophe-s. Only those
    Python's own tables know (unicodedata): characters assigned since may have other classes in
    `regex` than in this project's tables, whatever the scanner does."""
    pattern = PATTERNS[name]
    native = scanner_id(pattern)
    chars = [chr(c) for c in range(0x800, 0x10000) if unicodedata.category(chr(c)) not in ("Cn", "Cs")]
    for k in range(0, len(chars), 64):
        block = "".join(chars[k : k + 64])
        for text in (block, block + block, "A " + block + "a's", "x" + block.replace(block[0], "Z")):
            want = regex_ends(pattern, text)
            assert _core._piece_ends(text, native, False) == want, (hex(ord(block[0])), text)
            assert _core._piece_ends(text, native, True) == want, (hex(ord(block[0])), text)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_two_byte_character_among_cyrillic_and_latin1(name):
    """Each two-byte character (U+0080..U+07FF) inside runs of Cyrillic or Latin-1 letters of
    either case, at every offset in a 64-byte window (the text's start shifts it), at the
    text's end, and after an ASCII capital."""
    pattern = PATTERNS[name]
    native = scanner_id(pattern)
    chars = [chr(c) for c in range(0x80, 0x800) if unicodedata.category(chr(c)) not in ("Cn", "Cs")]
    for i, c in enumerate(chars):
        pad = "a" * (i % 64)
        for text in (pad + "Дом" + c + "мир" + c * 4, pad + "ÉÀ" + c + "éàÿ" + c, pad + "Ж" + "ж" * 5 + c):
            for t in (text, "A" + text, text + "x'S"):
                want = regex_ends(pattern, t)
                assert _core._piece_ends(t, native, False) == want, (hex(ord(c)), t)
                assert _core._piece_ends(t, native, True) == want, (hex(ord(c)), t)
