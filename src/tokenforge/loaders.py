"""Build an `Encoding` from vocabulary files on disk."""

from __future__ import annotations

import hashlib
import os

from .encoding import Encoding
from .formats.gpt2_files import load_gpt2_files
from .formats.tiktoken_file import check_ranks_after, check_ranks_before, parse_error
from .pre_tokenizers import patterns

# The bundled vocabularies by the SHA-256 of their .tiktoken file (as OpenAI publishes them), so
# that loading one of them from a file gets its own split pattern and special tokens.
KNOWN_TIKTOKEN_FILES = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": "r50k_base",
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": "p50k_base",
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "cl100k_base",
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k_base",
}


def load_tiktoken(
    path: str | os.PathLike[str],
    *,
    pat_str: str | None = None,
    special_tokens: dict[str, int] | None = None,
    name: str | None = None,
) -> Encoding:
    """An `Encoding` from any .tiktoken file, with its split pattern and special tokens.

    A file of one of OpenAI's encodings (r50k, p50k, cl100k, o200k: recognised by its SHA-256)
    gets that encoding's pattern and special tokens unless given; any other file needs
    `pat_str` (a .tiktoken file holds only the ranks, and the wrong pattern gives wrong ids).
    A corrupt file is a FormatError naming it and the line."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    known = KNOWN_TIKTOKEN_FILES.get(hashlib.sha256(data).hexdigest())
    if known is not None:
        from .registry import SPECS

        spec = SPECS[known]
        pat_str = spec.pattern if pat_str is None else pat_str
        special_tokens = dict(spec.special_tokens) if special_tokens is None else special_tokens
        name = name or known
    name = name or os.path.basename(path).removesuffix(".tiktoken")
    specials = special_tokens or {}
    check_ranks_before(path, data, len(specials))
    try:
        # Parsed before a missing pat_str is reported: a corrupt file's error (with its line)
        # comes first, whatever the pattern (any will do for the parse).
        encoding = Encoding._from_tiktoken_data(name, pat_str or patterns.CL100K, data, specials)
    except ValueError as e:
        raise parse_error(path, e, data=data) from None
    check_ranks_after(path, data, encoding._core.rank_count, encoding._core.token_count, len(specials))
    if pat_str is None:
        raise ValueError(
            f"{path}: a .tiktoken file holds no split pattern, and this one is not one of OpenAI's "
            "encodings; pass pat_str= (e.g. tokenforge.pre_tokenizers.patterns.CL100K, or the pattern "
            "it was trained with; a .tokenforge file keeps it)"
        )
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
