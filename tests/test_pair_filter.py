"""Merges of pairs past the grid: the byte-level BPE's filter of partner classes.

A merge of a piece that is not a token looks up each adjacent pair: pairs of ids below 1024 in a
dense grid, every other pair first in a filter that keeps, per id, the classes of the ids it
merges with on either side (src/native/models/bpe/bpe_model.h: partners_, may_pair), and only
then in the pair table. The filter may let through pairs that do not merge, never stop one that
does: every id here must be tiktoken's, for pieces whose pairs have high ids (CJK and Cyrillic
characters, long tokens cut short), on a first pass and on raw bytes, and for vocabularies of
other sizes where many ids share a class.
"""

from __future__ import annotations

import random

import pytest
import tiktoken

import tokenforge
from conftest import fresh_encoding

GRID_IDS = 1024  # pairs of ids below this come from the grid, not the filter


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_byte_pieces_of_cut_tokens(name, reference):
    # Each token past the grid without its last byte, and without its first: rarely tokens, so
    # merged from bytes, and the last merges join two ids of which at least one is high.
    ref = reference(name)
    ours = fresh_encoding(ref)
    pieces = []
    for token, rank in ref._mergeable_ranks.items():
        if rank >= GRID_IDS and len(token) >= 3:
            pieces += [token[:-1], token[1:]]
    assert len(pieces) > 100_000
    for piece in pieces:
        expected = ref._encode_single_piece(piece)
        got = ours._core.find(piece)
        got = [got] if got is not None else ours._core.encode_byte_piece(piece)
        assert got == expected, piece


def _single_characters(ref, lo: int, hi: int) -> list[str]:
    # Characters in [lo, hi) that are tokens of their own: their ids are far past the grid.
    out = []
    for token, rank in ref._mergeable_ranks.items():
        if rank < GRID_IDS:
            continue
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(text) == 1 and lo <= ord(text) < hi:
            out.append(text)
    return sorted(out)


def _two_character_tokens(ref, lo: int, hi: int) -> list[str]:
    out = []
    for token in ref._mergeable_ranks:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(text) == 2 and all(lo <= ord(c) < hi for c in text):
            out.append(text)
    return sorted(out)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("script", [(0x4E00, 0xA000), (0x0400, 0x0500)], ids=["cjk", "cyrillic"])
def test_new_runs_of_high_id_characters(name, script, reference):
    # Runs of characters that are tokens (most adjacent pairs do not merge: the filter stops
    # them) with two-character tokens inside, followed by another character (the pair of the
    # token's characters must merge, through the filter), on a fresh encoder, then warm.
    ref = reference(name)
    chars = _single_characters(ref, *script)
    words = _two_character_tokens(ref, *script)
    assert len(chars) > 30 and len(words) > 10
    rng = random.Random(23)
    runs = []
    for i in range(3000):
        n = rng.choice([1, 2, 3, 5, 8, 13, 40])
        run = [rng.choice(chars) for _ in range(n)]
        run.insert(rng.randrange(n + 1), words[i % len(words)])
        runs.append("".join(run))
    sep = "，" if script[0] == 0x4E00 else " "
    text = sep.join(runs)
    expected = ref.encode_ordinary(text)
    ours = fresh_encoding(ref)
    assert ours.encode_ordinary(text) == expected
    assert ours.encode_ordinary(text) == expected
    docs = [sep.join(runs[i : i + 50]) for i in range(0, len(runs), 50)]
    assert fresh_encoding(ref).encode_ordinary_batch(docs, num_threads=2) == [ref.encode_ordinary(d) for d in docs]


def _random_ranks(seed: int, size: int) -> dict[bytes, int]:
    # The 256 bytes, then tokens made by joining two earlier tokens (as BPE training would), over
    # a few letters so that the same ids meet many partners: ids up to `size`, far past the grid,
    # and every one of a filter's classes taken by many ids.
    rng = random.Random(seed)
    ranks = {bytes([b]): b for b in range(256)}
    tokens = [bytes([b]) for b in b"abcdefgh"] + ["ж".encode(), "中".encode()]
    while len(ranks) < size:
        joined = rng.choice(tokens) + rng.choice(tokens)
        if joined in ranks or len(joined) > 24:
            continue
        ranks[joined] = len(ranks)
        tokens.append(joined)
    return ranks


@pytest.mark.parametrize("size", [300, 1500, 6000])
def test_random_vocabularies_past_the_grid(size):
    ranks = _random_ranks(size, size)
    pat = r"""[^\s]+|\s+"""
    ref = tiktoken.Encoding(f"random-{size}", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ours = tokenforge.Encoding(f"random-{size}", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    rng = random.Random(size)
    alphabet = "abcdefgh" * 4 + "жж中"
    words = [
        "".join(rng.choice(alphabet) for _ in range(rng.choice([2, 3, 5, 9, 17, 33, 70, 150]))) for _ in range(3000)
    ]
    text = " ".join(words)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    for word in words[:500]:
        data = word.encode()
        assert ours._core.encode_byte_piece(data) == ref._encode_bytes(data)
