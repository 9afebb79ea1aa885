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


def _batches_with_new_pieces(new_per_batch: int, batches: int, seed: int) -> tuple[str, str]:
    # (warm-up text, text): the text's pieces are " word", 32 to a batch as the encoder takes
    # them (pipelines/encoder.h's kBatch), new_per_batch of each batch never seen before, at
    # random places, the rest known from the warm-up. Words of 1..30 letters: pieces of every
    # short length (2..15 bytes), medium ones (16..31) and long ones (32).
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"

    def word(n: int) -> str:
        return "".join(rng.choice(letters) for _ in range(n))

    known = sorted({word(rng.choice([*range(1, 15), 15, 20, 31])) for _ in range(600)})
    seen = set(known)
    pieces = []
    for _ in range(batches):
        new_at = set(rng.sample(range(32), new_per_batch))
        for i in range(32):
            if i in new_at:
                w = word(rng.choice([*range(1, 15), *range(1, 15), 15, 17, 24, 30, 31]))
                while w in seen:
                    w = word(len(w) + 1)
                seen.add(w)
                pieces.append(w)
            else:
                pieces.append(rng.choice(known))
    return "".join(" " + w for w in known), "".join(" " + w for w in pieces)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("new_per_batch", [0, 1, 2, 3, 4, 5, 8, 32])
def test_batches_with_a_few_new_pieces(name, new_per_batch, reference):
    # After a batch that stored no piece the next is looked up in one pass (warm_batch), its new
    # pieces merged as they come; after one that stored some, the next is probed first. Batches
    # with a few new pieces switch between the two, with the thread's table growing in either
    # pass (1,200 batches: up to 38,400 new pieces), in one call and in documents of about one
    # batch each.
    ref = reference(name)
    warm_up, text = _batches_with_new_pieces(new_per_batch, 1200, seed=new_per_batch)
    expected = ref.encode_ordinary(text)
    ours = fresh_encoding(ref)
    assert ours.encode_ordinary(warm_up) == ref.encode_ordinary(warm_up)
    assert ours.encode_ordinary(text) == expected
    assert ours.encode_ordinary(text) == expected  # every piece known now
    docs = [text[i : i + 300] for i in range(0, 60_000, 300)]
    ours = fresh_encoding(ref)
    ours.encode_ordinary(warm_up)
    assert [ours.encode_ordinary(d) for d in docs] == [ref.encode_ordinary(d) for d in docs]
