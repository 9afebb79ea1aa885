"""The warm path of the byte-level encoder, where pieces are found in the thread's table.

src/native/pipelines/encoder.h takes a batch of pieces from the scanner at once (a window's
starts are copied out in one loop, and a batch may end in the middle of a window), gives every
piece of up to 15 bytes a short key, one-byte pieces included (their ids are remembered in the
thread's table like any other's), and builds keys with two masked loads except near the end of
the text (models/bpe/piece_cache.h). The ids must be tiktoken's on text that stresses each of
these: pieces of every length at the very end, runs of one-byte pieces longer than a batch,
the same one-byte piece several times in one batch of a first pass.
"""

from __future__ import annotations

import random

import pytest

from conftest import fresh_encoding

NAMES = ["cl100k_base", "o200k_base"]


def _texts() -> list[str]:
    rng = random.Random(1923)
    single = "".join(rng.choice("ab,.;:!?()[]{}+-*/=<>|&%$#@~^`\"'\\_ \n\t0123456789é") for _ in range(3000))
    words = " ".join(
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZñé") for _ in range(rng.randint(1, 17)))
        for _ in range(800)
    )
    return [
        single,
        words,
        ", ".join("x" for _ in range(500)),  # one-byte pieces, many per window and per batch
        "a,b," * 400,  # the same one-byte pieces again and again within one batch
        "." * 5 + " a" * 200 + "\n" * 3,
        "1,2;3.4:5!6?7" * 60,
        "don't we'll it's I'M THEY'RE" * 40,
    ]


@pytest.mark.parametrize("name", NAMES)
def test_first_and_warm_passes(name, reference):
    ref = reference(name)
    ours = fresh_encoding(ref)
    for text in _texts():
        expected = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == expected  # first pass: pieces new to the thread
        assert ours.encode_ordinary(text) == expected  # warm: every piece known


@pytest.mark.parametrize("name", NAMES)
def test_every_piece_length_at_the_end(name, reference):
    # Keys of pieces that end within the last 16 bytes of the text are built without reading
    # past it; each text ends in a piece of a different length, cut at every position.
    ref = reference(name)
    ours = fresh_encoding(ref)
    words = ["a", "ab", "abc", "word", "lengths", "internationalization", "ñandú", "12345", "!!??", "  ", "\n\n"]
    for w in words:
        for prefix in ["", "x ", "some text before it, then "]:
            text = prefix + w
            for cut in range(len(text) + 1):
                part = text[:cut]
                assert ours.encode_ordinary(part) == ref.encode_ordinary(part), repr(part)
                assert ours.encode_ordinary(part + " " + part) == ref.encode_ordinary(part + " " + part)


@pytest.mark.parametrize("name", NAMES)
def test_batched_documents_of_one_byte_pieces(name, reference):
    ref = reference(name)
    rng = random.Random(7)
    docs = ["".join(rng.choice(" ,.;x1\n") for _ in range(rng.randint(0, 400))) for _ in range(200)]
    expected = [ref.encode_ordinary(d) for d in docs]
    assert fresh_encoding(ref).encode_ordinary_batch(docs, num_threads=2) == expected
    ours = fresh_encoding(ref)
    assert [ours.encode_ordinary(d) for d in docs] == expected
    assert [ours.encode_ordinary(d) for d in docs] == expected


# Warm, a batch goes in one pass (encoder.h's warm_batch): each piece's key is read, hashed and
# looked up at once, a hit's inline slots are written whole, and a piece the thread lacks is
# merged and stored there, which may grow the table in the middle of the batch.


def _words(rng: random.Random, count: int, letters: str, low: int, high: int) -> list[str]:
    return ["".join(rng.choice(letters) for _ in range(rng.randint(low, high))) for _ in range(count)]


@pytest.mark.parametrize("name", NAMES)
def test_new_pieces_scattered_through_warm_batches(name, reference):
    # A warm text, then the same text with a new word every 40 pieces or so: each new word is
    # a miss in a warm batch, and 3,000 of them make the thread's table grow (it starts with
    # 4,096 slots and doubles at half full) while later pieces of the batch are looked up.
    ref = reference(name)
    ours = fresh_encoding(ref)
    rng = random.Random(23)
    known = _words(rng, 1500, "abcdefghijklmnopqrstuvwxyz", 1, 9)
    warm = " ".join(known)
    assert ours.encode_ordinary(warm) == ref.encode_ordinary(warm)
    fresh = _words(rng, 3000, "bcdfghjklmnpqrstvwxz", 3, 12)  # mostly not tokens: merged
    parts = []
    for i, word in enumerate(fresh):
        parts.append(" ".join(rng.choice(known) for _ in range(20)))
        parts.append(word if i % 3 else word.upper() + "ß")
    text = " ".join(parts)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
def test_warm_pieces_with_many_ids(name, reference):
    # Short pieces of more than 3 ids and pieces of 16..31 bytes of more than 7 ids keep their
    # ids outside the entry (spilled), which the warm pass writes from there; pieces of more
    # than 31 bytes take the long cache. Every length from 1 to 40 bytes, twice each.
    ref = reference(name)
    ours = fresh_encoding(ref)
    rng = random.Random(5)
    pieces = []
    for n in range(1, 41):
        pieces.append("".join(rng.choice("𝔘𝔫𝔦𝔠𝔬𝔡𝔢ꙮ🦄") for _ in range(max(1, n // 4))))
        pieces.append(bytes(rng.randrange(0xC0, 0xE0) for _ in range(1)).decode("latin-1") * n)
        pieces.append("".join(rng.choice("qxzjkvw") for _ in range(n)))
        pieces.append("7" * n)
    text = " ".join(pieces)
    for variant in (text, text[1:], text + "!", "\n".join(reversed(pieces))):
        expected = ref.encode_ordinary(variant)
        assert ours.encode_ordinary(variant) == expected
        assert ours.encode_ordinary(variant) == expected


@pytest.mark.parametrize("name", NAMES)
def test_warm_texts_around_sixteen_bytes(name, reference):
    # A batch whose last piece ends 16 bytes or more before the text does reads every short key
    # with two plain loads; others test the text's end per piece. Texts of 0..40 bytes cut
    # from one warm text cross that line at every place.
    ref = reference(name)
    ours = fresh_encoding(ref)
    base = "Hello, wörld! It's 2024: naïve cafés, 12345 déjà vu.\n\n  x"
    ours.encode_ordinary(base * 3)
    for start in range(0, 12):
        for length in range(0, 41):
            part = base[start : start + length]
            assert ours.encode_ordinary(part) == ref.encode_ordinary(part), repr(part)
