"""From a pipeline description to a running `Tokenizer`: the only module that knows which
native pipelines exist and which description each one runs.

Today's native pipelines are fused kernels, each one pass per text (src/native/pipelines/):
- a byte-level BPE `Encoding` (GPT-2, cl100k, o200k splits): ByteLevelBpeTokenizer;
- a WordPiece model behind BERT's or llama.cpp WPM's normalizer and pre-tokenizer:
  WordPieceTokenizer;
- a sentencepiece model (its normalizer, BPE or Unigram): SentencePieceTokenizer.
A description none of them runs is refused with the components it holds, never approximated.
Settings a file carries (truncation, padding) are applied last; a value the tokenizer refuses
is a FormatError naming the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..encoding import Encoding
from ..errors import FormatError
from ..formats.sentencepiece_model import SentencePieceModel
from ..models.wordpiece import WordPiece
from .spec import PipelineSpec

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer


def kernel_of(spec: PipelineSpec) -> str:
    """The name of the native pipeline that runs `spec`: "byte_level_bpe", "wordpiece" or
    "sentencepiece"; ValueError naming the components where none does."""
    if isinstance(spec.model, Encoding):
        return "byte_level_bpe"
    if isinstance(spec.model, WordPiece):
        return "wordpiece"
    if isinstance(spec.model, SentencePieceModel):
        return "sentencepiece"
    parts = ", ".join(
        f"{stage} {type(part).__name__}"
        for stage, part in (
            ("normalizer", spec.normalizer),
            ("pre-tokenizer", spec.pre_tokenizer),
            ("model", spec.model),
        )
        if part is not None
    )
    raise ValueError(f"no native pipeline runs this tokenizer ({parts}) yet")


def compile_pipeline(spec: PipelineSpec, source: str | None = None) -> Tokenizer:
    """The `Tokenizer` that runs `spec` natively, with its truncation and padding set.
    `source`: the file the description came from, named in errors."""
    kernel = kernel_of(spec)
    try:
        tok = _make(kernel, spec)
    except FormatError:
        raise
    except ValueError as e:  # a check of the tokenizer's own: the file holds what cannot run
        if source is None:
            raise
        raise FormatError(source, "", str(e)) from None
    for which, apply in (("truncation", tok.enable_truncation), ("padding", tok.enable_padding)):
        settings = getattr(spec, which)
        if settings is None:
            continue
        try:
            apply(**settings)
        except (ValueError, TypeError) as e:
            if source is None:
                raise
            raise FormatError(source, which, str(e)) from None
    return tok


def _make(kernel: str, spec: PipelineSpec) -> Tokenizer:
    from ..byte_level_bpe_tokenizer import ByteLevelBpeTokenizer
    from ..sentencepiece_tokenizer import SentencePieceTokenizer
    from ..wordpiece_tokenizer import WordPieceTokenizer

    if kernel == "byte_level_bpe":
        if spec.normalizer is not None or spec.pre_tokenizer is not None or spec.added_tokens or spec.options:
            raise ValueError("a byte-level BPE Encoding carries its own split and special tokens: give the model alone")
        return ByteLevelBpeTokenizer(spec.model, spec.post_processor)
    if kernel == "wordpiece":
        return WordPieceTokenizer(
            spec.model,
            spec.normalizer,
            spec.pre_tokenizer,
            spec.post_processor,
            spec.decoder,
            spec.added_tokens,
            **spec.options,
        )
    return SentencePieceTokenizer(spec.model, **spec.options)
