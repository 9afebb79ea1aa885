"""BERT's pre-tokenizer: words end at whitespace, and every punctuation character (Unicode P*,
and the ASCII symbols $+<=>^`|~) is a word of its own. WpmPreTokenizer is llama.cpp's WPM
split: whitespace ends words; punctuation, ASCII symbols and CJK ideographs are words of their
own (it goes with normalizers.WpmNormalizer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BertPreTokenizer:
    def to_json(self) -> dict[str, Any]:
        return {"type": "BertPreTokenizer"}


@dataclass(frozen=True)
class WpmPreTokenizer:
    pass
