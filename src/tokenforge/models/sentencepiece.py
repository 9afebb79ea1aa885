"""sentencepiece models from `.model` files: the normalizer the file specifies, then its BPE or
Unigram model (Viterbi), encoding exactly as the sentencepiece library does (byte fallback,
user-defined symbols, unknown runs)."""
from __future__ import annotations

import os

from .. import _core
from ..formats.sentencepiece_model import ModelType, PieceType, SentencePieceModel
from ..normalizers.sentencepiece import SentencePieceNormalizer


class SentencePieceModelEncoder:
    def __init__(self, model: SentencePieceModel) -> None:
        spec, trainer = model.normalizer_spec, model.trainer_spec
        kind = trainer["model_type"]
        if kind not in (ModelType.BPE, ModelType.UNIGRAM):
            raise ValueError(f"model type {ModelType(kind).name} is not supported yet (BPE and UNIGRAM are)")
        if trainer["treat_whitespace_as_suffix"]:
            raise ValueError("treat_whitespace_as_suffix models are not supported yet")
        self.model = model
        self.normalizer = SentencePieceNormalizer.from_spec(spec, user_defined_symbols=[
            p.piece for p in model.pieces if p.type == PieceType.USER_DEFINED])
        self.pieces = [p.piece for p in model.pieces]
        native = _core.SpmBpe if kind == ModelType.BPE else _core.SpmUnigram
        self._native = native(self.pieces, [p.score for p in model.pieces], [int(p.type) for p in model.pieces],
                                    trainer["byte_fallback"])
        self._encoder = _core.SpmEncoder(self.normalizer._native, self._native)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "SentencePieceModelEncoder":
        return cls(SentencePieceModel.read(path))

    def normalize(self, text: str) -> str:
        """The text as the model sees it (sentencepiece's Normalizer with the model's rule)."""
        return self.normalizer.normalize(text)

    def encode(self, text: str) -> list[int]:
        return self._encoder.encode(text)

    def encode_batch(self, texts: list[str], num_threads: int | None = None) -> list[list[int]]:
        return self._encoder.encode_batch(texts, num_threads or os.cpu_count() or 1)
