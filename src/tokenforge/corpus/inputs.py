"""The corpus's inputs: which files, cut into work units, and the documents of one unit.

`expand()` turns the user's INPUTS (paths and globs) into `InputFile`s, each with its size and
mtime (the manifest records them, and a resumed run refuses inputs that changed). `plan()` cuts
them into `Unit`s, deterministic from the files' bytes and the options alone:

- text (`split="line"`, `"paragraph"` or `"document"`, the names the Hugging Face `datasets` text
  loader uses): byte ranges of about `unit_bytes`, each cut just after a line break (a paragraph
  split cuts only after a blank line), so no document spans two units; `"document"` makes each
  file one document and one unit.
- JSONL (*.jsonl, *.ndjson, *.json: JSON Lines): byte ranges cut after a line break; each
  non-empty line is a record whose `field` (a string) is the document.
- Parquet (*.parquet): one unit per row group; each row's `column` (a string) is a document.

`read_unit()` reads one unit and returns its documents with the records it could not use
(`BadRecord`: file, line or row, and why: invalid JSON, a missing or non-string field, bytes that
are not UTF-8). It runs in a worker (worker.py), so it takes and returns plain data.
"""

from __future__ import annotations

import glob
import json
import os
import re
from typing import Any, NamedTuple

SPLITS = ("line", "paragraph", "document")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
_SCAN = 1 << 16  # bytes read at a time while looking for a cut


class InputFile(NamedTuple):
    path: str  # absolute
    kind: str  # "text", "jsonl" or "parquet"
    size: int
    mtime_ns: int


class Unit(NamedTuple):
    """One piece of work: documents `path[start:end]` (bytes), or Parquet row group `start`."""

    number: int
    path: str
    kind: str
    start: int
    end: int
    split: str  # text only
    field: str | None  # JSONL only
    column: str | None  # Parquet only


class BadRecord(NamedTuple):
    path: str
    line: int  # 1-based line (text, JSONL) or row (Parquet, 0-based as pyarrow counts them)
    reason: str

    def where(self) -> str:
        return (
            f"{self.path}:{self.line}" if not self.path.endswith(PARQUET_SUFFIXES) else f"{self.path}: row {self.line}"
        )


class CorpusError(ValueError):
    """A bad input record with on_error="raise", or inputs that cannot be read as asked."""


def kind_of(path: str, field: str | None, column: str | None) -> str:
    lower = path.lower()
    if lower.endswith(PARQUET_SUFFIXES):
        if column is None:
            raise CorpusError(f"{path}: a Parquet file needs column=... (--column) naming its text column")
        return "parquet"
    if lower.endswith(JSONL_SUFFIXES):
        if field is None:
            raise CorpusError(f"{path}: a JSONL file needs field=... (--field) naming its text field")
        return "jsonl"
    return "text"


