"""sentencepiece models from `.model` files: the normalizer the file specifies, then its BPE or
Unigram model (Viterbi), encoding exactly as the sentencepiece library does (byte fallback,
user-defined symbols, unknown runs). A model is checked first (`SentencePieceModel.validate`):
what sentencepiece refuses to load is a FormatError here, never a model that encodes garbage."""

from __future__ import annotations

import os

from .. import _core
from ..formats.sentencepiece_model import ModelType, PieceType, SentencePieceModel
from ..normalizers.sentencepiece import SentencePieceNormalizer
from ..threads import resolve_threads

# What each model type can do beyond its best segmentation, declared here and asked by name:
# n-best lists and sampling over the lattice (Unigram), or BPE-dropout (BPE).
NBEST, LATTICE_SAMPLING, DROPOUT = "nbest", "lattice_sampling", "dropout"
# A CHAR model (one piece a character) runs as a Unigram over its pieces: each character is its
# piece, as sentencepiece's CharModel cuts it (validate refuses the pieces that would differ).
CAPABILITIES = {
    ModelType.UNIGRAM: frozenset({NBEST, LATTICE_SAMPLING}),
    ModelType.BPE: frozenset({DROPOUT}),
    ModelType.CHAR: frozenset(),
}


class SentencePieceModelEncoder:
    capabilities: frozenset[str]  # see CAPABILITIES

    def __init__(self, model: SentencePieceModel) -> None:
        model.validate()
        spec, trainer = model.normalizer_spec, model.trainer_spec
        kind = trainer["model_type"]
        user_defined = PieceType.USER_DEFINED  # (a local: an enum's member is slow to reach)
        self.model = model
        self.normalizer = SentencePieceNormalizer.from_spec(
            spec,
            treat_whitespace_as_suffix=trainer["treat_whitespace_as_suffix"],
            user_defined_symbols=[p.piece for p in model.pieces if p.type == user_defined],
        )
        self.pieces = [p.piece for p in model.pieces]
        self.capabilities = CAPABILITIES[kind]
        native = _core.SpmBpe if kind == ModelType.BPE else _core.SpmUnigram
        self._native = native(
            self.pieces, [p.score for p in model.pieces], [int(p.type) for p in model.pieces], trainer["byte_fallback"]
        )
        self._encoder = _core.SpmEncoder(self.normalizer._native, self._native)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> SentencePieceModelEncoder:
        return cls(SentencePieceModel.read(path))

    def normalize(self, text: str) -> str:
        """The text as the model sees it (sentencepiece's Normalizer with the model's rule)."""
        return self.normalizer.normalize(text)

    def encode(self, text: str) -> list[int]:
        return self._encoder.encode(text)

    def encode_batch(self, texts: list[str], num_threads: int | None = None) -> list[list[int]]:
        return self._encoder.encode_batch(texts, resolve_threads(num_threads))

    def encode_nbest(self, text: str, nbest_size: int) -> list[list[int]]:
        """The `nbest_size` best segmentations (Unigram only), best first: sentencepiece's
        `nbest_encode_as_ids`, ties in the same order."""
        if NBEST not in self.capabilities:  # a BPE model: the wrong model, not a type error
            raise ValueError("n-best is Unigram-only: this is a BPE model")
        if not isinstance(nbest_size, int) or not 1 <= nbest_size <= 512:
            raise ValueError(f"nbest_size must be an integer from 1 to 512, got {nbest_size!r}")
        unigram = self._native
        assert isinstance(unigram, _core.SpmUnigram)  # the model that declares NBEST
        return unigram.encode_nbest(self.normalize(text), nbest_size)

    def sample_encode(
        self, text: str, alpha: float, nbest_size: int | None = None, seed: int | None = None
    ) -> list[int]:
        """A random segmentation, for subword regularization (sentencepiece's `sample_encode_as_ids`).

        Unigram: drawn with probability proportional to exp(alpha * score) among all
        segmentations (nbest_size -1, the default) or among the nbest_size best (2 to 512);
        nbest_size 0 or 1 gives the best one. BPE: BPE-dropout, each merge skipped with
        probability alpha (0 to 1); nbest_size does not apply. `seed` makes the draw
        reproducible; without it each thread draws from its own randomly seeded generator.
        """
        if not isinstance(alpha, (int, float)) or not 0 <= alpha < float("inf"):  # NaN fails too
            raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
        if seed is not None and (not isinstance(seed, int) or not 0 <= seed < 2**64):
            raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
        normalized = self.normalize(text)
        if DROPOUT in self.capabilities:
            if nbest_size is not None:
                raise ValueError(
                    "nbest_size is for Unigram models only (n-best is Unigram-only); BPE-dropout takes alpha alone"
                )
            if alpha > 1:
                raise ValueError(f"alpha is the BPE-dropout probability, from 0 to 1, got {alpha!r}")
            bpe = self._native
            assert isinstance(bpe, _core.SpmBpe)  # the model that declares DROPOUT
            return bpe.sample_encode(normalized, float(alpha), seed)
        if nbest_size is None:
            nbest_size = -1
        if not isinstance(nbest_size, int) or not -1 <= nbest_size <= 512:
            raise ValueError(
                f"nbest_size must be -1 (all segmentations), 0 or 1 (the best) or up to 512, got {nbest_size!r}"
            )
        unigram = self._native
        assert isinstance(unigram, _core.SpmUnigram)  # the model that declares LATTICE_SAMPLING
        return unigram.sample_encode(normalized, float(alpha), nbest_size, seed)
