"""tokenforge's own byte-level BPE file: everything an `Encoding` needs, in one file.

A .tiktoken file holds only the ranks; the split pattern and special tokens live in code. This
file carries them too, so a trained tokenizer is one file to keep and load:

    {"format": "tokenforge-bpe", "version": 1, "name": ..., "pattern": ..., "special_tokens": {...}}
    IQ== 0
    Ig== 1
    ...

Line 1 is a JSON header; the rest is a .tiktoken body (`<base64 token> <rank>` per line),
parsed natively.
"""
from __future__ import annotations

import json
import os

from ..encoding import Encoding
from .atomic import write_files_atomically
from .tiktoken_file import tiktoken_lines

FORMAT = "tokenforge-bpe"
VERSION = 1


def save_encoding(encoding: Encoding, path: str | os.PathLike[str]) -> None:
    """Write `encoding` (name, split pattern, ranks, special tokens) to `path`, atomically."""
    if not isinstance(encoding, Encoding):
        raise TypeError(f"save_encoding needs a tokenforge Encoding, got {type(encoding).__name__}")
    header = {
        "format": FORMAT, "version": VERSION, "name": encoding.name, "pattern": encoding._pat_str,
        "special_tokens": encoding._special_tokens,
    }
    body = tiktoken_lines(encoding._mergeable_ranks)
    write_files_atomically([(os.fspath(path), json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n" + body)])


def load_encoding(path: str | os.PathLike[str]) -> Encoding:
    """The `Encoding` saved by `save_encoding` at `path`."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    first, _, body = data.partition(b"\n")
    try:
        header = json.loads(first)
    except (json.JSONDecodeError, UnicodeDecodeError):
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{path}: not a tokenforge BPE file (line 1 should be a JSON header with "
                         f'"format": "{FORMAT}"); for a .tiktoken file use load_tiktoken')
    if header.get("version") != VERSION:
        raise ValueError(f"{path}: version {header.get('version')!r} is not one this tokenforge reads ({VERSION})")
    name, pattern, specials = header.get("name"), header.get("pattern"), header.get("special_tokens")
    if not isinstance(name, str) or not isinstance(pattern, str) or not isinstance(specials, dict) or not all(
        isinstance(k, str) and type(v) is int for k, v in specials.items()
    ):
        raise ValueError(f"{path}: line 1: the header needs a string name and pattern and special_tokens "
                         "mapping text to int ids")
    try:
        return Encoding._from_tiktoken_data(name, pattern, body, specials)
    except ValueError as e:
        raise ValueError(f"{path}: {e} (line numbers count from line 2)") from None