def expand(inputs: Any, field: str | None = None, column: str | None = None) -> list[InputFile]:
    """INPUTS (a path, a glob, or a list of them) as files in the order given (a glob's matches
    sorted); a directory is every file under it, sorted. A pattern with no match, or a path that
    does not exist, raises CorpusError."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    paths: list[str] = []
    for item in inputs:
        item = os.fspath(item)
        if os.path.isdir(item):
            found = sorted(
                os.path.join(root, name)
                for root, _, names in os.walk(item)
                for name in names
                if not name.startswith(".")
            )
        elif glob.has_magic(item):
            found = sorted(p for p in glob.glob(item, recursive=True) if os.path.isfile(p))
        else:
            found = [item]
        if not found or not os.path.exists(found[0]):
            raise CorpusError(
                f"input {item!r}: no such file" + (" (the pattern matched nothing)" if glob.has_magic(item) else "")
            )
        paths.extend(found)
    files = []
    for path in dict.fromkeys(os.path.abspath(p) for p in paths):
        st = os.stat(path)
        files.append(InputFile(path, kind_of(path, field, column), st.st_size, st.st_mtime_ns))
    if not files:
        raise CorpusError("no inputs: give text, JSONL or Parquet files (or globs)")
    return files


# ---------------------------------------------------------------------------------------------------
# Planning


def _cut_after(f: Any, at: int, size: int, pattern: re.Pattern[bytes]) -> int:
    """The first offset >= `at` just after a match of `pattern` (a line break, or a blank line),
    or `size`."""
    f.seek(max(at - 2, 0))
    pos = max(at - 2, 0)
    tail = b""
    while pos < size:
        block = f.read(_SCAN)
        if not block:
            break
        data = tail + block
        base = pos - len(tail)
        for m in pattern.finditer(data):
            if base + m.end() >= at:
                return base + m.end()
        tail = data[-2:]
        pos += len(block)
    return size


_LINE = re.compile(rb"\n")
_BLANK = re.compile(rb"\n\r?\n")


def plan(files: list[InputFile], split: str, field: str | None, column: str | None, unit_bytes: int) -> list[Unit]:
    """The work units of `files`, in order (see the module's prose)."""
    if split not in SPLITS:
        raise CorpusError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    units: list[Unit] = []
    for file in files:
        if file.kind == "parquet":
            pq = _pyarrow_parquet()
            groups = pq.ParquetFile(file.path).metadata.num_row_groups
            for g in range(groups):
                units.append(Unit(len(units), file.path, "parquet", g, g + 1, split, None, column))
            continue
        if file.kind == "text" and split == "document":
            units.append(Unit(len(units), file.path, "text", 0, file.size, split, None, None))
            continue
        pattern = _BLANK if file.kind == "text" and split == "paragraph" else _LINE
        start = 0
        with open(file.path, "rb") as f:
            while start < file.size:
                end = (
                    _cut_after(f, start + unit_bytes, file.size, pattern)
                    if start + unit_bytes < file.size
                    else file.size
                )
                units.append(Unit(len(units), file.path, file.kind, start, end, split, field, None))
                start = end
    return units


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CorpusError("reading Parquet needs pyarrow: pip install pyarrow") from None
    return pq


# ---------------------------------------------------------------------------------------------------
# Reading a unit


def _line_of(path: str, offset: int) -> int:
    """The 1-based line of byte `offset` in `path` (counted only when a record is bad)."""
    n = 1
    with open(path, "rb") as f:
        left = offset
        while left > 0:
            block = f.read(min(left, 1 << 20))
            if not block:
                break
            n += block.count(b"\n")
            left -= len(block)
    return n


def _utf8_error(data: bytes) -> str:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"invalid UTF-8 (byte 0x{data[e.start]:02x} at column {e.start + 1})"
    return ""


def read_unit(unit: Unit) -> tuple[list[str], list[BadRecord]]:
    """The documents of `unit`, in order, and its bad records (see the module's prose)."""
    if unit.kind == "parquet":
        return _read_parquet(unit)
    with open(unit.path, "rb") as f:
        f.seek(unit.start)
        data = f.read(unit.end - unit.start)
    if unit.kind == "jsonl":
        return _read_jsonl(unit, data)
    if unit.split == "document":
        try:
            return ([data.decode("utf-8")] if data else []), []
        except UnicodeDecodeError as e:
            line = _line_of(unit.path, e.start)
            return [], [BadRecord(unit.path, line, "invalid UTF-8: the file is skipped")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _read_text_slowly(unit, data)
    return _documents(text, unit.split), []


_BLANK_CHARS = " \t\r\f\v"
_PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t\r\f\v]*\n)+")  # a line break, then blank lines
_LEADING_BLANK_LINE = re.compile(r"[ \t\r\f\v]*\n")
_TRAILING_BLANK = re.compile(r"\n[ \t\r\f\v]*\Z")


