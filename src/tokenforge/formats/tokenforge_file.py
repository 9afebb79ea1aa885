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
from .tiktoken_file import (
    check_ranks_after,
    check_ranks_before,
    parse_error,
    tiktoken_lines,
)
from .validation import Fields, FormatError, key_path, read_json

FORMAT = "tokenforge-bpe"
VERSION = 1
_MAX_SPECIAL_ID = 2**32 - 2  # what an Encoding holds (special ids are sparse: no table is sized by them)


def save_encoding(encoding: Encoding, path: str | os.PathLike[str]) -> None:
    """Write `encoding` (name, split pattern, ranks, special tokens) to `path`, atomically."""
    if not isinstance(encoding, Encoding):
        raise TypeError(f"save_encoding needs a tokenforge Encoding, got {type(encoding).__name__}")
    header = {
        "format": FORMAT,
        "version": VERSION,
        "name": encoding.name,
        "pattern": encoding._pat_str,
        "special_tokens": encoding._special_tokens,
    }
    body = tiktoken_lines(encoding._mergeable_ranks)
    write_files_atomically([(os.fspath(path), json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n" + body)])


def load_encoding(path: str | os.PathLike[str]) -> Encoding:
    """The `Encoding` saved by `save_encoding` at `path`. A corrupt file is a FormatError naming
    it and the line (and, in the header, the field)."""
    import regex  # type: ignore[import-untyped]

    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    first, _, body = data.partition(b"\n")
    try:
        header = read_json(path, first, "a tokenforge BPE file", where="line 1")
    except FormatError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise FormatError(
            path,
            "line 1",
            "not a tokenforge BPE file (line 1 should be a JSON header with "
            f'"format": "{FORMAT}"); for a .tiktoken file use load_tiktoken',
        )
    version = header.get("version")
    if type(version) is not int or version != VERSION:
        raise FormatError(path, "line 1: version", f"version {version!r} is not one this tokenforge reads ({VERSION})")
    fields = Fields(path)
    for key in ("name", "pattern"):
        if not isinstance(header.get(key), str):
            raise FormatError(path, f"line 1: {key}", f"the header needs a string {key}, got {header.get(key)!r}")
    name = fields.text(header["name"], "line 1: name")
    pattern = fields.text(header["pattern"], "line 1: pattern")
    try:
        regex.compile(pattern)
    except (regex.error, RecursionError, OverflowError) as e:
        raise FormatError(path, "line 1: pattern", f"not a valid regular expression ({e})") from None
    specials = fields.obj(header.get("special_tokens"), "line 1: special_tokens")
    for text, token_id in specials.items():
        where = key_path("line 1: special_tokens", text)
        fields.text(text, where, nonempty=True)
        fields.integer(token_id, where, 0, _MAX_SPECIAL_ID)
    check_ranks_before(path, body, len(specials), line_offset=1)
    try:
        encoding = Encoding._from_tiktoken_data(name, pattern, body, specials)
    except ValueError as e:
        raise parse_error(path, e, line_offset=1, data=body) from None
    check_ranks_after(path, body, encoding._core.rank_count, encoding._core.token_count, len(specials), line_offset=1)
    return encoding
