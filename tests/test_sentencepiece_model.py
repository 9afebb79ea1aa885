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


def _message(*fields: tuple[int, int, int | bytes]) -> bytes:
    from tokenforge.formats import protobuf as pb

    return pb.serialize([pb.Field(*f) for f in fields])


def _piece_field(*fields: tuple[int, int, int | bytes]) -> tuple[int, int, bytes]:
    return (1, 2, _message(*fields))


GOOD_PIECE = _piece_field((1, 2, b"a"), (2, 5, 0x3F800000), (3, 0, 1))
TRAINER = (2, 2, _message((3, 0, 1)))  # model_type UNIGRAM


@pytest.mark.parametrize(
    ("data", "where", "message"),
    [
        # the top level's wire format, checked before any piece
        (b"\x00", "ModelProto", "field number 0 at byte 0 (corrupt data)"),
        (b"\x08" + b"\xff" * 10 + b"\x01", "ModelProto", "varint at byte 1 is longer than 10 bytes (corrupt data)"),
        (b"\x08\x80", "ModelProto", "varint at byte 1 runs past the end of the data (truncated file?)"),
        (b"\x0b", "ModelProto", "field 1 at byte 0 has wire type 3, which this format never uses (corrupt data)"),
        (b"\x15\x01\x02", "ModelProto", "field 2 at byte 0 runs past the end (truncated file?)"),
        (b"\x0a\x05ab", "ModelProto", "field 1 at byte 0 claims 5 bytes, past the end (truncated file?)"),
        (
            _message(_piece_field((1, 2, b"\xff")), GOOD_PIECE) + b"\x12\x09",
            "ModelProto",
            "field 2 at byte 17 claims 9",
        ),
        # each piece's message: offsets inside it, its wire format before its fields' meaning
        (_message(GOOD_PIECE, _piece_field((1, 2, b"\xff")), TRAINER), "piece 1", "field 1 is not valid UTF-8 text"),
        (_message(_piece_field((1, 2, b"\xed\xa0\x80")), TRAINER), "piece 0", "field 1 is not valid UTF-8 text"),
        (_message(_piece_field((1, 2, b"\xc0\x80")), TRAINER), "piece 0", "field 1 is not valid UTF-8 text"),
        (_message(GOOD_PIECE, _piece_field((1, 2, b"b"), (3, 0, 7)), TRAINER), "piece 1", "unknown piece type 7"),
        (_message(_piece_field((1, 2, b"a"), (2, 0, 5)), TRAINER), "piece 0", "field 2 has wire type 0, expected 5"),
        (_message(_piece_field((1, 0, 5)), TRAINER), "piece 0", "field 1 has wire type 0, expected 2"),
        (_message(_piece_field((2, 5, 0)), TRAINER), "piece 0", "a piece must have non-empty text"),
        (_message(_piece_field((1, 2, b"")), TRAINER), "piece 0", "a piece must have non-empty text"),
        (_message(_piece_field((3, 0, 9)), TRAINER), "piece 0", "unknown piece type 9"),
        (_message((1, 2, b"\x18\x09\x0a\x04ab")), "piece 0", "field 1 at byte 2 claims 4 bytes, past the end"),
        (_message(GOOD_PIECE, GOOD_PIECE, TRAINER), "piece 1", "'a' repeats piece 0"),
    ],
)
def test_wire_and_piece_errors_say_where(data, where, message):
    """Each fault of the wire format or of a piece: a FormatError naming the file, where it lies
    (the top level, or the piece by number with byte offsets inside its message) and what."""
    from tokenforge.errors import FormatError

    with pytest.raises(FormatError) as info:
        SentencePieceModel.from_bytes(data, "hand.model")
    assert (info.value.path, info.value.where) == ("hand.model", where)
    assert info.value.message.startswith(message), info.value.message


def test_pieces_read_with_their_scores_types_and_other_fields():
    """Scores as the file's 32-bit floats, every piece type, fields a piece does not use skipped,
    top-level fields tokenforge does not read kept in order and written back as they were."""
    pieces = [
        _piece_field((1, 2, b"<unk>"), (2, 5, 0), (3, 0, 2)),
        _piece_field((4, 0, 3), (1, 2, "▁日本".encode()), (2, 5, 0xC0490FDB)),  # (an unknown field first)
        _piece_field((1, 2, b"<0x41>"), (3, 0, 6), (2, 5, 0x7F7FFFFF)),
        _piece_field((1, 2, b"x"), (3, 0, 5)),
    ]
    data = _message(pieces[0], (60, 0, 2**64 - 1), *pieces[1:], TRAINER, (7, 2, b"raw"), (9, 5, 1234))
    model = SentencePieceModel.from_bytes(data, "hand.model")
    assert [(p.piece, p.score, p.type) for p in model.pieces] == [
        ("<unk>", 0.0, PieceType.UNKNOWN),
        ("▁日本", -3.1415927410125732, PieceType.NORMAL),
        ("<0x41>", 3.4028234663852886e38, PieceType.BYTE),
        ("x", 0.0, PieceType.UNUSED),
    ]
    assert all(type(p.type) is PieceType for p in model.pieces)
    assert [(f.number, f.wire_type, f.value) for f in model.unknown] == [
        (60, 0, 2**64 - 1),
        (7, 2, b"raw"),
        (9, 5, 1234),
    ]
    assert model.trainer_spec["model_type"] == ModelType.UNIGRAM
