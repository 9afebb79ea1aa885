"""Protocol buffers wire format, just enough for sentencepiece's `.model` files: a message is
read into its fields in file order (number, wire type, raw value) and written back from them,
so fields this package does not interpret survive a round trip unchanged.

Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited (bytes, strings, sub-messages),
5 fixed 32-bit. Errors name the byte offset.
"""
from __future__ import annotations

import struct
from typing import NamedTuple

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


class Field(NamedTuple):
    number: int
    wire_type: int
    value: int | bytes  # varints and fixed values as unsigned ints, the rest as bytes


def _varint(data: bytes, pos: int, where: str) -> tuple[int, int]:
    value = shift = 0
    start = pos
    while True:
        if pos >= len(data):
            raise ValueError(f"{where}: varint at byte {start} runs past the end of the data (truncated file?)")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift >= 64:
            raise ValueError(f"{where}: varint at byte {start} is longer than 10 bytes (corrupt data)")


def parse(data: bytes, where: str = "message") -> list[Field]:
    """The fields of one message, in order."""
    fields, pos = [], 0
    while pos < len(data):
        key_at = pos
        key, pos = _varint(data, pos, where)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ValueError(f"{where}: field number 0 at byte {key_at} (corrupt data)")
        if wire_type == VARINT:
            value, pos = _varint(data, pos, where)
        elif wire_type == FIXED64 or wire_type == FIXED32:
            size = 8 if wire_type == FIXED64 else 4
            if pos + size > len(data):
                raise ValueError(f"{where}: field {number} at byte {key_at} runs past the end (truncated file?)")
            value = int.from_bytes(data[pos : pos + size], "little")
            pos += size
        elif wire_type == BYTES:
            length, pos = _varint(data, pos, where)
            if pos + length > len(data):
                raise ValueError(f"{where}: field {number} at byte {key_at} claims {length} bytes, past the end "
                                 "(truncated file?)")
            value = data[pos : pos + length]
            pos += length
        else:
            raise ValueError(f"{where}: field {number} at byte {key_at} has wire type {wire_type}, which this "
                             "format never uses (corrupt data)")
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
        if f.wire_type == VARINT:
            _put_varint(out, f.value)
        elif f.wire_type == FIXED32:
            out += f.value.to_bytes(4, "little")
        elif f.wire_type == FIXED64:
            out += f.value.to_bytes(8, "little")
        else:
            _put_varint(out, len(f.value))
            out += f.value
    return bytes(out)


def float32(raw: int) -> float:
    return struct.unpack("<f", raw.to_bytes(4, "little"))[0]


def float32_raw(value: float) -> int:
    return int.from_bytes(struct.pack("<f", value), "little")


def int32(raw: int) -> int:
    """A varint read as a signed 32-bit value (negative ones are stored as 64-bit)."""
    raw &= (1 << 64) - 1
    return raw - (1 << 64) if raw >= 1 << 63 else raw
