"""Build an `Encoding` from vocabulary files on disk."""
from __future__ import annotations

import os

from .encoding import Encoding
from .formats.gpt2_files import load_gpt2_files
from .formats.tiktoken_file import check_ranks_after, check_ranks_before, parse_error
from .pretokenizers import patterns


def load_tiktoken(
    path: str | os.PathLike[str],
    *,
    pat_str: str = patterns.CL100K,
    special_tokens: dict[str, int] | None = None,
    name: str | None = None,
) -> Encoding:
    """An `Encoding` from any .tiktoken file, with the given split pattern and special tokens.
    A corrupt file is a FormatError naming it and the line."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    name = name or os.path.basename(path).removesuffix(".tiktoken")
    specials = special_tokens or {}
    check_ranks_before(path, data, len(specials))
    try:
        encoding = Encoding._from_tiktoken_data(name, pat_str, data, specials)
    except ValueError as e:
        raise parse_error(path, e, data=data) from None
    check_ranks_after(path, data, encoding._core.rank_count, encoding._core.token_count, len(specials))
    return encoding


def load_gpt2(
    encoder_json: str | os.PathLike[str],
    vocab_bpe: str | os.PathLike[str],
    *,
    pat_str: str = patterns.GPT2,
    name: str = "gpt2",
) -> Encoding:
    """An `Encoding` from GPT-2's `encoder.json` + `vocab.bpe` (the files its encoder.py reads).
    Files that disagree, or a vocab.bpe cut short, are a FormatError (see formats.gpt2_files)."""
    ranks, special_tokens = load_gpt2_files(encoder_json, vocab_bpe)
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special_tokens)
