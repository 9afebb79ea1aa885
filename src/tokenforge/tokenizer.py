"""`Tokenizer`: the surface every tokenforge pipeline shares (normalizer -> pre-tokenizer ->
model -> post-processor, and a decoder back), shaped like HF tokenizers' Tokenizer.

>>> tok = Tokenizer.from_file("vocab.txt")                  # doctest: +SKIP
>>> enc = tok.encode("Hello, world!", "And a pair.")       # doctest: +SKIP
>>> enc.ids, enc.tokens, enc.offsets, enc.type_ids, enc.attention_mask  # doctest: +SKIP

The whole pipeline runs natively per text (batches on threads); `Encoded` converts to Python
lists only what is asked for.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Sequence

from . import _core
from .decoders.wordpiece import WordPieceDecoder, WpmDecoder
from .models.wordpiece import WPM_WORD_PREFIX, WordPiece, to_wpm_vocab
from .normalizers.bert import BertNormalizer, WpmNormalizer
from .postprocessors.template import TemplateProcessing
from .pretokenizers.bert import BertPreTokenizer, WpmPreTokenizer
from .special import SpecialPolicy, SpecialSet

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
    def __init__(
        self,
        model: WordPiece,
        normalizer: BertNormalizer | WpmNormalizer | None = None,
        pre_tokenizer: BertPreTokenizer | WpmPreTokenizer | None = None,
        post_processor: TemplateProcessing | None = None,
        decoder: WordPieceDecoder | WpmDecoder | None = None,
        added_tokens: Sequence[AddedToken] = (),
        split_special_tokens: bool = False,
    ) -> None:
        if not isinstance(model, WordPiece):
            raise TypeError(f"model must be a tokenforge WordPiece, got {type(model).__name__}")
        wpm = isinstance(normalizer, WpmNormalizer)
        if wpm != isinstance(pre_tokenizer, WpmPreTokenizer):
            raise ValueError("WpmNormalizer and WpmPreTokenizer only work together (llama.cpp's WPM preprocessing)")
        if not wpm and not isinstance(pre_tokenizer, BertPreTokenizer):
            raise ValueError(f"pre_tokenizer must be BertPreTokenizer (or WpmPreTokenizer), got {pre_tokenizer!r}")
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder or (WpmDecoder() if wpm else WordPieceDecoder(model.continuing_subword_prefix))
        self.added_tokens = list(added_tokens)
        self._token_of = list(model.tokens)
        for added in self.added_tokens:
            if added.id >= len(self._token_of):
                self._token_of += [""] * (added.id + 1 - len(self._token_of))
            elif model.tokens[added.id] != added.content:
                raise ValueError(f"added token {added.content!r} has id {added.id}, which the vocabulary gives to "
                                 f"{model.tokens[added.id]!r}")
            self._token_of[added.id] = added.content
        self._special_ids = frozenset(a.id for a in self.added_tokens if a.special)
        self._policy = SpecialPolicy({a.content: a.id for a in self.added_tokens})
        self._split_special_tokens = split_special_tokens
        self.truncation: dict[str, Any] | None = None
        self.padding: dict[str, Any] | None = None
        self._build()

    def _build(self) -> None:
        rules = (self.normalizer or BertNormalizer(False, False, False, False)).text_rules()
        m = self.model
        self._native = _core.WordPiece(m.tokens, m.vocab[m.unk_token], m.continuing_subword_prefix, m.word_prefix,
                                       m.word_length_limit, rules, self._token_of)
        p = self.post_processor
        if p is not None:
            self._native.set_template(p.native_pieces(False), p.native_pieces(True))
        else:  # no post-processor: the sequences as they are, B with type id 1
            self._native.set_template([(True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])])
        self._apply_truncation()
        self._apply_padding()
        # The resolver holds the policy, not the tokenizer: the native object must not point back here.
        self._native.set_policy(self._added("all", (), ()), functools.partial(_resolve_policy, self._policy))
        # The native method itself, for the shortest call path (same signature and behaviour).
        self.encode = self._native.encode

    def _added(self, allowed_special: SpecialSet, disallowed_special: SpecialSet,
               texts: Sequence[str | None]) -> _core.SpecialMatcher | None:
        """The matcher of added tokens to match, after raising for any disallowed one in texts."""
        if isinstance(allowed_special, str) and allowed_special == "all" and not disallowed_special:
            return None if self._split_special_tokens else self._policy.matcher(self._policy.names)
        return _resolve_policy(self._policy, allowed_special, disallowed_special, texts)

    # -- loading and saving -------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, wpm: bool = False) -> "Tokenizer":
        """A tokenizer from an HF tokenizer.json (*.json), a BERT vocab.txt (*.txt, with the
        tokenizer_config.json beside it if there is one), or a GGUF model file (*.gguf).
        wpm=True reads a BERT vocab.txt as llama.cpp's WPM tokenizer does."""
        path = os.fspath(path)
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
                         "vocab.txt (*.txt) or a GGUF file (*.gguf)")

    @classmethod
    def bert_from_vocab_txt(cls, path: str, **overrides: Any) -> "Tokenizer":
        """BERT from vocab.txt, configured by the tokenizer_config.json beside it (or `overrides`:
        do_lower_case, strip_accents, tokenize_chinese_chars, unk_token, sep_token, cls_token,
        pad_token, mask_token), as transformers' BertTokenizerFast builds it."""
        from .formats.bert_vocab import read_tokenizer_config, read_vocab_txt

        config = {**read_tokenizer_config(os.path.join(os.path.dirname(os.path.abspath(path)),
                                                        "tokenizer_config.json")), **overrides}
        tokens = read_vocab_txt(path)
        names = {k: config.get(f"{k}_token", f"[{k.upper()}]") for k in ("unk", "sep", "pad", "cls", "mask")}
        vocab = {t: i for i, t in enumerate(tokens)}
        model = WordPiece(tokens, unk_token=names["unk"])
        lowercase = bool(config.get("do_lower_case", True))
        normalizer = BertNormalizer(True, bool(config.get("tokenize_chinese_chars", True)),
                                    config.get("strip_accents"), lowercase)
        for k in ("cls", "sep"):
            if names[k] not in vocab:
                raise ValueError(f"{path}: the vocabulary has no {names[k]!r} ({k}_token), which BERT's template needs")
        post = TemplateProcessing.bert(vocab[names["cls"]], vocab[names["sep"]], names["cls"], names["sep"])
        added = [AddedToken(t, vocab[t]) for t in sorted(set(names.values()), key=lambda t: vocab.get(t, -1))
                 if t in vocab]
        return cls(model, normalizer, BertPreTokenizer(), post, WordPieceDecoder(), added)

    @classmethod
    def wpm_from_vocab_txt(cls, path: str) -> "Tokenizer":
        """llama.cpp's WPM tokenizer over a BERT vocab.txt, converted to its GGUF form."""
        from .formats.bert_vocab import read_vocab_txt

        return cls.wpm(read_vocab_txt(path), converted=False)

    @classmethod
    def wpm(cls, tokens: Sequence[str], *, converted: bool = True, unk_token: str = "[UNK]",
            cls_token: str = "[CLS]", sep_token: str = "[SEP]") -> "Tokenizer":
        """llama.cpp's WPM tokenizer over `tokens` in its GGUF form (word-initial pieces start with
        "▁"), or in BERT's form with converted=False. Special-token text is plain text, as
        llama.cpp tokenizes without parse_special."""
        tokens = list(tokens) if converted else to_wpm_vocab(tokens)
        model = WordPiece(tokens, unk_token=unk_token, continuing_subword_prefix="", max_input_chars_per_word=None,
                          word_prefix=WPM_WORD_PREFIX)
        vocab = model.vocab
        post = TemplateProcessing.from_templates(f"{cls_token} $A {sep_token}", f"{cls_token} $A {sep_token} $B:1 {sep_token}:1",
                                                 [(cls_token, vocab[cls_token]), (sep_token, vocab[sep_token])])
        return cls(model, WpmNormalizer(), WpmPreTokenizer(), post, WpmDecoder(),
                   [AddedToken(t, vocab[t]) for t in (unk_token, cls_token, sep_token)], split_special_tokens=True)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an HF tokenizer.json (atomically)."""
        from .formats.hf_tokenizer_json import save_tokenizer_json

        save_tokenizer_json(self, path)

    def save_vocab_txt(self, path: str | os.PathLike[str]) -> None:
        from .formats.bert_vocab import write_vocab_txt

        write_vocab_txt(self.model.tokens, path)

    # -- encoding ----------------------------------------------------------------------

    def encode(self, sequence: str, pair: str | None = None, add_special_tokens: bool = True, *,
               allowed_special: SpecialSet = "all", disallowed_special: SpecialSet = ()) -> Encoded:
        """Encode a text, or a pair of texts, with truncation, template and padding as set.

        Added tokens in the text ("[MASK]") become their ids when in `allowed_special` ("all" by
        default, as HF matches them), raise DisallowedSpecialTokenError when in
        `disallowed_special`, and are plain text otherwise (split_special_tokens = True makes
        plain text the default). (Each instance binds this to its native pipeline's encode, which
        behaves the same.)"""
        return self._native.encode(sequence, pair, add_special_tokens, allowed_special=allowed_special,
                                   disallowed_special=disallowed_special)

    def encode_batch(self, inputs: Sequence[str | tuple[str, str]], add_special_tokens: bool = True,
                     num_threads: int | None = None, *, allowed_special: SpecialSet = "all",
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
        added = self._added(allowed_special, disallowed_special, inputs + (pairs or []))
        return self._native.encode_batch(inputs, pairs, add_special_tokens, added, threads)

    def pre_tokenize(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The words the model sees: the text normalized and split, each word with the span of
        input code points it came from (added tokens are words of their own)."""
        if not isinstance(text, str):
            raise TypeError(f"pre_tokenize takes str, got {type(text).__name__}")
        return [(w, tuple(span)) for w, span in self._native.words(text, self._added("all", (), ()))]

    # -- decoding ----------------------------------------------------------------------

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        token_of, n = self._token_of, len(self._token_of)
        tokens = []
        for i in ids:
            if type(i) is not int or not 0 <= i < n or not token_of[i]:
                raise ValueError(f"token id {i!r} is not in this tokenizer's vocabulary (0..{n - 1})")
            if not (skip_special_tokens and i in self._special_ids):
                tokens.append(token_of[i])
        return self.decoder.decode(tokens)

    def decode_batch(self, batch: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens) for ids in batch]

    # -- vocabulary --------------------------------------------------------------------

    def token_to_id(self, token: str) -> int | None:
        added = next((a.id for a in self.added_tokens if a.content == token), None)
        return added if added is not None else self.model.vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self._token_of[token_id] if 0 <= token_id < len(self._token_of) and self._token_of[token_id] else None

    def get_vocab_size(self) -> int:
        return sum(1 for t in self._token_of if t)

    def get_vocab(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._token_of) if t}

    @property
    def split_special_tokens(self) -> bool:
        """True: special-token text in the input is plain text; False: it becomes the special id."""
        return self._split_special_tokens

    @split_special_tokens.setter
    def split_special_tokens(self, value: bool) -> None:
        self._split_special_tokens = bool(value)
        self._build()

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
