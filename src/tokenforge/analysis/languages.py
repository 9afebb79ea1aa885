"""language_cost: what the same text costs in each language, per tokenizer (the lecture's
"non-English text costs more"). Fed a parallel corpus (the same content per language), the
tokens per language, relative to a reference language, show the premium a tokenizer charges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .table import Table, named, tokens_of

__all__ = ["language_cost"]


def language_cost(
    tokenizers: Sequence[Any] | Mapping[str, Any], texts: Mapping[str, str], reference: str | None = None
) -> Table:
    """Per tokenizer and language: tokens, characters and bytes per token, and tokens relative
    to the `reference` language (default: the first). `texts` maps a language to its text;
    `tokenizers` is a list (named by their `name`) or a name -> tokenizer mapping."""
    if not texts:
        raise ValueError("give at least one language's text")
    reference = reference or next(iter(texts))
    if reference not in texts:
        raise ValueError(f"reference language {reference!r} is not one of {', '.join(texts)}")
    rows = []
    for name, tok in named(tokenizers).items():
        counts = {lang: len(tokens_of(tok, text)) for lang, text in texts.items()}
        for lang, text in texts.items():
            n = counts[lang]
            rows.append(
                {
                    "tokenizer": name,
                    "language": lang,
                    "tokens": n,
                    "chars_per_token": len(text) / n if n else 0.0,
                    "bytes_per_token": len(text.encode("utf-8")) / n if n else 0.0,
                    "vs_reference": n / counts[reference] if counts[reference] else 0.0,
                }
            )
    sizes = ", ".join(f"{lang} {len(t.encode('utf-8')):,} B" for lang, t in texts.items())
    return Table(
        "Tokens per language",
        ["tokenizer", "language", "tokens", "chars_per_token", "bytes_per_token", "vs_reference"],
        rows,
        [f"reference language: {reference}; text sizes: {sizes}"],
        {"x": "language", "y": "vs_reference", "series": "tokenizer"},
    )
