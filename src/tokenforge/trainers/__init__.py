"""Trainers: learn a vocabulary from text."""
from __future__ import annotations

from .bpe import train_bpe, train_bpe_merges

__all__ = ["train_bpe", "train_bpe_merges"]
