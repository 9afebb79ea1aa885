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

import tokenforge

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


def _fresh(ref) -> tokenforge.Encoding:
    # Not get_encoding's shared instance: its piece tables are warm from other tests.
    return tokenforge.Encoding(
        ref.name + "-fresh",
        pat_str=ref._pat_str,
        mergeable_ranks=ref._mergeable_ranks,
        special_tokens={},
    )


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_one_call_of_new_pieces(name, reference):
    # ~30k distinct pieces in one call: the thread's table grows several times mid-batch.
    ref = reference(name)
    text = _new_words_text(30_000, seed=23)
    ours = _fresh(ref)
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.encode_ordinary(text) == expected  # warm: every piece known now


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_new_pieces_over_many_documents(name, reference):
    ref = reference(name)
    docs = [_new_words_text(300, seed=i) for i in range(60)]
    ours = _fresh(ref)
    expected = [ref.encode_ordinary(d) for d in docs]
    assert [ours.encode_ordinary(d) for d in docs] == expected
    assert _fresh(ref).encode_ordinary_batch(docs, num_threads=2) == expected
    assert ours.encode_ordinary_batch(docs, num_threads=2) == expected
