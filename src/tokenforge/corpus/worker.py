"""One work unit's tokens, computed where an executor runs it, and the tokenizer behind them.

`encode_unit(unit, tokenizer_ref, separator, on_error, parts_dir)` is the function every executor
runs: a top-level function whose arguments are plain data (a `Unit` of inputs.py, a tokenizer
reference, an int or None, a string, a path or None), so a process pool or a Dask cluster
(`Client.get_executor()`) can pickle it. It reads the unit (inputs.read_unit), encodes its
documents with the native batch encoder (which releases the GIL; for an Encoding the ids go
straight into one NumPy array, `_core.encode_flat` in python/bind_corpus.cpp), and returns a
`UnitResult`: each document's token count and UTF-8 byte count, the bad records, and the ids of
all documents back to back, each followed by the separator (a uint32 NumPy array, which
pickles as its bytes), or, when `parts_dir` is given (a folder every worker can write, such as
the output folder on a shared file system), written there as `unit_NNNNNNNN.ids` (raw native
uint32, atomically) with `UnitResult.ids` left None. A text unit read by an Encoding skips the
Python reading altogether: its bytes go to one native call (`_core.encode_text_unit`) that checks
the UTF-8, cuts the documents and encodes them without the GIL, so on one worker the only
Python left per unit is a file read; bytes that are not UTF-8 fall back to read_unit, which
reports the bad documents.

A tokenizer reference is a named encoding or tokenizer (`cl100k_base`), a tokenizer file path,
or a loaded `Encoding`/`Tokenizer` (pickled to a remote worker; both pickle). `tokenizer_for()`
loads a name or path once per process and caches it. An `Encoding` encodes with
`encode_ordinary` (special-token text is text); a `Tokenizer` is copied with
`split_special_tokens` on and no padding or truncation, and encodes without template tokens.

`describe()` gives the tokenizer's hash (sha256 of its tokenizer.json form, or of an Encoding's
split pattern, tokens and special tokens) and the words the manifest shows; `separator_id()`
resolves the separator token.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import tempfile
import threading
from typing import Any, NamedTuple

from .inputs import BadRecord, CorpusError, Unit, read_unit

_lock = threading.Lock()


class UnitResult(NamedTuple):
    number: int
    doc_tokens: Any  # each document's tokens, not counting the separator (NumPy uint64)
    doc_bytes: Any  # each document's UTF-8 bytes (NumPy uint64)
    bad: list[BadRecord]
    ids: Any  # the documents' ids back to back, each followed by the separator (NumPy uint32); None when written to parts_dir


def part_path(parts_dir: str, index: int) -> str:
    return os.path.join(parts_dir, f"unit_{index:08d}.ids")


# ---------------------------------------------------------------------------------------------------
# Tokenizers


@functools.lru_cache(maxsize=8)
def _load(ref: str) -> Any:
    from ..registry import get_encoding, get_tokenizer, list_encoding_names, list_tokenizer_names

    if ref in list_encoding_names():
        return get_encoding(ref)
    if ref in list_tokenizer_names():
        return _prepared(get_tokenizer(ref))
    if not os.path.exists(ref):
        raise CorpusError(
            f"tokenizer {ref!r} is neither a named encoding or tokenizer (`tokenforge list`) nor an existing file"
        )
    from ..formats import detect, read_byte_level_bpe
    from ..tokenizer import Tokenizer

    if detect(ref) == "byte_level_bpe":
        return read_byte_level_bpe(ref).model
    return _prepared(Tokenizer.from_file(ref))


def _prepared(tok: Any) -> Any:
    """A copy of a Tokenizer that encodes a document's own tokens: special-token text as text, no
    padding, no truncation."""
    tok = copy.copy(tok)
    tok.no_padding()
    tok.no_truncation()
    tok.split_special_tokens = True
    return tok


_prepared_objects: dict[int, tuple[Any, Any]] = {}


def tokenizer_for(ref: Any) -> Any:
    """The tokenizer a reference names, loaded once per process (see the module's prose)."""
    if isinstance(ref, (str, os.PathLike)):
        return _load(os.fspath(ref))
    from ..encoding import Encoding

    if isinstance(ref, Encoding):
        return ref
    with _lock:  # one prepared copy per Tokenizer object
        held = _prepared_objects.get(id(ref))
        if held is None or held[0] is not ref:
            held = (ref, _prepared(ref))
            _prepared_objects[id(ref)] = held
        return held[1]


def _is_encoding(tok: Any) -> bool:
    from ..encoding import Encoding

    return isinstance(tok, Encoding)


def vocab_size(tok: Any) -> int:
    return tok.n_vocab if _is_encoding(tok) else tok.get_vocab_size(with_added_tokens=True)


def describe(tok: Any, ref: Any) -> dict[str, Any]:
    """The manifest's `tokenizer` entry: name, kind, vocabulary size and sha256."""
    h = hashlib.sha256()
    if _is_encoding(tok):
        h.update(b"tokenforge-encoding\0" + tok._pat_str.encode() + b"\0")
        for token in tok._core.ordinary_tokens():
            h.update(len(token).to_bytes(4, "little") + token)
        for text, i in sorted(tok._special_tokens.items()):
            h.update(f"\0{text}\0{i}".encode())
        kind = "encoding"
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tokenizer.json")
            plain = copy.copy(tok)  # tokenizer.json has no field for split_special_tokens
            plain.split_special_tokens = False
            plain.save(path)
            with open(path, "rb") as f:
                h.update(f.read())
        kind = f"tokenizer ({tok.kernel})"
    name = os.fspath(ref) if isinstance(ref, (str, os.PathLike)) else getattr(tok, "name", None) or type(tok).__name__
    return {"name": name, "kind": kind, "vocab_size": vocab_size(tok), "sha256": h.hexdigest()}


_SEPARATORS = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eot_id|>", "[SEP]", "<|im_end|>")


def separator_id(tok: Any, separator: Any) -> int | None:
    """The separator's id: an int id as given, a token's text looked up, None for no separator,
    or "auto": the end-of-text (or end-of-sequence) token, else a ValueError asking for one."""
    n = vocab_size(tok)
    if separator is None:
        return None
    if isinstance(separator, bool):
        raise TypeError("separator must be a token id, a token's text, 'auto' or None")
    if isinstance(separator, int):
        if not 0 <= separator < n:
            raise CorpusError(f"separator id {separator} is outside the vocabulary (0..{n - 1})")
        return separator
    if not isinstance(separator, str):
        raise TypeError("separator must be a token id, a token's text, 'auto' or None")
    if separator != "auto":
        if separator.isdigit():
            return separator_id(tok, int(separator))
        found = _token_id(tok, separator)
        if found is None:
            raise CorpusError(f"separator {separator!r} is not a token of this tokenizer; give its id or another token")
        return found
    for text in _SEPARATORS:
        found = _token_id(tok, text)
        if found is not None:
            return found
    if not _is_encoding(tok):
        eos = getattr(tok, "eos_token", None)
        if isinstance(eos, str) and _token_id(tok, eos) is not None:
            return _token_id(tok, eos)
    raise CorpusError(
        "this tokenizer has no end-of-text token (<|endoftext|>, </s>, <eos>, [SEP]); give --separator TOKEN or an id"
    )


def _token_id(tok: Any, text: str) -> int | None:
    if _is_encoding(tok):
        return tok._special_tokens.get(text)
    return tok.token_to_id(text)


# ---------------------------------------------------------------------------------------------------
# The unit function


def encode_documents(tok: Any, docs: list[str], separator: int | None, threads: int = 1) -> tuple[Any, Any, Any]:
    """(ids, counts, sizes) as NumPy arrays: the ids of `docs` back to back (uint32), each
    document followed by `separator` unless it is None; each document's tokens (without the
    separator) and UTF-8 bytes. An Encoding runs natively end to end (_core.encode_flat: no
    Python list on the way); a Tokenizer goes through its encode_batch."""
    import numpy as np

    if _is_encoding(tok) and tok._regex is None:
        from .. import _core

        return _core.encode_flat(tok._core, docs, -1 if separator is None else separator, threads)
    if _is_encoding(tok):  # a pattern without a native scanner
        rows = tok.encode_ordinary_batch(docs, num_threads=threads)
    else:
        rows = [e.ids for e in tok.encode_batch(docs, add_special_tokens=False, num_threads=threads)]
    counts = np.array([len(r) for r in rows], dtype=np.uint64)
    sizes = np.array([len(d.encode("utf-8")) for d in docs], dtype=np.uint64)
    tail = [] if separator is None else [separator]
    ids = np.fromiter(
        (i for r in rows for i in (*r, *tail)), dtype=np.uint32, count=int(counts.sum()) + len(tail) * len(rows)
    )
    return ids, counts, sizes


def _encode_text_natively(tok: Any, unit: Unit, separator: int | None) -> tuple[Any, Any, Any] | None:
    """encode_documents(tok, read_unit(unit)[0], separator) for a text unit read by an Encoding
    with a native scanner, done in one native call from the unit's bytes (_core.encode_text_unit
    cuts the documents as inputs._documents does, without the GIL and without a str per
    document); None for other units and tokenizers, and for bytes that are not UTF-8 (read_unit
    then reports the bad records)."""
    if unit.kind != "text" or not _is_encoding(tok) or tok._regex is not None:
        return None
    from .. import _core

    with open(unit.path, "rb") as f:
        f.seek(unit.start)
        data = f.read(unit.end - unit.start)
    flat: Any = _core.encode_text_unit(tok._core, data, unit.split, -1 if separator is None else separator)
    return flat


def encode_unit(
    unit: Unit, tokenizer_ref: Any, separator: int | None, on_error: str = "skip", parts_dir: str | None = None
) -> UnitResult:
    """Read, check and encode one unit (see the module's prose). With on_error="raise", the first
    bad record raises CorpusError naming its file and line."""
    tok = tokenizer_for(tokenizer_ref)
    flat = _encode_text_natively(tok, unit, separator)
    if flat is not None:
        ids, counts, sizes = flat
        bad: list[BadRecord] = []
    else:
        docs, bad = read_unit(unit)
        if bad and on_error == "raise":
            b = bad[0]
            raise CorpusError(f"{b.where()}: {b.reason} (on_error='skip' / --on-error skip skips such records)")
        ids, counts, sizes = encode_documents(tok, docs, separator)
    if parts_dir is None:
        return UnitResult(unit.number, counts, sizes, bad, ids)
    path = part_path(parts_dir, unit.number)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "wb") as f:
        f.write(ids.tobytes())
    os.replace(tmp, path)
    return UnitResult(unit.number, counts, sizes, bad, None)