def _documents(text: str, split: str) -> list[str]:
    """Lines without their line break ("\n", or "\r\n"; empty lines are no documents), or
    paragraphs: runs of lines that are not blank (blank: spaces, tabs, "\r", "\f", "\v" only)
    joined by their own line breaks, less the last one. The work is done by str.split and
    re.split, not line by line in Python."""
    if split == "line":
        if "\r" in text:
            text = text.replace("\r\n", "\n")
            if text.endswith("\r"):
                text = text[:-1]
        return list(filter(None, text.split("\n")))
    pieces = _PARAGRAPH_BREAK.split(text)
    # Only the first piece can start with a blank line, and only the last can end with one.
    first = _LEADING_BLANK_LINE.match(pieces[0])
    if first:
        pieces[0] = pieces[0][first.end() :]
    last = _TRAILING_BLANK.search(pieces[-1])
    if last:
        pieces[-1] = pieces[-1][: last.start()]
    docs = [p[:-1] if p.endswith("\r") else p for p in pieces]
    if not docs[0].strip(_BLANK_CHARS):
        docs = docs[1:]
    if docs and not docs[-1].strip(_BLANK_CHARS):
        docs = docs[:-1]
    return docs


def _read_text_slowly(unit: Unit, data: bytes) -> tuple[list[str], list[BadRecord]]:
    """A unit with bytes that are not UTF-8: the documents holding them are bad records, the
    others are read as `_documents` reads them."""
    docs: list[str] = []
    bad: list[BadRecord] = []
    first_line = _line_of(unit.path, unit.start)
    blank = _BLANK_CHARS.encode()
    run: list[bytes] = []
    run_line = first_line

    def flush() -> None:
        raw = b"\n".join(run)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(BadRecord(unit.path, run_line, _utf8_error(raw) + "; the document is skipped"))
            return
        docs.extend(_documents(text, unit.split))

    for i, piece in enumerate(data.split(b"\n")):
        if unit.split == "line":
            run, run_line = [piece], first_line + i
            flush()
        elif piece.strip(blank):
            if not run:
                run_line = first_line + i
            run.append(piece)
        elif run:
            flush()
            run = []
    if unit.split == "paragraph" and run:
        flush()
    return docs, bad


def _read_jsonl(unit: Unit, data: bytes) -> tuple[list[str], list[BadRecord]]:
    docs: list[str] = []
    bad: list[BadRecord] = []
    field = unit.field
    first_line: int | None = None
    for i, raw in enumerate(data.split(b"\n")):
        if not raw.strip():
            continue
        reason = ""
        try:
            record = json.loads(raw)
        except UnicodeDecodeError:
            reason = _utf8_error(raw)
        except ValueError as e:
            reason = f"invalid JSON ({e})"
        else:
            if not isinstance(record, dict) or field not in record:
                reason = f"no field {field!r}"
            elif not isinstance(record[field], str):
                reason = f"field {field!r} is {type(record[field]).__name__}, not a string"
            else:
                text = record[field]
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    reason = "the text holds a lone surrogate (\\ud800-\\udfff), which UTF-8 cannot hold"
                else:
                    docs.append(text)
                    continue
        if first_line is None:
            first_line = _line_of(unit.path, unit.start)
        bad.append(BadRecord(unit.path, first_line + i, reason))
    return docs, bad


def _read_parquet(unit: Unit) -> tuple[list[str], list[BadRecord]]:
    pq = _pyarrow_parquet()
    parquet = pq.ParquetFile(unit.path)
    first_row = sum(parquet.metadata.row_group(g).num_rows for g in range(unit.start))
    try:
        table = parquet.read_row_group(unit.start, columns=[unit.column])
    except (KeyError, ValueError) as e:
        raise CorpusError(f"{unit.path}: no column {unit.column!r} ({e})") from None
    values = table.column(0).to_pylist()
    docs: list[str] = []
    bad: list[BadRecord] = []
    for i, value in enumerate(values):
        if isinstance(value, str):
            docs.append(value)
        elif isinstance(value, bytes):
            try:
                docs.append(value.decode("utf-8"))
            except UnicodeDecodeError:
                bad.append(BadRecord(unit.path, first_row + i, _utf8_error(value)))
        else:
            bad.append(
                BadRecord(unit.path, first_row + i, f"column {unit.column!r} is {type(value).__name__}, not a string")
            )
    return docs, bad
