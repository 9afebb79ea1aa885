"""HF tokenizers' `tokenizer.json` for a byte-level BPE vocabulary (writing).

The file holds the vocabulary in GPT-2's byte-to-unicode spelling, the merges recovered from
the ranks, the split pattern as a `Split` pre-tokenizer followed by `ByteLevel`, and the
special tokens as added tokens. HF's BPE then gives tiktoken's ids: `ignore_merges` makes it
look a whole piece up first, as tiktoken does.
"""
from __future__ import annotations

import json
import os

from .atomic import write_files_atomically
from .gpt2_files import bytes_to_unicode, split_for_merge


def hf_split_pattern(pattern: str) -> str:
    r"""`pattern` rewritten so HF's regex engine (Oniguruma, Ruby syntax) reads it as tiktoken's does.

    * ``\p{N}{1,3}+`` is possessive in tiktoken's engine, but Oniguruma reads it as
      ``(\p{N}{1,3})+`` (unbounded digit runs). The plain ``\p{N}{1,3}`` matches the same,
      since nothing follows it in its alternative.
    * ``?+``, ``++`` and ``*+`` are possessive in Oniguruma too, so they stay. ``\s++$`` must stay
      possessive: Oniguruma's ``$`` also matches before any ``\n``, and a greedy ``\s+$`` would
      stop before a newline inside the text.
    """
    return pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")


def tokenizer_json(
    mergeable_ranks: dict[bytes, int],
    pattern: str,
    special_tokens: dict[str, int] | None = None,
    *,
    gpt2_style: bool = False,
) -> dict:
    """The tokenizer.json document. `gpt2_style` uses GPT-2's own form (the ByteLevel
    pre-tokenizer with its built-in regex) instead of an explicit Split with `pattern`."""
    b2u = bytes_to_unicode()

    def spell(token: bytes) -> str:
        return "".join(b2u[b] for b in token)

    merges = []
    for token, rank in sorted(mergeable_ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = split_for_merge(mergeable_ranks, token, rank)
        if len(parts) == 2:  # a token no merge reaches is still found whole (ignore_merges)
            merges.append(f"{spell(parts[0])} {spell(parts[1])}")
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
    if gpt2_style:
        pre_tokenizer = {**byte_level, "use_regex": True}
    else:
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": hf_split_pattern(pattern)}, "behavior": "Isolated", "invert": False},
                {**byte_level, "use_regex": False},
            ],
        }
    added = [
        {"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for text, i in sorted((special_tokens or {}).items(), key=lambda kv: kv[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": {**byte_level, "add_prefix_space": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            # Special tokens are in the vocabulary too: HF keeps an added token's own id only then.
            "vocab": {
                **{spell(token): rank for token, rank in mergeable_ranks.items()},
                **{spell(text.encode("utf-8")): i for text, i in (special_tokens or {}).items()},
            },
            "merges": merges,
        },
    }


def save_tokenizer_json(encoding, path: str | os.PathLike[str]) -> None:
    """Write `encoding` (an `Encoding`) as an HF tokenizer.json, atomically."""
    doc = tokenizer_json(encoding._mergeable_ranks, encoding._pat_str, encoding._special_tokens)
    write_files_atomically([(os.fspath(path), json.dumps(doc, ensure_ascii=False).encode("utf-8"))])
