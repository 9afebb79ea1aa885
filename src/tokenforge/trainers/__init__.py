"""Trainers: learn a vocabulary from text."""

from __future__ import annotations

from .bpe import continue_bpe, train_bpe, train_bpe_merges
from .prune import prune_bpe
from .text_files import TextFiles, read_text_files
from .wordpiece import train_wordpiece, train_wordpiece_merges

__all__ = [
    "TextFiles",
    "continue_bpe",
    "prune_bpe",
    "read_text_files",
    "train_bpe",
    "train_bpe_merges",
    "train_wordpiece",
    "train_wordpiece_merges",
]
