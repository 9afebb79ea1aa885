"""Streaming decode: ids arrive one at a time (as a model generates them), text leaves only at
UTF-8 character boundaries, so a character split across tokens is never mangled or raised on.

Two forms: `StreamDecoder`, over an Encoding's token bytes (tiktoken's byte-level tokens, an
incremental UTF-8 decoder), and `DecodeStream`, HF tokenizers' (tokenizer/mod.rs DecodeStream)
over any `Tokenizer`'s decode: it decodes a short window of ids (the ids before the text last
emitted, which give the decoder its context: a Metaspace or sentencepiece leading space, a
WordPiece "##" join, byte fallback), and emits what the window adds once it no longer ends in
U+FFFD."""

from __future__ import annotations

import codecs
from collections.abc import Iterable
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


class DecodeStreamError(ValueError):
    """The window's text no longer starts with the text already emitted (HF's InvalidPrefix)."""


class DecodeStream:
    """HF's DecodeStream over a decode function: `step(id)` (or a list of ids) returns the text
    the ids add, or None while that text is incomplete (ends in U+FFFD) or empty. Build one with
    `Tokenizer.decode_stream(skip_special_tokens=...)`.

    Each step decodes the window of ids since the text emitted before the last one, so it costs
    what the window holds, not the whole stream.
    """

    def __init__(
        self, decode: Callable[[list[int], bool], str], skip_special_tokens: bool = True, ids: Iterable[int] = ()
    ) -> None:
        self._decode = decode
        self.skip_special_tokens = skip_special_tokens
        self._ids: list[int] = list(ids)  # the window: read ids, then the prefix's, then the rest
        self._prefix = ""  # the text of the window's ids up to prefix_index, already emitted
        self._prefix_index = 0

    def step(self, token: int | Iterable[int]) -> str | None:
        """Adds `token` (an id or several) and returns the text it completes, or None."""
        new_ids = [token] if isinstance(token, int) else list(token)
        decode, skip = self._decode, self.skip_special_tokens
        ids = self._ids
        if not self._prefix and ids:
            prefix = decode(ids, skip)
            if not prefix.endswith("\ufffd"):
                self._prefix = prefix
                self._prefix_index = len(ids)
        ids.extend(new_ids)
        text = decode(ids, skip)
        prefix = self._prefix
        # HF compares lengths in UTF-8 bytes
        if len(text.encode("utf-8", "surrogatepass")) > len(prefix.encode("utf-8", "surrogatepass")) and (
            not text.endswith("\ufffd")
        ):
            if not text.startswith(prefix):
                raise DecodeStreamError(
                    f"Invalid prefix encountered while decoding stream. Token ID: {ids[-1]}, "
                    f"Expected prefix: '{prefix}', Actual string: '{text}'"
                )
            new_text = text[len(prefix) :]
            new_prefix_index = len(ids) - self._prefix_index
            del ids[: self._prefix_index]
            self._prefix = decode(ids, skip)
            self._prefix_index = new_prefix_index
            return new_text
        return None
