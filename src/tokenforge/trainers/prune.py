"""Pruning a byte-level BPE vocabulary to the tokens a corpus uses.

The tokens kept are the 256 bytes, the tokens the corpus encodes to (the most used first when a
size is given), and every token their merges pass through, so the corpus encodes to the same
tokens as before under new, dense ids (in the old order). Other text still encodes, with the
smaller vocabulary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..arguments import _check_int
from ..encoding import Encoding
from ..formats.gpt2_files import split_for_merge


def prune_bpe(
    base: Encoding, texts: str | Iterable[str], vocab_size: int | None = None, *, name: str | None = None
) -> tuple[Encoding, dict[int, int]]:
    """(pruned encoding, {old id: new id} for every id kept, special tokens included).

    Without `vocab_size` every token the corpus uses is kept; with it, the most used ones that
    fit (ties to the lower id), counting the tokens their merges need."""
    if not isinstance(base, Encoding):
        raise TypeError(f"base must be a tokenforge Encoding, got {type(base).__name__}")
    ranks = base._mergeable_ranks
    by_id = {i: t for t, i in ranks.items()}
    single = [i for t, i in ranks.items() if len(t) == 1]
    vocab_size = _check_int(
        vocab_size, "vocab_size", len(single), None, none="every token the corpus uses", why=" (the single-byte tokens)"
    )
    uses: Counter = Counter()
    for text in [texts] if isinstance(texts, str) else texts:
        uses.update(base.encode_ordinary(text))

    def with_parts(token_id: int, into: set[int]) -> None:
        stack = [token_id]
        while stack:
            i = stack.pop()
            if i in into:
                continue
            into.add(i)
            token = by_id[i]
            if len(token) > 1:
                stack += [ranks[part] for part in split_for_merge(ranks, token, i) if len(part) < len(token)]

    kept: set[int] = set(single)
    for token_id, _ in sorted(uses.items(), key=lambda kv: (-kv[1], kv[0])):
        needed: set[int] = set()
        with_parts(token_id, needed)
        if vocab_size is not None and len(kept | needed) > vocab_size:
            continue
        kept |= needed
    remap = {old: new for new, old in enumerate(sorted(kept))}
    new_ranks = {by_id[old]: new for old, new in remap.items()}
    specials: dict[str, int] = {}
    for text, old in sorted(base._special_tokens.items(), key=lambda kv: kv[1]):
        remap[old] = specials[text] = len(new_ranks) + len(specials)
    pruned = Encoding(
        name or f"{base.name}_pruned", pat_str=base._pat_str, mergeable_ranks=new_ranks, special_tokens=specials
    )
    return pruned, remap
