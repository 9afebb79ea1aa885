"""sentencepiece's .model file: read and written by tokenforge's own protobuf code, checked
against the sentencepiece library (and its protobuf schema) on the Mistral model and on models
sentencepiece trains here."""

from __future__ import annotations

import contextlib
import random

import pytest

from conftest import SHARED, corpus_files, read_sample
from tokenforge.formats.sentencepiece_model import (
    NORMALIZER_SPEC,
    TRAINER_SPEC,
    ModelType,
    Piece,
    PieceType,
    SentencePieceModel,
)

spm = pytest.importorskip("sentencepiece")
MISTRAL = SHARED / "vocab" / "mistral-7b-v0.1.model"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Small Unigram and BPE models trained by sentencepiece itself (nmt_nfkc, byte fallback)."""
    out = tmp_path_factory.mktemp("spm")
    text = out / "corpus.txt"
    text.write_text(read_sample(corpus_files()[0], 150_000) + read_sample(corpus_files()[7], 30_000), encoding="utf-8")
    models = {}
    for kind in ("unigram", "bpe"):
        prefix = out / kind
        spm.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(prefix),
            vocab_size=600,
            model_type=kind,
            byte_fallback=True,
            split_digits=True,
            user_defined_symbols=["<sep>"],
            minloglevel=2,
        )
        models[kind] = prefix.with_suffix(".model")
    return models


def same_as_sentencepiece(model: SentencePieceModel, processor) -> None:
    assert len(model.pieces) == processor.get_piece_size()
    kinds = {
        PieceType.UNKNOWN: processor.is_unknown,
        PieceType.CONTROL: processor.is_control,
        PieceType.UNUSED: processor.is_unused,
        PieceType.BYTE: processor.is_byte,
    }
    for i, p in enumerate(model.pieces):
        assert p.piece == processor.id_to_piece(i)
        assert p.score == pytest.approx(processor.get_score(i), abs=0)
        for kind, check in kinds.items():
            assert check(i) == (p.type == kind)


def test_mistral_reads_exactly_and_writes_back_byte_for_byte(tmp_path):
    data = MISTRAL.read_bytes()
    model = SentencePieceModel.from_bytes(data)
    same_as_sentencepiece(model, spm.SentencePieceProcessor(model_file=str(MISTRAL)))
    assert model.trainer_spec["model_type"] == ModelType.BPE and model.trainer_spec["byte_fallback"]
    assert model.normalizer_spec["name"] == "identity" and not model.normalizer_spec["remove_extra_whitespaces"]
    assert model.to_bytes() == data


@pytest.mark.parametrize("kind", ["unigram", "bpe"])
def test_every_spec_field_matches_sentencepiece_schema(kind, trained):
    pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    data = trained[kind].read_bytes()
    model = SentencePieceModel.from_bytes(data)
    proto = pb2.ModelProto()
    proto.ParseFromString(data)
    for ours, theirs, schema in [
        (model.trainer_spec, proto.trainer_spec, TRAINER_SPEC),
        (model.normalizer_spec, proto.normalizer_spec, NORMALIZER_SPEC),
    ]:
        descriptor = {f.name: f for f in theirs.DESCRIPTOR.fields}
        assert set(schema) <= set(descriptor)
        for name, (number, _, _default) in schema.items():
            assert descriptor[name].number == number, name
            value = getattr(theirs, name)
            if isinstance(value, float):
                assert ours[name] == pytest.approx(value, rel=1e-7), name
            else:
                assert (list(ours[name]) if descriptor[name].is_repeated else ours[name]) == (
                    list(value) if descriptor[name].is_repeated else value
                ), name
    assert model.normalizer_spec["name"] == "nmt_nfkc" and len(model.normalizer_spec["precompiled_charsmap"]) > 1000
    same_as_sentencepiece(model, spm.SentencePieceProcessor(model_file=str(trained[kind])))
    assert model.to_bytes() == data


@pytest.mark.parametrize("kind", ["unigram", "bpe"])
def test_written_models_load_in_sentencepiece(kind, trained, tmp_path):
    model = SentencePieceModel.read(trained[kind])
    text = read_sample(corpus_files()[3], 3000)
    original = spm.SentencePieceProcessor(model_file=str(trained[kind]))
    path = tmp_path / "copy.model"
    model.write(path)
    assert spm.SentencePieceProcessor(model_file=str(path)).encode(text) == original.encode(text)
    # an edited model: one piece unused, scores kept; sentencepiece honours the change
    victim = next(i for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL and len(p.piece) > 3)
    model.pieces[victim] = Piece(model.pieces[victim].piece, model.pieces[victim].score, PieceType.UNUSED)
    model.trainer_spec["vocab_size"] = len(model.pieces)
    model.write(path)
    edited = spm.SentencePieceProcessor(model_file=str(path))
    assert edited.is_unused(victim) and victim not in edited.encode(text)


def test_corrupt_and_truncated_files_are_refused_clearly(tmp_path):
    data = MISTRAL.read_bytes()
    for cut in [1, 2, 10, 1000, len(data) // 2, len(data) - 1]:
        with pytest.raises(ValueError, match=r"truncated|past the end|corrupt|no pieces|UTF-8|not a sentencepiece"):
            SentencePieceModel.from_bytes(data[:cut], "cut.model")
    rng = random.Random(7)
    for _ in range(200):  # flipped bytes: a clear ValueError or a model, never another exception
        corrupt = bytearray(data[:5000])
        for _ in range(3):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        with contextlib.suppress(ValueError):
            SentencePieceModel.from_bytes(bytes(corrupt), "flipped.model")
    with pytest.raises(ValueError, match="not a sentencepiece model"):  # a piece, but no specs, and other fields
        SentencePieceModel.from_bytes(b"\x0a\x03\x0a\x01a\x48\x01", "other.model")
    with pytest.raises(ValueError, match=r"tokenizer.json: .*corrupt data"):
        SentencePieceModel.from_bytes(b'{"model": {"type": "BPE"}}', "tokenizer.json")
    path = tmp_path / "empty.model"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="no pieces"):
        SentencePieceModel.read(path)
