"""One special-token policy for every surface: which special-token text becomes a special id
(`allowed_special`), which raises (`disallowed_special`), and the rest is plain text.

The defaults follow tiktoken: nothing is allowed and everything else is disallowed, so text
such as "<|endoftext|>" coming from a user cannot silently turn into a control token.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Literal, Union

from . import _core

if TYPE_CHECKING:
    from .added_tokens import AddedToken

SpecialSet = Union[Literal["all"], Collection[str]]


class DisallowedSpecialTokenError(ValueError):
    """Text contains a special token that the caller did not allow."""

    def __init__(self, token: str) -> None:
        super().__init__(
            f"Encountered text corresponding to disallowed special token {token!r}.\n"
            f"To encode it as the special token, pass it in `allowed_special`, e.g. "
            f'`allowed_special={{{token!r}}}` (or "all").\n'
            f"To encode it as ordinary text, leave it out of the check: "
            f"`disallowed_special=(enc.special_tokens_set - {{{token!r}}})`, or `disallowed_special=()` "
            f"to check for no special tokens at all."
        )
        self.token = token


# How added tokens are matched, by name: the native matcher's flag (see SpecialPolicy).
ADDED_TOKEN_RULES = {"hf": 0, "python": 32, "llama": 64, "siglip": 32 | 128}


class SpecialPolicy:
    """Turns (allowed_special, disallowed_special) arguments into native matchers, cached.

    `added` (the added tokens of a tokenizer.json pipeline, by content) makes the matchers of
    allowed tokens HF's: every added token is searched for with its flags (single_word, lstrip,
    rstrip, normalized: by its normalized text `patterns` gives), and those not allowed are found
    but left as text (as HF's split_special_tokens leaves special tokens), so that they hide the
    tokens overlapping them as in HF. `rules` (ADDED_TOKEN_RULES) says how: HF's ("hf": leftmost,
    longest first; lstrip and rstrip take Unicode's White_Space), the same with Python's
    whitespace ("python": str.isspace, also \x1c-\x1f, as transformers' Python classes strip),
    the same taking ASCII punctuation and U+2581 too ("siglip": SiglipTokenizer removes the
    punctuation of each text between added tokens, strips it, and reads U+2581 as a space),
    or llama.cpp's partition ("llama": each token in turn, longest first, in the text no longer
    token took; lstrip and rstrip take C's isspace, the six ASCII spaces; tokens not allowed are
    not looked for, as its parse_special off)."""

    _CACHE_LIMIT = 64

    def __init__(
        self,
        special_tokens: dict[str, int],
        added: Sequence[AddedToken] | None = None,
        patterns: dict[str, str] | None = None,
        rules: str = "hf",
    ) -> None:
        if rules not in ADDED_TOKEN_RULES:
            raise ValueError(
                f"added_token_rules must be one of {', '.join(map(repr, ADDED_TOKEN_RULES))}, got {rules!r}"
            )
        self._rule_flags = ADDED_TOKEN_RULES[rules]
        self.special_tokens = dict(special_tokens)
        self.names = frozenset(special_tokens)
        self._added = None if added is None else {a.content: a for a in added}
        self._patterns = patterns or {}
        self._matchers: dict[frozenset[str], _core.SpecialMatcher | None] = {}
        self._added_matchers: dict[frozenset[str], _core.SpecialMatcher | None] = {}
        self.default = (None, self.matcher(self.names))

    def matcher(self, tokens: frozenset[str], name: str = "special tokens") -> _core.SpecialMatcher | None:
        """A matcher for `tokens` (unknown strings get id 0: only searched for, never emitted)."""
        if not tokens:
            return None
        found = self._matchers.get(tokens)
        if found is None:
            for t in tokens:
                if not isinstance(t, str):
                    raise TypeError(f"{name} must hold only str, got {type(t).__name__} {t!r}")
            if len(self._matchers) >= self._CACHE_LIMIT:
                self._matchers.clear()
            found = _core.SpecialMatcher(
                [(t.encode("utf-8", "surrogatepass"), self.special_tokens.get(t, 0)) for t in tokens]
            )
            self._matchers[tokens] = found
        return found

    def allowed_matcher(self, tokens: frozenset[str], name: str = "allowed_special") -> _core.SpecialMatcher | None:
        """The matcher that emits `tokens` (names of this policy): `matcher`'s, or with `added`,
        every added token with its flags, those not in `tokens` found but skipped."""
        if self._added is None:
            return self.matcher(tokens, name)
        if not tokens:
            return None
        found = self._added_matchers.get(tokens)
        if found is None:
            if len(self._added_matchers) >= self._CACHE_LIMIT:
                self._added_matchers.clear()
            entries = []
            for content, a in self._added.items():
                flags = a.flags | (0 if content in tokens else 16) | self._rule_flags
                text = self._patterns.get(content, content) if a.normalized else content
                entries.append((text.encode("utf-8", "surrogatepass"), a.id, flags))
            found = _core.SpecialMatcher(entries)
            self._added_matchers[tokens] = found
        return found

    def resolve(
        self, allowed_special: SpecialSet, disallowed_special: SpecialSet
    ) -> tuple[_core.SpecialMatcher | None, _core.SpecialMatcher | None]:
        """(matcher of allowed tokens to emit, matcher of text that must raise)."""
        if not allowed_special and disallowed_special == "all":
            return self.default
        if allowed_special == "all":
            allowed = self.names
        else:
            _check_collection(allowed_special, "allowed_special")
            # Like tiktoken, names that are not special tokens of this encoding are ignored.
            allowed = self.names.intersection(allowed_special)
        if disallowed_special == "all":
            disallowed = self.names - allowed
        else:
            _check_collection(disallowed_special, "disallowed_special")
            disallowed = frozenset(disallowed_special)
        return self.allowed_matcher(allowed), self.matcher(disallowed, "disallowed_special")

    @staticmethod
    def check(text: str, disallowed: _core.SpecialMatcher | None) -> None:
        if disallowed is not None:
            found = disallowed.find(text)
            if found is not None:
                raise DisallowedSpecialTokenError(found.decode("utf-8", "replace"))


def _check_collection(value: object, name: str) -> None:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise TypeError(f'{name} must be "all" or a collection of strings, got {type(value).__name__} {shown}')
