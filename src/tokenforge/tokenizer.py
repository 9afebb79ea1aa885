"""`Tokenizer`: the surface every tokenforge pipeline shares, shaped like HF tokenizers'
Tokenizer: one text or a pair encoded to an `Encoded` (ids, tokens, offsets, type ids, masks),
batches on threads, truncation and padding, decoding, vocabulary lookups.

>>> tok = Tokenizer.from_file("vocab.txt")                  # doctest: +SKIP
>>> enc = tok.encode("Hello, world!", "And a pair.")       # doctest: +SKIP
>>> enc.ids, enc.tokens, enc.offsets, enc.type_ids, enc.attention_mask  # doctest: +SKIP

Each pipeline is one native object that runs a whole text (batches on threads); `Encoded`
converts to Python lists only what is asked for. The pipelines are subclasses:
`WordPieceTokenizer` (BERT, llama.cpp's WPM) and `SentencePieceTokenizer` (sentencepiece
`.model` files). `Tokenizer(model, normalizer, ...)` builds the WordPiece one, as HF's
constructor does; `Tokenizer.from_file` returns whichever the file holds.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from . import _core
from .special import SpecialPolicy, SpecialSet

if TYPE_CHECKING:
    from .wordpiece_tokenizer import WordPieceTokenizer

_STRATEGIES = {"longest_first": 0, "only_first": 1, "only_second": 2}


@dataclass(frozen=True)
class AddedToken:
    """A token matched in the raw text before normalization (leftmost, longest first), as HF's
    added tokens with normalized=False; `special` ones are dropped by decode by default."""
    content: str
    id: int
    special: bool = True


Encoded = _core.Encoded


def _resolve_policy(policy: SpecialPolicy, allowed_special: SpecialSet, disallowed_special: SpecialSet,
                    texts: Sequence[str | None]) -> _core.SpecialMatcher | None:
    allowed, disallowed = policy.resolve(allowed_special, disallowed_special)
    for text in texts:
        if isinstance(text, str):
            policy.check(text, disallowed)
    return allowed


class Tokenizer:
    # What allowed_special means when not given: "all" (HF matches added tokens) or ()
    # (sentencepiece: special-token text is plain text).
    _DEFAULT_ALLOWED: SpecialSet = "all"

    _native: Any  # the native pipeline: _core.WordPiece or _core.SpmTokenizer
    _token_of: list[str]  # token text by id ("" where an id has none)
    _policy: SpecialPolicy  # the special tokens that text may contain
    _default_added: _core.SpecialMatcher | None  # what the default policy matches

    def __new__(cls, *args: Any, **kwargs: Any) -> "Tokenizer":
        if cls is Tokenizer:  # Tokenizer(model, normalizer, ...): the WordPiece pipeline, as HF's constructor
            from .wordpiece_tokenizer import WordPieceTokenizer

            cls = WordPieceTokenizer
        return super().__new__(cls)

    def _init_surface(self, token_of: list[str], policy: SpecialPolicy) -> None:
        self._token_of = token_of
        self._vocab = {t: i for i, t in enumerate(token_of) if t}
        self._policy = policy
        self.truncation: dict[str, Any] | None = None
        self.padding: dict[str, Any] | None = None

    def _attach(self, native: Any, default_added: _core.SpecialMatcher | None) -> None:
        """Makes `native` this tokenizer's pipeline, with the special-token policy, truncation and
        padding as set."""
        self._native = native
        self._default_added = default_added
        # The resolver holds the policy, not the tokenizer: the native object must not point back here.
        native.set_policy(default_added, functools.partial(_resolve_policy, self._policy))
        self._apply_truncation()
        self._apply_padding()
        # The native method itself, for the shortest call path (same signature and behaviour).
        self.encode = native.encode

    def _added(self, allowed_special: SpecialSet, disallowed_special: SpecialSet,
               texts: Sequence[str | None]) -> _core.SpecialMatcher | None:
        """The matcher of special tokens to match in texts, after raising for any disallowed one."""
        if allowed_special == self._DEFAULT_ALLOWED and not disallowed_special:
            return self._default_added
        return _resolve_policy(self._policy, allowed_special, disallowed_special, texts)

    # -- loading -------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, wpm: bool = False, **options: Any) -> "Tokenizer":
        """A tokenizer from an HF tokenizer.json (*.json), a BERT vocab.txt (*.txt, with the
        tokenizer_config.json beside it if there is one), a GGUF model file (*.gguf) or a
        sentencepiece model (*.model, or any file that is one; options: add_bos, add_eos).
        wpm=True reads a BERT vocab.txt as llama.cpp's WPM tokenizer does."""
        from .sentencepiece_tokenizer import SentencePieceTokenizer, is_sentencepiece_model

        path = os.fspath(path)
        if path.endswith(".model") or (not path.endswith((".json", ".txt", ".gguf")) and is_sentencepiece_model(path)):
            return SentencePieceTokenizer.from_file(path, **options)
        if options:
            raise TypeError(f"{', '.join(options)}: options for sentencepiece .model files only")
        if wpm:
            return cls.wpm_from_vocab_txt(path)
        if path.endswith(".json"):
            from .formats.hf_tokenizer_json import load_tokenizer_json

            return load_tokenizer_json(path)
        if path.endswith(".txt"):
            return cls.bert_from_vocab_txt(path)
        if path.endswith(".gguf"):
            from .formats.gguf import load_gguf_tokenizer

            return load_gguf_tokenizer(path)
        raise ValueError(f"{path}: unknown vocabulary format; give an HF tokenizer.json (*.json), a BERT "
                         "vocab.txt (*.txt), a GGUF file (*.gguf) or a sentencepiece model (*.model)")

    @staticmethod
    def bert_from_vocab_txt(path: str, **overrides: Any) -> "WordPieceTokenizer":
        """BERT from vocab.txt, configured by the tokenizer_config.json beside it (or `overrides`:
        do_lower_case, strip_accents, tokenize_chinese_chars, unk_token, sep_token, cls_token,
        pad_token, mask_token), as transformers' BertTokenizerFast builds it."""
        from .wordpiece_tokenizer import WordPieceTokenizer

        return WordPieceTokenizer.bert_from_vocab_txt(path, **overrides)

    @staticmethod
    def wpm_from_vocab_txt(path: str) -> "WordPieceTokenizer":
        """llama.cpp's WPM tokenizer over a BERT vocab.txt, converted to its GGUF form."""
        from .wordpiece_tokenizer import WordPieceTokenizer

        return WordPieceTokenizer.wpm_from_vocab_txt(path)

    @staticmethod
    def wpm(tokens: Sequence[str], **options: Any) -> "WordPieceTokenizer":
        """llama.cpp's WPM tokenizer over `tokens` (see WordPieceTokenizer.wpm)."""
        from .wordpiece_tokenizer import WordPieceTokenizer

        return WordPieceTokenizer.wpm(tokens, **options)

    # -- encoding ----------------------------------------------------------------------

    def encode(self, sequence: str, pair: str | None = None, add_special_tokens: bool = True, *,
               allowed_special: SpecialSet | None = None, disallowed_special: SpecialSet = ()) -> Encoded:
        """Encode a text, or a pair of texts, with truncation, template and padding as set.

        Special-token text in the input ("[MASK]", "<s>") becomes its id when in
        `allowed_special`, raises DisallowedSpecialTokenError when in `disallowed_special`, and is
        plain text otherwise. By default WordPiece allows "all" (as HF matches added tokens) and
        sentencepiece allows none (as sentencepiece). (Each instance binds this to its native
        pipeline's encode, which behaves the same and shows its own default.)"""
        allowed = self._DEFAULT_ALLOWED if allowed_special is None else allowed_special
        return self._native.encode(sequence, pair, add_special_tokens, allowed_special=allowed,
                                   disallowed_special=disallowed_special)

    def encode_batch(self, inputs: Sequence[str | tuple[str, str]], add_special_tokens: bool = True,
                     num_threads: int | None = None, *, allowed_special: SpecialSet | None = None,
                     disallowed_special: SpecialSet = ()) -> list[Encoded]:
        """Encode many texts (str) or pairs ((str, str)) on threads; with padding set, all are
        padded to the longest (or to the fixed length). Special tokens as in `encode`."""
        inputs = list(inputs)
        pairs = None
        if inputs and not isinstance(inputs[0], str):
            try:
                firsts, pairs = zip(*inputs)
            except (TypeError, ValueError):
                raise TypeError("encode_batch takes a list of str or a list of (str, str) pairs") from None
            inputs = list(firsts)
            pairs = list(pairs)
        threads = num_threads or min(len(inputs) // 64 + 1, os.cpu_count() or 1)
        allowed = self._DEFAULT_ALLOWED if allowed_special is None else allowed_special
        added = self._added(allowed, disallowed_special, inputs + (pairs or []))
        return self._native.encode_batch(inputs, pairs, add_special_tokens, added, threads)

    # -- decoding ----------------------------------------------------------------------

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        raise NotImplementedError  # each pipeline decodes its own way

    def decode_batch(self, batch: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens) for ids in batch]

    # -- vocabulary --------------------------------------------------------------------

    def token_to_id(self, token: str) -> int | None:
        return self._vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self._token_of[token_id] if 0 <= token_id < len(self._token_of) and self._token_of[token_id] else None

    def get_vocab_size(self) -> int:
        return len(self._vocab)

    def get_vocab(self) -> dict[str, int]:
        return dict(self._vocab)

    # -- truncation and padding ----------------------------------------------------------

    def enable_truncation(self, max_length: int, stride: int = 0, strategy: str = "longest_first",
                          direction: str = "right") -> None:
        if strategy not in _STRATEGIES:
            raise ValueError(f"truncation strategy must be one of {', '.join(_STRATEGIES)}, got {strategy!r}")
        if direction not in ("left", "right"):
            raise ValueError(f"truncation direction must be 'left' or 'right', got {direction!r}")
        if not isinstance(max_length, int) or max_length < 0 or not isinstance(stride, int) or stride < 0:
            raise ValueError(f"max_length and stride must be ints >= 0, got {max_length!r} and {stride!r}")
        self.truncation = {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}
        self._apply_truncation()

    def no_truncation(self) -> None:
        self.truncation = None
        self._apply_truncation()

    def enable_padding(self, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0,
                       pad_token: str = "[PAD]", length: int | None = None,
                       pad_to_multiple_of: int | None = None) -> None:
        if direction not in ("left", "right"):
            raise ValueError(f"padding direction must be 'left' or 'right', got {direction!r}")
        self.padding = {"direction": direction, "pad_id": pad_id, "pad_type_id": pad_type_id, "pad_token": pad_token,
                        "length": length, "pad_to_multiple_of": pad_to_multiple_of}
        self._apply_padding()

    def no_padding(self) -> None:
        self.padding = None
        self._apply_padding()

    def _apply_truncation(self) -> None:
        t = self.truncation
        if t is None:
            self._native.set_truncation(False)
        else:
            self._native.set_truncation(True, t["max_length"], t["stride"], _STRATEGIES[t["strategy"]],
                                        t["direction"] == "left")

    def _apply_padding(self) -> None:
        p = self.padding
        self._native.set_pad_token(p["pad_token"] if p else "")
        if p is None:
            self._native.set_padding(False)
        else:
            self._native.set_padding(True, p["length"] or 0, p["pad_to_multiple_of"] or 0, p["pad_id"],
                                     p["pad_type_id"], p["direction"] == "left")
