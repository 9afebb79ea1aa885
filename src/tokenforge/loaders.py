"""Build an `Encoding` from vocabulary files on disk."""
from __future__ import annotations

import os

from .encoding import Encoding
from .formats.gpt2_files import load_gpt2_files
from .pretokenizers import patterns


def load_tiktoken(
    path: str | os.PathLike[str],
    *,
    pat_str: str = patterns.CL100K,
    special_tokens: dict[str, int] | None = None,
    name: str | None = None,
) -> Encoding:
    """An `Encoding` from any .tiktoken file, with the given split pattern and special tokens."""
    with open(path, "rb") as f:
        data = f.read()
    name = name or os.path.basename(os.fspath(path)).removesuffix(".tiktoken")
    try:
        return Encoding._from_tiktoken_data(name, pat_str, data, special_tokens or {})
    except ValueError as e:
        raise ValueError(f"{os.fspath(path)}: {e}") from None


def load_gpt2(
    encoder_json: str | os.PathLike[str],
    vocab_bpe: str | os.PathLike[str],
    *,
    pat_str: str = patterns.GPT2,
    name: str = "gpt2",
) -> Encoding:
    """An `Encoding` from GPT-2's `encoder.json` + `vocab.bpe` (the files its encoder.py reads)."""
    ranks, special_tokens = load_gpt2_files(encoder_json, vocab_bpe)
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special_tokens)
