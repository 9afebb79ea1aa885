"""Read and write GPT-2's ``encoder.json`` + ``vocab.bpe`` vocabulary pair.

GPT-2 shipped its byte-level BPE as two files: ``encoder.json`` maps each token,
written in the "byte-to-unicode" alphabet, to its id, and ``vocab.bpe`` lists the
merges in priority order.  tokenforge works with ``mergeable_ranks`` (token bytes
-> rank), the same form tiktoken uses, so this module converts in both directions.

Loading gives the same ranks as ``tiktoken.load.data_gym_to_mergeable_bpe_ranks``:
the 256 single bytes take ranks 0..255 in byte-to-unicode order, merges take ranks
256.. in file order, and encoder.json must agree.  Where tiktoken would ``assert``
or hit a ``KeyError`` we raise ``FormatError`` (a ValueError) naming the file and
line or entry.  We are a little stricter (a merge must join two earlier tokens and
create a new one) and a little more lenient (a missing final newline is fine, and
extra encoder.json entries become special tokens, where tiktoken allows only
``<|endoftext|>`` and ``<|startoftext|>``).

An extra entry is a special token only if vocab.bpe could not have made it: an
entry that joins two tokens vocab.bpe defines is the product of a merge that
vocab.bpe lacks, which is what a vocab.bpe cut short (an interrupted download)
looks like, and is refused.  ``save_gpt2_files`` refuses such special tokens for
the same reason, so whatever it writes loads back.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any, Callable

from .atomic import write_files_atomically
from .validation import FormatError, read_json

__all__ = [
    "bytes_to_unicode",
    "load_gpt2_files",
    "save_gpt2_files",
    "unicode_to_bytes",
]

_VERSION_HEADER = "#version: 0.2"
_N_BYTES = 256
_MAX_SPECIAL_ID = 2**32 - 2  # what an Encoding holds (sparse: no table is sized by it)


@cache
def _byte_to_char() -> dict[int, str]:
    # Verbatim from GPT-2's encoder.py: printable bytes map to themselves, the
    # rest (controls, space, NBSP, soft hyphen...) to chr(256 + n) in byte order,
    # so every token becomes a whitespace-free printable string.
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(_N_BYTES):
        if b not in bs:
            bs.append(b)
            cs.append(_N_BYTES + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


@cache
def _char_to_byte() -> dict[str, int]:
    return {c: b for b, c in _byte_to_char().items()}


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable-character table.

    Insertion order is significant: it is the order in which GPT-2 files rank the
    single bytes (``!`` is rank 0, ..., the remapped non-printables come last).
    Returns a fresh copy, so callers may mutate it without corrupting the cache.
    """
    return dict(_byte_to_char())


def unicode_to_bytes() -> dict[str, int]:
    """The inverse of :func:`bytes_to_unicode` (cached internally; returns a copy)."""
    return dict(_char_to_byte())


# ---------------------------------------------------------------------- loading


def _read_bytes(path: str) -> bytes:
    # open() already raises FileNotFoundError with the path in the message.
    with open(path, "rb") as f:
        return f.read()


def _decode_token(text: str, path: str, where: str) -> bytes:
    """Byte-to-unicode string -> bytes; a bad character is a FormatError naming where."""
    table = _char_to_byte()
    try:
        return bytes([table[c] for c in text])
    except KeyError:
        bad = next(c for c in text if c not in table)
        raise FormatError(
            path, where, f"character {bad!r} (U+{ord(bad):04X}) in {text!r} is not in GPT-2's byte-to-unicode table"
        ) from None


def _encode_token(token: bytes) -> str:
    table = _byte_to_char()
    return "".join([table[b] for b in token])


def _read_merges(path: str) -> dict[bytes, int]:
    """Parse vocab.bpe into mergeable ranks (single bytes first, then merges)."""
    try:
        text = _read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(path, "", f"not valid UTF-8 (byte offset {e.start})") from None

    lines = text.split("\n")  # not splitlines(): match tiktoken/GPT-2 exactly
    if not lines[0].startswith("#version"):
        raise FormatError(path, "line 1", f"expected a '{_VERSION_HEADER}' header, got {lines[0][:60]!r}")
    # tiktoken drops exactly one final line (the empty string after the trailing
    # newline); we drop all trailing blank lines so a missing newline is harmless.
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()

    ranks = {bytes([b]): rank for rank, b in enumerate(_byte_to_char())}
    for lineno, line in enumerate(lines[1:], start=2):
        parts = line.split()
        where = f"line {lineno}"
        if len(parts) != 2:
            raise FormatError(
                path, where, f"a merge needs exactly two space-separated parts, got {len(parts)}: {line!r}"
            )
        first, second = (_decode_token(p, path, where) for p in parts)
        for half, shown in ((first, parts[0]), (second, parts[1])):
            if half not in ranks:
                raise FormatError(
                    path, where, f"merge half {shown!r} is not a token defined on an earlier line (or a single byte)"
                )
        token = first + second
        if token in ranks:
            raise FormatError(path, where, f"merge {line!r} produces {token!r}, which already has rank {ranks[token]}")
        ranks[token] = len(ranks)
    return ranks


