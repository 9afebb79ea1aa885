"""tiktoken's vocabulary files: one `<base64 token bytes> <rank>` line per token."""
from __future__ import annotations

import base64
import os

from .. import _core
from .atomic import write_files_atomically


def read_tokens(path: str | os.PathLike[str], rank_limit: int | None = None) -> list[bytes]:
    """Tokens indexed by rank (b"" where a rank is unused), parsed natively.

    `rank_limit` keeps only ranks below it (r50k_base is p50k_base's first 50256 ranks).
    Errors name the file and line.
    """
    with open(path, "rb") as f:
        data = f.read()
    try:
        return _core.parse_tiktoken(data, rank_limit if rank_limit is not None else 2**64 - 1)
    except ValueError as e:
        raise ValueError(f"{os.fspath(path)}: {e}") from None


def load_tiktoken_bpe(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """`mergeable_ranks` (token bytes -> rank) from a .tiktoken file, as tiktoken's loader returns."""
    return {token: rank for rank, token in enumerate(read_tokens(path)) if token}


def tiktoken_lines(mergeable_ranks: dict[bytes, int]) -> bytes:
    """The .tiktoken text of `mergeable_ranks`: one line per token, sorted by rank."""
    lines = [
        base64.b64encode(token) + b" " + str(rank).encode()
        for token, rank in sorted(mergeable_ranks.items(), key=lambda item: item[1])
    ]
    return b"\n".join(lines) + b"\n"


def dump_tiktoken_bpe(mergeable_ranks: dict[bytes, int], path: str | os.PathLike[str]) -> None:
    """Write `mergeable_ranks` as a .tiktoken file (sorted by rank), atomically."""
    write_files_atomically([(os.fspath(path), tiktoken_lines(mergeable_ranks))])
