"""sentencepiece's `.model` file: the `ModelProto` message (pieces with scores and types, the
trainer spec, the normalizer spec), read and written without the protobuf library.

The pieces, most of a file, are read natively (`_core.spm_model_records`, the extension's
formats/spm_model_file.h: the same checks and words as formats/protobuf.py, which reads the
specs and writes the whole). Every field of the messages is kept: the ones listed below are
decoded to Python values, any other (a newer sentencepiece's) is carried as raw bytes and
written back as it was, so a file read and written again loads the same in sentencepiece.
Writes are atomic.

Reading checks the wire format (a FormatError naming the file and the message at fault);
`SentencePieceModel.validate()` checks, before a model is used, what sentencepiece's
SentencePieceProcessor.Load refuses (see its doc).

>>> model = SentencePieceModel.read("tokenizer.model")          # doctest: +SKIP
>>> model.pieces[3], model.trainer_spec["model_type"], model.normalizer_spec["name"]  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import math
import operator
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .. import _core
from . import protobuf as pb
from .atomic import write_files_atomically
from .validation import FormatError


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
    "input": (1, "[str]", []),
    "input_format": (7, "str", ""),
    "model_prefix": (2, "str", ""),
    "model_type": (3, "enum", ModelType.UNIGRAM),
    "vocab_size": (4, "int32", 8000),
    "accept_language": (5, "[str]", []),
    "self_test_sample_size": (6, "int32", 0),
    "enable_differential_privacy": (50, "bool", False),
    "differential_privacy_noise_level": (51, "float", 0.0),
    "differential_privacy_clipping_threshold": (52, "uint64", 0),
    "character_coverage": (10, "float", 0.9995),
    "input_sentence_size": (11, "uint64", 0),
    "shuffle_input_sentence": (19, "bool", True),
    "mining_sentence_size": (12, "int32", 0),
    "training_sentence_size": (13, "int32", 0),
    "seed_sentencepiece_size": (14, "int32", 1000000),
    "shrinking_factor": (15, "float", 0.75),
    "max_sentence_length": (18, "int32", 4192),
    "num_threads": (16, "int32", 16),
    "num_sub_iterations": (17, "int32", 2),
    "max_sentencepiece_length": (20, "int32", 16),
    "split_by_unicode_script": (21, "bool", True),
    "split_by_number": (23, "bool", True),
    "split_by_whitespace": (22, "bool", True),
    "treat_whitespace_as_suffix": (24, "bool", False),
    "allow_whitespace_only_pieces": (26, "bool", False),
    "split_digits": (25, "bool", False),
    "pretokenization_delimiter": (53, "str", ""),
    "control_symbols": (30, "[str]", []),
    "user_defined_symbols": (31, "[str]", []),
    "required_chars": (36, "str", ""),
    "byte_fallback": (35, "bool", False),
    "vocabulary_output_piece_score": (32, "bool", True),
    "hard_vocab_limit": (33, "bool", True),
    "use_all_vocab": (34, "bool", False),
    "unk_id": (40, "int32", 0),
    "bos_id": (41, "int32", 1),
    "eos_id": (42, "int32", 2),
    "pad_id": (43, "int32", -1),
    "unk_piece": (45, "str", "<unk>"),
    "bos_piece": (46, "str", "<s>"),
    "eos_piece": (47, "str", "</s>"),
    "pad_piece": (48, "str", "<pad>"),
    "unk_surface": (44, "str", " \u2047 "),
    "train_extremely_large_corpus": (49, "bool", False),
    "seed_sentencepieces_file": (54, "str", ""),
    "auto_character_coverage": (55, "bool", False),
}
NORMALIZER_SPEC: dict[str, tuple[int, str, Any]] = {
    "name": (1, "str", ""),
    "precompiled_charsmap": (2, "bytes", b""),
    "add_dummy_prefix": (3, "bool", True),
    "remove_extra_whitespaces": (4, "bool", True),
    "escape_whitespaces": (5, "bool", True),
    "normalization_rule_tsv": (6, "str", ""),
}
_WIRE = {
    "str": pb.BYTES,
    "[str]": pb.BYTES,
    "bytes": pb.BYTES,
    "bool": pb.VARINT,
    "int32": pb.VARINT,
    "uint64": pb.VARINT,
    "enum": pb.VARINT,
    "float": pb.FIXED32,
}


def _decode(kind: str, f: pb.Field, where: str, path: str | None = None) -> Any:
    if f.wire_type != _WIRE[kind]:
        pb.fail(where, f"field {f.number} has wire type {f.wire_type}, expected {_WIRE[kind]} (corrupt data)", path)
    value = f.value
    if isinstance(value, bytes):
        if kind in ("str", "[str]"):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                pb.fail(where, f"field {f.number} is not valid UTF-8 text (corrupt data)", path)
        return value  # bytes
    if kind == "bool":
        return bool(value)
    if kind == "int32":
        return pb.int32(value)
    if kind == "float":
        return pb.float32(value)
    return value  # uint64, enum


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
    def parse(cls, schema: dict[str, tuple[int, str, Any]], data: bytes, where: str, path: str | None = None) -> Spec:
        by_number = {number: (name, kind) for name, (number, kind, _) in schema.items()}
        spec = cls(schema)
        for f in pb.parse(data, where, path):
            if f.number not in by_number:
                spec.unknown.append(f)
                continue
            name, kind = by_number[f.number]
            value = _decode(kind, f, where, path)
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
    path: str | None = field(default=None, compare=False, repr=False)  # the file it was read from

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> SentencePieceModel:
        path = os.fspath(path)
        with open(path, "rb") as f:
            data = f.read()
        return cls.from_bytes(data, path)

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "model") -> SentencePieceModel:
        """The model in `data`; `where` (the file's path) names it in errors (FormatError)."""
        path = where
        model = cls(pieces=[], path=path)
        texts, scores, types, others, error = _core.spm_model_records(bytes(data))
        if error is not None:
            pb.fail(error[0], error[1], path)
        model.pieces = [Piece(t, s, _PIECE_TYPE_OF[k]) for t, s, k in zip(texts, scores, types)]
        seen_specs = False
        for number, wire_type, value in others:
            f = pb.Field(number, wire_type, value)
            if number == 2 and isinstance(value, bytes):
                model.trainer_spec = Spec.parse(TRAINER_SPEC, value, "trainer_spec", path)
                seen_specs = True
            elif number == 3 and isinstance(value, bytes):
                model.normalizer_spec = Spec.parse(NORMALIZER_SPEC, value, "normalizer_spec", path)
                seen_specs = True
            elif number == 5 and isinstance(value, bytes):
                model.denormalizer_spec = Spec.parse(NORMALIZER_SPEC, value, "denormalizer_spec", path)
            else:
                model.unknown.append(f)
        if not model.pieces:
            raise FormatError(path, "", "no pieces: not a sentencepiece model (or an empty one)")
        if not seen_specs and model.unknown:
            raise FormatError(path, "", "not a sentencepiece model (no trainer or normalizer spec)")
        if len(set(texts)) != len(texts):
            seen: dict[str, int] = {}
            for i, text in enumerate(texts):
                if text in seen:
                    raise FormatError(path, f"piece {i}", f"{text!r} repeats piece {seen[text]}")
                seen[text] = i
        return model

    def validate(self) -> None:
        """Raises FormatError (naming the file it was read from, and the piece or field) for what
        sentencepiece's SentencePieceProcessor.Load refuses (model_interface.cc, normalizer.cc,
        unigram_model.cc): empty pieces, pieces with a NUL or of 8000 bytes or more, pieces
        defined twice, no unknown piece or two, byte pieces without byte_fallback or not of the
        form <0xNN>, byte_fallback without all 256 byte pieces, a Unigram model without a piece
        it can produce, NaN or infinite scores (sentencepiece refuses them in Unigram models;
        here in BPE models too), and precompiled charsmaps its Normalizer refuses (see
        normalizers.sentencepiece.charsmap_problem). Model types other than BPE, Unigram and
        CHAR (WORD, unknown numbers) are refused as not supported, and so is a CHAR model with
        user-defined pieces or a normal piece of more than one character (tokenforge runs CHAR
        as a Unigram of its characters, which those would change). Not run: the self-test
        samples a model may carry, which sentencepiece encodes at load."""
        from ..normalizers.sentencepiece import charsmap_problem

        path = self.path or "<sentencepiece model>"
        trainer = self.trainer_spec
        kind = trainer["model_type"]
        if kind not in (ModelType.BPE, ModelType.UNIGRAM, ModelType.CHAR):
            name = ModelType(kind).name if kind in ModelType._value2member_map_ else str(kind)
            raise FormatError(
                path, "trainer_spec.model_type", f"model type {name} is not supported yet (BPE, UNIGRAM and CHAR are)"
            )
        if kind == ModelType.CHAR:
            for i, p in enumerate(self.pieces):
                if p.type == PieceType.USER_DEFINED or (p.type == PieceType.NORMAL and len(p.piece) != 1):
                    raise FormatError(
                        path,
                        f"piece {i}",
                        f"{p.piece!r}: a CHAR model's pieces are single characters here (no user-defined or longer "
                        "ones: tokenforge runs CHAR as a Unigram of its characters)",
                    )
        byte_fallback = trainer["byte_fallback"]
        # (map, attrgetter, compress: C loops, no Python bytecode per piece)
        texts, types = list(map(_TEXT, self.pieces)), list(map(_TYPE, self.pieces))
        # Bulk checks first (a model has up to a few hundred thousand pieces); each failure is
        # then located piece by piece.
        if (
            not set(map(type, texts)) <= {str}
            or not all(texts)
            or "\0" in "".join(texts)
            or _too_long(texts)
            or len(set(texts)) != len(texts)
            or not _finite(list(map(_SCORE, self.pieces)))
            or not set(types) <= _PIECE_TYPES
        ):
            _locate_bad_piece(path, self.pieces)
        unknown = list(itertools.islice(_where(types, PieceType.UNKNOWN), 2))
        if not unknown:
            raise FormatError(path, "pieces", "the model has no unknown piece (type UNKNOWN)")
        if len(unknown) > 1:
            raise FormatError(
                path,
                f"piece {unknown[1]}",
                f"{texts[unknown[1]]!r} is a second unknown piece (piece {unknown[0]} is one)",
            )
        bytes_found: set[str] = set()
        for i in _where(types, PieceType.BYTE):
            if not byte_fallback:
                raise FormatError(path, f"piece {i}", f"byte piece {texts[i]!r} in a model without byte_fallback")
            if not _BYTE_PIECE.fullmatch(texts[i]):
                raise FormatError(
                    path, f"piece {i}", f"byte piece {texts[i]!r} is not of the form <0xNN> (two upper-case hex digits)"
                )
            bytes_found.add(texts[i])
        if byte_fallback and len(bytes_found) != 256:
            missing = next(f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in bytes_found)
            raise FormatError(
                path,
                "pieces",
                f"byte_fallback is set but {256 - len(bytes_found)} of the 256 byte pieces are missing, e.g. {missing}",
            )
        if kind == ModelType.UNIGRAM and not set(types) & _PRODUCIBLE:
            raise FormatError(path, "pieces", "a Unigram model needs a normal, user-defined or unused piece")
        if len(self.pieces) >= _MAX_PIECES:
            raise FormatError(
                path, "pieces", f"{len(self.pieces)} pieces, more than the {_MAX_PIECES - 1} tokenforge holds"
            )
        for key, spec in (("normalizer_spec", self.normalizer_spec), ("denormalizer_spec", self.denormalizer_spec)):
            if spec is not None:
                problem = charsmap_problem(bytes(spec["precompiled_charsmap"]))
                if problem is not None:
                    raise FormatError(path, f"{key}.precompiled_charsmap", problem)

    def to_bytes(self) -> bytes:
        fields = [pb.Field(1, pb.BYTES, _piece_bytes(p)) for p in self.pieces]
        fields.append(pb.Field(2, pb.BYTES, self.trainer_spec.serialize()))
        fields.append(pb.Field(3, pb.BYTES, self.normalizer_spec.serialize()))
        if self.denormalizer_spec is not None:
            fields.append(pb.Field(5, pb.BYTES, self.denormalizer_spec.serialize()))
        return pb.serialize(fields + self.unknown)

    def write(self, path: str | os.PathLike[str]) -> None:
        write_files_atomically([(os.fspath(path), self.to_bytes())])


_MAX_PIECE_BYTES = 8000  # sentencepiece's kMaxPieceSize
_MAX_PIECES = (1 << 30) - 1  # the native models' limit (PieceAdjacency::kNoOne)
_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")
_PIECE_TYPES = set(PieceType)
_PIECE_TYPE_OF = {int(t): t for t in PieceType}
_TEXT, _SCORE, _TYPE = operator.attrgetter("piece"), operator.attrgetter("score"), operator.attrgetter("type")


_PRODUCIBLE = {PieceType.NORMAL, PieceType.USER_DEFINED, PieceType.UNUSED}


def _where(types: list[PieceType], wanted: PieceType) -> Iterator[int]:
    """The indexes of `types` equal to `wanted`, in order (operator.eq: the whole comparison,
    so that a type given as 2.0 is UNKNOWN as `==` says, not a NotImplemented read as true)."""
    return itertools.compress(itertools.count(), map(operator.eq, types, itertools.repeat(wanted)))


def _too_long(texts: list[str]) -> bool:
    """Whether a piece has no UTF-8 form (a lone surrogate) or _MAX_PIECE_BYTES bytes or more
    (UTF-8 takes at most 4 bytes a character: only pieces of a quarter that many characters are
    measured)."""
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return True
    if max(map(len, texts), default=0) * 4 < _MAX_PIECE_BYTES:
        return False
    return any(len(t.encode("utf-8")) >= _MAX_PIECE_BYTES for t in texts if len(t) * 4 >= _MAX_PIECE_BYTES)


def _finite(scores: list[Any]) -> bool:
    try:
        if not all(map(math.isfinite, scores)):
            return False
    except TypeError:  # not numbers
        return False
    return bool not in set(map(type, scores))


def _locate_bad_piece(path: str, pieces: list[Piece]) -> None:
    """Raises the FormatError for the first piece that fails a check of `validate`."""
    seen: dict[str, int] = {}
    for i, p in enumerate(pieces):
        where = f"piece {i}"
        if not isinstance(p.piece, str) or not p.piece:
            raise FormatError(path, where, "a piece must have non-empty text")
        if "\0" in p.piece:
            raise FormatError(path, where, f"{p.piece!r} holds a NUL character, which sentencepiece refuses")
        try:
            size = len(p.piece.encode("utf-8"))
        except UnicodeEncodeError:
            raise FormatError(path, where, f"{p.piece!r} holds a lone surrogate (no UTF-8 form)") from None
        if size >= _MAX_PIECE_BYTES:
            raise FormatError(
                path,
                where,
                f"a piece of {size} bytes: sentencepiece refuses pieces of {_MAX_PIECE_BYTES} bytes or more",
            )
        if p.piece in seen:
            raise FormatError(path, where, f"{p.piece!r} repeats piece {seen[p.piece]}")
        seen[p.piece] = i
        if isinstance(p.score, bool) or not isinstance(p.score, (int, float)) or not math.isfinite(p.score):
            raise FormatError(path, where, f"{p.piece!r} has score {p.score!r}; scores must be finite numbers")
        if p.type not in _PIECE_TYPES:
            raise FormatError(path, where, f"unknown piece type {p.type!r}")
    raise AssertionError("a bulk check failed, but no piece fails its own")  # pragma: no cover


def _piece_bytes(p: Piece) -> bytes:
    fields = _encode(1, "str", p.piece) + _encode(2, "float", p.score)
    if p.type != PieceType.NORMAL:
        fields += _encode(3, "enum", p.type)
    return pb.serialize(fields)


def is_sentencepiece_model(path: str) -> bool:
    """Whether the file starts as a sentencepiece ModelProto does: field 1 (a piece), a
    length-delimited message whose own first field is its text (field 1)."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return False
    pos = 1
    while pos < len(head) and head[pos] & 0x80:  # the piece's length (a varint)
        pos += 1
    return head[:1] == b"\x0a" and head[pos + 1 : pos + 2] == b"\x0a"
