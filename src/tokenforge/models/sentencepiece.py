"""sentencepiece models from `.model` files: the normalizer the file specifies and its BPE
model, encoding exactly as the sentencepiece library does.

Supported so far: the identity normalization rule (as Llama and Mistral use) with
add_dummy_prefix, remove_extra_whitespaces and escape_whitespaces, and the BPE model with byte
fallback; the precompiled character maps (nmt_nfkc, ...) and Unigram models come next.
"""
from __future__ import annotations

import os

from .. import _core
from ..formats.sentencepiece_model import ModelType, SentencePieceModel

SPACE = "\u2581"


class SentencePieceBPE:
    def __init__(self, model: SentencePieceModel) -> None:
        spec, trainer = model.normalizer_spec, model.trainer_spec
        if trainer["model_type"] != ModelType.BPE:
            raise ValueError(f"model type {ModelType(trainer['model_type']).name} is not supported yet (BPE is)")
        if spec["precompiled_charsmap"]:
            raise ValueError(f"normalization rule {spec['name']!r} (a precompiled character map) is not supported "
                             "yet; identity is")
        if trainer["treat_whitespace_as_suffix"]:
            raise ValueError("treat_whitespace_as_suffix models are not supported yet")
        self.model = model
        self.add_dummy_prefix = spec["add_dummy_prefix"]
        self.remove_extra_whitespaces = spec["remove_extra_whitespaces"]
        self.escape_whitespaces = spec["escape_whitespaces"]
        self.pieces = [p.piece for p in model.pieces]
        self._native = _core.SpmBpe(self.pieces, [p.score for p in model.pieces], [int(p.type) for p in model.pieces],
                                    trainer["byte_fallback"])

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "SentencePieceBPE":
        return cls(SentencePieceModel.read(path))

    def normalize(self, text: str) -> str:
        """The text as the model sees it (sentencepiece's Normalizer with the identity rule)."""
        if not text:
            return ""
        if self.remove_extra_whitespaces:
            text = " ".join(part for part in text.split(" ") if part)
            if not text:
                return ""
        if self.add_dummy_prefix:
            text = " " + text
        return text.replace(" ", SPACE) if self.escape_whitespaces else text

    def encode(self, text: str) -> list[int]:
        return self._native.encode(self.normalize(text))

    def encode_batch(self, texts: list[str], num_threads: int | None = None) -> list[list[int]]:
        return self._native.encode_batch([self.normalize(t) for t in texts], num_threads or os.cpu_count() or 1)
