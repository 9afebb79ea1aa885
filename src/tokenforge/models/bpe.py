"""HF tokenizers' BPE model, the `"model": {"type": "BPE", ...}` of a tokenizer.json: a vocabulary
of token strings, merges whose rank is their order, and the options HF reads (unk_token,
fuse_unk, byte_fallback, continuing_subword_prefix, end_of_word_suffix, ignore_merges,
dropout). Each piece the pre-tokenizer makes starts as its characters and is merged pair by pair,
lowest rank first (src/native/models/bpe/hf_bpe_model.h says exactly how; it is HF's result on
every input).

`BPE` is the record: tokenizer.json's field names, `from_json` / `to_json` (merges written by HF
either as "a b" strings or as ["a", "b"] pairs; both are read), checks with errors that name the
field and the merge at fault, and `native()`, the model built once (`_core.BpeModel`). This is
not tiktoken's byte-level BPE (`encoding.Encoding`), which merges bytes by the rank of the
merged token.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .. import _core

_MAX_ID = 2**32 - 2  # the native model keeps 2**32 - 1 for "no token"


@dataclass(frozen=True)
class BPE:
    """HF's BPE model. `merges` are (left, right) token pairs in rank order."""

    vocab: Mapping[str, int] = field(hash=False)
    merges: tuple[tuple[str, str], ...]
    dropout: float | None = None
    unk_token: str | None = None
    continuing_subword_prefix: str | None = None
    end_of_word_suffix: str | None = None
    fuse_unk: bool = False
    byte_fallback: bool = False
    ignore_merges: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "vocab", dict(_checked_vocab(self.vocab)))
        object.__setattr__(self, "merges", _checked_pairs(self.merges))
        for name in ("unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"BPE {name} must be a str or None, got {type(value).__name__}")
        for name in ("fuse_unk", "byte_fallback", "ignore_merges"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"BPE {name} must be True or False, got {getattr(self, name)!r}")
        if self.dropout is not None:
            if isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float)):
                raise TypeError(f"BPE dropout must be a number or None, got {type(self.dropout).__name__}")
            if not (0.0 <= self.dropout <= 1.0) or math.isnan(self.dropout):
                raise ValueError(f"BPE dropout must be between 0 and 1, inclusive, got {self.dropout!r}")
            object.__setattr__(self, "dropout", float(self.dropout))
        self._check_merges()

    def _check_merges(self) -> None:
        """What HF's builder refuses: a merge naming a token not in the vocabulary, or whose
        merged token (left + right less the continuing prefix's length) is not in it."""
        cut = len((self.continuing_subword_prefix or "").encode())
        vocab = self.vocab
        for rank, (a, b) in enumerate(self.merges):
            for token in (a, b):
                if token not in vocab:
                    raise ValueError(f"BPE merges[{rank}] ({a!r}, {b!r}): token {token!r} is not in the vocabulary")
            right = b.encode()
            if len(right) < cut:
                raise ValueError(
                    f"BPE merges[{rank}] ({a!r}, {b!r}): the right token is shorter than "
                    f"continuing_subword_prefix {self.continuing_subword_prefix!r}"
                )
            try:
                merged = (a.encode() + right[cut:]).decode() if cut else a + b
            except UnicodeDecodeError:  # the cut fell inside a character: no token has those bytes
                merged = None
            if merged is None or merged not in vocab:
                raise ValueError(
                    f"BPE merges[{rank}] ({a!r}, {b!r}): the merged token {merged!r} is not in the vocabulary"
                )

    @classmethod
    def from_json(cls, model: Mapping[str, Any]) -> BPE:
        """The record from a tokenizer.json "model" object, as HF reads it: null options take their
        defaults, unknown keys are ignored, merges are all "a b" strings (lines starting with
        "#version" skipped) or all [a, b] pairs."""
        if not isinstance(model, Mapping):
            raise TypeError(f"a BPE model must be a JSON object, got {type(model).__name__}")
        kind = model.get("type", "BPE")
        if kind != "BPE":
            raise ValueError(f'model type must be "BPE", got {kind!r}')
        if "vocab" not in model or "merges" not in model:
            raise ValueError("a BPE model needs both vocab and merges")
        options: dict[str, Any] = {}
        for name in ("dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
            if model.get(name) is not None:
                options[name] = model[name]
        for name in ("fuse_unk", "byte_fallback", "ignore_merges"):
            if model.get(name) is not None:
                options[name] = model[name]
        vocab = model["vocab"]
        if not isinstance(vocab, Mapping):
            raise TypeError(f"BPE vocab must be an object of token to id, got {type(vocab).__name__}")
        return cls(vocab=vocab, merges=parse_merges(model["merges"]), **options)

    def to_json(self) -> dict[str, Any]:
        """The tokenizer.json "model" object HF writes: vocab in id order, merges as pairs."""
        return {
            "type": "BPE",
            "dropout": self.dropout,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
            "ignore_merges": self.ignore_merges,
            "vocab": dict(sorted(self.vocab.items(), key=lambda item: item[1])),
            "merges": [[a, b] for a, b in self.merges],
        }

    @cached_property
    def _native(self) -> _core.BpeModel:
        return _core.BpeModel(
            dict(self.vocab),
            list(self.merges),
            self.unk_token,
            self.continuing_subword_prefix,
            self.end_of_word_suffix,
            self.fuse_unk,
            self.byte_fallback,
            self.ignore_merges,
            self.dropout,
        )

    def native(self) -> _core.BpeModel:
        """The native model (built on first use, then kept)."""
        return self._native

    def tokenize(self, piece: str, seed: int | None = None) -> list[tuple[int, int, int]]:
        """The tokens of one pre-tokenized piece as (id, start, end), offsets in code points of
        the piece. With dropout, `seed` makes the result repeatable."""
        return self._native.tokenize(piece, seed)


def parse_merges(merges: Any) -> tuple[tuple[str, str], ...]:
    """Merges as HF writes them: a list of "a b" strings (the legacy form: exactly one space,
    "#version" lines skipped) or a list of [a, b] pairs; not both at once."""
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Sequence):
        raise TypeError(f"BPE merges must be a list, got {type(merges).__name__}")
    if merges and all(isinstance(m, str) for m in merges):
        pairs = []
        for line_no, line in enumerate((m for m in merges if not m.startswith("#version")), start=1):
            parts = line.split(" ")
            if len(parts) != 2:
                raise ValueError(f"BPE merges: entry {line_no} {line!r} is not two tokens separated by one space")
            pairs.append((parts[0], parts[1]))
        return tuple(pairs)
    if any(isinstance(m, str) for m in merges):
        raise ValueError('BPE merges must be all "a b" strings or all [a, b] pairs, not both')
    return _checked_pairs(merges)


def _checked_pairs(merges: Any) -> tuple[tuple[str, str], ...]:
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Sequence):
        raise TypeError(f"BPE merges must be a list of (str, str) pairs, got {type(merges).__name__}")
    out = []
    for i, m in enumerate(merges):
        if (
            isinstance(m, (str, bytes))
            or not isinstance(m, Sequence)
            or len(m) != 2
            or not all(isinstance(t, str) for t in m)
        ):
            raise ValueError(f"BPE merges[{i}] must be a pair of str, got {m!r}")
        out.append((m[0], m[1]))
    return tuple(out)


def _checked_vocab(vocab: Any) -> Mapping[str, int]:
    if not isinstance(vocab, Mapping):
        raise TypeError(f"BPE vocab must be a mapping of token to id, got {type(vocab).__name__}")
    for token, i in vocab.items():
        if not isinstance(token, str):
            raise TypeError(f"BPE vocab tokens must be str, got {token!r}")
        if type(i) is not int or not 0 <= i <= _MAX_ID:
            raise ValueError(f"BPE vocab: the id of {token!r} must be an int in 0..{_MAX_ID}, got {i!r}")
    return vocab
