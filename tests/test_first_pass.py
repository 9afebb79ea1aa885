"""First passes: an encoder that has seen nothing, fed text where nearly every piece is new.

The byte-level BPE's first pass probes a batch of pieces whole and prefetches the model's slots
of the ones its thread lacks, holding table entries while new pieces are stored (which may grow
the table under them), and merges pairs of low ids through a dense grid
(src/native/pipelines/encoder.h, models/bpe/bpe_model.h). The ids must be tiktoken's however
many pieces are new, in one call or spread over calls, and again once they are all known.
"""

from __future__ import annotations

import random

import pytest

from conftest import fresh_encoding

LETTERS = "abcdefghijklmnopqrstuvwxyz" * 4 + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "éèàüößñçøåœ" + "жщыл"
GLUE = [" ", " ", " ", ", ", ". ", "\n", " (", ") ", "'s ", " 12", "345 ", "/", "\t", "  "]


def _new_words_text(count: int, seed: int) -> str:
    rng = random.Random(seed)
    parts = []
    for _ in range(count):
        n = rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 11, 14, 18, 24])
        parts.append("".join(rng.choice(LETTERS) for _ in range(n)))
        parts.append(rng.choice(GLUE))
    return "".join(parts)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_one_call_of_new_pieces(name, reference):
    # ~30k distinct pieces in one call: the thread's table grows several times mid-batch.
    ref = reference(name)
    text = _new_words_text(30_000, seed=23)
    ours = fresh_encoding(ref)
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.encode_ordinary(text) == expected  # warm: every piece known now


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_new_pieces_over_many_documents(name, reference):
    ref = reference(name)
    docs = [_new_words_text(300, seed=i) for i in range(60)]
    ours = fresh_encoding(ref)
    expected = [ref.encode_ordinary(d) for d in docs]
    assert [ours.encode_ordinary(d) for d in docs] == expected
    assert fresh_encoding(ref).encode_ordinary_batch(docs, num_threads=2) == expected
    assert ours.encode_ordinary_batch(docs, num_threads=2) == expected


def _cjk_runs_with_repeated_parts(seed: int) -> str:
    # Runs of rare CJK characters (Extension A, mostly without tokens of their own) mixed with
    # common ones: the runs are cut into parts where no token can cross (split_points.h), and the
    # same new part comes back within one piece, after the thread's table missed it.
    rng = random.Random(seed)
    rare = [chr(c) for c in rng.sample(range(0x3400, 0x4DB0), 24)]
    common = list("的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年")
    runs = []
    for _ in range(400):
        n = rng.choice([2, 3, 5, 6, 8, 10, 11, 16, 30, 60, 90])
        runs.append("".join(rng.choice(rare if rng.random() < 0.7 else common) for _ in range(n)))
    return rng.choice(["，", "。", " ", "\n"]).join(runs)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_new_parts_repeated_within_a_piece(name, reference):
    ref = reference(name)
    texts = [_cjk_runs_with_repeated_parts(seed) for seed in range(3)]
    ours = fresh_encoding(ref)
    expected = [ref.encode_ordinary(t) for t in texts]
    assert [ours.encode_ordinary(t) for t in texts] == expected
    assert [ours.encode_ordinary(t) for t in texts] == expected
    assert fresh_encoding(ref).encode_ordinary_batch(texts, num_threads=3) == expected


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_medium_tokens_and_their_neighbours(name, reference):
    # Every token of 16..31 bytes (a filter decides which new medium pieces look in the token
    # table), and each with its last character changed (no longer a token: merged instead).
    ref = reference(name)
    words = []
    for token in ref._mergeable_ranks:
        if 16 <= len(token) <= 31:
            try:
                text = token.decode("utf-8")
            except UnicodeDecodeError:
                continue
            words += [text, text[:-1] + ("q" if text[-1] != "q" else "z")]
    text = "\n".join(words)
    assert len(words) > 1000
    expected = ref.encode_ordinary(text)
    assert fresh_encoding(ref).encode_ordinary(text) == expected
    ours = fresh_encoding(ref)
    assert [ours.encode_ordinary(w) for w in words[:4000]] == [ref.encode_ordinary(w) for w in words[:4000]]
