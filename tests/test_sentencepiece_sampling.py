"""sentencepiece Unigram n-best lists against the sentencepiece library: equal to its
nbest_encode (same segmentations, same order, ties included) on models it trains here and on
crafted ones."""
from __future__ import annotations

import collections
import copy
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED, corpus_files, read_sample
from tokenforge.formats.sentencepiece_model import ModelType, Piece, PieceType, SentencePieceModel
from tokenforge.models.sentencepiece import SentencePieceModelEncoder

spm = pytest.importorskip("sentencepiece")
MISTRAL = str(SHARED / "vocab" / "mistral-7b-v0.1.model")
CORPORA = {p.name: p for p in corpus_files()}
SAMPLES = 3000


@pytest.fixture(scope="module")
def unigram(tmp_path_factory):
    """Unigram models sentencepiece trains here (nmt_nfkc with and without byte fallback,
    identity), each with a user-defined symbol, and one with some pieces made unused:
    name -> (sentencepiece, ours)."""
    out = tmp_path_factory.mktemp("spm-sampling")
    text = out / "corpus.txt"
    text.write_text("".join(read_sample(p, 20_000) for p in corpus_files()), encoding="utf-8")
    models = {}
    for rule, fallback in [("nmt_nfkc", True), ("nmt_nfkc", False), ("identity", False)]:
        prefix = out / f"{rule}-{fallback}"
        spm.SentencePieceTrainer.train(input=str(text), model_prefix=str(prefix), vocab_size=1200,
                                       model_type="unigram", normalization_rule_name=rule, byte_fallback=fallback,
                                       user_defined_symbols=["<sep>"], character_coverage=0.98, minloglevel=2)
        models[prefix.name] = str(prefix.with_suffix(".model"))
    model = SentencePieceModel.read(models["nmt_nfkc-True"])
    for p in model.pieces[300::7]:
        if p.type == PieceType.NORMAL and len(p.piece) > 1:
            p.type = PieceType.UNUSED
    model.write(out / "unused.model")
    models["unused"] = str(out / "unused.model")
    return {name: (spm.SentencePieceProcessor(model_file=path), SentencePieceModelEncoder.from_file(path))
            for name, path in models.items()}


def lines_of(name: str, count: int) -> list[str]:
    lines = [line for line in read_sample(CORPORA[name], 60_000).split("\n") if line.strip()]
    return lines[:count]


@pytest.mark.parametrize("corpus", ["en-linuxdoc.txt", "code-python-stdlib.txt", "ja.txt", "ru.txt", "zh_CN.txt"])
def test_nbest_equals_sentencepiece_line_by_line(unigram, corpus):
    for name, (theirs, ours) in unigram.items():
        for line in lines_of(corpus, 80):
            for n in range(1, 11):
                assert ours.encode_nbest(line, n) == theirs.nbest_encode_as_ids(line, n), (name, n, line)


def test_nbest_equals_sentencepiece_on_long_text(unigram):
    """Long inputs fill the A* agenda: it is cut back to its best hypotheses, and past ten cuts
    the search falls back to the Viterbi path alone (exactly as sentencepiece does)."""
    theirs, ours = unigram["nmt_nfkc-True"]
    for corpus in ("en-linuxdoc.txt", "code-python-stdlib.txt", "ja.txt"):
        text = read_sample(CORPORA[corpus], 12_000)
        for size, n in [(1500, 100), (6000, 10), (12_000, 100)]:
            assert ours.encode_nbest(text[:size], n) == theirs.nbest_encode_as_ids(text[:size], n), (corpus, size, n)


def test_nbest_edges(unigram):
    theirs, ours = unigram["nmt_nfkc-True"]
    for text in ["", " ", "a", "<sep>", "x<sep>y<sep>", "😀", "a😀b😀😀c", "\u2581", "  ＡＢＣ ｶﾀｶﾅ ①",
                 "ａ\u3000ｂ"]:
        for n in (1, 2, 7, 512):
            assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), (text, n)


@settings(max_examples=150, deadline=None)
@given(st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \t▁aeé日本😀<sep>"))), max_size=30),
       st.integers(1, 10))
