"""Partial tokens at the end of a prompt: tiktoken's `encode_with_unstable`, and token healing.

A prompt's last tokens are not settled: "hello fanta" encodes as ["hello", " f", "anta"], but
the model, continuing after " fanta", may want the one token " fantastic", which encoding the
prompt alone can never produce. `encode_with_unstable(encoding, text)` splits the prompt's ids
into the stable ones and the completions the last piece could still turn into (tiktoken's
algorithm, step for step: the last regex piece, widened over trailing whitespace tokens, then
every token that starts with its bytes, every re-encoding of its bytes plus a token's, and the
whitespace split `\\s+(?!\\S)` can make). `token_healing(tokenizer, prompt)` uses that to back a
prompt off to a token boundary: the ids to feed, and the text the next token must start with
(the lecture's trailing-space example: "... ice cream shop: " ends in a lone " " token the model
rarely saw; healing drops it and asks for a next token that starts with " ").

Encoding.encode_with_unstable (encoding.py) is the tiktoken-compatible entry; this module holds
the algorithm, over the native encoder's calls (encode, encode_pieces: BPE on raw bytes, find).
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import regex

from . import _core

if TYPE_CHECKING:
    from .encoding import Encoding
    from .special import SpecialSet

__all__ = ["TokenHealing", "encode_with_unstable", "token_healing"]

# char::is_whitespace in Rust (Unicode White_Space), which tiktoken's whitespace rule tests
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


@functools.lru_cache(maxsize=16)
def _pattern(pat_str: str) -> Any:
    return regex.compile(pat_str)


@functools.lru_cache(maxsize=4)
def _sorted_tokens(encoding: Encoding) -> tuple[list[bytes], list[int]]:
    """The ordinary tokens' bytes, sorted, and their ids in the same order."""
    pairs = sorted(encoding._mergeable_ranks.items())
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _bpe(encoding: Encoding, data: bytes) -> list[int]:
    """tiktoken's byte_pair_encode: the merges of one piece of raw bytes (no regex split)."""
    token = encoding._core.find(data)
    return [token] if token is not None else cast("list[int]", encoding._core.encode_byte_piece(data))


def _pieces(encoding: Encoding, part: str) -> list[bytes]:
    """`part` split as the encoder splits it: by its native scanner (whose Unicode tables are
    tiktoken's), or by the `regex` module where the pattern has none (as encode does then)."""
    from .pre_tokenizers.patterns import scanner_id

    scanner = scanner_id(encoding._pat_str)
    if scanner < 0:
        return [m.group().encode("utf-8") for m in _pattern(encoding._pat_str).finditer(part)]
    data = part.encode("utf-8")
    native: Any = _core  # _piece_ends: the scanner's hook, left out of the stub
    ends = native._piece_ends(part, scanner, True)
    return [data[a:b] for a, b in zip([0, *ends], ends)]


def _last_piece_token_len(encoding: Encoding, text: str, allowed: Any) -> int:
    """How many ids the last piece of `text` became; 0 where a special token ends it."""
    last = 0
    for part in allowed.split(text) if allowed is not None else (text,):
        if isinstance(part, int):
            last = 0
            continue
        pieces = _pieces(encoding, part)
        if pieces:
            last = len(_bpe(encoding, pieces[-1]))
    return last


def _starting_with(encoding: Encoding, prefix: bytes) -> list[int]:
    """The ordinary tokens whose bytes start with `prefix` (in byte order)."""
    tokens, ids = _sorted_tokens(encoding)
    out = []
    for i in range(bisect.bisect_left(tokens, prefix), len(tokens)):
        if not tokens[i].startswith(prefix):
            break
        out.append(ids[i])
    return out


def _last_char(data: bytes) -> tuple[str | None, int]:
    """bstr's decode_last_utf8: the last character of `data` and its length (None, 1 if the
    last bytes are not a whole character)."""
    for size in range(1, min(4, len(data)) + 1):
        lead = data[-size]
        if lead & 0xC0 != 0x80:
            try:
                char = data[-size:].decode("utf-8")
            except UnicodeDecodeError:
                return None, 1
            return (char, size) if len(char) == 1 else (None, 1)
    return None, 1


