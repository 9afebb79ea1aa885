"""The WordPiece decoders as components (what a tokenizer.json's "decoder" holds); the decoding
itself is native (src/native/decoders/wordpiece_decoder.h), run by the WordPiece pipeline.

- `WordPieceDecoder` is HF's: a token with the continuation prefix joins the previous one,
  others start with a space; `cleanup` then removes the spaces BERT's splitting put before
  punctuation and contractions ("hello ." -> "hello.").
- `WpmDecoder` is llama.cpp's WPM: "▁" starts a word (a space), other pieces join.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WordPieceDecoder:
    prefix: str = "##"
    cleanup: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


@dataclass(frozen=True)
class WpmDecoder:
    """llama.cpp's WPM pieces back to text (it has no tokenizer.json form)."""