def test_random_text_nbest_equals_sentencepiece(unigram, text, n):
    for name in ("nmt_nfkc-True", "identity-False"):
        theirs, ours = unigram[name]
        assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), name


def crafted(tmp_path, pieces: list[tuple[str, float, PieceType]]):
    """A Unigram model of the given pieces (after <unk>, <s>, </s>) with identity normalization
    and no dummy prefix, so the text is the lattice: (sentencepiece, ours)."""
    model = SentencePieceModel(pieces=[Piece("<unk>", 0, PieceType.UNKNOWN), Piece("<s>", 0, PieceType.CONTROL),
                                       Piece("</s>", 0, PieceType.CONTROL)]
                               + [Piece(p, s, t) for p, s, t in pieces])
    model.trainer_spec["model_type"] = ModelType.UNIGRAM
    spec = model.normalizer_spec
    spec["name"], spec["add_dummy_prefix"], spec["remove_extra_whitespaces"] = "identity", False, False
    path = tmp_path / f"crafted-{len(list(tmp_path.iterdir()))}.model"
    model.write(path)
    return spm.SentencePieceProcessor(model_file=str(path)), SentencePieceModelEncoder.from_file(path)


def test_nbest_ties_pop_in_sentencepiece_order(tmp_path):
    """Equal scores everywhere: many segmentations tie, and only the same agenda (a binary heap
    fed in the same order) lists them in the same order."""
    N = PieceType.NORMAL
    theirs, ours = crafted(tmp_path, [(p, -1.0, N) for p in ["a", "b", "c", "ab", "bc", "abc", "ca", "cab", "bca"]])
    for text in ["abc", "abcabc", "cabcab", "abcabcabca", "bcabcabcabcab"]:
        for n in (2, 3, 5, 10, 40, 200):
            assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), (text, n)


def test_user_defined_symbols_and_unknowns_in_nbest(tmp_path):
    """A user-defined symbol scores 0.1 * (characters - 1) in the lattice; a character no piece
    covers alone is an unknown, and unknowns in a row are one id."""
    N, U = PieceType.NORMAL, PieceType.USER_DEFINED
    theirs, ours = crafted(tmp_path, [("a", -1.0, N), ("b", -2.0, N), ("c", -3.0, N), ("ab", -2.5, N),
                                      ("abc", 0, U), ("bc", 0, U), ("é", -1.5, N), ("éé", 0, U), ("xa", -4.0, N)])
    for text in ["abc", "éé", "xabcx", "abcbc", "abcabcbcxéé", "bcbcbcbc", "xxabxx", "zxay"]:
        for n in (1, 2, 3, 5, 10, 50):
            assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), (text, n)
        assert ours.encode(text) == theirs.encode(text), text


def test_viterbi_rebases_long_sums_like_sentencepiece(tmp_path, unigram):
    """sentencepiece sums Viterbi scores in float and rebases them when they leave [-1e5, 1e5]:
    a huge first score is forgotten before the small differences after it are compared."""
    N = PieceType.NORMAL
    for ab in (-0.51, -0.54, -0.56):
        theirs, ours = crafted(tmp_path, [("x", -1048576.0, N), ("y", -0.03, N), ("a", -0.03, N), ("b", -0.5, N),
                                          ("ab", ab, N)])
        for text in ["xab", "xyab"]:
            assert ours.encode(text) == theirs.encode(text), (ab, text)
    theirs, ours = unigram["nmt_nfkc-False"]
    text = read_sample(CORPORA["en-linuxdoc.txt"], 400_000)
    assert ours.encode(text) == theirs.encode(text)


def test_nbest_argument_errors(unigram):
    _, ours = unigram["identity-False"]
    for bad in (0, -1, 513, 2.0, "3"):
        with pytest.raises(ValueError, match="nbest_size"):
            ours.encode_nbest("abc", bad)
    with pytest.raises(ValueError, match="Unigram-only"):
        SentencePieceModelEncoder.from_file(MISTRAL).encode_nbest("abc", 2)
