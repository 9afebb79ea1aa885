"""The WordPiece pipeline (BERT, and llama.cpp's WPM variant) behind the `Tokenizer` surface:
normalizer -> pre-tokenizer -> WordPiece -> template, one native pass per text (see
src/native/pipelines/wordpiece_tokenizer.h), and the WordPiece decoder back.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import _core
from .added_tokens import AddedToken
from .arguments import _check_bool
from .decoders.wordpiece import WordPieceDecoder, WpmDecoder
from .models.wordpiece import WordPiece
from .normalizers.bert import BertNormalizer, WpmNormalizer
from .pipeline.spec import PipelineSpec
from .pre_tokenizers.bert import BertPreTokenizer, WpmPreTokenizer
from .processors.template import TemplateProcessing
from .special import SpecialPolicy
from .tokenizer import Tokenizer


class WordPieceTokenizer(Tokenizer):
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
        if decoder is not None and not isinstance(decoder, (WordPieceDecoder, WpmDecoder)):
            raise TypeError(f"decoder must be a WordPieceDecoder or WpmDecoder, got {type(decoder).__name__}")
        self.decoder = decoder or (WpmDecoder() if wpm else WordPieceDecoder(model.continuing_subword_prefix))
        self.added_tokens = list(added_tokens)
        token_of = list(model.tokens)
        for added in self.added_tokens:
            if added.id >= len(token_of):
                token_of += [""] * (added.id + 1 - len(token_of))
            elif token_of[added.id] and token_of[added.id] != added.content:
                raise ValueError(
                    f"added token {added.content!r} has id {added.id}, which the vocabulary gives to "
                    f"{token_of[added.id]!r}"
                )
            token_of[added.id] = added.content
        self._init_surface(token_of, SpecialPolicy({a.content: a.id for a in self.added_tokens}))
        self._special_ids = frozenset(a.id for a in self.added_tokens if a.special)
        self._split_special_tokens = _check_bool(split_special_tokens, "split_special_tokens")
        self._build()

    def _build(self) -> None:
        rules = (self.normalizer or BertNormalizer(False, False, False, False)).text_rules()
        m = self.model
        native = _core.WordPiece(
            m.tokens,
            m.vocab[m.unk_token],
            m.continuing_subword_prefix,
            m.word_prefix,
            m.word_length_limit,
            rules,
            self._token_of,
        )
        self._template_on(native, self.post_processor)
        d = self.decoder
        if isinstance(d, WpmDecoder):
            native.set_decoder(True, "", False, sorted(self._special_ids))
        else:
            native.set_decoder(False, d.prefix, d.cleanup, sorted(self._special_ids))
        self._attach(native, None if self._split_special_tokens else self._policy.matcher(self._policy.names))

    # -- loading and saving -------------------------------------------------------------

    @classmethod
    def bert_from_vocab_txt(cls, path: str, **overrides: Any) -> WordPieceTokenizer:
        """BERT from vocab.txt, configured by the tokenizer_config.json beside it (or `overrides`:
        do_lower_case, strip_accents, tokenize_chinese_chars, unk_token, sep_token, cls_token,
        pad_token, mask_token), as transformers' BertTokenizerFast builds it."""
        from .formats.bert_vocab import read_bert

        return cls._compiled(read_bert(path, **overrides))

    @classmethod
    def wpm_from_vocab_txt(cls, path: str) -> WordPieceTokenizer:
        """llama.cpp's WPM tokenizer over a BERT vocab.txt, converted to its GGUF form."""
        from .formats.bert_vocab import read_wpm

        return cls._compiled(read_wpm(path))

    @classmethod
    def wpm(  # type: ignore[override]  # Tokenizer.wpm forwards its options here
        cls,
        tokens: Sequence[str],
        *,
        converted: bool = True,
        unk_token: str = "[UNK]",
        cls_token: str = "[CLS]",
        sep_token: str = "[SEP]",
    ) -> WordPieceTokenizer:
        """llama.cpp's WPM tokenizer over `tokens` in its GGUF form (word-initial pieces start with
        "▁"), or in BERT's form with converted=False. Special-token text is plain text, as
        llama.cpp tokenizes without parse_special."""
        from .pipeline import presets

        return cls._compiled(
            presets.wpm(tokens, converted=converted, unk_token=unk_token, cls_token=cls_token, sep_token=sep_token)
        )

    @property
    def spec(self) -> PipelineSpec:
        return PipelineSpec(
            self.model,
            self.normalizer,
            self.pre_tokenizer,
            self.post_processor,
            self.decoder,
            tuple(self.added_tokens),
            options={"split_special_tokens": self._split_special_tokens},
            truncation=self.truncation,
            padding=self.padding,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an HF tokenizer.json (atomically)."""
        from .formats.hf_tokenizer_json import save_tokenizer_json

        save_tokenizer_json(self, path)

    def save_vocab_txt(self, path: str | os.PathLike[str]) -> None:
        from .formats.bert_vocab import write_vocab_txt

        write_vocab_txt(self.model.tokens, path)

    def pre_tokenize(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The words the model sees: the text normalized and split, each word with the span of
        input code points it came from (added tokens are words of their own)."""
        if not isinstance(text, str):
            raise TypeError(f"pre_tokenize takes str, got {type(text).__name__}")
        return [(w, tuple(span)) for w, span in self._native.words(text, self._added("all", (), ()))]

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Text of `ids` (any integers, NumPy's too, or a 1-D NumPy integer array), read by the
        decoder natively: an id outside the vocabulary raises ValueError, anything but an
        integer TypeError."""
        return self._decode_natively(ids, skip_special_tokens)

    @property
    def split_special_tokens(self) -> bool:
        """True: special-token text in the input is plain text; False: it becomes the special id."""
        return self._split_special_tokens

    @split_special_tokens.setter
    def split_special_tokens(self, value: bool) -> None:
        self._split_special_tokens = _check_bool(value, "split_special_tokens")
        self._build()
