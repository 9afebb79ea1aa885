"""Shard files: contiguous token ids as NumPy .npy files, with their document index.

A shard `shard_NNNNNN.npy` is a one-dimensional uint16 or uint32 array (`numpy.load(path,
mmap_mode="r")` maps it): documents back to back, each followed by the separator token when
there is one. `shard_NNNNNN.idx.npy` (uint64) holds the offset of each document's first token;
document i is `shard[idx[i] : idx[i + 1] - 1]` (to the end, less the separator, for the last; with
no separator, `- 0`). A document goes whole into one shard: a shard is closed before a document
that would take it past `shard_tokens`, and a document longer than that has a shard of its own.

`ShardWriter` streams ids into a temporary file (`.tmp` beside the shard, header last: a .npy
header here is always 128 bytes), so memory stays small whatever the shard size, then renames it
into place (after the index), so a shard file is always whole: a crash leaves only `.tmp` files,
which the next run removes. Its sha256 is taken over the whole .npy file.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from typing import Any

HEADER_BYTES = 128


def shard_name(index: int) -> str:
    return f"shard_{index:06d}.npy"


def index_name(index: int) -> str:
    return f"shard_{index:06d}.idx.npy"


def npy_header(descr: str, length: int) -> bytes:
    """A version 1.0 .npy header for a 1-D C-order array, padded to HEADER_BYTES."""
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({length},), }}"
    body = text.encode("latin1")
    pad = HEADER_BYTES - 10 - len(body) - 1
    if pad < 0:
        raise ValueError("npy header too long")
    return b"\x93NUMPY\x01\x00" + (HEADER_BYTES - 10).to_bytes(2, "little") + body + b" " * pad + b"\n"


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def write_atomically(path: str, data: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class ShardWriter:
    """Writes shard `index` of `out_dir`: `add()` documents, then `close()` (see the prose)."""

    def __init__(self, out_dir: str, index: int, dtype: Any):
        import numpy as np

        self.np = np
        self.out_dir, self.index = out_dir, index
        self.dtype = np.dtype(dtype)
        self.path = os.path.join(out_dir, shard_name(index))
        self.tmp = self.path + ".tmp"
        self.f = open(self.tmp, "wb")  # noqa: SIM115 (closed by close())
        self.f.write(b"\0" * HEADER_BYTES)
        self.tokens = 0
        self.starts = array("Q")

    def add(self, ids: Any, starts: Any) -> None:
        """Append ids (any integer array, separators included) whose documents begin at `starts`
        (offsets within `ids`)."""
        np = self.np
        self.starts.frombytes((np.asarray(starts, dtype=np.uint64) + np.uint64(self.tokens)).tobytes())
        data = np.ascontiguousarray(ids, dtype=self.dtype.newbyteorder("<"))
        self.f.write(memoryview(data).cast("B"))  # the array's own bytes, not a copy
        self.tokens += len(data)

    def close(self) -> dict[str, Any]:
        """Finish the shard and its index and rename them into place; returns the manifest entry."""
        np = self.np
        self.f.seek(0)
        self.f.write(npy_header(self.dtype.newbyteorder("<").str, self.tokens))
        self.f.flush()
        os.fsync(self.f.fileno())
        self.f.close()
        idx = np.frombuffer(self.starts, dtype=np.uint64) if len(self.starts) else np.zeros(0, dtype=np.uint64)
        idx_path = os.path.join(self.out_dir, index_name(self.index))
        write_atomically(idx_path, npy_header("<u8", len(idx)) + idx.astype("<u8").tobytes())
        os.replace(self.tmp, self.path)
        return {
            "file": shard_name(self.index),
            "index": index_name(self.index),
            "tokens": self.tokens,
            "documents": len(self.starts),
            "sha256": file_sha256(self.path),
            "index_sha256": file_sha256(idx_path),
        }

    def abandon(self) -> None:
        self.f.close()
        if os.path.exists(self.tmp):
            os.remove(self.tmp)
