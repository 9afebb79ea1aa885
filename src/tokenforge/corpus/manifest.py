"""`manifest.json`: what a finished tokenize_files run wrote, and from what.

It holds the tokenizer (name, kind, vocabulary size, sha256 of its tokenizer.json form or of an
Encoding's pattern and tokens), the options that shape the output (split, field, column,
separator id, shard size, dtype, unit size), the inputs with their sizes and mtimes, the work
units with their document counts (verify.py finds a document's source through them), the
totals (documents, tokens without separators, UTF-8 bytes of the documents), each shard with its
token and document counts and sha256, and the skipped records with file, line and reason. It
holds no time or worker count, so two runs over the same inputs write the same manifest.

It is written last and atomically, so its presence means the run finished; resume.py keeps the
journal of an unfinished one.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

MANIFEST = "manifest.json"
FORMAT = "tokenforge-shards/1"


@dataclass
class Manifest:
    tokenizer: dict[str, Any]
    options: dict[str, Any]
    inputs: list[dict[str, Any]]
    units: list[dict[str, Any]]
    documents: int
    tokens: int
    bytes: int
    shards: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)
    format: str = FORMAT
    out_dir: str = field(default="", compare=False, repr=False)

    @property
    def dtype(self) -> str:
        return self.options["dtype"]

    @property
    def separator(self) -> int | None:
        return self.options["separator"]

    def shard_paths(self) -> list[str]:
        return [os.path.join(self.out_dir, s["file"]) for s in self.shards]

    def load_shard(self, i: int, mmap: bool = True) -> tuple[Any, Any]:
        """Shard i's ids and document start offsets, memory-mapped by default."""
        import numpy as np

        s = self.shards[i]
        paths = (os.path.join(self.out_dir, s["file"]), os.path.join(self.out_dir, s["index"]))
        if mmap:
            return np.load(paths[0], mmap_mode="r"), np.load(paths[1], mmap_mode="r")
        return np.load(paths[0]), np.load(paths[1])

    def documents_of(self, i: int) -> list[Any]:
        """Shard i's documents as arrays of ids (separators left out)."""
        ids, starts = self.load_shard(i)
        sep = 0 if self.separator is None else 1
        ends = [*starts[1:].tolist(), len(ids)]
        return [ids[int(a) : int(b) - sep] for a, b in zip(starts.tolist(), ends)]

    def to_json(self) -> str:
        data = asdict(self)
        del data["out_dir"]
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    def write(self, out_dir: str) -> None:
        from .shards import write_atomically

        write_atomically(os.path.join(out_dir, MANIFEST), self.to_json().encode("utf-8"))

    @classmethod
    def load(cls, out_dir: str) -> Manifest:
        path = os.path.join(out_dir, MANIFEST)
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: not a tokenforge shard manifest (format {data.get('format')!r})")
        return cls(**data, out_dir=out_dir)
