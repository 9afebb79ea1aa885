"""Training text from files and globs, streamed in pieces of about a megabyte.

Each file is read in binary blocks and decoded incrementally, so no file is ever held whole.
A piece ends just after a newline that is followed by an ASCII letter: no split pattern
(gpt2, cl100k, o200k) joins text across such a point, so training on the pieces counts the
same chunks as training on the whole file.

For an executor's workers (trainers.chunk_table.count_chunks_on, tokenforge.cluster),
`plan_units` cuts the files into byte ranges at cuts this reader makes anyway, and
`read_text_range` (the one reader, for whole files too) reads a range as exactly the pieces
the whole file gives there.
"""

from __future__ import annotations

import codecs
import glob
import os
import re
from collections.abc import Iterable, Iterator

BLOCK = 1 << 20
MAX_CARRY = 1 << 24  # text without a cut point is passed on whole beyond this
UNIT_BYTES = 1 << 24  # bytes per unit of work sent to an executor (plan_units)


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
    _check_errors(errors)
    for path in expand_paths(specs):
        yield from read_text_range(path, 0, None, errors=errors)


def _check_errors(errors: str) -> None:
    if errors not in ("strict", "replace"):
        raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")


def read_text_range(path: str, start: int, end: int | None, *, errors: str = "strict") -> Iterator[str]:
    """The text of bytes [start, end) of one file (end None: to its end), in pieces, cut as
    `read_text_files` cuts the whole file: blocks end at the same multiples of BLOCK from the
    file's start, so a range that begins at one of `plan_units`' cuts reads exactly the pieces
    the whole file gives there. `start` must begin a character (plan_units' cuts begin an ASCII
    letter)."""
    _check_errors(errors)
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    carry, offset = "", start
    try:
        with open(path, "rb") as f:
            file_size = os.fstat(f.fileno()).st_size
            f.seek(start)
            while True:
                size = BLOCK - offset % BLOCK
                if end is not None:
                    size = min(size, end - offset)
                block = f.read(size) if size > 0 else b""
                if not block:
                    break
                try:
                    carry += decoder.decode(block)
                except UnicodeDecodeError as e:
                    raise ValueError(f"{path} is not UTF-8 text: invalid byte at offset {offset + e.start}") from None
                offset += len(block)
                if offset % BLOCK and len(block) == size and offset < file_size:
                    continue  # the range ends inside a block: the whole file is cut at `end` there
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


class TextFiles:
    """Training text given as files: iterating reads them as `read_text_files` does, and a
    trainer with an executor (see tokenforge.cluster) sends `units()` to workers instead, each
    reading its own byte range of about `unit_bytes` (a multiple of BLOCK, at least two).

    >>> train_bpe(TextFiles("data/*.txt"), 32768, executor=executor)  # doctest: +SKIP
    """

    def __init__(
        self,
        specs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
        *,
        errors: str = "strict",
        unit_bytes: int = UNIT_BYTES,
    ) -> None:
        _check_errors(errors)
        _check_unit_bytes(unit_bytes)
        self.paths = expand_paths(specs)
        self.errors = errors
        self.unit_bytes = unit_bytes

    def __iter__(self) -> Iterator[str]:
        return read_text_files(self.paths, errors=self.errors)

    def __repr__(self) -> str:
        return f"TextFiles({self.paths!r}, errors={self.errors!r}, unit_bytes={self.unit_bytes})"

    def units(self) -> list[tuple[str, int, int]]:
        """The files as (path, start, end) byte ranges; see plan_units."""
        return plan_units(self.paths, self.unit_bytes)


def _check_unit_bytes(unit_bytes: int) -> None:
    if isinstance(unit_bytes, bool) or not isinstance(unit_bytes, int) or unit_bytes < 2 * BLOCK or unit_bytes % BLOCK:
        raise ValueError(f"unit_bytes must be a multiple of {BLOCK} of at least {2 * BLOCK}, got {unit_bytes!r}")


_CUT = re.compile(rb"\n[A-Za-z]")  # read_text_files' cut point, as bytes: between the two


def _safe_cut_in(window: bytes, base: int, low: int, high: int) -> int:
    """The last cut (just past a newline, at an ASCII letter) at a file offset in (low, high),
    given `window` = the file's bytes from offset `base`; -1 when there is none."""
    last = -1
    for m in _CUT.finditer(window, max(0, low - base), max(0, high - base)):
        last = base + m.start() + 1
    return last


def plan_units(paths: Iterable[str], unit_bytes: int = UNIT_BYTES) -> list[tuple[str, int, int]]:
    """Every file cut into byte ranges (path, start, end) of about `unit_bytes` each, in file
    order, which read (read_text_range) as exactly the pieces read_text_files gives.

    Each cut is one read_text_files itself makes: at a block end b at or past the next multiple
    of unit_bytes, the last newline-then-ASCII-letter before b, taken only where another lies in
    the block before b - BLOCK. That one was cut at (or passed) by the reader at b - BLOCK, so at
    b it carries under two blocks of text, below MAX_CARRY, and cuts at the last such place:
    this one. A reader starting there sees the same blocks and carries the same text from then
    on. Where no block end qualifies, the unit runs on (a file without such places stays one
    unit). Reads two blocks per cut tried."""
    _check_unit_bytes(unit_bytes)
    units: list[tuple[str, int, int]] = []
    for path in paths:
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                start, b = 0, unit_bytes
                while b < size:
                    f.seek(b - 2 * BLOCK)
                    window = f.read(2 * BLOCK)
                    base = b - 2 * BLOCK
                    before = _safe_cut_in(window, base, base, b - BLOCK)
                    cut = _safe_cut_in(window, base, b - BLOCK, b) if before >= 0 else -1
                    if cut > start:
                        units.append((path, start, cut))
                        start, b = cut, b + unit_bytes
                    else:
                        b += BLOCK
                units.append((path, start, size))
        except OSError as e:
            raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    return units
