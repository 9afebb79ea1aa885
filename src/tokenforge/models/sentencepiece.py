"""sentencepiece models from `.model` files: the normalizer the file specifies and its BPE
model, encoding exactly as the sentencepiece library does.

Supported so far: the BPE model (with byte fallback and user-defined symbols) behind the
model's own normalizer (normalizers.sentencepiece); Unigram models come next.
"""
from __future__ import annotations

import os

from .. import _core
from ..formats.sentencepiece_model import ModelType, SentencePieceModel
from ..normalizers.sentencepiece import SentencePieceNormalizer


class SentencePieceBPE:
    def __init__(self, model: SentencePieceModel) -> None:
        spec, trainer = model.normalizer_spec, model.trainer_spec
        if trainer["model_type"] != ModelType.BPE:
            raise ValueError(f"model type {ModelType(trainer['model_type']).name} is not supported yet (BPE is)")
        if trainer["treat_whitespace_as_suffix"]:
            raise ValueError("treat_whitespace_as_suffix models are not supported yet")
        self.model = model
        self.normalizer = SentencePieceNormalizer.from_spec(spec)
        self.pieces = [p.piece for p in model.pieces]
        self._native = _core.SpmBpe(self.pieces, [p.score for p in model.pieces], [int(p.type) for p in model.pieces],
                                    trainer["byte_fallback"])

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "SentencePieceBPE":
        return cls(SentencePieceModel.read(path))

    def normalize(self, text: str) -> str:
        """The text as the model sees it (sentencepiece's Normalizer with the model's rule)."""
        return self.normalizer.normalize(text)

    def encode(self, text: str) -> list[int]:
        return self._native.encode(self.normalize(text))

    def encode_batch(self, texts: list[str], num_threads: int | None = None) -> list[list[int]]:
        return self._native.encode_batch([self.normalize(t) for t in texts], num_threads or os.cpu_count() or 1)
