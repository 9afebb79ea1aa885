"""Unicode normalization (src/native/unicode/normalization.h) against HF tokenizers 0.23.3, whose
NFC/NFD/NFKC/NFKD normalizers run the Rust crate unicode-normalization-alignments (Unicode 9.0.0).

Strings: `_core.unicode_normalize` equals HF's `normalizers.NFC()...normalize_str` on every code
point (in chunks, as they come and one per line), on the language samples of tests/data, and on
hypothesis strings rich in combining sequences; and equals `unicodedata2.normalize` of Unicode
9.0.0 where that is installed (see tools/gen_unicode_normalization.py for how to build it).

Changes: HF exposes no alignments directly, so `_core.unicode_normalize_changes`' pairs go through
`hf_transform_reference` (HF's NormalizedString::transform, written out here as the test's
reference) to get each normalized character's span of the input, and that is compared with what
HF reports for the same text: a `PreTokenizedString` normalized with `.nfc()` etc. and split into
single characters, whose `get_splits(offset_referential="original", offset_type="byte")` are
those spans.
"""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import PreTokenizedString, Regex, normalizers

from conftest import CORPUS
from tokenforge import _core

FORMS = ["NFC", "NFD", "NFKC", "NFKD"]
HF = {form: getattr(normalizers, form)() for form in FORMS}
CHUNK = 4096
ALL_CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
CHUNKS = ["".join(map(chr, ALL_CODE_POINTS[i : i + CHUNK])) for i in range(0, len(ALL_CODE_POINTS), CHUNK)]

