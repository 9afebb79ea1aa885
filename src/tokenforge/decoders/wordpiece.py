"""WordPiece tokens back to text, as HF's WordPiece decoder: a token with the continuation
prefix joins the previous one, others start with a space; `cleanup` then removes the spaces
BERT's splitting put before punctuation and contractions ("hello ." -> "hello.")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# HF's cleanup rules, applied in this order to each token (with its leading space).
_CLEANUPS = [(" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")]


@dataclass(frozen=True)
class WordPieceDecoder:
    prefix: str = "##"
    cleanup: bool = True

    def decode(self, tokens: list[str]) -> str:
        out = []
        for i, token in enumerate(tokens):
            if i:
                token = token.replace(self.prefix, "", 1) if token.startswith(self.prefix) else " " + token
            if self.cleanup:
                for dirty, clean in _CLEANUPS:
                    token = token.replace(dirty, clean)
            out.append(token)
        return "".join(out)

    def to_json(self) -> dict[str, Any]:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


@dataclass(frozen=True)
class WpmDecoder:
    """llama.cpp's WPM pieces back to text: "▁" starts a word (a space), other pieces join."""

    def decode(self, tokens: list[str]) -> str:
        return "".join(tokens).replace("\u2581", " ").lstrip(" ")
