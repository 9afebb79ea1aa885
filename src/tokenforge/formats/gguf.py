"""The tokenizer inside a GGUF model file (llama.cpp's format): its `tokenizer.ggml.*` metadata.

Supported: `tokenizer.ggml.model = "bert"`, llama.cpp's WPM tokenizer (the vocabulary in its
"▁"-prefixed form), with the unknown, CLS (`cls_token_id`, or as older converters store it,
`bos_token_id`) and SEP token ids. Other tokenizer models are refused with their name.

The metadata is read here, not with the gguf package: its reader trusts the counts a file
states (a damaged array length makes it loop, allocating, for as long as memory lasts) and
raises IndexError, UnicodeDecodeError and the like from inside on damaged bytes. This reader
reads only the header and the key-value section (never the tensors), checks every count and
length against the bytes that are left, and reports each problem as a FormatError naming the
file and the key; each value is then checked for its kind (a string, a list of distinct
non-empty strings, ids inside the token list) before the tokenizer is built.
"""

from __future__ import annotations

import mmap
import os
import struct
from typing import TYPE_CHECKING, Any

from .validation import FormatError

if TYPE_CHECKING:
    from ..pipeline.spec import PipelineSpec

_PREFIX = "tokenizer.ggml."
_VERSIONS = (2, 3)  # what llama.cpp writes (and the gguf package reads)
_MAX_DEPTH = 8  # arrays of arrays: deeper is corrupt
# value type -> struct code of a scalar (8: string, 9: array)
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


class _Reader:
    """Bounds-checked reads from a GGUF file's bytes, in its byte order."""

    def __init__(self, path: str, data: Any, order: str) -> None:
        self.path, self.data, self.order, self.pos = path, data, order, 0

    def fail(self, where: str, message: str) -> FormatError:
        return FormatError(self.path, where, message)

    def take(self, n: int, where: str) -> int:
        start = self.pos
        if n < 0 or n > len(self.data) - start:
            raise self.fail(where, f"needs {n} bytes at byte {start}, past the end of the file (truncated?)")
        self.pos = start + n
        return start

    def scalar(self, code: str, where: str) -> Any:
        size = struct.calcsize(code)
        return struct.unpack_from(self.order + code, self.data, self.take(size, where))[0]

    def string(self, where: str, keep: bool = True) -> str | None:
        n = self.scalar("Q", where)
        start = self.take(n, where)
        if not keep:
            return None
        try:
            return bytes(self.data[start : start + n]).decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(where, f"a string that is not UTF-8 (byte {start + e.start})") from None

    def value(self, kind: int, where: str, keep: bool, depth: int = 0) -> Any:
        if kind in _SCALARS:
            value = self.scalar(_SCALARS[kind], where)
            return value if keep else None
        if kind == _STRING:
            return self.string(where, keep)
        if kind != _ARRAY:
            raise self.fail(where, f"unknown value type {kind} (corrupt file?)")
        if depth >= _MAX_DEPTH:
            raise self.fail(where, "arrays nested too deeply (corrupt file?)")
        item = self.scalar("I", where)
        count = self.scalar("Q", where)
        left = len(self.data) - self.pos
        if item in _SCALARS:
            size = struct.calcsize(_SCALARS[item])
            if count > left // size:
                raise self.fail(where, f"an array of {count} items cannot fit in the {left} bytes left (truncated?)")
            start = self.take(count * size, where)
            if not keep:
                return None
            return list(struct.unpack_from(f"{self.order}{count}{_SCALARS[item]}", self.data, start))
        if item not in (_STRING, _ARRAY):
            raise self.fail(where, f"an array of unknown value type {item} (corrupt file?)")
        if count > left // 8:  # every string or array item takes 8 bytes at least
            raise self.fail(where, f"an array of {count} items cannot fit in the {left} bytes left (truncated?)")
        items = [self.value(item, where, keep, depth + 1) for _ in range(count)]
        return items if keep else None


