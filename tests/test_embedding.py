"""tokenforge.embedding: the positional encoding equals the closed formula, the one-hot product
equals the lookup, batches equal the per-text encodings with their padding, masks and position
ids, and resized tables keep their rows (end to end with add_special_tokens)."""

from __future__ import annotations

import math

import pytest

import tokenforge
from conftest import corpus_files, read_sample
from tokenforge import embedding

np = pytest.importorskip("numpy")

TEXTS = [read_sample(p, 600) for p in corpus_files()] + ["", "a", "<|endoftext|> as text"]


@pytest.mark.parametrize(("length", "width"), [(7, 6), (5, 5), (1, 1), (50, 64)])
def test_sinusoidal_positions_are_the_formula(length, width):
    pe = embedding.sinusoidal_positions(length, width, dtype=np.float64)
    assert pe.shape == (length, width)
    for p in range(length):
        for j in range(width):
            angle = p / 10000 ** ((j - j % 2) / width)
            assert pe[p, j] == pytest.approx(math.sin(angle) if j % 2 == 0 else math.cos(angle), abs=1e-12)
    assert embedding.sinusoidal_positions(0, 4).shape == (0, 4)
    with pytest.raises(ValueError):
        embedding.sinusoidal_positions(3, 0)


def test_one_hot_product_equals_lookup():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(300, 16)).astype(np.float32)
    ids = rng.integers(0, 300, size=(4, 9))
    assert np.allclose(embedding.one_hot_embed(ids, table), embedding.embed(ids, table))
    hot = embedding.one_hot(ids, 300)
    assert hot.shape == (4, 9, 300) and (hot.sum(-1) == 1).all() and (hot.argmax(-1) == ids).all()
    with pytest.raises(IndexError, match="300"):
        embedding.embed([1, 300], table)
    with pytest.raises(TypeError):
        embedding.embed([1.5], table)


def test_input_matrix_is_tokens_plus_positions():
    enc = tokenforge.get_encoding("cl100k_base")
    ids = enc.encode_ordinary("Tokens are embedded, then positioned.")
    table = np.random.default_rng(1).normal(size=(enc.n_vocab, 12)).astype(np.float32)
    x = embedding.input_matrix(ids, table)
    expected = table[ids] + embedding.sinusoidal_positions(len(ids), 12)
    assert np.allclose(x, expected)
    learned = embedding.learned_positions(64, 12, seed=3)
    assert np.allclose(embedding.input_matrix(ids, table, learned), table[ids] + learned[: len(ids)])
    assert np.allclose(embedding.input_matrix(ids, table, None), table[ids])


@pytest.mark.parametrize("side", ["right", "left"])
def test_batches_equal_the_texts(side):
    enc = tokenforge.get_encoding("cl100k_base")
    b = embedding.batch(enc, TEXTS, padding_side=side)
    width = max(len(enc.encode_ordinary(t)) for t in TEXTS)
    assert b.input_ids.shape == b.attention_mask.shape == b.position_ids.shape == (len(TEXTS), width)
    for i, text in enumerate(TEXTS):
        ids = enc.encode_ordinary(text)
        row, mask = b.input_ids[i], b.attention_mask[i]
        real = row[mask == 1].tolist()
        assert real == ids and b.lengths[i] == len(ids)
        pad = row[mask == 0]
        assert (pad == enc.eot_token).all()
        if ids:
            assert (mask[: len(ids)] == 1).all() if side == "right" else (mask[width - len(ids) :] == 1).all()
        assert b.position_ids[i][mask == 1].tolist() == list(range(len(ids)))
    cut = embedding.batch(enc, TEXTS, max_length=5, pad_id=0)
    assert cut.input_ids.shape[1] == 5
    for i, text in enumerate(TEXTS):
        assert cut.input_ids[i][cut.attention_mask[i] == 1].tolist() == enc.encode_ordinary(text)[:5]


def test_batches_from_a_tokenizer():
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    b = embedding.batch(bert, ["Hello world!", "A longer second text here."], padding_side="left")
    for i, text in enumerate(["Hello world!", "A longer second text here."]):
        assert b.input_ids[i][b.attention_mask[i] == 1].tolist() == bert.encode(text).ids
    assert b["input_ids"] is b.input_ids
    with pytest.raises(TypeError):
        embedding.batch(bert, "not a list")
    with pytest.raises(ValueError):
        embedding.batch(bert, ["x"], padding_side="middle")


def test_resized_tables_keep_their_rows():
    tok = tokenforge.get_tokenizer("bert-base-uncased")
    table = np.random.default_rng(2).normal(size=(tok.get_vocab_size(), 8)).astype(np.float32)
    added = tok.add_special_tokens(["<tool>", "<result>"])
    assert added == 2 and tok.get_vocab_size() == table.shape[0] + 2
    grown = embedding.resize_embeddings(table, tok.get_vocab_size())
    assert np.array_equal(grown[: table.shape[0]], table)
    assert np.allclose(grown[table.shape[0] :], table.mean(axis=0))
    ids = tok.encode("call <tool> now", add_special_tokens=False).ids
    assert tok.token_to_id("<tool>") in ids
    assert np.allclose(embedding.embed(ids, grown)[ids.index(tok.token_to_id("<tool>"))], table.mean(axis=0))
    drawn = embedding.resize_embeddings(table, table.shape[0] + 50, init="random", seed=5)
    assert np.array_equal(drawn[: table.shape[0]], table) and not np.allclose(drawn[-50:], table.mean(axis=0))
    assert np.array_equal(embedding.resize_embeddings(table, table.shape[0] + 50, init="random", seed=5), drawn)
    assert np.array_equal(embedding.resize_embeddings(table, 10), table[:10])
    with pytest.raises(ValueError):
        embedding.resize_embeddings(table, 10, init="zeros")


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    enc = tokenforge.get_encoding("gpt2")
    b = embedding.batch(enc, ["a b c", "d"], return_tensors="pt")
    assert isinstance(b.input_ids, torch.Tensor) and b.input_ids.shape == (2, 3)
