"""`Encoding`: tiktoken's public surface over tokenforge's native byte-level BPE.

Swapping `import tiktoken` for `import tokenforge as tiktoken` should just work; the ids are
tiktoken's exactly. Text is pre-split by a native scanner (for OpenAI's patterns) or by the
`regex` module (any other pattern), then merged natively with the GIL released.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, TypeVar

import regex

from . import _core
from .arguments import (
    MAX_VOCAB,
    UINT32_MAX,
    _batch_ids,
    _file_value,
    _token_id,
    _token_ids,
)
from .decoders.streaming import StreamDecoder
from .packed import PackedInts
from .pre_tokenizers.patterns import scanner_id
from .special import SpecialPolicy, SpecialSet
from .threads import resolve_threads

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

_T = TypeVar("_T")
_MAX_RANK = MAX_VOCAB  # as the native .tiktoken parser: a guard against absurd allocations


class TokenOffsets(NamedTuple):
    """What `Encoding.encode_with_offsets` returns."""

    ids: PackedInts
    offsets: PackedInts  # character index in the text where each token starts
    byte_offsets: PackedInts  # index into the text's UTF-8 where each token starts


class InvalidTokenError(KeyError, ValueError):
    """A token id that is not in the vocabulary (catchable as KeyError, like tiktoken's, or ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _batch_texts(texts: Sequence[str]) -> list[str]:
    """The texts of a batch call as a list (any iterable, read once); a lone str is a TypeError."""
    if isinstance(texts, str):
        raise TypeError("encode_*_batch expects a list of str, got a single str")
    return list(texts)


def _without_surrogates(text: str) -> str:
    # A Python str may hold lone surrogates, which have no UTF-8 form. Like tiktoken: join valid
    # surrogate pairs into their character and replace lone ones with U+FFFD.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _start_offsets(pieces: list[bytes]) -> tuple[list[int], list[int]]:
    """Where each token of `pieces` starts: its character index (a token that starts inside a
    character gets that character's index) and its byte index."""
    char_offsets, byte_offsets, chars, size = [], [], 0, 0
    for piece in pieces:
        char_offsets.append(max(0, chars - (0x80 <= piece[0] < 0xC0)))
        byte_offsets.append(size)
        chars += sum(1 for b in piece if not 0x80 <= b < 0xC0)
        size += len(piece)
    return char_offsets, byte_offsets


def _original_indices(text: str) -> list[int]:
    """For each character of `_without_surrogates(text)`, its index in `text`."""
    indices, i = [], 0
    while i < len(text):
        indices.append(i)
        pair = "\ud800" <= text[i] <= "\udbff" and i + 1 < len(text) and "\udc00" <= text[i + 1] <= "\udfff"
        i += 2 if pair else 1
    return indices


class Encoding:
    """A byte-level BPE tokenizer: split pattern + mergeable ranks + special tokens."""

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> None:
        if not isinstance(mergeable_ranks, dict):
            raise TypeError(f"mergeable_ranks must be a dict {{bytes: rank}}, got {type(mergeable_ranks).__name__}")
        other_ints = False
        for token, rank in mergeable_ranks.items():
            if not isinstance(token, bytes) or not token:
                raise ValueError(f"mergeable_ranks keys must be non-empty bytes, got {token!r}")
            if type(rank) is not int or not 0 <= rank < _MAX_RANK:
                _file_value(rank, f"rank of {token!r}", _MAX_RANK - 1)  # raises, unless a NumPy integer in range
                other_ints = True
        if other_ints:
            mergeable_ranks = {token: operator.index(rank) for token, rank in mergeable_ranks.items()}
        tokens: list[bytes] = [b""] * (max(mergeable_ranks.values(), default=-1) + 1)
        for token, rank in mergeable_ranks.items():
            if tokens[rank]:
                raise ValueError(f"rank {rank} is given to both {tokens[rank]!r} and {token!r}")
            tokens[rank] = token
        self._setup(
            name,
            pat_str,
            lambda specials, scanner: _core.Encoder(tokens, specials, scanner),
            special_tokens,
            explicit_n_vocab,
        )
        self._ranks_cache: dict[bytes, int] | None = dict(mergeable_ranks)

    @classmethod
    def _from_tiktoken_data(
        cls,
        name: str,
        pat_str: str,
        data: bytes,
        special_tokens: dict[str, int],
        *,
        rank_limit: int | None = None,
        explicit_n_vocab: int | None = None,
    ) -> Encoding:
        """Build straight from a .tiktoken file's bytes, parsed natively (fast start-up)."""
        self = cls.__new__(cls)
        limit = 2**64 - 1 if rank_limit is None else rank_limit
        self._setup(
            name,
            pat_str,
            lambda specials, scanner: _core.Encoder.from_tiktoken(data, limit, specials, scanner),
            special_tokens,
            explicit_n_vocab,
        )
        self._ranks_cache = None
        return self

    def _setup(
        self,
        name: str,
        pat_str: str,
        make_core: Callable[[list[tuple[bytes, int]], int], _core.Encoder],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None,
    ) -> None:
        if not isinstance(special_tokens, dict):
            raise TypeError(f"special_tokens must be a dict {{str: id}}, got {type(special_tokens).__name__}")
        self.name = name
        self._pat_str = pat_str
        specials = []
        for text, token_id in special_tokens.items():
            if not isinstance(text, str) or not text:
                raise ValueError(f"special token names must be non-empty str, got {text!r}")
            token_id = _file_value(token_id, f"the id of special token {text!r}", UINT32_MAX - 1)
            specials.append((text.encode("utf-8"), token_id))
        special_tokens = {text.decode("utf-8"): token_id for text, token_id in specials}
        self._special_tokens = special_tokens
        self._core = make_core(specials, scanner_id(pat_str))
        self.max_token_value = max(self._core.rank_count - 1, max(special_tokens.values(), default=0))
        if explicit_n_vocab is not None:
            n_ordinary = self._core.token_count
            if n_ordinary + len(special_tokens) != explicit_n_vocab:
                raise ValueError(
                    f"{name}: {n_ordinary} ordinary + {len(special_tokens)} special tokens "
                    f"!= explicit_n_vocab {explicit_n_vocab}"
                )
            if self.max_token_value != explicit_n_vocab - 1:
                raise ValueError(f"{name}: largest token id {self.max_token_value} != {explicit_n_vocab - 1}")
        self._regex = None if self._core.has_scanner else regex.compile(pat_str)
        self._policy = SpecialPolicy(special_tokens)
        self._special_by_bytes = {text.encode("utf-8"): token for text, token in special_tokens.items()}

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    # ---------------------------------------------------------------- encoding

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode `text`, treating special-token text as ordinary text.

        >>> get_encoding("cl100k_base").encode_ordinary("hello world")
        [15339, 1917]
        """
        return self._encode(text, None)

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> list[int]:
        """Encode `text`. Special-token text raises unless listed in `allowed_special`
        (then it becomes the special id) or left out of `disallowed_special` (then it is text).

        >>> enc = get_encoding("cl100k_base")
        >>> enc.encode("hi<|endoftext|>", allowed_special="all")
        [6151, 100257]
        """
        allowed, disallowed = self._policy.resolve(allowed_special, disallowed_special)
        self._check(text, disallowed)
        return self._encode(text, allowed)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """The stable ids of `text` and the id sequences its unsettled last piece could still
        become (tiktoken's; see tokenforge.unstable): the stable ids spell a prefix of `text`,
        and the stable ids plus any completion spell a text that starts with `text`.

        >>> stable, completions = get_encoding("gpt2").encode_with_unstable("hello fanta")
        >>> stable, [5113, 265] in completions
        ([31373], True)
        """
        from .unstable import encode_with_unstable

        return encode_with_unstable(self, text, allowed_special, disallowed_special)

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> npt.NDArray[np.uint32]:
        """Like `encode`, returning a uint32 numpy array (no Python int objects are made)."""
        allowed, disallowed = self._policy.resolve(allowed_special, disallowed_special)
        self._check(text, disallowed)
        if self._regex is not None:
            import numpy as np

            return np.asarray(self._encode(text, allowed), dtype=np.uint32)
        return self._retry_surrogates(self._core.encode_to_numpy, text, allowed)

    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> TokenOffsets:
        """Ids with, for each token, where it starts in `text`: `offsets` (character index)
        and `byte_offsets` (index into `text`'s UTF-8). Computed in the same native pass as
        the ids. The three are `PackedInts`: read-only sequences of 4-byte ints that compare
        equal to lists (`tolist()` makes one), so a text of hundreds of MB does not need
        gigabytes of int objects.

        A token that starts inside a multi-byte character gets that character's index, so
        tokens that split one character share its offset.

        >>> get_encoding("cl100k_base").encode_with_offsets("héllo")
        TokenOffsets(ids=PackedInts([71, 19010, 385]), offsets=PackedInts([0, 1, 3]), byte_offsets=PackedInts([0, 1, 4]))
        """
        allowed, disallowed = self._policy.resolve(allowed_special, disallowed_special)
        self._check(text, disallowed)
        if self._regex is not None:
            ids = self._encode(text, allowed)
            found = TokenOffsets(*map(PackedInts, (ids, *_start_offsets(self.decode_tokens_bytes(ids)))))
        else:
            try:
                return TokenOffsets(*map(PackedInts, self._core.encode_with_offsets(text, allowed)))
            except UnicodeEncodeError:
                found = TokenOffsets(
                    *map(PackedInts, self._core.encode_with_offsets(_without_surrogates(text), allowed))
                )
        if _has_surrogates(text):
            # A repaired surrogate pair is one character in the encoded text but two in `text`
            # (byte offsets stay those of the repaired text, which has UTF-8).
            original = _original_indices(text)
            found = found._replace(offsets=PackedInts(original[o] for o in found.offsets))
        return found

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int | None = None) -> list[list[int]]:
        """`encode_ordinary` over many texts on native threads: `num_threads` None for every core,
        else an int >= 1 (capped at tokenforge.threads.MAX_THREADS)."""
        return self._encode_batch(_batch_texts(text), None, num_threads)

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> list[list[int]]:
        """`encode` over many texts on native threads (`num_threads` as in encode_ordinary_batch)."""
        allowed, disallowed = self._policy.resolve(allowed_special, disallowed_special)
        texts = _batch_texts(text)  # once: a generator would be spent by the check below
        if disallowed is not None:
            for t in texts:
                self._check(t, disallowed)
        return self._encode_batch(texts, allowed, num_threads)

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of text that is exactly one token (ordinary or special); KeyError otherwise."""
        if isinstance(text_or_bytes, str):
            if text_or_bytes in self._special_tokens:
                return self._special_tokens[text_or_bytes]
            data = text_or_bytes.encode("utf-8")
        else:
            data = bytes(text_or_bytes)
        token = self._core.find(data)
        if token is None:
            token = self._special_by_bytes.get(data)
        if token is None:
            raise KeyError(text_or_bytes)
        return token

    def _encode(self, text: str, allowed: _core.SpecialMatcher | None) -> list[int]:
        if self._regex is not None:
            return self._retry_surrogates(self._encode_with_regex, text, allowed)
        # The hot path: no closure; the native call itself rejects non-str with a TypeError.
        try:
            return self._core.encode(text, allowed)
        except UnicodeEncodeError:
            return self._core.encode(_without_surrogates(text), allowed)

    def _encode_batch(
        self, texts: list[str], allowed: _core.SpecialMatcher | None, num_threads: int | None
    ) -> list[list[int]]:
        threads = resolve_threads(num_threads)
        if self._regex is not None:
            return [self._encode(t, allowed) for t in texts]
        try:
            return self._core.encode_batch(texts, allowed, threads)
        except UnicodeEncodeError:
            return self._core.encode_batch([_without_surrogates(t) for t in texts], allowed, threads)

    def _encode_with_regex(self, text: str, allowed: _core.SpecialMatcher | None) -> list[int]:
        # Patterns without a native scanner: split around allowed special tokens (one native
        # pass), cut each part with the pattern (whole matches, even if it has groups), merge.
        ids: list[int] = []
        pattern = self._regex
        assert pattern is not None  # only patterns without a native scanner come here
        for part in allowed.split(text) if allowed is not None else (text,):
            if isinstance(part, int):
                ids.append(part)
            elif part:
                ids += self._core.encode_pieces([m.group() for m in pattern.finditer(part)])
        return ids

    @staticmethod
    def _retry_surrogates(call: Callable[..., _T], text: str, *args: Any) -> _T:
        """call(text, *args), again on the text without lone surrogates where it cannot be UTF-8."""
        if not isinstance(text, str):
            raise TypeError(f"expected str, got {type(text).__name__}")
        try:
            return call(text, *args)
        except UnicodeEncodeError:
            return call(_without_surrogates(text), *args)

    def _check(self, text: str, disallowed: _core.SpecialMatcher | None) -> None:
        if disallowed is not None:
            self._retry_surrogates(self._policy.check, text, disallowed)

    # ---------------------------------------------------------------- decoding

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of `tokens` (ints, NumPy integers or a 1-D NumPy integer array), concatenated.
        Unknown ids raise InvalidTokenError."""
        if type(tokens) is not list:
            tokens = _token_ids(tokens, "tokens")
        try:
            return self._core.decode_bytes(tokens)
        except KeyError as e:
            raise InvalidTokenError(f"{self.name}: {e.args[0]} (valid ids are 0..{self.max_token_value})") from None

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """Text of `tokens`; bytes that are not valid UTF-8 become U+FFFD unless `errors` says otherwise."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token."""
        token = _token_id(token, "token")  # TypeError for non-integers, as tiktoken; numpy ints are fine
        data = self._core.token_bytes(token) if 0 <= token < 2**32 else None
        if data is None:
            raise InvalidTokenError(f"{self.name}: invalid token id {token!r}")
        return data

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token."""
        ids = _token_ids(tokens, "tokens")
        token_bytes = self._core.token_bytes
        pieces = [token_bytes(t) if type(t) is int and 0 <= t < 2**32 else None for t in ids]
        if None in pieces:  # (other integers converted, a bad id named: one token at a time)
            return [self.decode_single_token_bytes(t) for t in ids]
        return pieces  # type: ignore[return-value]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """Text of `tokens` and the character offset where each token starts (a token that
        starts inside a character gets that character's offset)."""
        pieces = self.decode_tokens_bytes(tokens)
        return b"".join(pieces).decode("utf-8", errors="strict"), _start_offsets(pieces)[0]

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int | None = None
    ) -> list[str]:
        """`decode` over many token lists (or a 2-D NumPy integer array). Decoding is a memory
        copy per token, so it runs on the calling thread; `num_threads` is checked and accepted
        for tiktoken compatibility."""
        resolve_threads(num_threads)
        return [self.decode(tokens, errors=errors) for tokens in _batch_ids(batch)]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int | None = None) -> list[bytes]:
        """`decode_bytes` over many token lists (on the calling thread; `num_threads` is
        checked and accepted for tiktoken compatibility)."""
        resolve_threads(num_threads)
        return [self.decode_bytes(tokens) for tokens in _batch_ids(batch)]

    def stream_decoder(self, errors: str = "replace") -> StreamDecoder:
        """A decoder that takes ids one at a time and emits text only at character boundaries."""
        return StreamDecoder(self.decode_single_token_bytes, errors=errors)

    # ---------------------------------------------------------------- vocabulary

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        if self._ranks_cache is None:
            self._ranks_cache = {t: r for r, t in enumerate(self._core.ordinary_tokens()) if t}
        return self._ranks_cache

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token, sorted."""
        return sorted(t for t in self._core.ordinary_tokens() if t)

    @property
    def eot_token(self) -> int:
        return self._special_tokens["<|endoftext|>"]

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens)

    def is_special_token(self, token: int) -> bool:
        return _token_id(token, "token") in self._special_tokens.values()

    @property
    def n_vocab(self) -> int:
        """One more than the largest token id."""
        return self.max_token_value + 1

    def __getstate__(self) -> Any:
        from .registry import is_builtin

        if is_builtin(self):
            return self.name
        return {
            "name": self.name,
            "pat_str": self._pat_str,
            "mergeable_ranks": self._mergeable_ranks,
            "special_tokens": self._special_tokens,
        }

    def __setstate__(self, value: Any) -> None:
        from .registry import get_encoding

        if isinstance(value, str):
            self.__dict__ = get_encoding(value).__dict__
        else:
            Encoding.__init__(self, **value)
