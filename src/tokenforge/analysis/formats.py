"""format_cost: the same records written as JSON (compact and indented), YAML and CSV, and the
tokens each costs (the lecture's "JSON costs more than YAML"). YAML is PyYAML's (installed with
the "analysis" extra), CSV and JSON the standard library's."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .table import Table, named, tokens_of

__all__ = ["format_cost", "render_formats"]


def render_formats(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The records as text in each format: json (indented), json-compact, yaml, csv."""
    if not records or not all(isinstance(r, Mapping) for r in records):
        raise ValueError("give a non-empty list of records (dicts)")
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        raise ImportError("the YAML form needs PyYAML: pip install 'tokenforge[analysis]'") from None
    fields = list(dict.fromkeys(k for r in records for k in r))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    plain = [dict(r) for r in records]
    return {
        "json": json.dumps(plain, ensure_ascii=False, indent=2),
        "json-compact": json.dumps(plain, ensure_ascii=False, separators=(",", ":")),
        "yaml": yaml.safe_dump(plain, allow_unicode=True, sort_keys=False),
        "csv": out.getvalue(),
    }


def format_cost(tokenizers: Sequence[Any] | Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> Table:
    """Per tokenizer and format: tokens, bytes and tokens relative to the fewest of any format."""
    texts = render_formats(records)
    rows = []
    for name, tok in named(tokenizers).items():
        counts = {fmt: len(tokens_of(tok, text)) for fmt, text in texts.items()}
        least = min(counts.values()) or 1
        for fmt, text in texts.items():
            rows.append(
                {
                    "tokenizer": name,
                    "format": fmt,
                    "tokens": counts[fmt],
                    "bytes": len(text.encode("utf-8")),
                    "vs_fewest": counts[fmt] / least,
                }
            )
    return Table(
        "The same records in four formats",
        ["tokenizer", "format", "tokens", "bytes", "vs_fewest"],
        rows,
        [f"{len(records):,} records"],
        {"x": "format", "y": "tokens", "series": "tokenizer"},
    )
