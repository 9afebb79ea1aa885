"""Ids identical to tiktoken: every code point, code points in context, and corpus samples."""

from __future__ import annotations

import pytest

import tokenforge
from conftest import ENCODINGS, corpus_files, fresh_encoding, read_sample

CODE_POINTS = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_code_point_alone(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    assert ours.encode_ordinary_batch(CODE_POINTS) == [ref.encode_ordinary(c) for c in CODE_POINTS]


def _in_context(c: str) -> str:
    # One string per code point that puts it where each pattern alternative looks: after a
    # space, an apostrophe and a letter, between letters and digits, before newlines.
    return f"{c} x{c}y {c}{c}1 '{c} A{c}b {c}\n\n{c}  {c}"


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_every_code_point_in_context(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    texts = [_in_context(c) for c in CODE_POINTS]
    got = ours.encode_ordinary_batch(texts)
    mismatches = [t for t, g in zip(texts, got) if g != ref.encode_ordinary(t)]
    assert not mismatches, [hex(ord(t[0])) for t in mismatches[:20]]


def _documents(text: str, size: int = 8192) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_sample(name, path, reference):
    docs = _documents(read_sample(path, 40_000))
    ours, ref = tokenforge.get_encoding(name), reference(name)
    assert ours.encode_ordinary_batch(docs) == ref.encode_ordinary_batch(docs)
    assert [ours.encode_ordinary(d) for d in docs[:2]] == [ref.encode_ordinary(d) for d in docs[:2]]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("path", corpus_files(whole=True), ids=lambda p: p.name)  # $TOKENFORGE_SHARED or ../shared
def test_whole_corpus(name, path, reference):
    docs = _documents(read_sample(path, None), 1 << 16)
    ours, ref = tokenforge.get_encoding(name), reference(name)
    assert ours.encode_ordinary_batch(docs) == ref.encode_ordinary_batch(docs, num_threads=2)


def _non_ascii_token_runs(enc, count: int, seed: int) -> list[str]:
    """Long runs glued from the vocabulary's own non-ASCII tokens (whole and fragment ones):
    the pieces whose cut points (split_points.h) and part lookups are hardest to get right."""
    import random

    rng = random.Random(seed)
    whole, fragments = [], []
    for t in enc.token_byte_values():
        if all(b >= 0x80 for b in t):
            try:
                whole.append(t.decode("utf-8"))
            except UnicodeDecodeError:
                fragments.append(t)
    runs = []
    for _ in range(count):
        parts = [rng.choice(whole) for _ in range(rng.randint(2, 12))]
        # a fragment token completed to valid UTF-8 by the characters around it
        frag = rng.choice(fragments).decode("utf-8", errors="ignore")
        parts.insert(rng.randrange(len(parts) + 1), frag)
        runs.append(" " + "".join(parts) + rng.choice(["", "。", " x", "\n"]))
    return runs


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_long_non_ascii_runs(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    texts = _non_ascii_token_runs(ours, 3000, seed=7)
    got = ours.encode_ordinary_batch(texts)
    mismatches = [t for t, g in zip(texts, got) if g != ref.encode_ordinary(t)]
    assert not mismatches, mismatches[:5]


def _byte_level_runs(seed: int) -> list[str]:
    """Runs of letters from scripts whose characters the vocabularies mostly hold only as byte
    merges (Thai, Lao, Khmer, Myanmar, Georgian, Ethiopic), without spaces: one piece each of
    every length up to 50 characters (150 bytes), so that the merge starts from up to 128 single
    bytes (bpe_model.h's merge_small keeps the minima of blocks of 16 ranks above 40 parts, and
    longer pieces take the heap). Some repeat one character or two (ties: the leftmost pair
    first), and each text is met twice (fresh, then from the piece cache)."""
    import random

    rng = random.Random(seed)
    ranges = [(0x0E01, 0x0E3A), (0x0E81, 0x0EB9), (0x1780, 0x17D2), (0x1000, 0x102A), (0x10D0, 0x10F0)]
    ranges.append((0x1200, 0x1248))
    texts = []
    for lo, hi in ranges:
        letters = [chr(c) for c in range(lo, hi + 1) if chr(c).isprintable()]
        for length in range(1, 51):
            texts.append("".join(rng.choice(letters) for _ in range(length)))
            texts.append(rng.choice(letters) * length)
            pair = rng.choice(letters) + rng.choice(letters)
            texts.append((pair * length)[: length + 1])
    return texts + texts


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "p50k_base"])
def test_long_byte_level_pieces(name, reference):
    ref = reference(name)
    ours = fresh_encoding(ref)  # (its piece caches empty: every piece merged on first sight)
    texts = _byte_level_runs(seed=13)
    got = ours.encode_ordinary_batch(texts, num_threads=1)
    mismatches = [t for t, g in zip(texts, got) if g != ref.encode_ordinary(t)]
    assert not mismatches, mismatches[:5]
    assert [ours.encode_ordinary(t) for t in texts[:300]] == got[:300]


def _marked_texts(count: int, seed: int) -> list[str]:
    """Texts of two-byte letters with combining marks between and after them (Arabic harakat,
    Hebrew points, decomposed Latin accents), next to spaces, digits, newlines, capitals and
    ASCII punctuation: the windows read such marks as letters (o200k) or punctuation (cl100k)."""
    import random

    rng = random.Random(seed)
    letters = ["\u0628", "\u062a", "\u0645", "\u05d0", "\u05e9", "e", "a", "E", "\u0434", "\u0414"]
    marks = ["\u064e", "\u0650", "\u0651", "\u05b4", "\u05bc", "\u0301", "\u0308", "\u0488"]
    others = [" ", "  ", ".", "?", "..", " ?", "1", "12", "\n", "'", "'s", "/", "\u00e9", "\u00ab"]
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 60)):
            r = rng.random()
            parts.append(rng.choice(letters if r < 0.5 else marks if r < 0.8 else others))
        texts.append("".join(parts))
    return texts


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_combining_marks_in_context(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    texts = _marked_texts(4000, seed=11)
    texts.append("".join(texts))  # one long text: windows over many marks in a row
    got = ours.encode_ordinary_batch(texts)
    mismatches = [t for t, g in zip(texts, got) if g != ref.encode_ordinary(t)]
    assert not mismatches, mismatches[:5]


def test_piece_table_grows_and_resets(reference):
    """More unique short pieces than a thread's piece table holds (it doubles from 2^12 to 2^20
    slots, then starts over empty): ids stay exact through growth and after the reset."""
    import random

    rng = random.Random(3)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(9)) for _ in range(600_000)]
    text = " " + " ".join(words)
    ours, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.encode_ordinary(text) == expected


def test_medium_piece_table_grows_and_resets(reference):
    """Pieces of 16..31 bytes have their own table (empty at first, doubling up to 2^17 slots,
    then reset): more unique ones than it holds, Latin ones with more ids than an entry keeps
    inline and Cyrillic ones, stay exact through growth, reset and cache hits."""
    import random

    rng = random.Random(5)
    latin, cyrillic = "abcdefghijklmnopqrstuvwxyz", "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
    words = []
    for i in range(90_000):
        if i % 2:
            words.append("".join(rng.choice(latin) for _ in range(rng.randint(15, 30))))
        else:
            words.append("".join(rng.choice(cyrillic) for _ in range(rng.randint(8, 15))))
    # pieces that differ in one byte only, at every position: the keys must tell them apart
    for length in range(15, 31):
        base = "".join(rng.choice(latin) for _ in range(length))
        words += [base[:j] + c + base[j + 1 :] for j in range(length) for c in "xyz"]
    text = " " + " ".join(words + words[:1000])
    ours, ref = tokenforge.get_encoding("o200k_base"), reference("o200k_base")
    lengths = {len((" " + w).encode()) for w in words}
    assert min(lengths) <= 17 and max(lengths) >= 31
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.encode_ordinary(text) == expected
