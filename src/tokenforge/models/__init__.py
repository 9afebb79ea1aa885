"""Models: words to token ids (WordPiece; byte-level BPE lives in encoding.Encoding)."""

from .wordpiece import WordPiece

__all__ = ["WordPiece"]
