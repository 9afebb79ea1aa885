"""BERT's normalizer, and llama.cpp's WPM variant of it.

BertNormalizer (HF tokenizers' component, the one BERT checkpoints use), in this order:
clean_text drops NUL, U+FFFD and control/format characters and turns whitespace into spaces;
handle_chinese_chars puts spaces around CJK ideographs (each becomes a word of its own);
strip_accents decomposes (NFD) and drops nonspacing marks; lowercase lowercases. strip_accents
None follows lowercase, as in HF. The Unicode data is the versions HF uses (see
tools/gen_bert_tables.py), so results match HF on every code point.

WpmNormalizer is llama.cpp's `llm_tokenizer_wpm` preprocessing: each code point is replaced by
the first code point of its NFD (so "Å" becomes "A", not "A" + ring) and lowercased (simple
mapping); NUL, U+FFFD and control characters are dropped. It only works with
WpmPreTokenizer, because llama.cpp classes characters before lowercasing them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import _core


@dataclass(frozen=True)
class BertNormalizer:
    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    def text_rules(self) -> _core.TextRules:
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        return _core.TextRules(self.clean_text, self.handle_chinese_chars, strip, self.lowercase)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }


@dataclass(frozen=True)
class WpmNormalizer:
    def text_rules(self) -> _core.TextRules:
        return _core.TextRules(True, True, True, True, wpm=True)
