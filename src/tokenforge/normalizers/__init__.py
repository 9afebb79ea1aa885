"""Normalizers: how text is cleaned up before it is split (BERT's, llama.cpp WPM's)."""

from .bert import BertNormalizer, WpmNormalizer

__all__ = ["BertNormalizer", "WpmNormalizer"]