def read_gguf_tokenizer_fields(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file's tokenizer.ggml.* metadata, as Python values (str, int, float, bool, lists)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 24:
            raise FormatError(path, "", f"not a readable GGUF file ({size} bytes, shorter than a GGUF header)")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _read_fields(path, data)


def _read_fields(path: str, data: Any) -> dict[str, Any]:
    if bytes(data[:4]) != b"GGUF":
        raise FormatError(path, "", "not a readable GGUF file (it does not start with b'GGUF')")
    version = struct.unpack_from("<I", data, 4)[0]
    order = "<"
    if version & 0xFFFF == 0:  # a file written on a big-endian machine
        order, version = ">", struct.unpack_from(">I", data, 4)[0]
    if version not in _VERSIONS:
        raise FormatError(path, "", f"not a readable GGUF file (version {version}; versions 2 and 3 are read)")
    reader = _Reader(path, data, order)
    reader.pos = 8
    reader.scalar("Q", "header")  # tensor count: the tensors are not read
    count = reader.scalar("Q", "header")
    if count > (len(data) - reader.pos) // 12:  # a key (8 + 1 bytes at least), a type (4)
        raise FormatError(path, "header", f"{count} metadata entries cannot fit in the file (corrupt header?)")
    fields: dict[str, Any] = {}
    for i in range(count):
        key = reader.string(f"metadata entry {i}")
        assert key is not None
        where = key if key.isprintable() and len(key) < 200 else f"metadata entry {i}"
        kind = reader.scalar("I", where)
        keep = key.startswith(_PREFIX)
        value = reader.value(kind, where, keep)
        if keep:
            if key in fields:
                raise FormatError(path, where, "appears twice")
            fields[key] = value
    return fields


def read_gguf_tokenizer(path: str | os.PathLike[str]) -> PipelineSpec:
    """The pipeline of a GGUF file's tokenizer (its tokenizer.ggml.* metadata)."""
    from ..pipeline import presets

    path = os.fspath(path)
    fields = read_gguf_tokenizer_fields(path)
    model = fields.get(_PREFIX + "model")
    if model is None or _PREFIX + "tokens" not in fields:
        raise FormatError(path, "", "the GGUF file holds no tokenizer (no tokenizer.ggml.model / tokens)")
    if not isinstance(model, str):
        raise FormatError(path, _PREFIX + "model", f"must be a string, got {type(model).__name__}")
    if model != "bert":
        raise FormatError(
            path, _PREFIX + "model", f'tokenizer model {model!r} is not supported yet ("bert", llama.cpp\'s WPM, is)'
        )
    tokens = fields[_PREFIX + "tokens"]
    where = _PREFIX + "tokens"
    if not isinstance(tokens, list) or not tokens:
        raise FormatError(path, where, "must be a non-empty array of strings")
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if not isinstance(token, str) or not token:
            raise FormatError(path, f"{where}[{i}]", f"must be a non-empty string, got {token!r}")
        if token in seen:
            raise FormatError(path, f"{where}[{i}]", f"token {token!r} is also token {seen[token]}")
        seen[token] = i

    def token_at(key: str, default: str, in_template: bool = True) -> str:
        if key == "cls_token_id" and _PREFIX + key not in fields:
            key = "bos_token_id"
        i = fields.get(_PREFIX + key)
        if i is None:
            if default not in seen:
                raise FormatError(path, _PREFIX + key, f"missing, and the tokens have no {default!r}")
            token = default
        elif type(i) is not int or not 0 <= i < len(tokens):
            raise FormatError(path, _PREFIX + key, f"{i!r} is not an index of the {len(tokens)} tokens")
        else:
            token = tokens[i]
        # CLS and SEP go into the template as words: no spaces, no ":" (a type id), no leading "$".
        if in_template and (token.startswith("$") or ":" in token or any(c.isspace() for c in token)):
            raise FormatError(
                path,
                _PREFIX + key,
                f"token {token!r} cannot frame the template (it has a space, a ':' or a leading '$')",
            )
        return token

    return presets.wpm(
        tokens,
        unk_token=token_at("unknown_token_id", "[UNK]", False),
        cls_token=token_at("cls_token_id", "[CLS]"),
        sep_token=token_at("seperator_token_id", "[SEP]"),
    )
