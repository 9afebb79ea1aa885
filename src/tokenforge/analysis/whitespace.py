"""whitespace_cost: tokens spent on whitespace in code (the lecture's Python indentation: GPT-2
spent a token per space, cl100k groups runs of spaces). Counts the tokens that are whitespace
alone, and what stripping each line's indentation saves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .table import Table, named, token_bytes, tokens_of

__all__ = ["whitespace_cost"]


def whitespace_cost(tokenizers: Sequence[Any] | Mapping[str, Any], text: str) -> Table:
    """Per tokenizer: the text's tokens, those made of whitespace only (and their share), the
    tokens of the same text with each line's leading whitespace removed, and the share of
    tokens the indentation costs."""
    stripped = "\n".join(line.lstrip(" \t") for line in text.split("\n"))
    rows = []
    for name, tok in named(tokenizers).items():
        ids = tokens_of(tok, text)
        blank = sum(1 for i in ids if not token_bytes(tok, i).strip())
        without = len(tokens_of(tok, stripped))
        n = len(ids)
        rows.append(
            {
                "tokenizer": name,
                "tokens": n,
                "whitespace_tokens": blank,
                "whitespace_share": blank / n if n else 0.0,
                "tokens_unindented": without,
                "indentation_share": (n - without) / n if n else 0.0,
            }
        )
    indented = sum(1 for line in text.split("\n") if line[:1] in (" ", "\t"))
    return Table(
        "Whitespace and indentation",
        ["tokenizer", "tokens", "whitespace_tokens", "whitespace_share", "tokens_unindented", "indentation_share"],
        rows,
        [f"{len(text.encode('utf-8')):,} bytes, {indented:,} indented lines"],
        {"x": "tokenizer", "y": "indentation_share"},
    )
