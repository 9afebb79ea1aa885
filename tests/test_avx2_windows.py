"""The scanners' windows have two paths (pre_tokenizers/block_scanner.h): masks from SSE2 (or a
byte loop) and, on CPUs with AVX2, from 32-byte loads in a twin compiled for AVX2, picked at
run time (base/cpu_features.h). Both must cut every text where the character-by-character
scanner does, and give the same ids: compared here on every code point in several contexts
and on hypothesis strings, with `_core._avx2_windows` switching between them (the switch that
TOKENFORGE_NO_AVX2=1 sets from the start)."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import assert_clean_exit, run_isolated
from tokenforge import _core

# The scanners with windows: cl100k, o200k, Llama 3, Qwen2, tekken (scanner.h's Pattern).
PATTERNS = {"cl100k": 1, "o200k": 2, "llama3": 3, "qwen2": 4, "tekken": 5}
HAS_AVX2 = _core._avx2_windows(True) if _core._avx2_windows() else False
_core._avx2_windows(HAS_AVX2)  # as it was: on where the CPU has it (unless the environment said no)
needs_avx2 = pytest.mark.skipif(not HAS_AVX2, reason="this CPU (or the environment) has no AVX2 path")

# Contexts for one code point c: inside and around ASCII words (windows classify two- and
# three-byte letters by case), after spaces, digits and punctuation, repeated, before an
# apostrophe, and at a window's end (the texts are long, so every offset mod 64 occurs).
CONTEXTS = ["{c}", "a{c}b", "A{c}{c}z", " {c}", "{c}{c}{c}", "1{c}", ".{c}\n", "{c}'s ", "Ab{c}Cd", "  {c} x"]


def scan(text: str, pattern: int, avx2: bool | None) -> list[int]:
    """Piece ends with the windows on one path (avx2 True or False) or the scalar scanner (None)."""
    if avx2 is None:
        return _core._piece_ends(text, pattern, False)
    _core._avx2_windows(avx2)
    try:
        return _core._piece_ends(text, pattern, True)
    finally:
        _core._avx2_windows(HAS_AVX2)


def code_point_texts(chunk: int = 3000) -> Iterator[str]:
    """Every code point but the surrogates, each in one of CONTEXTS, a chunk of them per text."""
    points = [c for c in range(1, sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(points), chunk):
        yield "".join(CONTEXTS[(i + j) % len(CONTEXTS)].format(c=chr(c)) for j, c in enumerate(points[i : i + chunk]))


def test_switch_reports_and_sets():
    assert _core._avx2_windows(False) is False
    assert _core._avx2_windows() is False
    assert _core._avx2_windows(True) is HAS_AVX2
    _core._avx2_windows(HAS_AVX2)


def test_environment_turns_avx2_off():
    proc = run_isolated("from tokenforge import _core; print(_core._avx2_windows())", env={"TOKENFORGE_NO_AVX2": "1"})
    assert_clean_exit(proc)
    assert proc.stdout.strip() == "False"


@needs_avx2
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_code_point_both_paths(name):
    pattern = PATTERNS[name]
    for text in code_point_texts():
        scalar = scan(text, pattern, None)
        assert scan(text, pattern, True) == scalar
        assert scan(text, pattern, False) == scalar


@needs_avx2
@pytest.mark.parametrize("name", sorted(PATTERNS))
@pytest.mark.parametrize("length", range(1, 131))
def test_every_length_at_the_end(name, length):
    """Texts of every length up to two windows, so each path pads the last window."""
    pattern = PATTERNS[name]
    rng = random.Random(f"avx2-{name}-{length}")
    alphabet = ["a", "Z", " ", "\n", "1", ".", "/", "'", "'s", "é", "Д", "世", "\t", "ab", "  "]
    for _ in range(20):
        text = "".join(rng.choice(alphabet) for _ in range(length))[:length]
        assert scan(text, pattern, True) == scan(text, pattern, False) == scan(text, pattern, None), repr(text)


ATOMS = ["a", "Hello", "WORLD", "iPhone", " ", "  ", "\n", "\r\n", "\t", "1", "12345", ".", "/", "'", "'s", "'LL"]
ATOMS += ["é", "É", "Дом", "ß", "世界", "ー", "ʰ", "\u0301", "«", "²", "٣", "\u00a0", "😀", "Ωω", "'é"]


@needs_avx2
@settings(max_examples=300, deadline=None, database=None)
@given(
    st.one_of(st.lists(st.sampled_from(ATOMS), max_size=120).map("".join), st.text(max_size=200)),
    st.sampled_from(sorted(PATTERNS)),
)
def test_hypothesis_both_paths(text, name):
    pattern = PATTERNS[name]
    assert scan(text, pattern, True) == scan(text, pattern, False) == scan(text, pattern, None)


@needs_avx2
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_ids_both_paths(name):
    enc = tokenforge.get_encoding(name)
    rng = random.Random(f"avx2-ids-{name}")
    texts = list(code_point_texts(chunk=20000))
    texts.append(" ".join("".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 9))) for _ in range(5000)))
    try:
        for text in texts:
            _core._avx2_windows(True)
            with_avx2 = enc.encode_ordinary(text)
            _core._avx2_windows(False)
            assert enc.encode_ordinary(text) == with_avx2
    finally:
        _core._avx2_windows(HAS_AVX2)