def encode_with_unstable(
    encoding: Encoding,
    text: str,
    allowed_special: SpecialSet = frozenset(),
    disallowed_special: SpecialSet = "all",
) -> tuple[list[int], list[list[int]]]:
    """(stable ids, completions) as tiktoken's Encoding.encode_with_unstable: the stable ids
    spell a prefix of `text`, and each completion (a list of ids) appended to them spells a text
    that starts with `text`. Completions come sorted (tiktoken's come in hash order)."""
    from .encoding import _without_surrogates

    allowed, disallowed = encoding._policy.resolve(allowed_special, disallowed_special)
    encoding._check(text, disallowed)
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _without_surrogates(text)
    tokens = encoding._encode(text, allowed)
    last = _last_piece_token_len(encoding, text, allowed)
    if last == 0:
        return tokens, []
    token_bytes = encoding.decode_single_token_bytes

    def all_space(token: int) -> bool:
        return all(b in b" \n\t" for b in token_bytes(token))

    # cl100k's \s*[\r\n]+ can merge whitespace across a split: widen the piece over such tokens.
    if all_space(tokens[-last]):
        while last < len(tokens) and all_space(tokens[-last - 1]):
            last += 1
    unstable = encoding.decode_bytes(tokens[-last:])
    del tokens[-last:]
    completions: set[tuple[int, ...]] = set()
    if not unstable:
        return tokens, []
    completions.update((t,) for t in _starting_with(encoding, unstable))
    # Every other place the straddling token could start: the bytes before it, then any token
    # that starts with the rest; each such text encoded whole (valid UTF-8, in one native batch
    # call) or merged as raw bytes, and cut once it covers the unstable bytes.
    possibilities = [
        unstable[:i] + token_bytes(t) for i in range(1, len(unstable)) for t in _starting_with(encoding, unstable[i:])
    ]
    encoded: list[list[int]] = [[] for _ in possibilities]
    valid: list[tuple[int, str]] = []
    for k, data in enumerate(possibilities):
        try:
            valid.append((k, data.decode("utf-8")))
        except UnicodeDecodeError:
            encoded[k] = _bpe(encoding, data)
    for (k, _), ids in zip(valid, encoding.encode_ordinary_batch([text for _, text in valid])):
        encoded[k] = ids
    for ids in encoded:
        seq: list[int] = []
        size = 0
        for t in ids:
            seq.append(t)
            size += len(token_bytes(t))
            if size >= len(unstable):
                break
        completions.add(tuple(seq))
    if len(unstable) > 1:
        char, size = _last_char(unstable)
        if len(unstable) - size > 0 and char is not None and char in _WHITE_SPACE:
            completions.add(tuple(_bpe(encoding, unstable[:-size]) + _bpe(encoding, unstable[-size:])))
    return tokens, [list(c) for c in sorted(completions)]


@dataclass(frozen=True)
class TokenHealing:
    """A prompt backed off to a token boundary: feed `ids`, then let the model pick only among
    `allowed_next` (the tokens whose text starts with `prefix`) for its first token."""

    ids: list[int]
    prefix: str
    prefix_bytes: bytes
    allowed_next: list[int]


def token_healing(tokenizer: Any, prompt: str) -> TokenHealing:
    """`prompt` backed off to a token boundary for generation (token healing).

    With an Encoding: the stable ids of `encode_with_unstable` and the bytes of the unstable
    tail; `allowed_next` are the first tokens of its completions. With a Tokenizer (HF-style):
    the prompt's ids without their last token, whose text is the prefix, and the vocabulary
    tokens whose text (as it reads after other text) starts with it. A prompt with nothing to heal (empty, or ending in a
    special token) comes back whole with an empty prefix and no constraint."""
    from .encoding import Encoding

    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    if isinstance(tokenizer, Encoding):
        stable, completions = encode_with_unstable(tokenizer, prompt, disallowed_special=())
        if not completions:
            return TokenHealing(stable, "", b"", [])
        tail = tokenizer.encode_ordinary(prompt)[len(stable) :]
        data = tokenizer.decode_bytes(tail)
        first = sorted({c[0] for c in completions})
        return TokenHealing(stable, data.decode("utf-8", "replace"), data, first)
    encoded = tokenizer.encode(prompt, add_special_tokens=False)
    ids = list(encoded.ids)
    if not ids or encoded.special_tokens_mask[-1]:
        return TokenHealing(ids, "", b"", [])
    # The prefix runs from where the token before the last one ends: the spaces a pre-tokenizer
    # or trimmed offsets keep out of the last token's span belong to what comes next.
    start = encoded.offsets[-2][1] if len(ids) > 1 else 0
    prefix = prompt[start:]
    allowed = [i for i, text in enumerate(_token_texts(tokenizer)) if text is not None and text.startswith(prefix)]
    return TokenHealing(ids[:-1], prefix, prefix.encode("utf-8"), allowed)


def _token_texts(tokenizer: Any) -> list[str | None]:
    """Each id's text as it reads after other text (None for special tokens), cached: the
    decode of [anchor, id] less the anchor's, so decoders that strip a leading space or join
    "##" pieces show what the token adds mid-text."""
    cache = tokenizer.__dict__.get("_healing_texts")
    if cache is None:
        size = tokenizer.get_vocab_size(with_added_tokens=True)
        specials = {a.id for a in tokenizer.added_tokens if a.special}
        anchor = tokenizer.encode("a", add_special_tokens=False).ids[:1]
        base = tokenizer.decode(anchor, skip_special_tokens=False)
        texts = tokenizer.decode_batch([[*anchor, i] for i in range(size)], skip_special_tokens=False)
        cache = [
            None if i in specials or not text.startswith(base) else text[len(base) :] for i, text in enumerate(texts)
        ]
        tokenizer.__dict__["_healing_texts"] = cache
    return cache
