"""glitch_audit: candidates for "SolidGoldMagikarp" tokens, the ones a model may never have
trained on. Two tests:

- unreachable: a token whose own text does not encode to it (the pre-tokenizer splits that text,
  or the merges build it another way), so ordinary text never produces it. This needs a token's
  exact bytes: Encodings (tiktoken-style BPE) only; tokens that are not whole UTF-8 characters
  (byte fragments) are reached as parts of characters and are not flagged.
- absent or rare: tokens that occur at most `rare` times when a reference corpus is encoded; the
  table says how large that corpus was, since absence from a few megabytes proves little.

Rows are ranked: unreachable first, then by corpus count, longer tokens first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .table import Table, name_of, token_bytes, tokens_of_batch, vocabulary_size

__all__ = ["glitch_audit"]


def _special_ids(tokenizer: Any) -> set[int]:
    if hasattr(tokenizer, "special_tokens_set"):
        return {tokenizer.encode_single_token(s) for s in tokenizer.special_tokens_set}
    return {a.id for a in tokenizer.added_tokens if a.special}


def _ordinary_ids(tokenizer: Any) -> list[int]:
    special = _special_ids(tokenizer)
    if hasattr(tokenizer, "decode_single_token_bytes"):
        ids = []
        for i in range(vocabulary_size(tokenizer)):
            if i in special:
                continue
            try:
                tokenizer.decode_single_token_bytes(i)
            except KeyError:
                continue  # a hole in the id range
            ids.append(i)
        return ids
    return [i for i in range(vocabulary_size(tokenizer)) if i not in special]


def glitch_audit(
    tokenizer: Any, corpus: Sequence[str] = (), rare: int = 0, limit: int = 200, name: str | None = None
) -> Table:
    """The audit of one tokenizer against `corpus` (texts); tokens seen at most `rare` times
    count as rare; the first `limit` rows (0: all); `name` titles the table."""
    ids = _ordinary_ids(tokenizer)
    unreachable: set[int] = set()
    fragments = 0
    exact = hasattr(tokenizer, "decode_single_token_bytes")
    if exact:
        texts, checked = [], []
        for i in ids:
            data = token_bytes(tokenizer, i)
            try:
                texts.append(data.decode("utf-8"))
                checked.append(i)
            except UnicodeDecodeError:
                fragments += 1
        for i, encoded in zip(checked, tokens_of_batch(tokenizer, texts)):
            if encoded != [i]:
                unreachable.add(i)
    counts: Counter[int] = Counter()
    corpus_bytes = 0
    for ids_of_text in tokens_of_batch(tokenizer, list(corpus)):
        counts.update(ids_of_text)
    corpus_bytes = sum(len(t.encode("utf-8")) for t in corpus)
    rows: list[dict[str, Any]] = []
    for i in ids:
        seen = counts.get(i, 0)
        flagged_rare = bool(corpus) and seen <= rare
        if i not in unreachable and not flagged_rare:
            continue
        data = token_bytes(tokenizer, i)
        kind = "unreachable" if i in unreachable else ("absent" if seen == 0 else "rare")
        rows.append(
            {"id": i, "token": data.decode("utf-8", "replace"), "bytes": len(data), "corpus_count": seen, "kind": kind}
        )
    rows.sort(key=lambda r: (r["kind"] != "unreachable", r["corpus_count"], -r["bytes"], r["id"]))
    total = len(rows)
    if limit:
        rows = rows[:limit]
    notes = [
        f"{len(ids):,} ordinary tokens; {len(unreachable):,} unreachable"
        + (f", {fragments:,} byte fragments not tested" if exact else " (not tested: needs an Encoding's token bytes)"),
        (
            f"reference corpus: {corpus_bytes:,} bytes in {len(corpus):,} texts, {sum(counts.values()):,} tokens; "
            f"{sum(1 for i in ids if counts.get(i, 0) <= rare):,} tokens seen at most {rare} times"
            if corpus
            else "no reference corpus: only unreachable tokens are listed"
        ),
        f"{total:,} flagged tokens" + (f", first {len(rows):,} shown" if total > len(rows) else ""),
    ]
    return Table(
        f"Glitch-token audit: {name_of(tokenizer, name)}",
        ["id", "token", "bytes", "corpus_count", "kind"],
        rows,
        notes,
        {"x": "kind", "y": "rows"},
    )
