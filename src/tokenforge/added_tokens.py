"""Added tokens: the one home of what a tokenizer matches in the text before its model runs
(special tokens such as "[CLS]" or "<|endoftext|>", and user-added words), with HF's flags
(single_word, lstrip, rstrip, normalized). The matching itself is native
(src/native/added_tokens/special_matcher.h, HF's AddedVocabulary); which of them a call may
match is the special-token policy of `special.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from .arguments import UINT32_MAX, _check_bool, _check_int

# The flags of an added token besides `special`, in HF's order (AddedToken in added_vocabulary.rs).
FLAGS = ("single_word", "lstrip", "rstrip", "normalized")


@dataclass(frozen=True)
class AddedToken:
    """A token matched in the text before the model runs, as HF's AddedToken: leftmost, longest
    first; `special` ones are dropped by decode by default. `single_word`: matched only where no
    word character touches it; `lstrip` / `rstrip`: the whitespace before / after it is part of
    its match; `normalized`: matched by its normalized text in the normalized text, after the
    other tokens. The defaults are HF's AddedToken::from(content, special): the flags false,
    `normalized` not `special`; this is the one place tokenforge writes them (a file's entry or
    a config's that leaves a flag out takes them here)."""

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
        for flag in FLAGS:
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


@dataclass(frozen=True)
class AddedExtras:
    """What HF's AddedVocabulary holds beyond its tokens by id, after a tokenizer.json listed a
    content twice or gave two contents one id (`AddedVocabulary` below builds it as HF does):
    `contents`, content -> id of the added contents whose id now shows another token (HF's
    added_tokens_map keeps them: token_to_id and get_vocab still give that id, but they are no
    longer matched); `special`, the contents an earlier entry made special whose token is no
    longer special (HF's special_tokens_set never forgets one: decode's skip_special_tokens
    still drops the text, and split_special_tokens still leaves it as text); `hidden`, model
    token -> id where an added token of another content took the id (a vocabulary with an id gap
    below its size: HF names the id by the added token, but the model's own tokens of that id
    still show the model's text, and get_vocab keeps them); `renamed`, the contents an earlier
    entry added normalized whose token is no longer normalized (HF keeps the normalized text it
    named them by: id_to_token and decode show it, though the token is matched as it is). HF's
    save writes only the tokens by id, so `contents`, `special` and `renamed` do not survive a
    save."""

    contents: Mapping[str, int] = field(default_factory=dict)
    special: frozenset[str] = frozenset()
    hidden: Mapping[str, int] = field(default_factory=dict)
    renamed: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.contents or self.special or self.hidden or self.renamed)


class AddedVocabulary:
    """HF's AddedVocabulary.add_tokens (tokenizer/added_vocabulary.rs) over tokens already added:
    each token added takes the id its content already has (as an added token, else in the
    model's vocabulary), or else the next id, counted once per call from the model's size (its
    number of entries) or past the highest added id where that is higher; it replaces whatever
    token that id showed; a content added again with the same flags changes nothing, an empty
    one is skipped. A file's added tokens are one such call (HF's deserializer ignores their
    listed ids), and so is each Tokenizer.add_tokens."""

    def __init__(
        self,
        tokens: Iterable[AddedToken],
        extras: AddedExtras | None,
        model_id: Callable[[str], int | None],
        model_token: Callable[[int], str | None],
        model_size: int,
    ) -> None:
        self.by_id: dict[int, AddedToken] = {a.id: a for a in tokens}  # HF's added_tokens_map_r
        self.by_content: dict[str, int] = {
            **(extras.contents if extras else {}),
            **{a.content: a.id for a in self.by_id.values()},
        }
        self.special: set[str] = {a.content for a in self.by_id.values() if a.special} | set(
            extras.special if extras else ()
        )
        # the contents ever added normalized (HF names them by their normalized text from then on)
        self.normalized: set[str] = {a.content for a in self.by_id.values() if a.normalized} | set(
            extras.renamed if extras else ()
        )
        self.model_id, self.model_token = model_id, model_token
        top = max(self.by_id, default=None)
        self.next_id = model_size if top is None or (top < model_size and model_size > 0) else top + 1

    def add(self, content: str, special: bool, **flags: bool) -> int | None:
        """Adds one token as HF does; its id, or None where HF skips it."""
        if not content:
            return None
        i = self.by_content.get(content)
        token = AddedToken(content, self.next_id if i is None else i, special, **flags)
        if i is not None and self.by_id.get(i) == token:
            return None
        if i is None:
            i = self.model_id(content)
        if i is None:
            i, self.next_id = self.next_id, self.next_id + 1
        if token.id != i:
            token = AddedToken(content, i, special, **flags)
        self.by_content[content] = i
        if special:
            self.special.add(content)
        if token.normalized:
            self.normalized.add(content)
        self.by_id[i] = token
        return i

    def tokens(self) -> tuple[AddedToken, ...]:
        """The tokens by id (HF's added_tokens_decoder, as its save lists them)."""
        return tuple(sorted(self.by_id.values(), key=lambda a: a.id))

    def extras(self) -> AddedExtras | None:
        shown = {a.content for a in self.by_id.values()}
        hidden = {}
        for i, a in self.by_id.items():
            own = self.model_token(i)
            if own and own != a.content:
                hidden[own] = i
        extras = AddedExtras(
            {c: i for c, i in self.by_content.items() if c not in shown},
            frozenset(self.special - {a.content for a in self.by_id.values() if a.special}),
            hidden,
            frozenset(a.content for a in self.by_id.values() if a.content in self.normalized and not a.normalized),
        )
        return extras if extras else None


