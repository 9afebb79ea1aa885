"""Training text from files and globs, streamed in pieces of about a megabyte.

Each file is read in binary blocks and decoded incrementally, so no file is ever held whole.
A piece ends just after a newline that is followed by an ASCII letter: no split pattern
(gpt2, cl100k, o200k) joins text across such a point, so training on the pieces counts the
same chunks as training on the whole file.
"""

from __future__ import annotations

import codecs
import glob
import os
from collections.abc import Iterable, Iterator

BLOCK = 1 << 20
MAX_CARRY = 1 << 24  # text without a cut point is passed on whole beyond this


def expand_paths(specs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """File names for paths and glob patterns (``**`` recursive), each pattern's matches sorted."""
    if isinstance(specs, (str, os.PathLike)):
        specs = [specs]
    paths: list[str] = []
    for spec in specs:
        spec = os.fspath(spec)
        matches = sorted(glob.glob(spec, recursive=True)) if glob.has_magic(spec) else [spec]
        files = [m for m in matches if not os.path.isdir(m)]
        if not files:
            raise ValueError(f"no file matches {spec!r}")
        paths += files
    return paths


def _last_cut(text: str) -> int:
    """Index just past the last newline followed by an ASCII letter, or 0."""
    i = len(text) - 1
    while True:
        i = text.rfind("\n", 0, i)
        if i < 0:
            return 0
        nxt = text[i + 1]
        if nxt.isascii() and nxt.isalpha():
            return i + 1


def read_text_files(
    specs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, errors: str = "strict"
) -> Iterator[str]:
    """The text of every file in `specs`, in pieces; UTF-8 only: with errors="strict" an
    invalid byte is an error naming the file and its byte offset, with errors="replace" it reads
    as U+FFFD."""
    if errors not in ("strict", "replace"):
        raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
    for path in expand_paths(specs):
        decoder = codecs.getincrementaldecoder("utf-8")(errors)
        carry, offset = "", 0
        try:
            with open(path, "rb") as f:
                while block := f.read(BLOCK):
                    try:
                        carry += decoder.decode(block)
                    except UnicodeDecodeError as e:
                        raise ValueError(
                            f"{path} is not UTF-8 text: invalid byte at offset {offset + e.start}"
                        ) from None
                    offset += len(block)
                    cut = _last_cut(carry) if len(carry) < MAX_CARRY else len(carry)
                    if cut:
                        yield carry[:cut]
                        carry = carry[cut:]
                try:
                    carry += decoder.decode(b"", final=True)
                except UnicodeDecodeError:
                    raise ValueError(f"{path} is not UTF-8 text: it ends inside a character") from None
        except OSError as e:
            raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
        if carry:
            yield carry
