"""Byte-level BPE training with minbpe's semantics, on the native trainer.

>>> enc = train_bpe(["low lower lowest"] * 10, vocab_size=260, pattern="gpt2")
>>> enc.decode(enc.encode_ordinary("lowest"))
'lowest'

Text is cut into chunks by a split pattern (merges never cross a chunk's edges), or kept
whole with ``pattern=None`` (minbpe's BasicTokenizer). Every chunk starts as its UTF-8 bytes,
ids 0..255; each merge joins the most frequent adjacent pair (every position counts, weighted
by how often the chunk occurs) into the next id. Ties go to the smallest pair (left id, then
right id), so the same input gives the same merges everywhere. The result is an `Encoding`,
whose ranks are the token ids, so it encodes the training text exactly as the trainer merged it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from concurrent.futures import Executor

import regex

from .. import _core
from ..arguments import INT64_MAX, UINT32_MAX, _check_int
from ..encoding import _MAX_RANK, Encoding, _has_surrogates
from ..formats.gpt2_files import bytes_to_unicode, split_for_merge
from ..pre_tokenizers.patterns import BY_NAME, WHOLE_TEXT
from ..progress import Progress
from .chunk_table import check_max_memory, count_chunks, count_chunks_on


def _split_pattern(pattern: str | None) -> str:
    if pattern is None:
        return WHOLE_TEXT
    if not isinstance(pattern, str):
        raise TypeError(
            f"pattern must be a name ({', '.join(BY_NAME)}), a regex str or None, got {type(pattern).__name__}"
        )
    if pattern in BY_NAME:
        return BY_NAME[pattern]
    try:
        regex.compile(pattern)
    except regex.error as e:
        raise ValueError(
            f"pattern {pattern!r} is neither a name ({', '.join(BY_NAME)}) nor a valid regex: {e}"
        ) from None
    return pattern


def _check_options(
    min_frequency: int, max_token_length: int | None, max_memory: int | None
) -> tuple[int, int | None, int | None]:
    """The options every BPE trainer takes, checked (and read as ints) before any work starts."""
    return (
        _check_int(min_frequency, "min_frequency", 1, INT64_MAX),
        _check_int(max_token_length, "max_token_length", 2, INT64_MAX, none="no limit", why=" (bytes)"),
        check_max_memory(max_memory),
    )


def _chunk_table(
    texts, pat_str: str, progress: bool | None, max_memory: int | None, executor: Executor | None
) -> _core.ChunkCounts:
    """The training text's chunk table: counted here, or by `executor`'s workers when one is
    given (then `texts` must be a TextFiles, which the workers read themselves)."""
    if executor is not None:
        return count_chunks_on(executor, texts, pat_str, progress, max_memory)
    return count_chunks([texts] if isinstance(texts, str) else texts, pat_str, progress, max_memory)


def _check_special_tokens(special_tokens: dict[str, int] | None) -> dict[str, int]:
    """{text: id} with each id read as an int, checked before training (the ids' clashes with
    ordinary tokens are checked once those are known)."""
    if special_tokens is None:
        return {}
    if not isinstance(special_tokens, dict):
        raise TypeError(f"special_tokens must be a dict {{text: id}}, got {type(special_tokens).__name__}")
    checked = {}
    for text, token_id in special_tokens.items():
        if not isinstance(text, str) or not text:
            raise ValueError(f"special token names must be non-empty str, got {text!r}")
        checked[text] = _check_int(token_id, f"the id of special token {text!r}", 0, UINT32_MAX - 1)
    return checked


def _merges(
    counts: _core.ChunkCounts,
    num_merges: int,
    min_frequency: int,
    max_token_length: int | None,
    progress: bool | None,
    base: Encoding | None = None,
    first_id: int = 256,
) -> list[tuple[int, int]]:
    if not len(counts):
        raise ValueError("the training corpus is empty: no text to learn merges from")
    trainer = _core.BpeTrainer(counts, base._core if base is not None else None, first_id)
    merges: list[tuple[int, int]] = []
    step = max(1, num_merges // 200)  # the native loop runs in steps so progress can show
    with Progress("merges", total=num_merges, enabled=progress) as shown:
        while len(merges) < num_merges:
            made = trainer.train(min(step, num_merges - len(merges)), min_frequency, max_token_length or 0)
            merges += [(a, b) for a, b in made]
            shown.update(len(merges))
            if len(made) < step:
                break
    if len(merges) < num_merges:
        limit = f" and no longer than max_token_length={max_token_length} bytes" if max_token_length else ""
        warnings.warn(
            f"made {len(merges):,} of the {num_merges:,} merges asked for (vocabulary: {first_id + len(merges):,} "
            f"tokens): no pair is left that occurs at least min_frequency={min_frequency} times{limit}. Train on "
            "more (or more varied) text, or lower min_frequency, for a larger vocabulary",
            stacklevel=3,
        )
    return merges


def _extend_ranks(ranks: dict[bytes, int], merges: list[tuple[int, int]], first_id: int) -> dict[bytes, int]:
    """`ranks` plus the token of each merge, merge k at rank first_id + k."""
    by_id = {i: t for t, i in ranks.items()}
    ranks = dict(ranks)
    for k, (a, b) in enumerate(merges):
        token = by_id[a] + by_id[b]
        if token in ranks:
            raise ValueError(
                f"merge {k} ({a}, {b}) gives the bytes of token {ranks[token]} again, which a "
                "tiktoken-style vocabulary cannot hold; train with fewer merges"
            )
        ranks[token] = first_id + k
        by_id[first_id + k] = token
    return ranks


def train_bpe_merges(
    texts: str | Iterable[str],
    num_merges: int,
    pattern: str | None = "cl100k",
    *,
    min_frequency: int = 1,
    max_token_length: int | None = None,
    max_memory: int | None = None,
    progress: bool | None = None,
    executor: Executor | None = None,
) -> list[tuple[int, int]]:
    """The merges, in order: merge k joins the pair (left id, right id) into id 256 + k.
    Stops early when no pair occurs `min_frequency` times; never makes a token longer than
    `max_token_length` bytes. `max_memory` (bytes) bounds the chunk table to a tenth of it,
    spilling to disk; see `chunk_table`. `progress`: show progress on stderr (default: when it
    is a terminal). `executor`: see train_bpe."""
    num_merges = _check_int(num_merges, "num_merges", 0, _MAX_RANK - 256)
    min_frequency, max_token_length, max_memory = _check_options(min_frequency, max_token_length, max_memory)
    counts = _chunk_table(texts, _split_pattern(pattern), progress, max_memory, executor)
    return _merges(counts, num_merges, min_frequency, max_token_length, progress)


BYTE_ORDERS = ("bytes", "gpt2")


def _byte_ranks(byte_ids: str) -> dict[bytes, int]:
    # "bytes": id b is byte b (minbpe, rustbpe); "gpt2": GPT-2's byte-to-unicode order, as in
    # tiktoken's own encodings and the only order GPT-2's encoder.json + vocab.bpe can hold.
    if byte_ids == "bytes":
        return {bytes([b]): b for b in range(256)}
    if byte_ids == "gpt2":
        return {bytes([b]): i for i, b in enumerate(bytes_to_unicode())}
    raise ValueError(f"byte_ids must be one of {', '.join(BYTE_ORDERS)}, got {byte_ids!r}")


def _add_merges_for(ranks: dict[bytes, int], token: bytes) -> None:
    # The token's parts under the merges so far, joined left to right; each prefix is a new
    # token unless it is one already.
    if token in ranks:
        return
    parts = split_for_merge(ranks, token, len(ranks))
    prefix = parts[0]
    for part in parts[1:]:
        prefix += part
        ranks.setdefault(prefix, len(ranks))


def _with_forced_tokens(ranks: dict[bytes, int], forced_tokens: Iterable[str], pat_str: str) -> dict[bytes, int]:
    """`ranks` plus merges that make each forced token, in order: first each of its characters
    (so tokens are whole characters and forced tokens share them), then the token. A token the
    split pattern would cut, or that the merges cannot reach whole, is an error."""
    ranks, forced_tokens = dict(ranks), list(forced_tokens)
    for text in forced_tokens:
        if not isinstance(text, str) or not text:
            raise ValueError(f"forced tokens must be non-empty strings, got {text!r}")
        if _has_surrogates(text):
            raise ValueError(f"forced token {text!r} holds a lone surrogate, which has no UTF-8 bytes")
        for char in text:
            _add_merges_for(ranks, char.encode("utf-8"))
        _add_merges_for(ranks, text.encode("utf-8"))
    check = Encoding("forced", pat_str=pat_str, mergeable_ranks=ranks, special_tokens={})
    for text in forced_tokens:
        ids = check.encode_ordinary(text)
        if len(ids) != 1:
            pieces = [m.group() for m in regex.finditer(pat_str, text)]
            why = f"the split pattern cuts it into {pieces!r}" if len(pieces) > 1 else "merges cannot make it whole"
            raise ValueError(f"forced token {text!r} can never be one token: {why}")
    return ranks


def train_bpe(
    texts: str | Iterable[str],
    vocab_size: int,
    pattern: str | None = "cl100k",
    *,
    min_frequency: int = 1,
    special_tokens: dict[str, int] | None = None,
    name: str = "trained_bpe",
    max_token_length: int | None = None,
    forced_tokens: Iterable[str] = (),
    byte_ids: str = "bytes",
    max_memory: int | None = None,
    progress: bool | None = None,
    executor: Executor | None = None,
) -> Encoding:
    """Train a byte-level BPE `Encoding` of up to `vocab_size` ordinary tokens (256 bytes plus
    merges) on `texts`. `pattern` is "gpt2", "cl100k", "o200k", any regex, or None (no split).

    The initial alphabet is always the 256 bytes; `byte_ids` numbers them "bytes" (id b is byte
    b, as minbpe) or "gpt2" (GPT-2's order, as tiktoken's encodings; needed to write GPT-2
    files). `forced_tokens` (strings, e.g. characters or words that must stay whole) become
    tokens first, each made by merges of its parts, before training fills the rest of the
    vocabulary. `special_tokens` ({text: id}) are added after training with the ids given. No
    token grows past `max_token_length` bytes. `max_memory` (bytes) bounds the chunk table to a
    tenth of it, spilling to disk; see `chunk_table`. `progress`: show progress on stderr
    (default: when it is a terminal).

    `executor` (any concurrent.futures.Executor, such as tokenforge.cluster.executor(client)
    for a Dask cluster, or a ProcessPoolExecutor) counts the chunks on its workers: `texts` is
    then a trainers.TextFiles, cut into byte ranges each worker reads itself, and the result is
    the same vocabulary as training here on the same files."""
    vocab_size = _check_int(
        vocab_size, "vocab_size", 256, _MAX_RANK, why=" (the 256 byte tokens, up to the most ids an Encoding holds)"
    )
    min_frequency, max_token_length, max_memory = _check_options(min_frequency, max_token_length, max_memory)
    special_tokens = _check_special_tokens(special_tokens)
    pat_str = _split_pattern(pattern)
    forced_tokens = list(forced_tokens)
    base_ranks = _byte_ranks(byte_ids)
    if forced_tokens:
        base_ranks = _with_forced_tokens(base_ranks, forced_tokens, pat_str)
    if len(base_ranks) > vocab_size:
        raise ValueError(
            f"vocab_size {vocab_size} is below the {len(base_ranks)} tokens the bytes and forced tokens take"
        )
    counts = _chunk_table(texts, pat_str, progress, max_memory, executor)
    if byte_ids == "bytes" and not forced_tokens:
        base = None  # chunks start as their bytes: no encoder needed
    else:
        base = Encoding("base", pat_str=pat_str, mergeable_ranks=base_ranks, special_tokens={})
    merges = _merges(
        counts, vocab_size - len(base_ranks), min_frequency, max_token_length, progress, base, len(base_ranks)
    )
    ranks = _extend_ranks(base_ranks, merges, len(base_ranks))
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special_tokens)


def continue_bpe(
    base: Encoding,
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    min_frequency: int = 1,
    special_tokens: dict[str, int] | None = None,
    name: str | None = None,
    max_token_length: int | None = None,
    max_memory: int | None = None,
    progress: bool | None = None,
    executor: Executor | None = None,
) -> Encoding:
    """`base` trained further on `texts` (say, to add a language), up to `vocab_size` ordinary
    tokens in all. Every token, id and merge of `base` is kept, and so are its special tokens
    (`special_tokens` adds more); text is split with `base`'s pattern and starts from `base`'s
    ids, and new tokens get ids after every id `base` uses. `executor`: see train_bpe."""
    if not isinstance(base, Encoding):
        raise TypeError(f"base must be a tokenforge Encoding, got {type(base).__name__}")
    old = base._mergeable_ranks
    first_id = base.max_token_value + 1
    # New tokens take ids first_id, first_id + 1, ...: all below the most ids an Encoding holds.
    most = len(old) + max(0, _MAX_RANK - first_id)
    vocab_size = _check_int(vocab_size, "vocab_size", None, None)
    if not len(old) < vocab_size <= most:
        raise ValueError(
            f"vocab_size must be an int above the base's {len(old)} ordinary tokens and at most {most} "
            f"(new ids start at {first_id}; an Encoding holds ids below {_MAX_RANK}), got {vocab_size}"
        )
    min_frequency, max_token_length, max_memory = _check_options(min_frequency, max_token_length, max_memory)
    special_tokens = _check_special_tokens(special_tokens)
    counts = _chunk_table(texts, base._pat_str, progress, max_memory, executor)
    merges = _merges(counts, vocab_size - len(old), min_frequency, max_token_length, progress, base, first_id)
    return Encoding(
        name or f"{base.name}_continued",
        pat_str=base._pat_str,
        mergeable_ranks=_extend_ranks(old, merges, first_id),
        special_tokens={**base._special_tokens, **special_tokens},
    )