def token_flags(entry: Mapping[str, Any], special: bool, fail: Callable[[str, str], NoReturn]) -> dict[str, bool]:
    """The flags of an added token described by `entry` (a tokenizer_config.json object, read as
    tokenizers' Python AddedToken(**entry) reads it): `special` and the flags `entry` gives, each
    true or false; the others left to AddedToken's defaults (the one place they are written).
    `fail(field, why)` raises for a value that is not a bool (tokenizers raises TypeError)."""
    flags = {"special": special}
    for flag in FLAGS:
        if flag in entry:
            if not isinstance(entry[flag], bool):
                fail(flag, f"must be true or false, got {entry[flag]!r}")
            flags[flag] = entry[flag]
    return flags


def config_added_tokens(
    config: Mapping[str, Any],
    path: str,
    named: Container[str] = (),
    listed: Any = None,
    legacy: Iterable[tuple[str, int, bool]] = (),
) -> list[AddedToken]:
    """The added_tokens_decoder of a tokenizer_config.json (`config`, read from `path`) in key
    order, as transformers adds them over tokenizer.json's (tokenizers' AddedToken(**entry): a
    flag left out takes AddedToken's default); [] where there is none. A config without one (an
    older folder) has, in its place, the legacy added_tokens.json's entries (`legacy`: (text,
    index, special) in file order, each AddedToken(text, lstrip/rstrip false, normalized = not
    special), as transformers' _from_pretrained builds them), then tokenizer.json's own
    added_tokens list, `listed`, by each entry's listed id (replacing an added_tokens.json entry
    of the same index), as transformers reads them. An entry whose content is in `named` (the
    named special tokens' texts) is made special before its defaults apply, as transformers sets
    `special` on it.

    A key is any integer Python's int() reads ("-3", "4294967296", " 7"): transformers keeps
    the entries in a dict by int(key) (a later key of the same value replaces the earlier one)
    and adds them sorted by it, each taking the id adding gives it (the key is never an id).
    Each token's `id` here is its key where that is a u32, else 0. FormatError naming the entry
    for what transformers cannot read (a key int() refuses, a content that is not a string)."""
    from .errors import FormatError

    entries = config.get("added_tokens_decoder")
    field_name = "added_tokens_decoder"
    if entries is None and "added_tokens_decoder" not in config and (isinstance(listed, list) or legacy):
        entries = {
            index: {"content": text, "lstrip": False, "rstrip": False, "normalized": not special, "special": special}
            for text, index, special in legacy
        }
        if isinstance(listed, list):  # read and checked already
            entries.update({a["id"]: {k: v for k, v in a.items() if k != "id"} for a in listed})
        field_name = "added_tokens (as transformers reads them without an added_tokens_decoder)"
    if entries is None:
        return []
    if not isinstance(entries, Mapping):
        raise FormatError(path, "added_tokens_decoder", f"must be an object, got {type(entries).__name__}")
    by_key: dict[int, AddedToken] = {}
    for key, entry in entries.items():
        where = f"{field_name}[{key!r}]"
        try:
            index = int(key)
        except ValueError:
            raise FormatError(path, where, "the key must be a token id") from None
        if not isinstance(entry, Mapping) or not isinstance(entry.get("content"), str):
            raise FormatError(path, f"{where}.content", "must be a string")

        def fail(field: str, why: str, where: str = where) -> NoReturn:
            raise FormatError(path, f"{where}.{field}", why)

        special = entry.get("special", False)
        if not isinstance(special, bool):
            fail("special", f"must be true or false, got {special!r}")
        special = special or entry["content"] in named
        token_id = index if 0 <= index < UINT32_MAX else 0
        by_key[index] = AddedToken(entry["content"], token_id, **token_flags(entry, special, fail))
    return [by_key[k] for k in sorted(by_key)]
