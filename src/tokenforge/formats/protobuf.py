"""Protocol buffers wire format, just enough for sentencepiece's `.model` files: a message is
read into its fields in file order (number, wire type, raw value) and written back from them,
so fields this package does not interpret survive a round trip unchanged.

Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited (bytes, strings, sub-messages),
5 fixed 32-bit. Errors name the byte offset; given the file's path, they are FormatErrors naming
the file and `where` (the message being read).
"""

from __future__ import annotations

import struct
from typing import NamedTuple, NoReturn

from ..errors import FormatError

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


class Field(NamedTuple):
    number: int
    wire_type: int
    value: int | bytes  # varints and fixed values as unsigned ints, the rest as bytes


def fail(where: str, message: str, path: str | None = None) -> NoReturn:
    """A FormatError naming `path` and `where`, or without a path a ValueError naming `where`."""
    if path is not None:
        raise FormatError(path, where, message)
    raise ValueError(f"{where}: {message}")


def _varint(data: bytes, pos: int, where: str, path: str | None) -> tuple[int, int]:
    value = shift = 0
    start = pos
    while True:
        if pos >= len(data):
            fail(where, f"varint at byte {start} runs past the end of the data (truncated file?)", path)
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift >= 64:
            fail(where, f"varint at byte {start} is longer than 10 bytes (corrupt data)", path)


def parse(data: bytes, where: str = "message", path: str | None = None) -> list[Field]:
    """The fields of one message, in order."""
    fields, pos = [], 0
    while pos < len(data):
        key_at = pos
        key, pos = _varint(data, pos, where, path)
        number, wire_type = key >> 3, key & 7
        value: int | bytes
        if number == 0:
            fail(where, f"field number 0 at byte {key_at} (corrupt data)", path)
        if wire_type == VARINT:
            value, pos = _varint(data, pos, where, path)
        elif wire_type in (FIXED64, FIXED32):
            size = 8 if wire_type == FIXED64 else 4
            if pos + size > len(data):
                fail(where, f"field {number} at byte {key_at} runs past the end (truncated file?)", path)
            value = int.from_bytes(data[pos : pos + size], "little")
            pos += size
        elif wire_type == BYTES:
            length, pos = _varint(data, pos, where, path)
            if pos + length > len(data):
                fail(
                    where,
                    f"field {number} at byte {key_at} claims {length} bytes, past the end (truncated file?)",
                    path,
                )
            value = data[pos : pos + length]
            pos += length
        else:
            fail(
                where,
                f"field {number} at byte {key_at} has wire type {wire_type}, which this "
                "format never uses (corrupt data)",
                path,
            )
        fields.append(Field(number, wire_type, value))
    return fields


def _put_varint(out: bytearray, value: int) -> None:
    value &= (1 << 64) - 1  # negative int32/int64 are written as 10-byte two's complement
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def serialize(fields: list[Field]) -> bytes:
    out = bytearray()
    for f in fields:
        _put_varint(out, (f.number << 3) | f.wire_type)
        value = f.value
        if isinstance(value, int):
            if f.wire_type == VARINT:
                _put_varint(out, value)
            else:
                out += value.to_bytes(4 if f.wire_type == FIXED32 else 8, "little")
        else:
            _put_varint(out, len(value))
            out += value
    return bytes(out)


def float32(raw: int) -> float:
    return struct.unpack("<f", raw.to_bytes(4, "little"))[0]


def float32_raw(value: float) -> int:
    return int.from_bytes(struct.pack("<f", value), "little")


def int32(raw: int) -> int:
    """A varint read as a signed 32-bit value (negative ones are stored as 64-bit)."""
    raw &= (1 << 64) - 1
    return raw - (1 << 64) if raw >= 1 << 63 else raw
