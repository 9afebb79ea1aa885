"""Added tokens: the one home of what a tokenizer matches in raw text before its model runs
(special tokens such as "[CLS]" or "<|endoftext|>", and user-added words). The matching itself is
native (src/native/added_tokens/special_matcher.h); which of them a call may match is the
special-token policy of `special.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .arguments import UINT32_MAX, _check_bool, _check_int


@dataclass(frozen=True)
class AddedToken:
    """A token matched in the raw text before normalization (leftmost, longest first), as HF's
    added tokens with normalized=False; `special` ones are dropped by decode by default."""

    content: str
    id: int
    special: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise TypeError(f"an added token's content must be a str, got {type(self.content).__name__}")
        if not self.content:
            raise ValueError("an added token's content must not be empty")
        # frozen: the checked values (NumPy integers read as ints) are set past the dataclass guard
        object.__setattr__(
            self, "id", _check_int(self.id, f"the id of added token {self.content!r}", 0, UINT32_MAX - 1)
        )
        object.__setattr__(self, "special", _check_bool(self.special, f"special (of added token {self.content!r})"))
