"""sentencepiece Unigram models against the sentencepiece library: the Viterbi search ties as
sentencepiece's does on long texts, on models it trains here and on crafted ones."""
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