def _reject_duplicate_keys(path: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    # json.loads silently keeps the last of repeated keys, hiding a broken file.
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise FormatError(path, "", f"entry {key!r} appears more than once")
                seen.add(key)
        return out

    return hook


def load_gpt2_files(
    encoder_json: str | os.PathLike[str], vocab_bpe: str | os.PathLike[str]
) -> tuple[dict[bytes, int], dict[str, int]]:
    """Load a GPT-2 ``encoder.json``/``vocab.bpe`` pair.

    Returns ``(mergeable_ranks, special_tokens)``.  Ranks come from vocab.bpe alone
    (as in tiktoken); encoder.json is only cross-checked, because ranks must equal
    merge priority for BPE to reproduce GPT-2's output.  encoder.json entries that
    are not mergeable tokens (``<|endoftext|>``, added tokens) become special tokens,
    keyed by their literal JSON string.
    """
    enc_path, bpe_path = os.fspath(encoder_json), os.fspath(vocab_bpe)
    ranks = _read_merges(bpe_path)

    data = read_json(enc_path, _read_bytes(enc_path), "an encoder.json", pairs_hook=_reject_duplicate_keys(enc_path))
    if not isinstance(data, dict):
        raise FormatError(enc_path, "", f"expected a JSON object, got {type(data).__name__}")

    table = _char_to_byte()
    special: dict[str, int] = {}
    owner_of_id: dict[int, str] = {}
    matched = 0
    for key, value in data.items():
        where = f"entry {key!r}"
        if type(value) is not int:  # bool is an int subclass; reject it too
            raise FormatError(enc_path, where, f"id must be an integer, got {value!r}")
        if value in owner_of_id:
            raise FormatError(enc_path, where, f"id {value} is also used by {owner_of_id[value]!r}")
        owner_of_id[value] = key

        # Keys with characters outside the table can't be mergeable: special.
        token = bytes([table[c] for c in key]) if all(c in table for c in key) else None
        rank = ranks.get(token) if token is not None else None
        if rank is None:
            if not 0 <= value <= _MAX_SPECIAL_ID:
                raise FormatError(enc_path, where, f"id {value} is outside 0..{_MAX_SPECIAL_ID}")
            special[key] = value
        elif rank != value:
            raise FormatError(
                enc_path, where, f"has id {value} but {bpe_path} gives this token rank {rank}; the files disagree"
            )
        else:
            matched += 1

    if matched != len(ranks):
        encoded = ((_encode_token(tok), rank) for tok, rank in ranks.items())
        missing = [(text, rank) for text, rank in encoded if text not in data]
        examples = ", ".join(f"{text!r} (rank {rank})" for text, rank in missing[:5])
        raise FormatError(
            enc_path, "", f"lacks {len(missing)} token(s) that {bpe_path} defines, e.g. {examples}; the files disagree"
        )
    for key, value in sorted(special.items(), key=lambda kv: kv[1]):
        parts = _merge_of(ranks, key)
        if parts is not None:
            line = len(ranks) - _N_BYTES + 1  # the last line: the header, then one merge a line
            raise FormatError(
                bpe_path,
                f"line {line}",
                f"ends after {len(ranks) - _N_BYTES} merges, but {enc_path} has {key!r} (id {value}), "
                f"the merge of {parts[0]!r} and {parts[1]!r}, which vocab.bpe never makes: the file is cut "
                "short (an interrupted download?), or the two files are not a pair",
            )
    return ranks, special


def _merge_of(ranks: dict[bytes, int], text: str) -> tuple[str, str] | None:
    """The two tokens of `ranks` that `text` (in the byte-to-unicode spelling) joins, if any:
    such a text is the product of a merge, never a special token."""
    table = _char_to_byte()
    if len(text) < 2 or not all(c in table for c in text):
        return None
    token = bytes([table[c] for c in text])
    for i in range(1, len(token)):
        if token[:i] in ranks and token[i:] in ranks:
            return text[:i], text[i:]
    return None


# ----------------------------------------------------------------------- saving


def _tokens_by_rank(mergeable_ranks: dict[bytes, int]) -> list[bytes]:
    """Validate that ranks are dense 0..N-1 and unique; return tokens indexed by rank."""
    n = len(mergeable_ranks)
    by_rank: list[bytes | None] = [None] * n
    for token, rank in mergeable_ranks.items():
        if not isinstance(token, bytes) or not token:
            raise ValueError(f"mergeable token {token!r} must be non-empty bytes")
        if type(rank) is not int or not 0 <= rank < n:
            raise ValueError(f"ranks must be dense 0..{n - 1}; token {token!r} has rank {rank!r}")
        if by_rank[rank] is not None:
            raise ValueError(f"rank {rank} is used by both {by_rank[rank]!r} and {token!r}")
        by_rank[rank] = token
    return by_rank  # type: ignore[return-value]  # n unique ranks in n slots: all filled


def _check_single_bytes(by_rank: list[bytes]) -> None:
    """Ranks 0..255 must be the 256 single bytes in byte-to-unicode order."""
    if len(by_rank) < _N_BYTES:
        raise ValueError(f"GPT-2 files need the 256 single bytes at ranks 0..255; got only {len(by_rank)} tokens")
    for rank in range(_N_BYTES):
        if len(by_rank[rank]) != 1:
            raise ValueError(f"rank {rank} is {by_rank[rank]!r}, but ranks 0..255 must be the 256 single bytes")
    for rank, b in enumerate(_byte_to_char()):
        if by_rank[rank][0] != b:
            raise ValueError(
                f"rank {rank} is {by_rank[rank]!r} but GPT-2 files always give rank "
                f"{rank} to {bytes([b])!r}: vocab.bpe stores only merges, and readers "
                "(tiktoken included) rank the single bytes in byte-to-unicode order, so "
                "this byte order cannot be represented in GPT-2 format"
            )


def split_for_merge(ranks: dict[bytes, int], token: bytes, max_rank: int) -> list[bytes]:
    """Rank-based BPE on ``token`` using only ranks < ``max_rank`` (tiktoken's
    "recover merges"): the two parts left are the merge that creates ``token``."""
    parts = [token[i : i + 1] for i in range(len(token))]
    # With two parts left the only candidate pair is ``token`` itself, whose rank
    # is max_rank and so never allowed: stop there.
    while len(parts) > 2:
        best_i, best_rank = -1, max_rank
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best_i, best_rank = i, rank
        if best_i < 0:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


def save_gpt2_files(
    mergeable_ranks: dict[bytes, int],
    encoder_json_path: str | os.PathLike[str],
    vocab_bpe_path: str | os.PathLike[str],
    special_tokens: dict[str, int] | None = None,
) -> None:
    """Write ``mergeable_ranks`` (plus optional special tokens) as a GPT-2 file pair.

    The inverse of :func:`load_gpt2_files`.  Each merge line is recovered by running
    BPE on the token with only lower ranks allowed, so the files reload (here and in
    tiktoken) to identical ranks.  Everything is validated before anything is
    written, and each file is replaced atomically (both are fully written to temp
    files before either is renamed into place).  Raises ValueError if the ranks
    are not dense, the single bytes are not ranks 0..255 in byte-to-unicode order,
    a token has no two-part merge, or a special token collides with a regular one.
    """
    enc_path, bpe_path = os.fspath(encoder_json_path), os.fspath(vocab_bpe_path)
    if os.path.abspath(enc_path) == os.path.abspath(bpe_path):
        raise ValueError(f"encoder.json and vocab.bpe paths are the same: {enc_path}")

    by_rank = _tokens_by_rank(mergeable_ranks)
    _check_single_bytes(by_rank)
    encoded = [_encode_token(tok) for tok in by_rank]

    merge_lines = [_VERSION_HEADER]
    for rank in range(_N_BYTES, len(by_rank)):
        token = by_rank[rank]
        parts = split_for_merge(mergeable_ranks, token, rank)
        if len(parts) != 2:
            raise ValueError(
                f"token {token!r} (rank {rank}) has no merge: BPE limited to lower ranks "
                f"leaves {len(parts)} parts {parts!r}, not 2"
            )
        first, second = parts
        merge_lines.append(f"{encoded[mergeable_ranks[first]]} {encoded[mergeable_ranks[second]]}")

    # json.dumps defaults (ASCII escapes, ", " and ": ") reproduce GPT-2's original
    # encoder.json byte for byte; vocab.bpe likewise ends with a newline.
    encoder = dict(zip(encoded, range(len(encoded))))
    special_ids: dict[int, str] = {}
    for text, token_id in (special_tokens or {}).items():
        if not isinstance(text, str) or type(token_id) is not int or token_id < 0:
            raise ValueError(f"special token {text!r}: need a str and an int id >= 0")
        if text in encoder:
            raise ValueError(f"special token {text!r} is also a regular token")
        joined = _merge_of(mergeable_ranks, text)
        if joined is not None:
            raise ValueError(
                f"special token {text!r} joins the regular tokens {joined[0]!r} and {joined[1]!r}: "
                "loaders would read it as a merge vocab.bpe lacks (a cut-short file), so it cannot "
                "be a special token of GPT-2 files"
            )
        if token_id < len(by_rank) or token_id in special_ids:
            other = by_rank[token_id] if token_id < len(by_rank) else special_ids[token_id]
            raise ValueError(f"special token {text!r}: id {token_id} is already used by {other!r}")
        special_ids[token_id] = text
        encoder[text] = token_id

    write_files_atomically(
        [
            (enc_path, json.dumps(encoder).encode("utf-8")),
            (bpe_path, ("\n".join(merge_lines) + "\n").encode("utf-8")),
        ]
    )
