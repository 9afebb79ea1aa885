"""Streaming decode: ids arrive one at a time (as a model generates them), text leaves only at
UTF-8 character boundaries, so a character split across tokens is never mangled or raised on."""

from __future__ import annotations

import codecs
from typing import Callable


class StreamDecoder:
    """Feed ids with `push`, collect text; `flush` at the end emits anything still held.

    >>> enc = get_encoding("cl100k_base")
    >>> d = enc.stream_decoder()
    >>> "".join(d.push(t) for t in enc.encode("héllo 👋")) + d.flush()
    'héllo 👋'
    """

    def __init__(self, token_bytes: Callable[[int], bytes], errors: str = "replace") -> None:
        self._token_bytes = token_bytes
        # The incremental decoder holds an incomplete trailing sequence until it completes;
        # bytes that can never form a character are handled per `errors` (U+FFFD by default).
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors)

    def push(self, token: int) -> str:
        """Text completed by `token` (possibly empty)."""
        return self._utf8.decode(self._token_bytes(token))

    def flush(self) -> str:
        """Text still held at the end of the stream; incomplete characters follow `errors`."""
        return self._utf8.decode(b"", final=True)

    def reset(self) -> None:
        """Drop anything held, to start a new stream."""
        self._utf8.reset()
