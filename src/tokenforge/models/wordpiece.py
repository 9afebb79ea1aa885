"""The WordPiece model: each word is cut, left to right, into the longest pieces in the
vocabulary; pieces after the first carry the continuation prefix ("##"). A word with a
position where nothing matches, or longer than max_input_chars_per_word, becomes one unknown
token. The matching runs natively over a byte trie of the vocabulary.

llama.cpp's WPM form of a vocabulary has no continuation prefix; instead word-initial pieces
start with "▁" (`word_prefix`). `to_wpm_vocab` converts a BERT vocabulary to that form, as
llama.cpp's converter does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

WPM_WORD_PREFIX = "\u2581"


class WordPiece:
    def __init__(
        self,
        vocab: Mapping[str, int] | Sequence[str],
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int | None = 100,
        word_prefix: str = "",
    ) -> None:
        self.tokens = _tokens_by_id(vocab)
        self.vocab = {t: i for i, t in enumerate(self.tokens)}
        if unk_token not in self.vocab:
            raise ValueError(
                f"the vocabulary has no unknown token {unk_token!r}; add it, or name the one it has with unk_token="
            )
        if max_input_chars_per_word is not None and (
            not isinstance(max_input_chars_per_word, int)
            or isinstance(max_input_chars_per_word, bool)
            or not 0 <= max_input_chars_per_word < 2**32 - 1
        ):
            raise ValueError(
                f"max_input_chars_per_word must be None (no limit) or an int in 0..2**32-2, "
                f"got {max_input_chars_per_word!r}"
            )
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.word_prefix = word_prefix

    @classmethod
    def from_vocab_txt(cls, path: str, **options: Any) -> WordPiece:
        """A BERT vocab.txt: one token per line, the line number its id."""
        from ..formats.bert_vocab import read_vocab_txt

        return cls(read_vocab_txt(path), **options)

    @property
    def word_length_limit(self) -> int:
        """The native limit: max_input_chars_per_word, or "none" as a count no word reaches."""
        return 2**32 - 1 if self.max_input_chars_per_word is None else self.max_input_chars_per_word

    def to_json(self) -> dict[str, Any]:
        if self.word_prefix:
            raise ValueError("HF tokenizer.json has no WordPiece with a word prefix (llama.cpp's WPM form)")
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": self.vocab,
        }


def to_wpm_vocab(tokens: Sequence[str]) -> list[str]:
    """A BERT vocabulary in llama.cpp's WPM form: "[...]" tokens as they are, "##x" as "x", any
    other token t as "▁t"."""

    def convert(token: str) -> str:
        if token.startswith("[") and token.endswith("]"):
            return token
        if token.startswith("##"):
            return token[2:]
        return WPM_WORD_PREFIX + token

    return [convert(t) for t in tokens]


def _tokens_by_id(vocab: Mapping[str, int] | Sequence[str]) -> list[str]:
    if isinstance(vocab, Mapping):
        tokens: list[str | None] = [None] * len(vocab)
        for token, i in vocab.items():
            if not isinstance(token, str) or not token:
                raise ValueError(f"vocabulary tokens must be non-empty strings, got {token!r}")
            if type(i) is not int or not 0 <= i < len(vocab):
                raise ValueError(f"vocabulary ids must be 0..{len(vocab) - 1} with none missing; {token!r} has {i!r}")
            if tokens[i] is not None:
                raise ValueError(f"id {i} is given to both {tokens[i]!r} and {token!r}")
            tokens[i] = token
        return tokens  # type: ignore[return-value]  # len(vocab) distinct ids in range: all set
    listed = list(vocab)
    seen: dict[str, int] = {}
    for i, token in enumerate(listed):
        if not isinstance(token, str) or not token:
            raise ValueError(f"token {i} must be a non-empty string, got {token!r}")
        if token in seen:
            raise ValueError(f"token {token!r} appears twice (ids {seen[token]} and {i})")
        seen[token] = i
    return listed
