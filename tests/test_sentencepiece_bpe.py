"""sentencepiece's BPE model (Mistral's: identity normalization, dummy prefix, byte fallback)
against the sentencepiece library: ids on every corpus, line by line and whole, and on
hypothesis strings."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED, corpus_files, read_sample
from tokenforge.formats.sentencepiece_model import SentencePieceModel
from tokenforge.models.sentencepiece import SentencePieceBPE

spm = pytest.importorskip("sentencepiece")
MISTRAL = str(SHARED / "vocab" / "mistral-7b-v0.1.model")


_LOADED: list = []


def _both():
    if not _LOADED:
        _LOADED.append((spm.SentencePieceProcessor(model_file=MISTRAL), SentencePieceBPE.from_file(MISTRAL)))
    return _LOADED[0]


@pytest.fixture(scope="module")
def pair():
    return _both()


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpora_match_sentencepiece(path, pair):
    theirs, ours = pair
    text = read_sample(path, 40_000)
    assert ours.encode(text) == theirs.encode(text)
    lines = text.split("\n")
    assert ours.encode_batch(lines) == theirs.encode(lines)


def test_edges_match_sentencepiece(pair):
    theirs, ours = pair
    for text in ["", " ", "  hi", "a  b   c ", "\t\n x", "😀 한국어 テスト", "<s> </s> <unk>", "\u2581x", "\x00\x01"]:
        assert ours.encode(text) == theirs.encode(text), text


@settings(max_examples=300, deadline=None)
@given(st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \t\n▁aeé日本😀"))), max_size=40))
def test_random_text_matches_sentencepiece(text):
    theirs, ours = _both()
    assert ours.encode(text) == theirs.encode(text)


def test_unsupported_models_are_refused(tmp_path):
    model = SentencePieceModel.read(MISTRAL)
    model.normalizer_spec["precompiled_charsmap"] = b"\x00" * 8
    model.normalizer_spec["name"] = "nmt_nfkc"
    with pytest.raises(ValueError, match="'nmt_nfkc' .* not supported yet"):
        SentencePieceBPE(model)
