"""tiktoken's vocabulary files: one `<base64 token bytes> <rank>` line per token.

Ranks may leave gaps (tiktoken allows them), but not beyond `validation.id_limit` of the number
of lines: the tables are indexed by rank, so a corrupt rank far past the vocabulary is refused
(a FormatError naming the line) instead of sizing a table by it.
"""

from __future__ import annotations

import base64
import os
import re

from .. import _core
from .atomic import write_files_atomically
from .validation import FormatError, id_limit

_LINE_ERROR = re.compile(r"line (\d+): (.*)", re.DOTALL)


def parse_error(path: str, error: ValueError, line_offset: int = 0, data: bytes | None = None) -> FormatError:
    """The native parser's ValueError ("line N: ...") as a FormatError naming the file and the
    line (counted from the file's start: `line_offset` lines come before the parsed data). An
    error about ranks ("ranks 0 and 4 have the same bytes") names the later of their lines in
    `data`."""
    message = str(error)
    m = _LINE_ERROR.match(message)
    if m is not None:
        return FormatError(path, f"line {int(m[1]) + line_offset}", m[2])
    ranks = re.search(r"\branks? (\d+)(?: and (\d+))?", message)
    lines = [] if ranks is None or data is None else [_line_of(data, int(r)) for r in ranks.groups() if r]
    found = [line for line in lines if line is not None]
    return FormatError(path, f"line {max(found) + line_offset}" if found else "", message)


def _line_of(data: bytes, rank: int) -> int | None:
    """The line of `data` (a .tiktoken body) that gives `rank`, if one does."""
    m = re.search(rb"(?m) 0*%d\r?$" % rank, data)
    return None if m is None else data.count(b"\n", 0, m.start()) + 1


def check_ranks_before(path: str, data: bytes, n_extra: int = 0, line_offset: int = 0) -> None:
    """A quick look before parsing: a rank with more digits than the limit for this many lines
    (`n_extra` more tokens, the special ones, come from elsewhere) is a FormatError naming its
    line. `check_ranks_after` makes the exact check."""
    limit = id_limit(data.count(b"\n") + 1 + n_extra)
    m = re.search(rb" ([1-9][0-9]{%d,})" % len(str(limit)), data)
    if m is not None:
        _beyond(path, data, int(m[1]), limit, data.count(b"\n", 0, m.start()) + 1 + line_offset)


def check_ranks_after(
    path: str, data: bytes, rank_count: int, token_count: int, n_extra: int = 0, line_offset: int = 0
) -> None:
    """The exact check once parsed: the largest rank (rank_count - 1) must be below the limit
    for the tokens the file defines (token_count, plus `n_extra` special tokens)."""
    limit = id_limit(token_count + n_extra)
    if rank_count > limit:
        line = _line_of(data, rank_count - 1)
        _beyond(path, data, rank_count - 1, limit, None if line is None else line + line_offset)


def _beyond(path: str, data: bytes, rank: int, limit: int, line: int | None) -> None:
    raise FormatError(
        path,
        f"line {line}" if line is not None else "",
        f"rank {rank} is far beyond the vocabulary: ranks must be below {limit} (twice the tokens "
        "the file defines, plus 65536); is the file corrupt?",
    )


def read_tokens(path: str | os.PathLike[str], rank_limit: int | None = None) -> list[bytes]:
    """Tokens indexed by rank (b"" where a rank is unused), parsed natively.

    `rank_limit` keeps only ranks below it (r50k_base is p50k_base's first 50256 ranks).
    Errors are FormatErrors naming the file and line.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    check_ranks_before(path, data)
    try:
        tokens = _core.parse_tiktoken(data, rank_limit if rank_limit is not None else 2**64 - 1)
    except ValueError as e:
        raise parse_error(path, e, data=data) from None
    check_ranks_after(path, data, len(tokens), sum(1 for t in tokens if t))
    return tokens


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
