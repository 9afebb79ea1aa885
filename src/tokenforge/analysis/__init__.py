"""Analyses of the quirks tokens cause, each a table (and a plot): `tokenforge analyze` prints
them, the lecture's examples motivate them.

    languages.py   language_cost: tokens per language and bytes per token across tokenizers on a
                   parallel corpus (non-English text costs more)
    numbers.py     number_splits: how 1-6 digit numbers split, by token count and by split shape
    whitespace.py  whitespace_cost: tokens spent on indentation and whitespace in code
    formats.py     format_cost: the same records as JSON, YAML and CSV, tokens each
    glitch.py      glitch_audit: tokens encoding never produces from their own text, and tokens
                   absent or rare in a reference corpus (untrained-embedding candidates)
    vocabulary.py  vocabulary_report: token length histogram, scripts covered, byte tokens,
                   special tokens
    table.py       Table: the rows every analysis returns, as text, JSON, CSV, PNG and SVG
                   (matplotlib, installed with the "analysis" extra)

Every analysis takes Encodings or Tokenizers (named or loaded) alike: `tokens_of` counts a
text's own tokens (special-token text as text, no template, padding or truncation).
"""

from __future__ import annotations

from .formats import format_cost
from .glitch import glitch_audit
from .languages import language_cost
from .numbers import number_splits
from .table import Table, token_bytes, tokens_of
from .vocabulary import vocabulary_report
from .whitespace import whitespace_cost

__all__ = [
    "Table",
    "format_cost",
    "glitch_audit",
    "language_cost",
    "number_splits",
    "token_bytes",
    "tokens_of",
    "vocabulary_report",
    "whitespace_cost",
]
