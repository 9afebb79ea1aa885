"""`PipelineSpec`: one tokenizer described as plain data, the stages in the order text goes
through them (normalizer -> pre-tokenizer -> model -> post-processor, and a decoder back), with
the added tokens matched before all of them and the settings a file may carry (truncation,
padding). Format readers (tokenforge.formats) return one; pipeline.compile turns it into a
`Tokenizer`. The components are the frozen records of normalizers/, pre_tokenizers/, models/,
processors/ and decoders/ (or, for whole-file models, the file's own record: a sentencepiece
`SentencePieceModel`, a byte-level BPE `Encoding`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..added_tokens import AddedExtras, AddedToken


@dataclass(frozen=True)
class PipelineSpec:
    model: Any
    normalizer: Any = None
    pre_tokenizer: Any = None
    post_processor: Any = None
    decoder: Any = None
    added_tokens: tuple[AddedToken, ...] = ()
    # Options of the pipeline that are no component: split_special_tokens (WordPiece), add_bos
    # and add_eos (sentencepiece).
    options: Mapping[str, Any] = field(default_factory=dict)
    # Settings as the surface's enable_truncation / enable_padding take them, or None.
    truncation: Mapping[str, Any] | None = None
    padding: Mapping[str, Any] | None = None
    # The native pipeline to run it on (pipeline.compile.KERNELS); None: the fastest that runs it
    # (a fused kernel where one fits, else "staged").
    kernel: str | None = None
    # The model folder's settings around the tokenizer (chat_template.ModelConfig: special
    # tokens, chat templates, model_max_length, padding_side), or None; no stage reads them.
    config: Any = None
    # What HF's added vocabulary holds beyond added_tokens after a file listed a content twice or
    # gave two contents one id (added_tokens.AddedExtras), or None.
    added_extras: AddedExtras | None = None
