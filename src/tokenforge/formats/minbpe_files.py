"""minbpe's `.model` / `.vocab` pair for a byte-level BPE vocabulary (writing).

`.model` is what minbpe's `load()` reads: a version line, the split pattern, the special tokens
and the merges as id pairs in order (merge k makes id 256 + k). `.vocab` is for people: each
token rendered, with the two tokens it merges from. minbpe's ids are its ranks, so only
vocabularies whose ids 0..255 are the bytes 0..255 and whose other ids are dense can be
written (those trained here are).
"""

from __future__ import annotations

import os
import unicodedata

from ..pre_tokenizers.patterns import WHOLE_TEXT
from .atomic import write_files_atomically
from .gpt2_files import split_for_merge


def _render(token: bytes) -> str:
    # as minbpe renders: decoded, control characters escaped
    text = token.decode("utf-8", errors="replace")
    return "".join(c if unicodedata.category(c)[0] != "C" else f"\\u{ord(c):04x}" for c in text)


def save_minbpe(encoding, prefix: str | os.PathLike[str]) -> None:
    """Write `encoding` as minbpe's `prefix.model` and `prefix.vocab`, atomically."""
    ranks = encoding._mergeable_ranks
    by_id = {i: t for t, i in ranks.items()}
    if any(by_id.get(b) != bytes([b]) for b in range(256)) or sorted(by_id) != list(range(len(by_id))):
        raise ValueError(
            f"{encoding.name}: minbpe files need ids 0..255 to be the bytes 0..255 and dense ids after "
            "them (vocabularies trained by tokenforge are); use dump_tiktoken_bpe for this one"
        )
    merges = []
    for i in range(256, len(by_id)):
        parts = split_for_merge(ranks, by_id[i], i)
        if len(parts) != 2:
            raise ValueError(f"{encoding.name}: token {i} is not the merge of two lower tokens")
        merges.append((ranks[parts[0]], ranks[parts[1]]))
    specials = sorted(encoding._special_tokens.items(), key=lambda kv: kv[1])
    model = ["minbpe v1", encoding._pat_str if encoding._pat_str != WHOLE_TEXT else "", str(len(specials))]
    model += [f"{text} {i}" for text, i in specials] + [f"{a} {b}" for a, b in merges]
    vocab = [f"[{_render(by_id[i])}] {i}" for i in range(256)]
    vocab += [
        f"[{_render(by_id[a])}][{_render(by_id[b])}] -> [{_render(by_id[256 + k])}] {256 + k}"
        for k, (a, b) in enumerate(merges)
    ]
    prefix = os.fspath(prefix)
    write_files_atomically(
        [
            (prefix + ".model", "\n".join(model).encode("utf-8") + b"\n"),
            (prefix + ".vocab", "\n".join(vocab).encode("utf-8") + b"\n"),
        ]
    )
