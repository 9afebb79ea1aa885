"""A byte-level BPE (GPT-2, cl100k, o200k, or any `Encoding` with a built-in split) behind the
`Tokenizer` surface: offsets, pairs, type ids, truncation and padding around the very ids of
`Encoding.encode` (one native pass per text, src/native/pipelines/byte_level_bpe.h, over the
Encoding's own native model: same ids, same merge speed).

>>> tok = get_tokenizer("cl100k_base")                     # doctest: +SKIP
>>> enc = tok.encode("héllo world")                        # doctest: +SKIP
>>> enc.ids, enc.tokens, enc.offsets                       # doctest: +SKIP
([71, 19010, 1917], ['h', 'Ã©llo', 'Ġworld'], [(0, 1), (1, 5), (5, 11)])

- tokens are shown as HF shows byte-level tokens: bytes in GPT-2's alphabet (" " is "Ġ");
- offsets are spans of input code points; a character split over several tokens is spanned
  by each of them;
- special-token text ("<|endoftext|>") raises unless `allowed_special` names it, as tiktoken's
  `encode` (disallowed_special=() reads it as plain text);
- decode joins the tokens' bytes (U+FFFD for bytes that are not UTF-8), dropping special tokens
  unless skip_special_tokens=False.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import _core
from .arguments import _check_bool, _token_id, _token_ids
from .encoding import Encoding
from .pipeline.spec import PipelineSpec
from .processors.template import TemplateProcessing
from .special import SpecialSet
from .tokenizer import Tokenizer


class ByteLevelBpeTokenizer(Tokenizer):
    _DEFAULT_ALLOWED: SpecialSet = ()
    _DEFAULT_DISALLOWED: SpecialSet = "all"

    def __init__(self, encoding: Encoding, post_processor: TemplateProcessing | None = None) -> None:
        """`encoding`: the byte-level BPE (its split pattern must be GPT-2's, cl100k's or
        o200k's, which run natively); `post_processor`: special tokens around the text (default
        none: the text's own tokens, a pair's second text with type id 1)."""
        if not isinstance(encoding, Encoding):
            raise TypeError(f"encoding must be a tokenforge Encoding, got {type(encoding).__name__}")
        if not encoding._core.has_scanner:
            raise ValueError(
                f"{encoding.name}: its split pattern has no native scanner, so it runs only as an Encoding "
                "(Encoding.encode splits with the regex module); a Tokenizer needs GPT-2's, cl100k's or "
                "o200k's pattern"
            )
        if post_processor is not None and not isinstance(post_processor, TemplateProcessing):
            raise TypeError(f"post_processor must be a TemplateProcessing, got {type(post_processor).__name__}")
        self.encoding = encoding
        self.post_processor = post_processor
        native = _core.ByteLevelBpe(encoding._core)
        self._init_surface(None, encoding._policy)
        self._special_ids = frozenset(encoding._special_tokens.values())
        self._template_on(native, post_processor)
        self._attach(native, None)

    def _token_names(self) -> list[str]:
        return list(self._native.token_names())

    @classmethod
    def from_file(  # type: ignore[override]  # Tokenizer.from_file forwards these files and options here
        cls, path: str | os.PathLike[str], **options: Any
    ) -> ByteLevelBpeTokenizer:
        """A .tiktoken file (options of `load_tiktoken`: pat_str, special_tokens, name), a
        .tokenforge file (`save_encoding`'s), or GPT-2's encoder.json (with vocab.bpe beside it)
        or the folder that holds the two."""
        from .formats import read_byte_level_bpe

        return cls._compiled(read_byte_level_bpe(path, **options), os.fspath(path))

    @property
    def spec(self) -> PipelineSpec:
        return PipelineSpec(
            self.encoding, post_processor=self.post_processor, truncation=self.truncation, padding=self.padding
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the encoding (atomically) as the file type `path` names: .json (HF tokenizer.json),
        .tiktoken (the ranks only: the pattern and special tokens are not in that format) or
        .tokenforge (everything)."""
        from .formats.hf_tokenizer_json import save_tokenizer_json
        from .formats.tiktoken_file import dump_tiktoken_bpe
        from .formats.tokenforge_file import save_encoding

        name = os.fspath(path)
        if name.endswith(".json"):
            save_tokenizer_json(self, path)
        elif name.endswith(".tiktoken"):
            dump_tiktoken_bpe(self.encoding._mergeable_ranks, path)
        elif name.endswith(".tokenforge"):
            save_encoding(self.encoding, path)
        else:
            raise ValueError(f"{name}: give a path ending in .json, .tiktoken or .tokenforge")

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Text of `ids` (any integers, NumPy's too, or a 1-D NumPy integer array): the tokens'
        bytes joined, U+FFFD for bytes that are not UTF-8. An id outside the vocabulary raises
        ValueError, anything but an integer TypeError."""
        _check_bool(skip_special_tokens, "skip_special_tokens")
        ids = _token_ids(ids)
        if not hasattr(ids, "__iter__"):
            raise TypeError(f"ids must be a sequence of token ids, got {type(ids).__name__}")
        ids = [i if type(i) is int else _token_id(i) for i in ids]
        if skip_special_tokens:
            ids = [i for i in ids if i not in self._special_ids]
        try:
            data = self.encoding._core.decode_bytes(ids)
        except (KeyError, OverflowError, ValueError):
            core = self.encoding._core
            bad = next(i for i in ids if not 0 <= i < 2**32 or core.token_bytes(i) is None)
            raise ValueError(
                f"token id {bad!r} is not in this tokenizer's vocabulary (0..{self.encoding.max_token_value})"
            ) from None
        return data.decode("utf-8", errors="replace")
