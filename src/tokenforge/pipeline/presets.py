"""Descriptions of well-known pipelines, built from a vocabulary: BERT as transformers'
BertTokenizerFast builds it from a vocab.txt and its tokenizer_config.json, and llama.cpp's WPM
(BERT in GGUF files). Readers of vocab.txt and GGUF files (tokenforge.formats) return these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..added_tokens import AddedToken
from ..decoders.wordpiece import WordPieceDecoder, WpmDecoder
from ..models.wordpiece import WPM_WORD_PREFIX, WordPiece, to_wpm_vocab
from ..normalizers.bert import BertNormalizer, WpmNormalizer
from ..pre_tokenizers.bert import BertPreTokenizer, WpmPreTokenizer
from ..processors.template import TemplateProcessing
from .spec import PipelineSpec


def bert(tokens: Sequence[str], config: Mapping[str, Any]) -> PipelineSpec:
    """BERT over `tokens` (vocab.txt's, by id), configured by a tokenizer_config.json's keys:
    do_lower_case, strip_accents, tokenize_chinese_chars, and unk/sep/pad/cls/mask_token. The
    caller checks that unk, cls and sep are in the vocabulary."""
    names = {k: config.get(f"{k}_token", f"[{k.upper()}]") for k in ("unk", "sep", "pad", "cls", "mask")}
    vocab = {t: i for i, t in enumerate(tokens)}
    model = WordPiece(list(tokens), unk_token=names["unk"])
    lowercase = bool(config.get("do_lower_case", True))
    normalizer = BertNormalizer(
        True, bool(config.get("tokenize_chinese_chars", True)), config.get("strip_accents"), lowercase
    )
    post = TemplateProcessing.bert(vocab[names["cls"]], vocab[names["sep"]], names["cls"], names["sep"])
    added = tuple(
        AddedToken(t, vocab[t]) for t in sorted(set(names.values()), key=lambda t: vocab.get(t, -1)) if t in vocab
    )
    return PipelineSpec(model, normalizer, BertPreTokenizer(), post, WordPieceDecoder(), added)


def wpm(
    tokens: Sequence[str],
    *,
    converted: bool = True,
    unk_token: str = "[UNK]",
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
) -> PipelineSpec:
    """llama.cpp's WPM over `tokens` in its GGUF form (word-initial pieces start with "▁"), or
    in BERT's form with converted=False. Special-token text is plain text, as llama.cpp
    tokenizes without parse_special. Decode is llama.cpp's detokenize: the pieces joined, "▁" a
    space (the first one kept), then its clean_spaces."""
    tokens = list(tokens) if converted else to_wpm_vocab(tokens)
    model = WordPiece(
        tokens,
        unk_token=unk_token,
        continuing_subword_prefix="",
        max_input_chars_per_word=None,
        word_prefix=WPM_WORD_PREFIX,
    )
    vocab = model.vocab
    post = TemplateProcessing.from_templates(
        f"{cls_token} $A {sep_token}",
        f"{cls_token} $A {sep_token} $B:1 {sep_token}:1",
        [(cls_token, vocab[cls_token]), (sep_token, vocab[sep_token])],
    )
    return PipelineSpec(
        model,
        WpmNormalizer(),
        WpmPreTokenizer(),
        post,
        WpmDecoder(),
        tuple(AddedToken(t, vocab[t]) for t in (unk_token, cls_token, sep_token)),
        # llama.cpp's detokenize cleans a WPM vocabulary's text (its clean_spaces)
        options={"split_special_tokens": True, "clean_spaces": True},
    )