SETTINGS = settings(
    max_examples=400,
    deadline=None,
    database=None,  # write nothing into the repository
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def hf_normalize(form: str, text: str) -> str:
    return HF[form].normalize_str(text)


def hf_spans(form: str, text: str) -> list[tuple[str, tuple[int, int]]]:
    """Each character of HF's normalized text with the byte span of `text` it is aligned to."""
    pts = PreTokenizedString(text)
    pts.normalize(lambda ns: getattr(ns, form.lower())())
    pts.split(lambda i, ns: ns.split(Regex(r"[\s\S]"), "isolated"))
    return [(s, offsets) for s, offsets, _ in pts.get_splits(offset_referential="original", offset_type="byte")]


def hf_transform_reference(original: str, pairs: list[tuple[str, int]]) -> list[tuple[str, tuple[int, int]]]:
    """THE TEST'S REFERENCE: HF's NormalizedString::transform (tokenizers/src/tokenizer/
    normalizer.rs, transform_range over the whole string, initial_offset 0) applied to a fresh
    NormalizedString of `original`, returning each new character with its alignment.

    A fresh NormalizedString aligns each byte with the byte span of its character. For each
    (char, change): the alignment is that of the byte at `offset` (the current position in the
    string being replaced), or for an inserted char (change > 0) that of the byte before it
    ((0, 0) at the very start); a char with change <= 0 consumes one replaced char, and change
    -n consumes n more; `offset` advances by the bytes consumed."""
    alignments: list[tuple[int, int]] = []
    for ch in original:
        start, size = len(alignments), len(ch.encode())
        alignments += [(start, start + size)] * size
    replaced = iter(original)
    offset = 0
    out = []
    for c, change in pairs:
        if change > 0:
            align = (0, 0) if offset < 1 else alignments[offset - 1]
        else:
            align = alignments[offset]
        replaced_size = 0
        if change <= 0:
            nxt = next(replaced, None)
            replaced_size = len(nxt.encode()) if nxt is not None else 0
        removed = sum(len(r.encode()) for r in itertools.islice(replaced, -change)) if change < 0 else 0
        offset += replaced_size + removed
        out.append((c, align))
    return out


def check(form: str, text: str) -> None:
    ours = _core.unicode_normalize(form, text)
    expected = hf_normalize(form, text)
    if ours != expected:
        at = next((i for i, (a, b) in enumerate(zip(ours, expected)) if a != b), min(len(ours), len(expected)))
        pytest.fail(f"{form} differs at {at}: ours {ours[at : at + 8]!a}, HF {expected[at : at + 8]!a}")
    pairs = _core.unicode_normalize_changes(form, text)
    assert "".join(c for c, _ in pairs) == expected
    spans = hf_transform_reference(text, pairs)
    hf = hf_spans(form, text)
    if spans != hf:
        at = next((i for i, (a, b) in enumerate(zip(spans, hf)) if a != b), min(len(spans), len(hf)))
        pytest.fail(f"{form} alignments differ at {at}: ours {spans[at : at + 4]}, HF {hf[at : at + 4]}")


@pytest.mark.parametrize("form", FORMS)
def test_every_code_point(form):
    for chunk in CHUNKS:
        check(form, chunk)


@pytest.mark.parametrize("form", FORMS)
def test_every_code_point_alone(form):
    # One per line: "\n" composes with nothing, so each character is normalized on its own. The
    # strings are compared for all; the alignments (slow to get from HF) for the characters the
    # form changes.
    for chunk in CHUNKS:
        chars = chunk.replace("\n", "")
        text = "\n".join(chars)
        ours = _core.unicode_normalize(form, text)
        assert ours == hf_normalize(form, text)
        changed = [c for c, out in zip(chars, ours.split("\n"), strict=True) if out != c]
        if changed:
            check(form, "\n".join(changed))


def samples() -> dict[str, str]:
    files = [*sorted(CORPUS.glob("man/*.txt")), CORPUS / "en-linuxdoc.txt", CORPUS / "code-python-stdlib.txt"]
    return {f.stem: f.read_text(encoding="utf-8")[:30_000] for f in files}


SAMPLES = samples()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_language_samples(form, name):
    text = SAMPLES[name]
    check(form, text)
    # The same text decomposed (and compatibility-decomposed) exercises composition everywhere.
    check(form, hf_normalize("NFD", text))
    check(form, hf_normalize("NFKD", text))


BASES = st.sampled_from(list("aeiouAEIOUnNcCsSzZ ") + list("éàçøßĳǅΩωαЙйёあア가각ᄀ한국ﬁ①ｶ\u0b47\u0dd9\u1025"))
MARKS = st.integers(0x300, 0x36F).map(chr)
MORE_MARKS = st.sampled_from(
    [chr(c) for c in (0x0315, 0x031B, 0x0327, 0x0328, 0x0334, 0x0345, 0x05B0, 0x0F71, 0x0F72, 0x0F73, 0x0F75, 0x0F81)]
    + ["\u0b3e", "\u0b56", "\u0b57", "\u0dca", "\u0dcf", "\u0ddf", "\u102e", "\u3099", "\u309a", "\u0344", "\u0340"]
)
JAMO = st.integers(0x1100, 0x11FF).map(chr)
ANY = st.characters(exclude_categories=["Cs"])
PIECES = st.one_of(BASES, MARKS, MARKS, MORE_MARKS, JAMO, ANY)
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@SETTINGS
@given(text=TEXTS)
def test_hypothesis_strings(text):
    for form in FORMS:
        check(form, text)


@pytest.mark.parametrize("form", FORMS)
def test_edge_cases(form):
    for text in [
        "",
        "a",
        "\u0301",
        "\u0301\u0300a",
        "a" + "\u0301" * 40,  # beyond the stream-safe limit of 30: HF's nfc() inserts no U+034F
        "a" + "".join(chr(c) for c in range(0x36F, 0x2FF, -1)),  # reversed marks: every class reordered
        "e\u0301" * 50 + "x",
        "\u1100\u1161\u11a8\u11a7\u1100\u1161\uac00\u11a8\uac01\u11a8",
        "\u0f73\u0f71\u0f72\u0344\u0301",
        "\u1e09\u0334\u0315ç\u0301",
    ]:
        check(form, text)


def test_unicodedata_of_the_same_version():
    ud = pytest.importorskip("unicodedata2")
    if ud.unidata_version != "9.0.0":
        pytest.skip(f"unicodedata2 is Unicode {ud.unidata_version}, HF's crate is 9.0.0")
    for form in FORMS:
        for chunk in CHUNKS:
            assert _core.unicode_normalize(form, chunk) == ud.normalize(form, chunk)
            alone = "\n".join(chunk)
            assert _core.unicode_normalize(form, alone) == ud.normalize(form, alone)
        for text in SAMPLES.values():
            assert _core.unicode_normalize(form, text) == ud.normalize(form, text)


@settings(SETTINGS, max_examples=150)
@given(text=TEXTS)
def test_hypothesis_unicodedata_of_the_same_version(text):
    ud = pytest.importorskip("unicodedata2")
    if ud.unidata_version != "9.0.0":
        pytest.skip(f"unicodedata2 is Unicode {ud.unidata_version}, HF's crate is 9.0.0")
    for form in FORMS:
        assert _core.unicode_normalize(form, text) == ud.normalize(form, text)


@pytest.mark.parametrize("form", FORMS)
def test_linear_time(form):
    # 200,000 characters of marks in reverse class order, Hangul jamo, decomposable letters:
    # quadratic work would take minutes.
    for unit in ["\u0315\u0301\u0327\u0334", "\u1100\u1161\u11a8", "\u1e09\ufb01", "\u0301"]:
        text = "a" + unit * (200_000 // len(unit))
        start = time.perf_counter()
        _core.unicode_normalize(form, text)
        _core.unicode_normalize_changes(form, text)
        assert time.perf_counter() - start < 5.0


def test_bad_input():
    with pytest.raises(ValueError, match="NFX"):
        _core.unicode_normalize("NFX", "a")
    with pytest.raises(ValueError, match="nfc"):
        _core.unicode_normalize_changes("nfc", "a")
    with pytest.raises(TypeError):
        _core.unicode_normalize("NFC", b"a")
    with pytest.raises(UnicodeEncodeError):
        _core.unicode_normalize("NFC", "a\ud800")
