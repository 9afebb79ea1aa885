"""`verify()`: check a shard folder against its manifest and its inputs.

Every shard: present, sha256 as recorded (shard and index), as many tokens and documents as
recorded, the separator after every document, ids below the vocabulary size; the totals add
up; the tokenizer given (default: the one the manifest names) has the recorded sha256. Then
`samples` documents drawn at random (seeded) are found in their inputs again through the
manifest's units (inputs.read_unit), encoded again and compared id for id, and, for a byte-level
encoding, the shard's ids decoded and compared with the document's bytes. The report lists
every difference; `ok` is True when there is none.
"""

from __future__ import annotations

import bisect
import os
import random
from dataclasses import dataclass, field
from typing import Any

from .inputs import Unit, read_unit
from .manifest import Manifest
from .shards import file_sha256
from .worker import describe, encode_documents, tokenizer_for


@dataclass
class VerifyReport:
    ok: bool = True
    shards: int = 0
    documents_checked: int = 0
    problems: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.ok = False
        self.problems.append(text)

    def __str__(self) -> str:
        head = (
            f"{'OK' if self.ok else 'FAILED'}: {self.shards} shard(s), {self.documents_checked} document(s) re-encoded"
        )
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])


def verify(out_dir: str | os.PathLike[str], tokenizer: Any = None, samples: int = 100, seed: int = 0) -> VerifyReport:
    """Check `out_dir` (see the module's prose) and return what differs."""
    import numpy as np

    out_dir = os.fspath(out_dir)
    m = Manifest.load(out_dir)
    report = VerifyReport()
    ref = tokenizer if tokenizer is not None else m.tokenizer["name"]
    tok = tokenizer_for(ref)
    if describe(tok, ref)["sha256"] != m.tokenizer["sha256"]:
        report.problem(
            f"the tokenizer {m.tokenizer['name']!r} given differs from the one that wrote the shards (sha256)"
        )
    sep = m.separator
    n_vocab = m.tokenizer["vocab_size"]
    shard_docs: list[int] = []
    loaded: list[tuple[Any, Any] | None] = []
    docs = tokens = 0
    for i, s in enumerate(m.shards):
        report.shards += 1
        path = os.path.join(out_dir, s["file"])
        if not os.path.exists(path) or not os.path.exists(os.path.join(out_dir, s["index"])):
            report.problem(f"{s['file']}: missing (or its index {s['index']})")
            shard_docs.append(s["documents"])
            loaded.append(None)
            continue
        if file_sha256(path) != s["sha256"]:
            report.problem(f"{s['file']}: sha256 differs from the manifest's (the file changed or is corrupt)")
        if file_sha256(os.path.join(out_dir, s["index"])) != s["index_sha256"]:
            report.problem(f"{s['index']}: sha256 differs from the manifest's")
        try:
            ids, starts = m.load_shard(i)
        except ValueError as e:
            report.problem(f"{s['file']}: not a readable .npy file ({e})")
            shard_docs.append(s["documents"])
            loaded.append(None)
            continue
        loaded.append((ids, starts))
        shard_docs.append(len(starts))
        if ids.dtype != np.dtype(m.dtype):
            report.problem(f"{s['file']}: dtype {ids.dtype}, the manifest says {m.dtype}")
        if len(ids) != s["tokens"] or len(starts) != s["documents"]:
            report.problem(
                f"{s['file']}: {len(ids)} tokens and {len(starts)} documents; the manifest says "
                f"{s['tokens']} and {s['documents']}"
            )
        if len(ids) and int(ids.max()) >= n_vocab:
            report.problem(f"{s['file']}: holds id {int(ids.max())}, beyond the vocabulary ({n_vocab})")
        if sep is not None and len(starts):
            ends = np.append(starts[1:].astype(np.int64), len(ids)) - 1
            wrong = int(np.count_nonzero(ids[ends] != sep)) if len(ids) else len(starts)
            if wrong:
                report.problem(f"{s['file']}: {wrong} document(s) not followed by the separator {sep}")
            tokens += len(ids) - len(starts)
        else:
            tokens += len(ids)
        docs += len(starts)
    if docs != m.documents or tokens != m.tokens:
        report.problem(
            f"the shards hold {docs} documents and {tokens} tokens; the manifest says {m.documents} and {m.tokens}"
        )
    if sum(u["documents"] for u in m.units) != m.documents:
        report.problem("the manifest's units do not add up to its document count")
    if not m.documents or not samples:
        return report

    shard_first = [0]
    for n in shard_docs:
        shard_first.append(shard_first[-1] + n)
    unit_first = [0]
    for u in m.units:
        unit_first.append(unit_first[-1] + u["documents"])
    rng = random.Random(seed)
    picks = sorted(rng.sample(range(m.documents), min(samples, m.documents)))
    unit_cache: dict[int, list[str]] = {}
    opts = m.options
    for g in picks:
        s_i = bisect.bisect_right(shard_first, g) - 1
        u_i = bisect.bisect_right(unit_first, g) - 1
        held = loaded[s_i] if s_i < len(loaded) else None
        if held is None:
            continue
        ids, starts = held
        k = g - shard_first[s_i]
        a = int(starts[k])
        b = int(starts[k + 1]) if k + 1 < len(starts) else len(ids)
        got = ids[a : b - (0 if sep is None else 1)]
        if u_i not in unit_cache:
            u = m.units[u_i]
            unit = Unit(u_i, u["path"], u["kind"], u["start"], u["end"], opts["split"], opts["field"], opts["column"])
            try:
                unit_cache.clear()
                unit_cache[u_i] = read_unit(unit)[0]
            except OSError as e:
                report.problem(f"{u['path']}: cannot read it again ({e})")
                unit_cache[u_i] = []
        texts = unit_cache[u_i]
        j = g - unit_first[u_i]
        report.documents_checked += 1
        if j >= len(texts):
            report.problem(f"document {g}: its input {m.units[u_i]['path']} holds fewer documents now")
            continue
        want = encode_documents(tok, [texts[j]], None)[0]
        where = f"document {g} ({m.shards[s_i]['file']} at token {a})"
        if len(want) != len(got) or not np.array_equal(want, got.astype(np.uint32)):
            report.problem(f"{where}: its ids differ from the ids of its text encoded again")
        elif hasattr(tok, "decode_bytes") and tok.decode_bytes(got.tolist()) != texts[j].encode("utf-8"):
            report.problem(f"{where}: decodes to other bytes than its text")
    return report
