"""Added tokens: the one home of what a tokenizer matches in the text before its model runs
(special tokens such as "[CLS]" or "<|endoftext|>", and user-added words), with HF's flags
(single_word, lstrip, rstrip, normalized). The matching itself is native
(src/native/added_tokens/special_matcher.h, HF's AddedVocabulary); which of them a call may
match is the special-token policy of `special.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .arguments import UINT32_MAX, _check_bool, _check_int


@dataclass(frozen=True)
class AddedToken:
    """A token matched in the text before the model runs, as HF's AddedToken: leftmost, longest
    first; `special` ones are dropped by decode by default. `single_word`: matched only where no
    word character touches it; `lstrip` / `rstrip`: the whitespace before / after it is part of
    its match; `normalized`: matched by its normalized text in the normalized text, after the
    other tokens (default: not `special`, as HF)."""

    content: str
    id: int
    special: bool = True
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = None  # type: ignore[assignment]  # None: not special (resolved below)

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise TypeError(f"an added token's content must be a str, got {type(self.content).__name__}")
        if not self.content:
            raise ValueError("an added token's content must not be empty")
        # frozen: the checked values (NumPy integers read as ints) are set past the dataclass guard;
        # plain ints and bools in range (what a file gives) need no conversion
        if not (type(self.id) is int and 0 <= self.id < UINT32_MAX):
            object.__setattr__(
                self, "id", _check_int(self.id, f"the id of added token {self.content!r}", 0, UINT32_MAX - 1)
            )
        if type(self.special) is not bool:
            object.__setattr__(self, "special", _check_bool(self.special, f"special (of added token {self.content!r})"))
        if self.normalized is None:
            object.__setattr__(self, "normalized", not self.special)
        for flag in ("single_word", "lstrip", "rstrip", "normalized"):
            if type(getattr(self, flag)) is bool:
                continue
            object.__setattr__(
                self, flag, _check_bool(getattr(self, flag), f"{flag} (of added token {self.content!r})")
            )

    @property
    def flags(self) -> int:
        """The flags as the native matcher takes them (added_tokens/special_matcher.h)."""
        return self.single_word | self.lstrip << 1 | self.rstrip << 2 | self.normalized << 3

    def to_json(self) -> dict[str, object]:
        """The token as tokenizer.json lists it in added_tokens."""
        return {
            "id": self.id,
            "content": self.content,
            "single_word": self.single_word,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "normalized": self.normalized,
            "special": self.special,
        }
