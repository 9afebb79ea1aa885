"""vocabulary_report: what a vocabulary is made of — token lengths (a histogram), the scripts its
tokens are written in, byte tokens (not whole characters: byte-level fragments, or <0xAB>
byte-fallback pieces), and the special tokens with their ids. Scripts are read from each
letter's Unicode name (LATIN, CYRILLIC, CJK, HIRAGANA, ...), digits, punctuation and symbols,
and whitespace as their own classes."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from typing import Any

from .glitch import _ordinary_ids, _special_ids
from .table import Table, name_of, token_bytes

__all__ = ["vocabulary_report"]

_BYTE_FALLBACK = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")


@functools.lru_cache(maxsize=65536)
def _script(char: str) -> str:
    category = unicodedata.category(char)
    if category[0] == "L" or category in ("Mn", "Mc"):
        name = unicodedata.name(char, "")
        word = name.split(" ")[0] if name else "UNNAMED"
        return "CJK" if word in ("CJK", "IDEOGRAPHIC") else word.title()
    if category[0] == "N":
        return "(digits)"
    if category[0] in "PS":
        return "(punctuation and symbols)"
    if category[0] == "Z" or char in "\t\n\r\x0b\x0c":
        return "(whitespace)"
    return "(other)"


def vocabulary_report(tokenizer: Any, name: str | None = None) -> Table:
    """One table with sections: "length" (tokens per length in bytes), "script" (tokens with a
    character of each script), "bytes" (byte tokens), "special" (each special token and id)."""
    ids = _ordinary_ids(tokenizer)
    lengths: Counter[int] = Counter()
    scripts: Counter[str] = Counter()
    byte_tokens = 0
    for i in ids:
        data = token_bytes(tokenizer, i)
        lengths[len(data)] += 1
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            byte_tokens += 1
            continue
        if not hasattr(tokenizer, "decode_single_token_bytes"):
            piece = tokenizer.id_to_token(i) or ""
            if _BYTE_FALLBACK.match(piece):
                byte_tokens += 1
                continue
        for script in {_script(c) for c in text}:
            scripts[script] += 1
    rows: list[dict[str, Any]] = [{"section": "length", "key": str(n), "count": c} for n, c in sorted(lengths.items())]
    rows += [{"section": "script", "key": s, "count": c} for s, c in scripts.most_common()]
    rows.append({"section": "bytes", "key": "byte tokens", "count": byte_tokens})
    special = sorted(_special_ids(tokenizer))
    for i in special:
        text = token_bytes(tokenizer, i).decode("utf-8", "replace")
        rows.append({"section": "special", "key": text, "count": i})
    longest = sorted(ids, key=lambda i: -len(token_bytes(tokenizer, i)))[:5]
    return Table(
        f"Vocabulary: {name_of(tokenizer, name)}",
        ["section", "key", "count"],
        rows,
        [
            f"{len(ids):,} ordinary tokens, {len(special):,} special (a special row's count is its id)",
            "longest: " + ", ".join(repr(token_bytes(tokenizer, i).decode("utf-8", "replace")) for i in longest),
        ],
        {"x": "key", "y": "count", "only": "section=length"},
    )
