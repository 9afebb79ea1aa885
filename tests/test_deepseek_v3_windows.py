"""DeepSeek V3's split sequence on its one-pass scanner (pre_tokenizers/deepseek_v3_ends.h):
64-byte windows of ASCII and two-byte letters (block_scanner.h's cl100k rules with Llama 3's
whitespace, no contractions, punctuation prefixing ASCII letters only) whose starts are kept
only before the first digit, control or other non-ASCII character, and the character scanner
a segment at a time for the rest. The pieces must be HF's
pre-tokenizer's, with the AVX2 windows and without, on long mostly-ASCII texts where windows
meet digits, controls, marks, non-ASCII letters and spaces, CJK and the text's end at every
offset; and the fused kernel's ids, offsets and decode must be HF's on them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_fused_deepseek as file_test
import test_fused_deepseek_llm as stages_test
from tokenforge import _core

tokenizers = pytest.importorskip("tokenizers")

V3 = [1, 2, 3]
HAS_AVX2 = _core._avx2_windows(True) if _core._avx2_windows() else False
_core._avx2_windows(HAS_AVX2)  # as it was
AVX2 = [False, True] if HAS_AVX2 else [False]


def same_pieces_both_ways(text: str) -> None:
    try:
        for avx2 in AVX2:
            _core._avx2_windows(avx2)
            stages_test.same_pieces(V3, text)
    finally:
        _core._avx2_windows(HAS_AVX2)


# What ends a window's kept starts, and what the patterns read alike around it.
STOPS = ["7", "٣", "½", "\x00", "\x1f", "\x7f", "é", "\u0301", "\u00a0", "日", "カ", "・", "\u3000", "\u2028", "👍"]
BASES = [
    "ab cd  ef\n  gh, 'ij!k  (lm) ",
    "the  quick\tbrown\r\n\r\nfox's  --jumps-- over\n\n\n    x",
    "   \n\t \v\f  a  .b  ..c   '",
    "def f(x):\n    return x ** y  # ok\n\n",
]


@pytest.mark.parametrize("base", BASES)
def test_a_stop_at_every_offset(base):
    text = (base * 8)[:150]
    for stop in STOPS:
        for i in range(len(text) + 1):
            same_pieces_both_ways(text[:i] + stop + text[i:])


@pytest.mark.parametrize("after", ["", "x", "1", "é", "日", "!", "\n", "\x01"])
def test_whitespace_runs_of_every_length(after):
    for lead in ("", "a", "ab.", "q" * 61):
        for n in range(1, 70):
            for space in (" ", "\t", "\n ", " \n"):
                same_pieces_both_ways(lead + (space * n)[:n] + after)


@pytest.mark.parametrize("n", [*range(0, 8), 60, 61, 62, 63, 64, 65, 66, 127, 128, 129])
def test_text_ends_near_the_window_end(n):
    for tail in ("", " ", "  ", "\n", "a", "!", ". ", " !"):
        for word in ("x", "ab cd", "a'b"):
            same_pieces_both_ways(((word + " ") * 70)[:n] + tail)


ASCII_HEAVY = st.lists(
    st.one_of(
        st.sampled_from([*"abcxyzQRS", " ", " ", "  ", "\t", "\n", "\r\n", *"!.,'-_()$/", *STOPS, "123", "1234"]),
        st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=8),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=120,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=ASCII_HEAVY)
def test_pieces_equal_hf_on_ascii_heavy_text(text):
    same_pieces_both_ways(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=ASCII_HEAVY)
def test_fused_equals_hf_on_ascii_heavy_text(tmp_path_factory, text):
    file_test.trio(tmp_path_factory).check(text)


def test_fused_equals_hf_on_long_texts(tmp_path_factory):
    t = file_test.trio(tmp_path_factory)
    for base in BASES:
        for stop in STOPS:
            text = "".join(base[: k + 5] + stop for k in range(len(base))) * 3
            t.check(text)
            t.check(text.replace(stop, ""))


# Runs of two-byte characters: a segment's end (a number, a CJK character) is found sixteen
# bytes at a time past two-byte characters whose lead byte has no number.
TWO_BYTE_RUNS = [
    "Привет, мир! Это тест ",
    "Ελληνικά γράμματα ",
    "العربية، نص ",
    "ÀÉÎõü «ça» ",
    "ёЁ\u0301ӂ҂ ",
]
TWO_BYTE_STOPS = ["7", "²", "¼", "٣", "۵", "߁", "日", "カ", "—", "👍", "«", "\u00a0", "ß"]


@pytest.mark.parametrize("base", TWO_BYTE_RUNS)
def test_two_byte_runs_with_a_stop_at_every_offset(base):
    text = (base * 6)[:70]
    for stop in TWO_BYTE_STOPS:
        for i in range(len(text) + 1):
            same_pieces_both_ways(text[:i] + stop + text[i:])


def test_every_two_byte_code_point_in_a_run():
    for cp in range(0x80, 0x800):
        c = chr(cp)
        for text in (f"абвгдежзийклмно{c}прстуфхцчшщъыь", f"{c * 20} ж{c}ж", f"ЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖ {c}1"):
            stages_test.same_pieces(V3, text)


# Windows over two-byte letters: "[punct][A-Za-z]+" takes ASCII letters only and ends at the
# first other letter, which starts a piece; a space or nothing before a letter run keeps it whole.
LETTER_WORDS = ["привет", "Мир", "été", "Ça", "façade", "abc", "Xyz", "ΑΒΓ", "λόγος", "שלום", "aé", "éa", "ѠѡҊ", "ǅx"]
LETTER_SEPS = [" ", "  ", ", ", ". ", "(", ")", "'", '"', "-", "\n", "\t", " (", "((", "!", "_", "/", "\r\n", " \n "]


@pytest.mark.parametrize("sep", LETTER_SEPS)
def test_two_byte_words_after_every_separator(sep):
    for word in LETTER_WORDS:
        for other in LETTER_WORDS:
            text = " ".join([word, other] * 3) + sep + word + other + sep + other + sep + sep + word
            for stop in ("", "1", "\u0301", "«", "×", "\u00a0", "日", "\x01"):
                same_pieces_both_ways(text + stop + text)
                same_pieces_both_ways(stop + text)


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(
        st.one_of(
            st.sampled_from(LETTER_WORDS),
            st.sampled_from(LETTER_SEPS),
            st.sampled_from(["1", "\u0301", "«", "×", "\u00a0", "日", "\x01", "²", "—", "ß", "µ"]),
            st.characters(min_codepoint=0x80, max_codepoint=0x7FF),
        ),
        max_size=60,
    )
)
def test_pieces_equal_hf_on_two_byte_heavy_text(parts):
    same_pieces_both_ways("".join(parts))
