"""Tokens shown by a text other than their id's name, many of them in one encoding, against HF
tokenizers: Unigram unknown pieces (each shows the text it covers: Encoded::texts, looked up by
an index in python/bind_pipelines.cpp) and an added token with lstrip / rstrip matched with
whitespace runs of every length (each shows the text it took in: Row::name, up to 4095
distinct names an encoding). Hundreds of distinct ones, in long texts, on the fused and staged
kernels; lazy rows (ids first) and eager rows alike."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import corpus_files, read_sample
from tokenforge import Tokenizer

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import AddedToken, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

LINES = [line for path in corpus_files() for line in read_sample(path, 20_000).splitlines() if line.strip()]


def unigram_file(tmp_path: Any) -> str:
    """A Unigram trained on English lines only: CJK characters are unknown pieces."""
    tok = tokenizers.Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.Replace(" ", " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    ascii_lines = [line for line in LINES if line.isascii()][:3000]
    trainer = trainers.UnigramTrainer(
        vocab_size=800, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(ascii_lines, trainer)
    path = tmp_path / "unigram.json"
    path.write_text(tok.to_str())
    return str(path)


def unknown_text(distinct: int, repeat: int) -> str:
    """Words of unknown CJK characters, `distinct` different ones, each word seen `repeat` times."""
    words = [chr(0x4E00 + 7 * k) + chr(0x4E00 + 7 * k + 3) * (k % 3) for k in range(distinct)]
    return " ".join(f"{w} the {w}x" for _ in range(repeat) for w in words)


def compare(ours: Tokenizer, ref: Any, text: str, pair: str | None = None) -> None:
    want = ref.encode(text) if pair is None else ref.encode(text, pair)
    got = ours.encode(text, pair)
    assert got.ids == want.ids
    assert got.tokens == want.tokens
    assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets]
    assert got.word_ids == want.word_ids


def test_many_distinct_unknown_pieces(tmp_path):
    path = unigram_file(tmp_path)
    ref = tokenizers.Tokenizer.from_file(path)
    ours = Tokenizer.from_file(path)
    unk = ref.token_to_id("<unk>")
    for distinct, repeat in [(1, 1), (127, 1), (128, 2), (600, 3)]:
        text = unknown_text(distinct, repeat)
        assert len({t for i, t in zip(ref.encode(text).ids, ref.encode(text).tokens) if i == unk}) >= distinct
        compare(ours, ref, text)
    compare(ours, ref, unknown_text(300, 1), unknown_text(200, 2))
    batch = ours.encode_batch([unknown_text(300, 1), "plain text"])
    assert [e.tokens for e in batch] == [e.tokens for e in ref.encode_batch([unknown_text(300, 1), "plain text"])]


def byte_level_file(tmp_path: Any, nfc: bool = False) -> str:
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if nfc:
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(LINES[:2000], trainer)
    tok.add_special_tokens([AddedToken("<x>", lstrip=True, rstrip=True, normalized=False)])
    path = tmp_path / f"bytelevel{int(nfc)}.json"
    path.write_text(json.dumps(json.loads(tok.to_str())))
    return str(path)


def grown_text(distinct: int) -> str:
    """The added token after and before whitespace runs of every length up to `distinct`."""
    return "".join(f"a{' ' * k}<x>{chr(9) * (k % 3)}b{k}" for k in range(1, distinct + 1))


@pytest.mark.parametrize("nfc", [False, True])
def test_many_distinct_grown_added_tokens(tmp_path, nfc):
    path = byte_level_file(tmp_path, nfc)
    ref = tokenizers.Tokenizer.from_file(path)
    ours = Tokenizer.from_file(path)
    assert ours.kernel == ("byte_level_hf_bpe" if not nfc else ours.kernel)
    for distinct in [1, 127, 128, 300]:
        text = grown_text(distinct)
        want = ref.encode(text)
        assert len({t for t in want.tokens if "<x>" in t}) == distinct
        compare(ours, ref, text)
        compare(ours, ref, text * 3)
    compare(ours, ref, grown_text(200), grown_text(150))
