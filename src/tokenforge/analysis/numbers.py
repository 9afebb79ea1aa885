"""number_splits: how numbers break into tokens (the lecture's arithmetic trouble). Every number
of 1-4 digits, and an even sample of 5 and 6 digits, encoded alone (or after a space): how many
tokens each takes, and the shapes of the splits ("3+3" for 123|456)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .table import Table, named, token_bytes, tokens_of_batch

__all__ = ["number_splits"]


def _numbers(digits: int, sample: int, rng: random.Random) -> list[str]:
    low, high = (0 if digits == 1 else 10 ** (digits - 1)), 10**digits
    if high - low <= sample:
        return [str(n) for n in range(low, high)]
    return [str(n) for n in sorted(rng.sample(range(low, high), sample))]


def number_splits(
    tokenizers: Sequence[Any] | Mapping[str, Any],
    max_digits: int = 6,
    sample: int = 10_000,
    prefix: str = "",
    seed: int = 0,
) -> Table:
    """Per tokenizer and digit count (1..max_digits): the share of numbers taking 1, 2, 3+
    tokens, the mean, and the most common split shapes. Numbers up to `sample` per length are
    all taken, longer ones sampled evenly (seeded). `prefix` goes before each number (" " for a
    number mid-sentence)."""
    if not 1 <= max_digits <= 12:
        raise ValueError(f"max_digits must be 1-12, got {max_digits}")
    rng = random.Random(seed)
    rows = []
    for name, tok in named(tokenizers).items():
        for digits in range(1, max_digits + 1):
            numbers = _numbers(digits, sample, rng)
            encoded = tokens_of_batch(tok, [prefix + n for n in numbers])
            counts = Counter(len(ids) for ids in encoded)
            shapes: Counter[str] = Counter()
            for ids in encoded:
                lengths = [len(token_bytes(tok, i).strip()) for i in ids]
                shapes["+".join(str(n) for n in lengths if n)] += 1
            total = len(encoded)
            rows.append(
                {
                    "tokenizer": name,
                    "digits": digits,
                    "numbers": total,
                    "mean_tokens": sum(len(ids) for ids in encoded) / total,
                    "one_token": counts[1] / total,
                    "two_tokens": counts[2] / total,
                    "three_plus": sum(v for k, v in counts.items() if k >= 3) / total,
                    "top_shapes": ", ".join(f"{s} ({n / total:.0%})" for s, n in shapes.most_common(3)),
                }
            )
    return Table(
        "How numbers split",
        ["tokenizer", "digits", "numbers", "mean_tokens", "one_token", "two_tokens", "three_plus", "top_shapes"],
        rows,
        [
            f"numbers encoded {'after ' + repr(prefix) if prefix else 'alone'}; up to {sample:,} per length (seed {seed})"
        ],
        {"x": "digits", "y": "mean_tokens", "series": "tokenizer"},
    )
