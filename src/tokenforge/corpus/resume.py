"""The journal that lets a killed tokenize_files run finish where it stopped.

`journal.jsonl` in the output folder starts with a header line holding the run's identity: the
tokenizer's sha256, the options that shape the output and the inputs (paths, sizes, mtimes).
After each shard is renamed into place, one line records it: the shard's manifest entry, the
position of the next document (unit index, document within the unit), the totals so far, the
units finished since the line before (with their document counts) and the records skipped since
the line before. Each line is flushed and fsync'd before the run goes on.

A run that finds a journal compares identities and refuses to resume when one differs, naming
what (`resume_state()` raises CorpusError); else it goes on from the last recorded position,
re-encoding the unit it was in and dropping that unit's documents already in shards. Shard
boundaries depend only on the document sequence, so the resumed output is byte for byte the
uninterrupted one. A torn last line (killed mid-write) is dropped; a shard renamed into place but
not yet journaled is written again, with the same bytes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from .inputs import CorpusError

JOURNAL = "journal.jsonl"


@dataclass
class ResumeState:
    shards: list[dict[str, Any]] = field(default_factory=list)
    next_unit: int = 0
    next_doc: int = 0
    documents: int = 0
    tokens: int = 0
    bytes: int = 0
    units: dict[int, int] = field(default_factory=dict)  # unit index -> documents
    skipped: list[dict[str, Any]] = field(default_factory=list)


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(_differences(a, b, f"{prefix}{key}."))
        elif key == "inputs" and isinstance(a, list) and isinstance(b, list):
            if [i["path"] for i in a] != [i["path"] for i in b]:
                out.append("inputs (a different list of files)")
            else:
                changed = [x["path"] for x, y in zip(a, b) if x != y]
                out.append("inputs changed since the first run: " + ", ".join(changed))
        else:
            out.append(f"{prefix}{key} ({a!r} then, {b!r} now)")
    return out


def resume_state(out_dir: str, identity: dict[str, Any]) -> ResumeState | None:
    """The state recorded by an unfinished run in `out_dir` with this identity, or None when
    there is no journal; CorpusError when the journal is of a run with other arguments."""
    path = os.path.join(out_dir, JOURNAL)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    nonempty = [(i, line) for i, line in enumerate(lines) if line]
    entries = []
    for j, (i, line) in enumerate(nonempty):
        try:
            entries.append(json.loads(line))
        except ValueError:
            if j == len(nonempty) - 1:  # torn by a kill mid-write: that shard is written again
                break
            raise CorpusError(f"{path}: line {i + 1} is damaged; remove {out_dir} to start over") from None
    if not entries or "identity" not in entries[0]:
        raise CorpusError(f"{path}: not a tokenize_files journal; remove it (or {out_dir}) to start over")
    differs = _differences(entries[0]["identity"], identity)
    if differs:
        raise CorpusError(
            f"{out_dir} holds an unfinished run with other arguments, which cannot be resumed with these: "
            + "; ".join(differs)
            + f". Run again as before to finish it, or remove {out_dir} (or give another --out) to start over"
        )
    state = ResumeState()
    for e in entries[1:]:
        state.shards.append(e["shard"])
        state.next_unit, state.next_doc = e["next"]
        state.documents, state.tokens, state.bytes = e["documents"], e["tokens"], e["bytes"]
        state.units.update({int(k): v for k, v in e["units"]})
        state.skipped.extend(e["skipped"])
    return state


class Journal:
    """Appends the lines the prose describes to out_dir/journal.jsonl."""

    def __init__(self, out_dir: str, identity: dict[str, Any], state: ResumeState | None):
        self.path = os.path.join(out_dir, JOURNAL)
        if state is None:
            tmp = self.path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps({"identity": identity}, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        else:  # drop a torn last line before appending
            entries = [json.dumps({"identity": identity}, ensure_ascii=False)]
            with open(self.path, encoding="utf-8") as f:
                for line in f.read().split("\n")[1:]:
                    try:
                        json.loads(line)
                    except ValueError:
                        break
                    entries.append(line)
            tmp = self.path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write("\n".join(entries) + "\n")
            os.replace(tmp, self.path)
        self.f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def record(self, entry: dict[str, Any]) -> None:
        self.f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.f.flush()
        os.fsync(self.f.fileno())

    def close(self) -> None:
        self.f.close()

    def remove(self) -> None:
        self.close()
        os.remove(self.path)
