"""Copies of a Tokenizer: pickle, copy.copy, copy.deepcopy and process pools (which pickle) give
a tokenizer with the same ids and settings that shares no settings with the original."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import tokenforge
from conftest import SHARED

TEXTS = ["Hello there, world: how are you?", "日本語 and ünïcode", "[CLS] <s> plain"]
FILES = {
    "tokenizer.json": SHARED / "vocab" / "bert" / "tokenizer.json",
    "vocab.txt": SHARED / "vocab" / "bert" / "vocab.txt",
    "sentencepiece": SHARED / "vocab" / "mistral-7b-v0.1.model",
}


def _load(kind: str) -> tokenforge.Tokenizer:
    if kind == "wpm":
        return tokenforge.Tokenizer.from_file(FILES["vocab.txt"], wpm=True)
    return tokenforge.Tokenizer.from_file(FILES[kind])


def _view(tok: tokenforge.Tokenizer) -> list:
    return [(e.ids, e.tokens, e.offsets, e.type_ids, e.attention_mask) for e in tok.encode_batch(TEXTS)] + [
        tok.encode(TEXTS[0], TEXTS[1]).ids,
        tok.truncation,
        tok.padding,
    ]


@pytest.mark.parametrize("kind", [*FILES, "wpm"])
def test_copies_encode_alike_and_stand_alone(kind):
    tok = _load(kind)
    tok.enable_truncation(12, stride=2)
    tok.enable_padding(length=14, pad_id=0, pad_token=tok.id_to_token(0))
    expected = _view(tok)
    for copied in (pickle.loads(pickle.dumps(tok)), copy.copy(tok), copy.deepcopy(tok)):
        assert type(copied) is type(tok)
        assert _view(copied) == expected
        copied.no_truncation()
        copied.no_padding()
        assert _view(tok) == expected  # the original keeps its settings


def _encode_in_child(tok: tokenforge.Tokenizer) -> list[list[int]]:
    return [e.ids for e in tok.encode_batch(TEXTS)]


def test_a_tokenizer_goes_to_a_process_pool():
    tok = _load("sentencepiece")
    tok.add_eos = True
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(_encode_in_child, tok).result() == _encode_in_child(tok)


@pytest.mark.parametrize("kind", [*FILES, "wpm"])
def test_parts_are_fixed_once_built(kind, tmp_path):
    """Assigning a part used to change nothing in encoding yet be written by save()."""
    tok = _load(kind)
    for part in ("model", "normalizer", "post_processor"):
        with pytest.raises(AttributeError, match="fixed once the tokenizer is built"):
            setattr(tok, part, None)
    assert tok.encode("hello").ids == _load(kind).encode("hello").ids


def test_sentencepiece_saves_as_json_and_model(tmp_path):
    tok = _load("sentencepiece")
    tok.save(tmp_path / "tokenizer.json")  # HF's form of the model (tests/test_save_convert.py)
    assert tokenforge.Tokenizer.from_file(tmp_path / "tokenizer.json").encode("hello").ids == tok.encode("hello").ids
    tok.save(tmp_path / "x.model")
    assert tokenforge.Tokenizer.from_file(tmp_path / "x.model").encode("hello").ids == tok.encode("hello").ids
