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

import tokenforge

NAMES = ["cl100k_base", "o200k_base"]


def _fresh(ref) -> tokenforge.Encoding:
    # Not get_encoding's shared instance: its piece tables are warm from other tests.
    return tokenforge.Encoding(
        ref.name + "-warm", pat_str=ref._pat_str, mergeable_ranks=ref._mergeable_ranks, special_tokens={}
    )


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
    ours = _fresh(ref)
    for text in _texts():
        expected = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == expected  # first pass: pieces new to the thread
        assert ours.encode_ordinary(text) == expected  # warm: every piece known


@pytest.mark.parametrize("name", NAMES)
def test_every_piece_length_at_the_end(name, reference):
    # Keys of pieces that end within the last 16 bytes of the text are built without reading
    # past it; each text ends in a piece of a different length, cut at every position.
    ref = reference(name)
    ours = _fresh(ref)
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
    assert _fresh(ref).encode_ordinary_batch(docs, num_threads=2) == expected
    ours = _fresh(ref)
    assert [ours.encode_ordinary(d) for d in docs] == expected
    assert [ours.encode_ordinary(d) for d in docs] == expected
