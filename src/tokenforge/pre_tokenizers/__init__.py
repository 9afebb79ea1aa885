"""Pre-tokenizers: how text is cut into pieces before the model sees it."""

from .bert import BertPreTokenizer, WpmPreTokenizer

__all__ = ["BertPreTokenizer", "WpmPreTokenizer"]
