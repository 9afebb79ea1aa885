"""`Tokenizer`: the surface every tokenforge pipeline shares, shaped like HF tokenizers'
Tokenizer: one text or a pair encoded to an `Encoded` (ids, tokens, offsets, type ids, masks),
batches on threads, truncation and padding, decoding, vocabulary lookups.

>>> tok = Tokenizer.from_file("vocab.txt")                  # doctest: +SKIP
>>> enc = tok.encode("Hello, world!", "And a pair.")       # doctest: +SKIP
>>> enc.ids, enc.tokens, enc.offsets, enc.type_ids, enc.attention_mask  # doctest: +SKIP

Each pipeline is one native object that runs a whole text (batches on threads); `Encoded`
converts to Python lists only what is asked for. The pipelines are subclasses:
`WordPieceTokenizer` (BERT, llama.cpp's WPM) and `SentencePieceTokenizer` (sentencepiece
`.model` files). `Tokenizer(model, normalizer, ...)` builds the WordPiece one, as HF's
constructor does; `Tokenizer.from_file` returns whichever the file holds.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _core
from .added_tokens import AddedToken as AddedToken
from .arguments import (
    INT64_MAX,
    MAX_PAD_LENGTH,
    _batch_ids,
    _check_bool,
    _check_choice,
    _check_int,
    _shown,
    _token_id,
    _token_ids,
)
from .special import SpecialPolicy, SpecialSet
from .threads import resolve_threads

if TYPE_CHECKING:
    from typing_extensions import Self  # (typing.Self from 3.11; only the type checker reads this)

    from .pipeline.spec import PipelineSpec
    from .wordpiece_tokenizer import WordPieceTokenizer

_STRATEGIES = {"longest_first": 0, "only_first": 1, "only_second": 2}


if TYPE_CHECKING:
    from typing import TypeAlias  # (3.10+; only the type checker reads this)

    Encoded: TypeAlias = _core.Encoded
else:
    Encoded = _core.Encoded


def _resolve_policy(
    policy: SpecialPolicy, allowed_special: SpecialSet, disallowed_special: SpecialSet, texts: Sequence[str | None]
) -> _core.SpecialMatcher | None:
    allowed, disallowed = policy.resolve(allowed_special, disallowed_special)
    for text in texts:
        if isinstance(text, str):
            policy.check(text, disallowed)
    return allowed


class Tokenizer:
    # What allowed_special means when not given: "all" (HF matches added tokens) or ()
    # (sentencepiece: special-token text is plain text).
    _DEFAULT_ALLOWED: SpecialSet = "all"
    # What disallowed_special means when not given: () (HF, sentencepiece) or "all" (tiktoken:
    # special-token text raises unless allowed).
    _DEFAULT_DISALLOWED: SpecialSet = ()

    _native: Any  # the native pipeline: _core.WordPiece or _core.SpmTokenizer
    _token_of: list[str]  # token text by id ("" where an id has none)
    _policy: SpecialPolicy  # the special tokens that text may contain
    _default_added: _core.SpecialMatcher | None  # what the default policy matches

    def __new__(cls, *args: Any, **kwargs: Any) -> Tokenizer:  # noqa: PYI034 (picks a subclass)
        if cls is Tokenizer:  # Tokenizer(model, normalizer, ...): the WordPiece pipeline, as HF's constructor
            from .wordpiece_tokenizer import WordPieceTokenizer

            cls = WordPieceTokenizer
        return super().__new__(cls)

    def _init_surface(self, token_of: list[str] | None, policy: SpecialPolicy) -> None:
        """token_of: the token text by id, or None to have `_token_names()` make it on first use."""
        if token_of is not None:
            self._token_of = token_of
            self._vocab = {t: i for i, t in enumerate(token_of) if t}
        self._policy = policy
        self.truncation: dict[str, Any] | None = None
        self.padding: dict[str, Any] | None = None

    def _token_names(self) -> list[str]:
        """The token text by id, for pipelines that name their tokens only when asked."""
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        # Only for attributes not set: the token names, made on first use where _init_surface
        # was given None (a 200k vocabulary's names cost more than loading it).
        if name in ("_token_of", "_vocab"):
            token_of = self._token_names()
            self.__dict__["_token_of"] = token_of
            self.__dict__["_vocab"] = {t: i for i, t in enumerate(token_of) if t}
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @staticmethod
    def _template_on(native: Any, post: Any) -> None:
        """The post-processor's template on `native`; without one, the sequences as they are, B
        with type id 1."""
        if post is not None:
            native.set_template(post.native_pieces(False), post.native_pieces(True))
        else:
            native.set_template([(True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])])

    @classmethod
    def _compiled(cls, spec: PipelineSpec, source: str | None = None) -> Self:
        """The tokenizer `spec` compiles to, which must be of this class (a reader of this
        class's files made the spec)."""
        from .pipeline.compile import compile_pipeline

        tok = compile_pipeline(spec, source)
        assert isinstance(tok, cls)
        return tok

    def _attach(self, native: Any, default_added: _core.SpecialMatcher | None) -> None:
        """Makes `native` this tokenizer's pipeline, with the special-token policy, truncation and
        padding as set."""
        self._native = native
        self._default_added = default_added
        # The resolver holds the policy, not the tokenizer: the native object must not point back here.
        native.set_policy(default_added, functools.partial(_resolve_policy, self._policy))
        self._apply_truncation()
        self._apply_padding()
        # The native method itself, for the shortest call path (same signature and behaviour).
        self.encode = native.encode  # type: ignore[method-assign]  # an instance's own, by design

    def _added(
        self, allowed_special: SpecialSet, disallowed_special: SpecialSet, texts: Sequence[str | None]
    ) -> _core.SpecialMatcher | None:
        """The matcher of special tokens to match in texts, after raising for any disallowed one."""
        if allowed_special == self._DEFAULT_ALLOWED and not disallowed_special and not self._DEFAULT_DISALLOWED:
            return self._default_added
        return _resolve_policy(self._policy, allowed_special, disallowed_special, texts)

    # The pipeline's parts: fixed once the native pipeline is made from them (assigning one after
    # would change nothing in encoding, yet save() would write it).
    _PARTS = frozenset(
        {"model", "normalizer", "pre_tokenizer", "post_processor", "decoder", "added_tokens", "encoder", "encoding"}
    )

    def __setattr__(self, name: str, value: Any) -> None:
        if name in Tokenizer._PARTS and "_native" in self.__dict__ and name in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.{name} is fixed once the tokenizer is built (its native pipeline is made "
                f"from it); build a new tokenizer with the {name} you want"
            )
        super().__setattr__(name, value)

    # -- copying and pickling ------------------------------------------------------------

    @property
    def spec(self) -> PipelineSpec:
        """This tokenizer as plain data (its parts and settings), from which it is rebuilt."""
        raise NotImplementedError

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its description (plain Python objects) and settings: the native pipeline
        # is made again, so a copy (copy.copy, deepcopy, pickle, multiprocessing) never shares
        # settings with the original.
        from .pipeline.compile import compile_pipeline

        return (compile_pipeline, (self.spec,))

    # -- loading -------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, wpm: bool = False, **options: Any) -> Tokenizer:
        """A tokenizer from an HF tokenizer.json (*.json), a BERT vocab.txt (*.txt, with the
        tokenizer_config.json beside it if there is one), a GGUF model file (*.gguf), a
        sentencepiece model (*.model, or any file that is one; options: add_bos, add_eos), or a
        byte-level BPE: a .tiktoken file (options: pat_str, special_tokens, as load_tiktoken), a
        .tokenforge file, or GPT-2's encoder.json (vocab.bpe beside it) or their folder.
        wpm=True reads a BERT vocab.txt as llama.cpp's WPM tokenizer does."""
        from .formats import read_tokenizer_file
        from .pipeline.compile import compile_pipeline

        _check_bool(wpm, "wpm")
        path = os.fspath(path)
        return compile_pipeline(read_tokenizer_file(path, wpm=wpm, **options), source=path)

    @staticmethod
    def bert_from_vocab_txt(path: str, **overrides: Any) -> WordPieceTokenizer:
        """BERT from vocab.txt, configured by the tokenizer_config.json beside it (or `overrides`:
        do_lower_case, strip_accents, tokenize_chinese_chars, unk_token, sep_token, cls_token,
        pad_token, mask_token), as transformers' BertTokenizerFast builds it."""
        from .wordpiece_tokenizer import WordPieceTokenizer

        return WordPieceTokenizer.bert_from_vocab_txt(path, **overrides)

    @staticmethod
    def wpm_from_vocab_txt(path: str) -> WordPieceTokenizer:
        """llama.cpp's WPM tokenizer over a BERT vocab.txt, converted to its GGUF form."""
        from .wordpiece_tokenizer import WordPieceTokenizer

        return WordPieceTokenizer.wpm_from_vocab_txt(path)

    @staticmethod
    def wpm(tokens: Sequence[str], **options: Any) -> WordPieceTokenizer:
        """llama.cpp's WPM tokenizer over `tokens` (see WordPieceTokenizer.wpm)."""
        from .wordpiece_tokenizer import WordPieceTokenizer

        return WordPieceTokenizer.wpm(tokens, **options)

    # -- encoding ----------------------------------------------------------------------

    def encode(
        self,
        sequence: str,
        pair: str | None = None,
        add_special_tokens: bool = True,
        *,
        allowed_special: SpecialSet | None = None,
        disallowed_special: SpecialSet | None = None,
    ) -> Encoded:
        """Encode a text, or a pair of texts, with truncation, template and padding as set.

        Special-token text in the input ("[MASK]", "<s>") becomes its id when in
        `allowed_special`, raises DisallowedSpecialTokenError when in `disallowed_special`, and is
        plain text otherwise. By default WordPiece allows "all" (as HF matches added tokens),
        sentencepiece allows none (as sentencepiece), and byte-level BPE disallows "all" (as
        tiktoken). (Each instance binds this to its native pipeline's encode, which behaves the
        same and shows its own defaults.)"""
        allowed = self._DEFAULT_ALLOWED if allowed_special is None else allowed_special
        disallowed = self._DEFAULT_DISALLOWED if disallowed_special is None else disallowed_special
        return self._native.encode(
            sequence, pair, add_special_tokens, allowed_special=allowed, disallowed_special=disallowed
        )

    def encode_batch(
        self,
        inputs: Sequence[str | tuple[str, str]],
        add_special_tokens: bool = True,
        num_threads: int | None = None,
        *,
        allowed_special: SpecialSet | None = None,
        disallowed_special: SpecialSet | None = None,
    ) -> list[Encoded]:
        """Encode many inputs on threads, each a text (str) or a pair ((str, str) or [str, str]),
        mixed as HF allows; with padding set, all are padded to the longest (or to the fixed
        length). Special tokens as in `encode`.
        `num_threads`: None for a thread per 64 texts up to every core, else an int >= 1 (capped
        at tokenforge.threads.MAX_THREADS)."""
        _check_bool(add_special_tokens, "add_special_tokens")
        if isinstance(inputs, str):
            raise TypeError("encode_batch takes a list of str or a list of (str, str) pairs, got a single str")
        texts: list[Any] = list(inputs)
        pairs: list[Any] | None = None
        for i, item in enumerate(texts):
            if isinstance(item, str):
                continue
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(
                    f"encode_batch inputs are str or (str, str) pairs; item {i} is {type(item).__name__} {_shown(item)}"
                )
            if pairs is None:
                pairs = [None] * len(texts)
            texts[i], pairs[i] = item
        # By default, a thread per 64 texts up to every core: small batches skip the thread start-up.
        threads = (
            min(len(texts) // 64 + 1, resolve_threads(None)) if num_threads is None else resolve_threads(num_threads)
        )
        allowed = self._DEFAULT_ALLOWED if allowed_special is None else allowed_special
        disallowed = self._DEFAULT_DISALLOWED if disallowed_special is None else disallowed_special
        added = self._added(allowed, disallowed, texts + [p for p in pairs or () if p is not None])
        return self._native.encode_batch(texts, pairs, add_special_tokens, added, threads)

    # -- decoding ----------------------------------------------------------------------

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Text of `ids` (ints, NumPy integers, or a 1-D NumPy integer array)."""
        raise NotImplementedError  # each pipeline decodes its own way

    def _decode_natively(self, ids: Any, skip_special_tokens: bool) -> str:
        """The native pipeline's decode of `ids` (ints, NumPy integers, a 1-D NumPy array), with
        the checks every decode makes: a bool flag, integers only (TypeError naming the item)."""
        _check_bool(skip_special_tokens, "skip_special_tokens")
        if type(ids) is not list:
            ids = _token_ids(ids)
            if not isinstance(ids, (list, tuple)):  # read once here, so that it can be read again below
                try:
                    ids = list(ids)
                except TypeError:
                    raise TypeError(f"ids must be a sequence of token ids, got {type(ids).__name__}") from None
        try:
            return self._native.decode(ids, skip_special_tokens)  # type: ignore[no-any-return]
        except TypeError:
            # Integers that are not Python ints are read here; any other item raises a
            # TypeError that names what it is.
            return self._native.decode([_token_id(i) for i in ids], skip_special_tokens)  # type: ignore[no-any-return]

    def decode_batch(self, batch: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        """`decode` of each id sequence (or each row of a 2-D NumPy integer array)."""
        _check_bool(skip_special_tokens, "skip_special_tokens")
        return [self.decode(ids, skip_special_tokens) for ids in _batch_ids(batch)]

    # -- vocabulary --------------------------------------------------------------------

    def token_to_id(self, token: str) -> int | None:
        if not isinstance(token, str):
            raise TypeError(f"token must be a str, got {type(token).__name__}")
        return self._vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        """The token of an id (any integer, NumPy's too), or None where the vocabulary has none."""
        i = _token_id(token_id, "token_id")
        return self._token_of[i] if 0 <= i < len(self._token_of) and self._token_of[i] else None

    def get_vocab_size(self) -> int:
        return len(self._vocab)

    def get_vocab(self) -> dict[str, int]:
        return dict(self._vocab)

    # -- truncation and padding ----------------------------------------------------------

    def _check_truncation(self, max_length: int, stride: int, n_added: int) -> None:
        """The stride must leave room: below what max_length leaves for the text once the
        template's `n_added` special tokens are in (HF checks the same when it is set)."""
        if stride and stride >= max_length - n_added:
            raise ValueError(
                f"stride {stride} must be below max_length {max_length} less the {n_added} special "
                f"tokens the template adds (so at most {max(0, max_length - n_added - 1)})"
            )

    def enable_truncation(
        self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right"
    ) -> None:
        """Truncate encodings to `max_length` tokens (special tokens included); the rest goes to
        `overflowing`, parts that repeat the previous part's last `stride` tokens. `strategy`
        for pairs: "longest_first", "only_first" or "only_second"; `direction`: "right" (keep
        the start) or "left". Every argument is checked before anything is set."""
        max_length = _check_int(max_length, "max_length", 0, INT64_MAX)
        stride = _check_int(stride, "stride", 0, INT64_MAX)
        _check_choice(strategy, "strategy", tuple(_STRATEGIES))
        _check_choice(direction, "direction", ("left", "right"))
        self._check_truncation(max_length, stride, self._native.added_tokens(False))
        self._set(
            "truncation", {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}
        )

    def no_truncation(self) -> None:
        self._set("truncation", None)

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """Pad encodings to `length` tokens (None: to the longest of each batch), rounded up to a
        multiple of `pad_to_multiple_of` (None or 0: no rounding), with `pad_id` (an id of this
        vocabulary) shown as `pad_token`, of type `pad_type_id`, on the `direction` side. Every
        argument is checked before anything is set."""
        _check_choice(direction, "direction", ("left", "right"))
        n = len(self._token_of)
        pad_id = _check_int(pad_id, "pad_id", 0, n - 1, why=" (an id of this tokenizer's vocabulary)")
        if not self._token_of[pad_id]:
            raise ValueError(f"pad_id {pad_id} has no token in this tokenizer's vocabulary")
        pad_type_id = _check_int(pad_type_id, "pad_type_id", 0, _core.MAX_TYPE_ID)
        if not isinstance(pad_token, str):
            raise TypeError(f"pad_token must be a str, got {type(pad_token).__name__} {_shown(pad_token)}")
        try:
            pad_token.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"pad_token {_shown(pad_token)} holds a lone surrogate, which has no UTF-8 form") from None
        length = _check_int(length, "length", 1, MAX_PAD_LENGTH, none="pad to the longest in the batch")
        pad_to_multiple_of = _check_int(pad_to_multiple_of, "pad_to_multiple_of", 0, MAX_PAD_LENGTH, none="no rounding")
        self._set(
            "padding",
            {
                "direction": direction,
                "pad_id": pad_id,
                "pad_type_id": pad_type_id,
                "pad_token": pad_token,
                "length": length,
                "pad_to_multiple_of": pad_to_multiple_of,
            },
        )

    def no_padding(self) -> None:
        self._set("padding", None)

    def _set(self, which: str, value: dict[str, Any] | None) -> None:
        """Stores truncation or padding settings and hands them to the native pipeline; if that
        fails, the previous settings stay."""
        old = getattr(self, which)
        setattr(self, which, value)
        apply = self._apply_truncation if which == "truncation" else self._apply_padding
        try:
            apply()
        except BaseException:
            setattr(self, which, old)
            apply()
            raise

    def _apply_truncation(self) -> None:
        t = self.truncation
        if t is None:
            self._native.set_truncation(False)
        else:
            self._native.set_truncation(
                True, t["max_length"], t["stride"], _STRATEGIES[t["strategy"]], t["direction"] == "left"
            )

    def _apply_padding(self) -> None:
        p = self.padding
        self._native.set_pad_token(p["pad_token"] if p else "")
        if p is None:
            self._native.set_padding(False)
        else:
            self._native.set_padding(
                True,
                p["length"] or 0,
                p["pad_to_multiple_of"] or 0,
                p["pad_id"],
                p["pad_type_id"],
                p["direction"] == "left",
            )
