"""Tokens as they sit in the text: what the token visualizer page (server/) and `tokenforge
compare` show.

`token_view(tokenizer, text)` encodes `text` and returns each token with what it covers, as
parts a page can render without guessing: `["t", text]`, the run of the text the token covers;
`["b", "E6 97"]`, bytes of a character the token holds only part of (byte-level BPE splits "日"
into pieces; the byte parts of neighbouring tokens together make the character); `["x", token]`,
a token that covers no text of its own, shown by its vocabulary string (a template's [CLS], a
byte-fallback token sharing its character with the one before). Text no token covers (the spaces
BERT's pre-tokenizer drops) comes as gaps. So the text and byte parts and the gaps, in order, are
the text's bytes exactly (`spelled`): a page shows every character, and none twice.

Both tokenizer surfaces work: an `Encoding` (tiktoken's: tokens are byte strings that concatenate
to the text's bytes; special-token text is plain text unless `special="match"`) and a `Tokenizer`
(HF's: tokens carry character offsets into the text; added tokens match as the file says).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TokenView", "differences", "shown", "spelled", "token_ends", "token_view"]


@dataclass
class TokenView:
    """One tokenizer's view of a text: `items` in text order, each either a token
    {"id", "token", "parts"[, "special"]} or a gap {"gap": text} (parts: see the module doc;
    "token" is the vocabulary string, or an Encoding token's bytes in hex). `count` tokens;
    `chars` and `bytes` of the text."""

    name: str
    count: int
    chars: int
    bytes: int
    items: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "count": self.count,
            "chars": self.chars,
            "bytes": self.bytes,
            "chars_per_token": self.chars / self.count if self.count else None,
            "bytes_per_token": self.bytes / self.count if self.count else None,
            "items": self.items,
        }


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02X}" for b in data)


def _byte_parts(data: bytes) -> list[list[str]]:
    """`data` as parts: whole UTF-8 characters as text, anything else as hex bytes."""
    parts: list[list[str]] = []
    i, n = 0, len(data)
    while i < n:
        # the longest run from i that decodes as whole characters
        j = i
        while j < n:
            lead = data[j]
            size = (
                1
                if lead < 0x80
                else 2
                if 0xC2 <= lead < 0xE0
                else 3
                if 0xE0 <= lead < 0xF0
                else 4
                if 0xF0 <= lead < 0xF5
                else 0
            )
            if size == 0 or j + size > n:
                break
            try:
                data[j : j + size].decode("utf-8")
            except UnicodeDecodeError:
                break
            j += size
        if j > i:
            parts.append(["t", data[i:j].decode("utf-8")])
            i = j
        else:  # bytes up to the next character start
            k = i + 1
            while k < n and 0x80 <= data[k] < 0xC0:
                k += 1
            parts.append(["b", _hex(data[i:k])])
            i = k
    return parts


def _encoding_view(encoding: Any, text: str, special: str, name: str) -> TokenView:
    if special == "match":
        ids = encoding.encode(text, allowed_special="all")
    else:
        ids = encoding.encode_ordinary(text)
    specials = {encoding.encode_single_token(s) for s in getattr(encoding, "special_tokens_set", ())}
    items: list[dict[str, Any]] = []
    for i in ids:
        data = encoding.decode_single_token_bytes(i)
        item: dict[str, Any] = {"id": i, "token": _hex(data), "parts": _byte_parts(data)}
        if i in specials:
            item["special"] = True
        items.append(item)
    return TokenView(name, len(ids), len(text), len(text.encode("utf-8")), items)


def _tokenizer_view(tokenizer: Any, text: str, special: str, name: str) -> TokenView:
    # The policy per call (never by changing the tokenizer, which other threads may be using).
    allowed: Any = "all" if special == "match" else set()
    encoded = tokenizer.encode(text, add_special_tokens=False, allowed_special=allowed, disallowed_special=set())
    items: list[dict[str, Any]] = []
    at = 0  # characters of the text shown so far
    specials = {a.id for a in tokenizer.added_tokens if a.special}
    mask = [m or token_id in specials for m, token_id in zip(encoded.special_tokens_mask, encoded.ids)]
    for i, (token_id, token, (start, end)) in enumerate(zip(encoded.ids, encoded.tokens, encoded.offsets)):
        item: dict[str, Any] = {"id": token_id, "token": token}
        if mask[i]:
            item["special"] = True
        if start > at:
            items.append({"gap": text[at:start]})
        if end > max(start, at):
            item["parts"] = [["t", text[max(start, at) : end]]]
            at = end
        else:  # covers nothing new: a part of a character another token shows, or no text at all
            item["parts"] = [["x", token]]
        items.append(item)
    if at < len(text):
        items.append({"gap": text[at:]})
    return TokenView(name, len(encoded.ids), len(text), len(text.encode("utf-8")), items)


def token_view(tokenizer: Any, text: str, *, special: str = "text", name: str = "") -> TokenView:
    """`text` as `tokenizer` (an Encoding or a Tokenizer) splits it; see the module doc.
    `special`: "text" treats special-token text as plain text (the default: a pasted "<|endoftext|>"
    is not the special token), "match" matches it as the tokenizer's special tokens."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if special not in ("text", "match"):
        raise ValueError(f'special must be "text" or "match", got {special!r}')
    from .encoding import Encoding

    if isinstance(tokenizer, Encoding):
        return _encoding_view(tokenizer, text, special, name or tokenizer.name)
    return _tokenizer_view(tokenizer, text, special, name)


def spelled(view: TokenView) -> bytes:
    """The bytes a view shows, in order (text and byte parts, and gaps): the text's UTF-8."""
    out = bytearray()
    for item in view.items:
        if "gap" in item:
            out += item["gap"].encode("utf-8")
            continue
        for kind, value in item["parts"]:
            if kind == "t":
                out += value.encode("utf-8")
            elif kind == "b":
                out += bytes.fromhex(value)
    return bytes(out)


def shown(data: bytes) -> str:
    """`data` as text, with bytes that are not whole characters as <E8 AA>."""
    return "".join(value if kind == "t" else f"<{value}>" for kind, value in _byte_parts(data))


def token_ends(view: TokenView) -> list[int]:
    """The byte offset in the text where each token of `view` ends (a token covering no text of
    its own ends where the one before it does)."""
    ends: list[int] = []
    at = 0
    for item in view.items:
        if "gap" in item:
            at += len(item["gap"].encode("utf-8"))
            continue
        for kind, value in item["parts"]:
            if kind == "t":
                at += len(value.encode("utf-8"))
            elif kind == "b":
                at += len(bytes.fromhex(value))
        ends.append(at)
    return ends


def differences(views: Sequence[TokenView], text: str, limit: int = 20) -> list[dict[str, Any]]:
    """Where the tokenizers of `views` (all of the same `text`) split differently: the stretches
    between the token boundaries they all share, in which some of them cut elsewhere; each as
    {"start", "end" (bytes), "text", "splits": {name: [piece, ...]}}, the first `limit`.
    Pieces holding part of a character show those bytes in hex (see `shown`)."""
    data = text.encode("utf-8")
    cuts = [sorted(set(token_ends(v)) | {0, len(data)}) for v in views]
    shared = sorted(set.intersection(*(set(c) for c in cuts))) if cuts else []
    found: list[dict[str, Any]] = []
    for start, end in zip(shared, shared[1:]):
        inside = [[c for c in cut if start < c < end] for cut in cuts]
        if all(i == inside[0] for i in inside):
            continue
        splits = {}
        for view, points in zip(views, inside):
            edges = [start, *points, end]
            splits[view.name] = [shown(data[a:b]) for a, b in zip(edges, edges[1:])]
        found.append({"start": start, "end": end, "text": data[start:end].decode("utf-8", "replace"), "splits": splits})
        if len(found) >= limit:
            break
    return found
