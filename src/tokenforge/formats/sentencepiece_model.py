"""sentencepiece's `.model` file: the `ModelProto` message (pieces with scores and types, the
trainer spec, the normalizer spec), read and written without the protobuf library.

Every field of the messages is kept: the ones listed below are decoded to Python values, any
other (a newer sentencepiece's) is carried as raw bytes and written back as it was, so a file
read and written again loads the same in sentencepiece. Writes are atomic.

>>> model = SentencePieceModel.read("tokenizer.model")          # doctest: +SKIP
>>> model.pieces[3], model.trainer_spec["model_type"], model.normalizer_spec["name"]  # doctest: +SKIP
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from . import protobuf as pb
from .atomic import write_files_atomically


class PieceType(IntEnum):
    NORMAL = 1
    UNKNOWN = 2
    CONTROL = 3
    USER_DEFINED = 4
    UNUSED = 5
    BYTE = 6


class ModelType(IntEnum):
    UNIGRAM = 1
    BPE = 2
    WORD = 3
    CHAR = 4


# name -> (field number, kind, default); kinds: str, bytes, bool, int32, uint64, float, enum,
# and "[str]" for repeated strings. Defaults are sentencepiece's.
TRAINER_SPEC: dict[str, tuple[int, str, Any]] = {
    "input": (1, "[str]", []), "input_format": (7, "str", ""), "model_prefix": (2, "str", ""),
    "model_type": (3, "enum", ModelType.UNIGRAM), "vocab_size": (4, "int32", 8000),
    "accept_language": (5, "[str]", []), "self_test_sample_size": (6, "int32", 0),
    "enable_differential_privacy": (50, "bool", False), "differential_privacy_noise_level": (51, "float", 0.0),
    "differential_privacy_clipping_threshold": (52, "uint64", 0), "character_coverage": (10, "float", 0.9995),
    "input_sentence_size": (11, "uint64", 0), "shuffle_input_sentence": (19, "bool", True),
    "mining_sentence_size": (12, "int32", 0), "training_sentence_size": (13, "int32", 0),
    "seed_sentencepiece_size": (14, "int32", 1000000), "shrinking_factor": (15, "float", 0.75),
    "max_sentence_length": (18, "int32", 4192), "num_threads": (16, "int32", 16),
    "num_sub_iterations": (17, "int32", 2), "max_sentencepiece_length": (20, "int32", 16),
    "split_by_unicode_script": (21, "bool", True), "split_by_number": (23, "bool", True),
    "split_by_whitespace": (22, "bool", True), "treat_whitespace_as_suffix": (24, "bool", False),
    "allow_whitespace_only_pieces": (26, "bool", False), "split_digits": (25, "bool", False),
    "pretokenization_delimiter": (53, "str", ""), "control_symbols": (30, "[str]", []),
    "user_defined_symbols": (31, "[str]", []), "required_chars": (36, "str", ""),
    "byte_fallback": (35, "bool", False), "vocabulary_output_piece_score": (32, "bool", True),
    "hard_vocab_limit": (33, "bool", True), "use_all_vocab": (34, "bool", False),
    "unk_id": (40, "int32", 0), "bos_id": (41, "int32", 1), "eos_id": (42, "int32", 2), "pad_id": (43, "int32", -1),
    "unk_piece": (45, "str", "<unk>"), "bos_piece": (46, "str", "<s>"), "eos_piece": (47, "str", "</s>"),
    "pad_piece": (48, "str", "<pad>"), "unk_surface": (44, "str", " \u2047 "),
    "train_extremely_large_corpus": (49, "bool", False), "seed_sentencepieces_file": (54, "str", ""),
    "auto_character_coverage": (55, "bool", False),
}
NORMALIZER_SPEC: dict[str, tuple[int, str, Any]] = {
    "name": (1, "str", ""), "precompiled_charsmap": (2, "bytes", b""), "add_dummy_prefix": (3, "bool", True),
    "remove_extra_whitespaces": (4, "bool", True), "escape_whitespaces": (5, "bool", True),
    "normalization_rule_tsv": (6, "str", ""),
}
_WIRE = {"str": pb.BYTES, "[str]": pb.BYTES, "bytes": pb.BYTES, "bool": pb.VARINT, "int32": pb.VARINT,
         "uint64": pb.VARINT, "enum": pb.VARINT, "float": pb.FIXED32}


def _decode(kind: str, f: pb.Field, where: str) -> Any:
    if f.wire_type != _WIRE[kind]:
        raise ValueError(f"{where}: field {f.number} has wire type {f.wire_type}, expected {_WIRE[kind]} (corrupt data)")
    if kind in ("str", "[str]"):
        try:
            return f.value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{where}: field {f.number} is not valid UTF-8 text (corrupt data)") from None
    if kind == "bool":
        return bool(f.value)
    if kind == "int32":
        return pb.int32(f.value)
    if kind == "float":
        return pb.float32(f.value)
    return f.value  # bytes, uint64, enum


def _encode(number: int, kind: str, value: Any) -> list[pb.Field]:
    if kind == "[str]":
        return [pb.Field(number, pb.BYTES, v.encode("utf-8")) for v in value]
    if kind == "str":
        return [pb.Field(number, pb.BYTES, value.encode("utf-8"))]
    if kind == "bytes":
        return [pb.Field(number, pb.BYTES, bytes(value))]
    if kind == "float":
        return [pb.Field(number, pb.FIXED32, pb.float32_raw(value))]
    return [pb.Field(number, pb.VARINT, int(value))]


@dataclass
class Spec:
    """A trainer or normalizer spec: the fields set in the file (in file order), by name, plus
    fields this package does not know, kept raw."""
    schema: dict[str, tuple[int, str, Any]]
    values: dict[str, Any] = field(default_factory=dict)
    unknown: list[pb.Field] = field(default_factory=list)

    @classmethod
    def parse(cls, schema: dict[str, tuple[int, str, Any]], data: bytes, where: str) -> "Spec":
        by_number = {number: (name, kind) for name, (number, kind, _) in schema.items()}
        spec = cls(schema)
        for f in pb.parse(data, where):
            if f.number not in by_number:
                spec.unknown.append(f)
                continue
            name, kind = by_number[f.number]
            value = _decode(kind, f, where)
            if kind == "[str]":
                spec.values.setdefault(name, []).append(value)
            else:
                spec.values[name] = value
        return spec

    def __getitem__(self, name: str) -> Any:
        if name not in self.schema:
            raise KeyError(f"no field {name!r} in this spec")
        return self.values.get(name, self.schema[name][2])

    def __setitem__(self, name: str, value: Any) -> None:
        if name not in self.schema:
            raise KeyError(f"no field {name!r} in this spec")
        self.values[name] = value

    def serialize(self) -> bytes:
        fields = [f for name, value in self.values.items() for f in _encode(*self.schema[name][:2], value)]
        return pb.serialize(fields + self.unknown)


@dataclass
class Piece:
    piece: str
    score: float = 0.0
    type: PieceType = PieceType.NORMAL


@dataclass
class SentencePieceModel:
    pieces: list[Piece]
    trainer_spec: Spec = field(default_factory=lambda: Spec(TRAINER_SPEC))
    normalizer_spec: Spec = field(default_factory=lambda: Spec(NORMALIZER_SPEC))
    denormalizer_spec: Spec | None = None
    unknown: list[pb.Field] = field(default_factory=list)  # self-test data and newer fields, raw

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> "SentencePieceModel":
        path = os.fspath(path)
        with open(path, "rb") as f:
            data = f.read()
        return cls.from_bytes(data, path)

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "model") -> "SentencePieceModel":
        model = cls(pieces=[])
        seen_specs = False
        for f in pb.parse(data, where):
            if f.number == 1 and f.wire_type == pb.BYTES:
                model.pieces.append(_piece(f.value, f"{where}: piece {len(model.pieces)}"))
            elif f.number == 2 and f.wire_type == pb.BYTES:
                model.trainer_spec = Spec.parse(TRAINER_SPEC, f.value, f"{where}: trainer_spec")
                seen_specs = True
            elif f.number == 3 and f.wire_type == pb.BYTES:
                model.normalizer_spec = Spec.parse(NORMALIZER_SPEC, f.value, f"{where}: normalizer_spec")
                seen_specs = True
            elif f.number == 5 and f.wire_type == pb.BYTES:
                model.denormalizer_spec = Spec.parse(NORMALIZER_SPEC, f.value, f"{where}: denormalizer_spec")
            else:
                model.unknown.append(f)
        if not model.pieces:
            raise ValueError(f"{where}: no pieces: not a sentencepiece model (or an empty one)")
        if not seen_specs and model.unknown:
            raise ValueError(f"{where}: not a sentencepiece model (no trainer or normalizer spec)")
        seen: dict[str, int] = {}
        for i, p in enumerate(model.pieces):
            if p.piece in seen:
                raise ValueError(f"{where}: piece {i} {p.piece!r} repeats piece {seen[p.piece]}")
            seen[p.piece] = i
        return model

    def to_bytes(self) -> bytes:
        fields = [pb.Field(1, pb.BYTES, _piece_bytes(p)) for p in self.pieces]
        fields.append(pb.Field(2, pb.BYTES, self.trainer_spec.serialize()))
        fields.append(pb.Field(3, pb.BYTES, self.normalizer_spec.serialize()))
        if self.denormalizer_spec is not None:
            fields.append(pb.Field(5, pb.BYTES, self.denormalizer_spec.serialize()))
        return pb.serialize(fields + self.unknown)

    def write(self, path: str | os.PathLike[str]) -> None:
        write_files_atomically([(os.fspath(path), self.to_bytes())])


def _piece(data: bytes, where: str) -> Piece:
    piece = Piece("")
    has_text = False
    for f in pb.parse(data, where):
        if f.number == 1:
            piece.piece = _decode("str", f, where)
            has_text = True
        elif f.number == 2:
            piece.score = _decode("float", f, where)
        elif f.number == 3:
            value = _decode("enum", f, where)
            try:
                piece.type = PieceType(value)
            except ValueError:
                raise ValueError(f"{where}: unknown piece type {value}") from None
    if not has_text or not piece.piece:
        raise ValueError(f"{where}: a piece must have non-empty text")
    return piece


def _piece_bytes(p: Piece) -> bytes:
    fields = _encode(1, "str", p.piece) + _encode(2, "float", p.score)
    if p.type != PieceType.NORMAL:
        fields += _encode(3, "enum", p.type)
    return pb.serialize(fields)
