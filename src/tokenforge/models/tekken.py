"""Mistral's tekken model (the `tekken.json` files mistral-common's Tekkenizer reads): a
tiktoken-style byte-level BPE whose ids sit above a block of special tokens.

Ids 0 .. num_special_tokens - 1 are the special tokens (`<unk>`, `<s>`, `</s>`, `[INST]`, ...,
then `<SPECIAL_n>` fillers up to the file's default_num_special_tokens); the BPE's rank r is id
r + num_special_tokens, so the 256 byte tokens come right after the special ones. Text is split
by the file's pattern (tekken's, o200k's without contractions and with single digits, runs on a
built-in scanner: pre_tokenizers/patterns.py) and merged by rank, exactly as tiktoken does for
mistral-common. Special-token text in the input is plain text; bos and eos are added around a
text, not matched in it. Decoding follows the Tekkenizer's `SpecialTokenPolicy` ("ignore",
"keep", "raise"): runs of ordinary ids are decoded one run at a time (a special id between the
bytes of one character leaves two U+FFFD, as there).

`Tekken` holds the model as plain data; formats/tekken.py reads and writes the file, and
pipeline/compile.py runs it on the byte-level BPE kernel (`Encoder` with the shifted ranks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..encoding import Encoding

# mistral-common's SpecialTokenPolicy values (its enum also takes 0, 1, 2).
SPECIAL_TOKEN_POLICIES = ("ignore", "keep", "raise")


def special_token_policy(value: Any) -> str:
    """`value` ("ignore", "keep", "raise", 0, 1, 2, or mistral-common's enum) as its name;
    ValueError naming the choices otherwise."""
    value = getattr(value, "value", value)
    if type(value) is int and 0 <= value < 3:
        return SPECIAL_TOKEN_POLICIES[value]
    if isinstance(value, str) and value in SPECIAL_TOKEN_POLICIES:
        return value
    raise ValueError(f"special_token_policy {value!r} is not one of 'ignore', 'keep', 'raise'")


@dataclass(frozen=True, eq=False)
class Tekken:
    """A tekken tokenizer: `encoding` (ranks shifted past the special ids, the special tokens
    by id) and what the file says around it."""

    encoding: Encoding
    special_tokens: tuple[str, ...]  # by id: token_str of ids 0 .. num_special_tokens - 1
    control: tuple[bool, ...]  # is_control of each special token
    pattern: str
    version: str  # "v3", "v7", "v11", "v13", ...
    vocab_size: int  # default_vocab_size: special tokens and the ranks kept
    num_vocab_tokens: int | None = None  # the file's config.num_vocab_tokens (informative)
    image: dict[str, Any] | None = None  # the file's image (or multimodal) config
    audio: dict[str, Any] | None = None  # the file's audio config
    extra: dict[str, Any] = field(default_factory=dict)  # other top-level fields, kept for saving
    name: str = "tekken"

    @property
    def num_special_tokens(self) -> int:
        return len(self.special_tokens)

    def special_id(self, token: str) -> int | None:
        """The id of special token `token`, or None."""
        try:
            return self.special_tokens.index(token)
        except ValueError:
            return None

    @property
    def bos_id(self) -> int | None:
        return self.special_id("<s>")

    @property
    def eos_id(self) -> int | None:
        return self.special_id("</s>")

    @property
    def pad_id(self) -> int | None:
        return self.special_id("<pad>")

    @property
    def unk_id(self) -> int | None:
        return self.special_id("<unk>")

    def template(self, add_bos: bool, add_eos: bool) -> Any:
        """The TemplateProcessing that puts bos / eos around each text (and around each of a
        pair), as the tekken kernel runs it and a tokenizer.json holds it."""
        from ..processors.template import Piece, TemplateProcessing

        bos_id, eos_id, names = self.bos_id, self.eos_id, self.special_tokens

        def around(sequence: int) -> list[Piece]:
            bos = [(False, 0, sequence, names[bos_id])] if add_bos and bos_id is not None else []
            eos = [(False, 0, sequence, names[eos_id])] if add_eos and eos_id is not None else []
            return [*bos, (True, sequence, sequence, ""), *eos]

        return TemplateProcessing(
            tuple(around(0)), tuple(around(0) + around(1)), {names[i]: [i] for i in (bos_id, eos_id) if i is not None}
        )
