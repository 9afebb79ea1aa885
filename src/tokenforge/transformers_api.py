"""transformers' tokenizer surface on `Tokenizer` (tokenizer.py inherits `TransformersApi`): the
call `tok(text, text_pair, padding=..., truncation=..., return_tensors=...)` returning a
`BatchEncoding`, `convert_ids_to_tokens`, `convert_tokens_to_ids`, `tokenize`, `batch_decode`, and
the special-token attributes (`bos_token`, `pad_token_id`, `special_tokens_map`, ...) with
`model_max_length`, `padding_side`, `truncation_side`, `vocab_size` and `len()`, each as
transformers 5 defines it (tokenization_utils_base.py, tokenization_utils_tokenizers.py) for the
folder `Tokenizer.from_pretrained` read (its settings: `Tokenizer.config`, chat_template.ModelConfig).

Two families of defaults live side by side: `encode`, `encode_batch`, `decode` and
`decode_batch` follow HF tokenizers (decode skips special tokens by default; encode keeps the
truncation and padding set with enable_truncation/enable_padding), while this module's calls
follow transformers (`batch_decode` keeps special tokens by default; the call pads and truncates
only as its arguments say, leaving the tokenizer's own settings alone). The call hands its
truncation and padding to the native pipeline for that call only (`encode_batch_with`), so other
threads encoding meanwhile keep theirs.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import itertools
import operator
import string
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .arguments import _check_bool, _check_int
from .formats.slow_files import PIPELINE_CLASSES
from .threads import batch_threads

if TYPE_CHECKING:
    from .chat_template import ModelConfig

# transformers' PreTrainedTokenizerBase.SPECIAL_TOKENS_ATTRIBUTES
SPECIAL_TOKENS_ATTRIBUTES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
VERY_LARGE_INTEGER = int(1e30)  # transformers' model_max_length where none is set
LARGE_INTEGER = int(1e20)  # above it, model_max_length means "no limit" (transformers' check)
_DEFAULT_INPUT_NAMES = ("input_ids", "attention_mask")
# The classes whose model_input_names are not transformers' default (its 5.x tokenizer classes,
# "Fast" left off as formats/transformers_classes.transformers_class names them).
_INPUT_NAMES = {
    "BertTokenizer": ("input_ids", "token_type_ids", "attention_mask"),
    "CanineTokenizer": ("input_ids", "attention_mask", "token_type_ids"),
    "DPRQuestionEncoderTokenizer": ("input_ids", "token_type_ids", "attention_mask"),
    "DebertaTokenizer": ("input_ids", "attention_mask", "token_type_ids"),
    "DebertaV2Tokenizer": ("input_ids", "attention_mask", "token_type_ids"),
    "FNetTokenizer": ("input_ids", "token_type_ids"),
    "LayoutLMv2Tokenizer": ("input_ids", "attention_mask", "token_type_ids"),
    "LayoutLMv3Tokenizer": ("input_ids", "attention_mask", "bbox"),
    "LxmertTokenizer": ("input_ids", "token_type_ids", "attention_mask"),
    "MarkupLMTokenizer": ("input_ids", "token_type_ids", "attention_mask"),
    "MobileBertTokenizer": ("input_ids", "token_type_ids", "attention_mask"),
    "TapasTokenizer": ("input_ids", "attention_mask", "token_type_ids"),
}
_PADDING = ("longest", "max_length", "do_not_pad")
_TRUNCATION = ("only_first", "only_second", "longest_first", "do_not_truncate")
_STRATEGY = {"longest_first": 0, "only_first": 1, "only_second": 2}
_MISSING = object()
# an encoding's fields as the call returns them
_IDS = operator.attrgetter("ids")
_TYPE_IDS = operator.attrgetter("type_ids")
_ATTENTION_MASK = operator.attrgetter("attention_mask")
_SPECIAL_TOKENS_MASK = operator.attrgetter("special_tokens_mask")
_OFFSETS = operator.attrgetter("offsets")


def _own_text(token: str, content: str | None) -> str:
    """An added token's own text where its lstrip or rstrip grew the token (`token` the text its
    span covers, `content` the added token of that id, or None): what the strip took is spaces,
    "▁" or (Siglip's) ASCII punctuation. Any other token as it is (the text of an unknown piece
    has the unknown token's id too)."""
    if content is None or token == content or content not in token:
        return token
    before, _, after = token.partition(content)
    return content if all(c.isspace() or c in _STRIPPED for c in before + after) else token


_STRIPPED = frozenset("\u2581" + string.punctuation)


# The keywords of TransformersApi._encode_plus after add_special_tokens (tokenize passes them on).
_ENCODE_PLUS_KEYWORDS = frozenset(
    {
        "padding_strategy",
        "truncation_strategy",
        "max_length",
        "stride",
        "is_split_into_words",
        "pad_to_multiple_of",
        "padding_side",
        "return_tensors",
        "return_token_type_ids",
        "return_attention_mask",
        "return_overflowing_tokens",
        "return_special_tokens_mask",
        "return_offsets_mapping",
        "return_length",
        "split_special_tokens",
    }
)


class CharSpan(NamedTuple):
    """A token's or word's characters in the original text (transformers' CharSpan)."""

    start: int
    end: int


class TokenSpan(NamedTuple):
    """A word's tokens in the encoding (transformers' TokenSpan)."""

    start: int
    end: int


class BatchEncoding(collections.UserDict):  # type: ignore[type-arg]
    """What the transformers-style call returns, as transformers' BatchEncoding: a mapping of
    "input_ids", "attention_mask", ... (dict access, attribute access, keys(), len), the
    encodings (`encodings`, `enc[i]`), and the token/word/character maps of each text
    (tokens(i), word_ids(i), sequence_ids(i), char_to_token, token_to_chars, word_to_tokens,
    ...)."""

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        encoding: Sequence[Any] | None = None,
        tensor_type: str | None = None,
        n_sequences: int | None = None,
    ) -> None:
        self.data = dict(data) if data is not None else {}  # (UserDict's update: a call per key)
        self._encodings = list(encoding) if encoding is not None else None
        if n_sequences is None and self._encodings:
            n_sequences = self._encodings[0].n_sequences
        self._n_sequences = n_sequences
        if tensor_type is not None:
            self.convert_to_tensors(tensor_type)

    @property
    def n_sequences(self) -> int | None:
        return self._n_sequences

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, str):
            return self.data[item]
        if self._encodings is not None:
            return self._encodings[item]
        if isinstance(item, slice):
            return {key: self.data[key][item] for key in self.data}
        raise KeyError(
            "Invalid key. Only three types of key are available: "
            "(1) string, (2) integers for backend Encoding, and (3) slices for data subsetting."
        )

    def __getattr__(self, item: str) -> Any:
        if item.startswith("_") or item == "data":
            raise AttributeError(item)
        try:
            return self.data[item]
        except KeyError:
            raise AttributeError(item) from None

    def __getstate__(self) -> dict[str, Any]:
        return {"data": self.data, "encodings": self._encodings, "n_sequences": self._n_sequences}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.data = state["data"]
        self._encodings = state["encodings"]
        self._n_sequences = state.get("n_sequences")

    @property
    def is_fast(self) -> bool:
        return self._encodings is not None

    @property
    def encodings(self) -> list[Any] | None:
        return self._encodings

    def _encoding(self, what: str, batch_index: int) -> Any:
        if not self._encodings:
            raise ValueError(f"{what}() is not available without the encodings")
        return self._encodings[batch_index]

    def tokens(self, batch_index: int = 0) -> list[str]:
        return list(self._encoding("tokens", batch_index).tokens)

    def sequence_ids(self, batch_index: int = 0) -> list[int | None]:
        return list(self._encoding("sequence_ids", batch_index).sequence_ids)

    def word_ids(self, batch_index: int = 0) -> list[int | None]:
        return list(self._encoding("word_ids", batch_index).word_ids)

    @staticmethod
    def _indices(first: int, second: int | None) -> tuple[int, int]:
        return (first, second) if second is not None else (0, first)

    def token_to_sequence(self, batch_or_token_index: int, token_index: int | None = None) -> int:
        b, t = self._indices(batch_or_token_index, token_index)
        e = self._encoding("token_to_sequence", b)
        return e.token_to_sequence(t + len(e) if t < 0 else t)  # type: ignore[no-any-return]

    def token_to_word(self, batch_or_token_index: int, token_index: int | None = None) -> int:
        b, t = self._indices(batch_or_token_index, token_index)
        e = self._encoding("token_to_word", b)
        return e.token_to_word(t + len(e) if t < 0 else t)  # type: ignore[no-any-return]

    def word_to_tokens(
        self, batch_or_word_index: int, word_index: int | None = None, sequence_index: int = 0
    ) -> TokenSpan | None:
        b, w = self._indices(batch_or_word_index, word_index)
        span = self._encoding("word_to_tokens", b).word_to_tokens(w, sequence_index)
        return TokenSpan(*span) if span is not None else None

    def token_to_chars(self, batch_or_token_index: int, token_index: int | None = None) -> CharSpan | None:
        b, t = self._indices(batch_or_token_index, token_index)
        span = self._encoding("token_to_chars", b).token_to_chars(t)
        return CharSpan(*span) if span is not None else None

    def char_to_token(
        self, batch_or_char_index: int, char_index: int | None = None, sequence_index: int = 0
    ) -> int | None:
        b, c = self._indices(batch_or_char_index, char_index)
        return self._encoding("char_to_token", b).char_to_token(c, sequence_index)  # type: ignore[no-any-return]

    def word_to_chars(
        self, batch_or_word_index: int, word_index: int | None = None, sequence_index: int = 0
    ) -> CharSpan:
        b, w = self._indices(batch_or_word_index, word_index)
        return CharSpan(*self._encoding("word_to_chars", b).word_to_chars(w, sequence_index))

    def char_to_word(
        self, batch_or_char_index: int, char_index: int | None = None, sequence_index: int = 0
    ) -> int | None:
        b, c = self._indices(batch_or_char_index, char_index)
        return self._encoding("char_to_word", b).char_to_word(c, sequence_index)  # type: ignore[no-any-return]

    def convert_to_tensors(self, tensor_type: str | None = None) -> BatchEncoding:
        """Each value as a NumPy array ("np") or PyTorch tensor ("pt"), as transformers converts
        them (a ragged batch becomes a NumPy object array; torch raises on it)."""
        if tensor_type is None:
            return self
        tensor_type = getattr(tensor_type, "value", tensor_type)  # (transformers' TensorType)
        if tensor_type not in ("np", "pt"):
            raise ValueError(f"{tensor_type!r} is not a valid TensorType, please select one of ['pt', 'np']")
        import numpy as np

        if tensor_type == "pt":
            try:
                torch: Any = importlib.import_module("torch")
            except ImportError:
                raise ImportError(
                    "Unable to convert output to PyTorch tensors format, PyTorch is not installed "
                    '(return_tensors="pt" needs torch importable; "np" needs only NumPy).'
                ) from None

            def as_tensor(value: Any) -> Any:
                if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
                    return torch.from_numpy(np.array(value))
                return torch.tensor(value, dtype=torch.int64 if _is_empty(value) else None)

            is_tensor: Any = torch.is_tensor
        else:

            def as_tensor(value: Any) -> Any:
                nested = isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple, np.ndarray))
                if nested and len({len(v) for v in value}) > 1:  # ragged: an object array of arrays
                    return np.asarray([np.asarray(v) for v in value], dtype=object)
                return np.asarray(value, dtype=np.int64 if _is_empty(value) else None)

            def is_tensor(value: Any) -> bool:
                return isinstance(value, np.ndarray)

        for key, value in self.items():
            try:
                if not is_tensor(value):
                    self[key] = as_tensor(value)
            except Exception as e:
                raise ValueError(
                    "Unable to create tensor, you should probably activate truncation and/or padding with"
                    " 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your"
                    f" features (`{key}` in this case) have excessive nesting (inputs type `list` where type `int` is"
                    " expected)."
                ) from e
        return self


def _is_empty(value: Any) -> bool:
    """transformers' _is_empty: a list with nothing but (nested) empty lists."""
    if isinstance(value, (list, tuple)):
        return all(_is_empty(v) for v in value)
    return False


def _to_py(value: Any) -> Any:
    """NumPy arrays and integers (and torch tensors) as Python lists and ints (transformers'
    to_py_obj), but for a list inside a list, given as it is (its items go to the native
    decode, which reads NumPy integers as ints too)."""
    if isinstance(value, (list, tuple)):
        if set(map(type, value)) <= {int}:  # (plain ints only, checked in C: no copy item by item)
            return value if type(value) is list else list(value)
        # (a plain int, and a list inside, as they are: decode reads a list's other integers)
        return [v if type(v) is int or type(v) is list else _to_py(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if tolist is not None and not isinstance(value, str):
        return tolist()
    return value


def _valid_text_input(t: Any) -> bool:
    """transformers' _is_valid_text_input."""
    if isinstance(t, str):
        return True
    if isinstance(t, (list, tuple)):
        if not t:
            return True
        if isinstance(t[0], str):
            return True
        if isinstance(t[0], (list, tuple)):
            if not t[0] or isinstance(t[0][0], str):
                return True
            if isinstance(t[0][0], (list, tuple)):
                return not t[0][0] or isinstance(t[0][0][0], str)
        return False
    return False


class TextInputError(TypeError, ValueError):
    """A batch item of the call that is no text, pair or list of words, past the first (which
    transformers checks itself, raising ValueError): a TypeError, as transformers' backend
    raises, and a ValueError, as tokenforge's check of the first."""


def _is_words(value: Any) -> bool:
    """Whether an item of a pre-tokenized batch is one sequence of words (HF tokenizers'
    PreTokenizedInputSequence, a list or tuple of str), not a pair of them. (Only its first item
    is looked at here; the native encode checks every word, raising TypeError as HF's.)"""
    return isinstance(value, (list, tuple)) and (not value or isinstance(value[0], str))


def pretokenized_inputs(inputs: Any) -> tuple[list[Any], list[Any] | None]:
    """The sequences of a pre-tokenized batch and their pairs (None, or one per sequence, None
    where it has none), read as HF tokenizers' PreTokenizedEncodeInput: each item a list or tuple
    of words, else a list or tuple of two such (a pair); TypeError otherwise, as HF's."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"encode_batch takes a list of pre-tokenized inputs, got {type(inputs).__name__}")
    sequences: list[Any] = []
    pairs: list[Any] | None = None
    for i, item in enumerate(inputs):
        if _is_words(item):
            sequences.append(item)
            if pairs is not None:
                pairs.append(None)
        elif (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and isinstance(item[0], (list, tuple))
            and isinstance(item[1], (list, tuple))
        ):
            if pairs is None:
                pairs = [None] * i
            sequences.append(item[0])
            pairs.append(item[1])
        else:
            raise TypeError(
                "PreTokenizedEncodeInput must be Union[PreTokenizedInputSequence, Tuple[PreTokenizedInputSequence, "
                f"PreTokenizedInputSequence]] (item {i} is {type(item).__name__})"
            )
    return sequences, pairs


def words_of(sequences: list[Any], pairs: list[Any] | None) -> list[str]:
    """Every word of pre-tokenized sequences and their pairs, in one list (read at C speed)."""
    return list(itertools.chain.from_iterable(sequences + [p for p in pairs or () if p is not None]))


class TransformersApi:
    """The transformers 5 surface of a Tokenizer (see the module's docstring). The attributes
    read the folder's settings (`config`, set by from_pretrained); a tokenizer without a folder
    has transformers' defaults (no special tokens, no length limit, right sides)."""

    # (what the Tokenizer provides; declared for the type checker)
    if TYPE_CHECKING:
        _spec: Any
        _kernel: Any
        _native: Any
        _token_of: list[str]
        _vocab: dict[str, int]

        @property
        def config(self) -> ModelConfig | None: ...

        def token_to_id(self, token: str) -> int | None: ...
        def id_to_token(self, token_id: int) -> str | None: ...
        def get_vocab_size(self, with_added_tokens: bool = True) -> int: ...
        def _added(self, allowed: Any, disallowed: Any, texts: Sequence[str | None]) -> Any: ...
        def _decode_natively(self, ids: Any, skip_special_tokens: bool) -> str: ...
        @property
        def kernel(self) -> str: ...
        @property
        def all_special_tokens(self) -> list[str]: ...
        @property
        def all_special_ids(self) -> list[int | None]: ...

        # the named special tokens and their ids (properties made below the class)
        bos_token: str | None
        eos_token: str | None
        unk_token: str | None
        sep_token: str | None
        pad_token: str | None
        cls_token: str | None
        mask_token: str | None
        bos_token_id: int | None
        eos_token_id: int | None
        unk_token_id: int | None
        sep_token_id: int | None
        pad_token_id: int | None
        cls_token_id: int | None
        mask_token_id: int | None

    # -- settings --------------------------------------------------------------------------

    def _replace_config(self, **changes: Any) -> None:
        """A setting changed as transformers lets one set it (tok.pad_token = tok.eos_token): the
        folder's settings replaced (one made for a tokenizer without a folder); the pipeline
        itself is not rebuilt (these settings only steer the transformers-style calls)."""
        from .chat_template import ModelConfig

        config = self.config
        if config is None:
            config = ModelConfig(path="", special_tokens={})
        self.__dict__["_spec"] = dataclasses.replace(self._spec, config=dataclasses.replace(config, **changes))

    @property
    def name_or_path(self) -> str:
        """The folder from_pretrained read ("" without one)."""
        return self.config.path if self.config is not None else ""

    @property
    def model_max_length(self) -> int:
        """The folder's model_max_length (transformers' VERY_LARGE_INTEGER, int(1e30), where none)."""
        return self.config.model_max_length if self.config is not None else VERY_LARGE_INTEGER

    @model_max_length.setter
    def model_max_length(self, value: int) -> None:
        self._replace_config(model_max_length=_check_int(value, "model_max_length", 0, None))

    @property
    def padding_side(self) -> str:
        """The side the transformers-style call pads ("right" or "left"), the folder's setting."""
        return self.config.padding_side if self.config is not None else "right"

    @padding_side.setter
    def padding_side(self, value: str) -> None:
        self._replace_config(padding_side=_checked_side(value, "Padding"))

    @property
    def truncation_side(self) -> str:
        """The side the transformers-style call truncates ("right" or "left"), the folder's setting."""
        return self.config.truncation_side if self.config is not None else "right"

    @truncation_side.setter
    def truncation_side(self, value: str) -> None:
        self._replace_config(truncation_side=_checked_side(value, "Truncation"))

    @property
    def clean_up_tokenization_spaces(self) -> bool:
        """The folder's clean_up_tokenization_spaces: what decode's clean_up_tokenization_spaces=None means."""
        return self.config.clean_up_tokenization_spaces if self.config is not None else False

    @property
    def model_input_names(self) -> list[str]:
        """The inputs the model takes, as transformers' class for the folder lists them (the
        config's model_input_names where it gives them): whether the call returns
        token_type_ids and attention_mask by default."""
        return list(self._input_names())

    def _input_names(self) -> tuple[str, ...]:
        """model_input_names, read once per folder settings (the call reads it each time)."""
        config = self.config
        known = self.__dict__.get("_input_names_of")  # (settings, names)
        if known is not None and known[0] is config:
            return known[1]  # type: ignore[no-any-return]
        given = config.config.get("model_input_names") if config is not None else None
        if isinstance(given, list) and all(isinstance(n, str) for n in given):
            names = tuple(given)
        else:
            names = (
                _INPUT_NAMES.get(config.transformers_class or "", _DEFAULT_INPUT_NAMES)
                if config is not None
                else _DEFAULT_INPUT_NAMES
            )
        self.__dict__["_input_names_of"] = (config, names)
        return names

    @property
    def pad_token_type_id(self) -> int:
        return 0

    @property
    def vocab_size(self) -> int:
        """The model's vocabulary size, without the added tokens (transformers' vocab_size)."""
        return self.get_vocab_size(with_added_tokens=False)

    def __len__(self) -> int:
        """The vocabulary size with the added tokens (transformers' len(tokenizer))."""
        return self.get_vocab_size(with_added_tokens=True)

    def __bool__(self) -> bool:
        return True  # (as transformers': never false for an empty vocabulary)

    @property
    def is_fast(self) -> bool:
        return True

    # -- special tokens --------------------------------------------------------------------

    def _special(self, name: str) -> str | None:
        config = self.config
        return config.special_tokens.get(name) if config is not None else None

    def _set_special(self, name: str, value: Any) -> None:
        if value is not None and not isinstance(value, str):
            content = getattr(value, "content", None)  # an AddedToken
            if not isinstance(content, str):
                raise ValueError(f"Cannot set a non-string value as the {name}")
            value = content
        tokens = dict(self.config.special_tokens) if self.config is not None else {}
        if value is None:
            tokens.pop(name, None)
        else:
            tokens[name] = value
        order = [n for n in SPECIAL_TOKENS_ATTRIBUTES if n in tokens] + [
            n for n in tokens if n not in SPECIAL_TOKENS_ATTRIBUTES
        ]
        self._replace_config(special_tokens={n: tokens[n] for n in order})

    def convert_tokens_to_ids(self, tokens: str | Sequence[str]) -> Any:
        """The id of a token (or of each token of a list); a token the vocabulary lacks has the
        unknown token's id (None without one), as transformers'."""
        if isinstance(tokens, str):
            found = self.token_to_id(tokens)
            return found if found is not None else self.unk_token_id
        vocab = self._vocab  # (a plain str read here; anything else as one token above)
        ids = [vocab.get(t) if type(t) is str else self.convert_tokens_to_ids(t) for t in tokens]
        if None in ids:
            unknown = self.unk_token_id
            ids = [unknown if i is None else i for i in ids]
        return ids

    def convert_ids_to_tokens(self, ids: Any, skip_special_tokens: bool = False) -> Any:
        """The token of an id (None outside the vocabulary), or the tokens of a list of ids,
        without the special ones (all_special_ids) where skip_special_tokens, as transformers'."""
        if isinstance(ids, int):
            return self.id_to_token(ids)
        skip = set(self.all_special_ids) if _check_bool(skip_special_tokens, "skip_special_tokens") else set()
        names = self._token_of
        n = len(names)
        # (an id in range read here; id_to_token for the others: None, or its overflow error)
        return [(names[i] or None) if 0 <= i < n else self.id_to_token(i) for i in map(int, ids) if i not in skip]

    @property
    def special_tokens_map(self) -> dict[str, str]:
        """The named special tokens set, name -> text (model-specific ones such as image_token
        after the seven standard ones), as transformers 5's (extra_special_tokens apart)."""
        config = self.config
        return dict(config.special_tokens) if config is not None else {}

    @property
    def extra_special_tokens(self) -> list[str]:
        """The special tokens without a name (transformers 5's extra_special_tokens, once
        additional_special_tokens)."""
        return list(self.config.extra_special_tokens) if self.config is not None else []

    @extra_special_tokens.setter
    def extra_special_tokens(self, value: Sequence[Any] | None) -> None:
        texts = [getattr(t, "content", t) for t in value or ()]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError(f"extra_special_tokens must be a list or tuple of tokens, got {value!r}")
        self._replace_config(extra_special_tokens=tuple(texts), extra_special_token_flags=(None,) * len(texts))

    @property
    def extra_special_tokens_ids(self) -> list[int | None]:
        return self.convert_tokens_to_ids(self.extra_special_tokens)  # type: ignore[no-any-return]

    def _special_attribute(self, name: str) -> Any:
        """A model-specific special token (image_token, image_token_id, ...) the folder names,
        read as transformers' __getattr__ reads it; _MISSING for another name."""
        config = self.config
        if config is None:
            return _MISSING
        base = name.removesuffix("_id") if name.endswith("_id") else name
        if base not in config.special_tokens or base in SPECIAL_TOKENS_ATTRIBUTES:
            return _MISSING
        text = config.special_tokens[base]
        return self.convert_tokens_to_ids(text) if base != name else text

    # -- encoding as transformers' call ----------------------------------------------------

    def _strategies(
        self, padding: Any, truncation: Any, max_length: int | None, pad_to_multiple_of: int | None
    ) -> tuple[str, str, int | None]:
        """transformers' _get_padding_truncation_strategies: (padding strategy, truncation
        strategy, max_length), with its warnings and errors."""
        if padding is False and truncation is None and max_length is None:
            return "do_not_pad", "do_not_truncate", None  # (the defaults: nothing to check)
        if max_length is not None and padding is False and truncation is None:
            truncation = "longest_first"  # (max_length alone truncates, as transformers')
        if padding is not False:
            if padding is True:
                if max_length is not None and truncation in (None, False, "do_not_truncate"):
                    warnings.warn(
                        "`max_length` is ignored when `padding`=`True` and there is no truncation strategy. "
                        "To pad to max length, use `padding='max_length'`.",
                        stacklevel=3,
                    )
                padding_strategy = "longest"
            else:
                padding_strategy = _choice(padding, _PADDING, "PaddingStrategy")
        else:
            padding_strategy = "do_not_pad"
        if truncation is not False and truncation is not None:
            truncation_strategy = (
                "longest_first" if truncation is True else _choice(truncation, _TRUNCATION, "TruncationStrategy")
            )
        else:
            truncation_strategy = "do_not_truncate"
        if max_length is None:
            if padding_strategy == "max_length":
                if self.model_max_length > LARGE_INTEGER:
                    padding_strategy = "do_not_pad"
                else:
                    max_length = self.model_max_length
            if truncation_strategy != "do_not_truncate":
                if self.model_max_length > LARGE_INTEGER:
                    truncation_strategy = "do_not_truncate"
                else:
                    max_length = self.model_max_length
        if padding_strategy != "do_not_pad":
            pad_id = self.pad_token_id
            if self.pad_token is None or pad_id is None or pad_id < 0:
                raise ValueError(
                    "Asking to pad but the tokenizer does not have a padding token. "
                    "Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` "
                    "or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`."
                )
        if (
            truncation_strategy != "do_not_truncate"
            and padding_strategy != "do_not_pad"
            and pad_to_multiple_of is not None
            and max_length is not None
            and max_length % pad_to_multiple_of != 0
        ):
            raise ValueError(
                "Truncation and padding are both activated but "
                f"truncation length ({max_length}) is not a multiple of pad_to_multiple_of ({pad_to_multiple_of})."
            )
        return padding_strategy, truncation_strategy, max_length

    def __call__(
        self,
        text: Any = None,
        text_pair: Any = None,
        text_target: Any = None,
        text_pair_target: Any = None,
        add_special_tokens: bool = True,
        padding: bool | str = False,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        stride: int = 0,
        is_split_into_words: bool = False,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_tensors: str | None = None,
        return_token_type_ids: bool | None = None,
        return_attention_mask: bool | None = None,
        return_overflowing_tokens: bool = False,
        return_special_tokens_mask: bool = False,
        return_offsets_mapping: bool = False,
        return_length: bool = False,
        verbose: bool = True,
        tokenizer_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> BatchEncoding:
        """A text, a pair (`text`, `text_pair`), or a batch (a list of texts, with a list of
        pairs) encoded as transformers' tokenizer call does it, to a BatchEncoding of
        input_ids, token_type_ids and attention_mask (where model_input_names has them, or as
        return_token_type_ids / return_attention_mask say), special_tokens_mask,
        offset_mapping, length, overflow_to_sample_mapping (return_overflowing_tokens: each
        overflowing part a row of its own). One text gives flat lists, a batch lists of lists;
        return_tensors "np" or "pt" (torch importable) gives arrays.

        padding: False/"do_not_pad", True/"longest" (the batch's longest), "max_length"
        (max_length, else model_max_length), rounded up to pad_to_multiple_of, on padding_side
        (else the tokenizer's); ValueError without a pad token, as transformers. truncation:
        True/"longest_first", "only_first", "only_second", False/"do_not_truncate", to max_length
        (else model_max_length; max_length alone truncates), on truncation_side, overflowing
        parts overlapping by `stride`. The tokenizer's own truncation and padding
        (enable_truncation, enable_padding: encode's, as HF tokenizers') play no part.
        text_target (and text_pair_target): texts encoded alike, their input_ids returned as
        "labels" (the targets' own BatchEncoding where `text` is None), as transformers.
        Defaults are transformers' (see the module's docstring for the two families).
        is_split_into_words=True: `text` (and `text_pair`) is pre-tokenized, a list of words
        (one example) or a list of lists of words (a batch), each word encoded on its own as
        `encode(..., is_pretokenized=True)` (no check of add_prefix_space, as transformers 5).
        split_special_tokens (a keyword, as transformers'): None or the tokenizer's own
        setting, else this call's (the tokenizer's stays). tokenizer_kwargs: settings that
        replace the arguments (as transformers' update); max_target_length: max_length of
        text_target. Other keywords are ignored, as transformers 5 ignores them."""
        split_special_tokens = kwargs.pop("split_special_tokens", None)
        max_target_length = kwargs.pop("max_target_length", None)
        if tokenizer_kwargs is not None or kwargs:
            # (as transformers: tokenizer_kwargs, then the other keywords, update the arguments;
            # what no parameter reads is ignored) the merged arguments, called again
            given = {
                "add_special_tokens": add_special_tokens,
                "padding": padding,
                "truncation": truncation,
                "max_length": max_length,
                "stride": stride,
                "is_split_into_words": is_split_into_words,
                "pad_to_multiple_of": pad_to_multiple_of,
                "padding_side": padding_side,
                "return_tensors": return_tensors,
                "return_token_type_ids": return_token_type_ids,
                "return_attention_mask": return_attention_mask,
                "return_overflowing_tokens": return_overflowing_tokens,
                "return_special_tokens_mask": return_special_tokens_mask,
                "return_offsets_mapping": return_offsets_mapping,
                "return_length": return_length,
                "split_special_tokens": split_special_tokens,
            }
            merged = {**given, **(tokenizer_kwargs or {}), **kwargs}
            arguments = {k: merged[k] for k in given}
            return self(
                text, text_pair, text_target, text_pair_target, max_target_length=max_target_length, **arguments
            )
        if text is None and text_target is None:
            raise ValueError("You need to specify either `text` or `text_target`.")
        padding_strategy, truncation_strategy, max_length = self._strategies(
            padding, truncation, max_length, pad_to_multiple_of
        )
        settings = [
            add_special_tokens,
            padding_strategy,
            truncation_strategy,
            max_length,
            stride,
            is_split_into_words,
            pad_to_multiple_of,
            padding_side,
            return_tensors,
            return_token_type_ids,
            return_attention_mask,
            return_overflowing_tokens,
            return_special_tokens_mask,
            return_offsets_mapping,
            return_length,
            split_special_tokens,
        ]
        encodings = self._encode_plus(text, text_pair, *settings) if text is not None else None
        if text_target is None:
            assert encodings is not None
            return encodings
        if max_target_length is not None:
            settings[3] = max_target_length
        targets = self._for_targets()._encode_plus(text_target, text_pair_target, *settings)
        if encodings is None:
            return targets
        encodings["labels"] = targets["input_ids"]  # (as transformers: the targets' ids as labels)
        return encodings

    def _for_targets(self) -> Any:
        """The tokenizer that encodes text_target: this one, or where the class switches its
        template for targets (the option text_target_post_processor: M2M100Tokenizer's tgt_lang)
        this one with that post-processor (made once); KeyError where the class has none
        (transformers' KeyError: no tgt_lang)."""
        options = self._kernel.options  # type: ignore[attr-defined]
        if "text_target_model" in options:  # (MarianTokenizer's target.spm, over the same vocabulary)
            return self._target_model_tokenizer(options["text_target_model"])
        target = options.get("text_target_post_processor")
        if target is None:
            return self
        if isinstance(target, str):
            raise KeyError(target)
        cached = self.__dict__.get("_targets")
        if cached is None:
            import dataclasses

            from .processors.template import TemplateProcessing

            spec = self.spec  # type: ignore[attr-defined]
            kept = {k: v for k, v in spec.options.items() if k != "text_target_post_processor"}
            post = TemplateProcessing.from_json(target)
            cached = type(self).from_spec(dataclasses.replace(spec, post_processor=post, options=kept))  # type: ignore[attr-defined]
            self.__dict__["_targets"] = cached
        return cached

    def _target_model_tokenizer(self, model: Any) -> Any:
        """This tokenizer with `model` in place of its own (made once): what the option
        text_target_model encodes text_target with."""
        cached = self.__dict__.get("_targets")
        if cached is None:
            import dataclasses

            spec = self.spec  # type: ignore[attr-defined]
            kept = {k: v for k, v in spec.options.items() if k != "text_target_model"}
            cached = type(self).from_spec(dataclasses.replace(spec, model=model, options=kept))  # type: ignore[attr-defined]
            self.__dict__["_targets"] = cached
        return cached

    def _encode_plus(
        self,
        text: Any,
        text_pair: Any = None,
        add_special_tokens: bool = True,
        padding_strategy: str = "do_not_pad",
        truncation_strategy: str = "do_not_truncate",
        max_length: int | None = None,
        stride: int = 0,
        is_split_into_words: bool = False,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_tensors: str | None = None,
        return_token_type_ids: bool | None = None,
        return_attention_mask: bool | None = None,
        return_overflowing_tokens: bool = False,
        return_special_tokens_mask: bool = False,
        return_offsets_mapping: bool = False,
        return_length: bool = False,
        split_special_tokens: bool | None = None,
    ) -> BatchEncoding:
        """transformers' TokenizersBackend._encode_plus, on the native pipeline."""
        _check_bool(add_special_tokens, "add_special_tokens")
        words = _check_bool(is_split_into_words, "is_split_into_words")
        if split_special_tokens is not None:
            _check_bool(split_special_tokens, "split_special_tokens")
        message = (
            "text input must be of type `str` (single example), `list[str]` (batch or single pretokenized example) "
            "or `list[list[str]]` (batch of pretokenized examples) or `list[tuple[list[str], list[str]]]` (batch of "
            "pretokenized sequence pairs)."
        )
        if not _valid_text_input(text) or (text_pair is not None and not _valid_text_input(text_pair)):
            raise ValueError(message)
        if words:
            # transformers' batch detection with is_split_into_words: a list of lists is a batch,
            # a list of str (or an empty list) one example
            batched = bool(isinstance(text, (list, tuple)) and text and isinstance(text[0], (list, tuple)))
        else:
            batched = isinstance(text, (list, tuple))
        if batched:
            if isinstance(text_pair, str):
                raise TypeError(
                    "when tokenizing batches of text, `text_pair` must be a list or tuple with the same length as `text`."
                )
            if text_pair is not None and len(text) != len(text_pair):
                raise ValueError(
                    f"batch length of `text`: {len(text)} does not match batch length of `text_pair`: {len(text_pair)}."
                )
        if words:
            if batched:
                items = list(zip(text, text_pair)) if text_pair is not None else list(text)
            else:
                items = [(text, text_pair)] if text_pair else [text]
            texts, pairs = pretokenized_inputs(items)
        elif batched:
            texts = list(text)
            pairs = list(text_pair) if text_pair is not None else None
        else:
            texts = [text]
            pairs = [text_pair] if text_pair else None  # (an empty pair is none, as transformers')
        # (a pair given inside the batch: (text, pair); the types read at C speed first, as a
        # batch of texts has no other)
        for i, t in enumerate(texts if batched and not words and set(map(type, texts)) - {str} else ()):
            if not isinstance(t, str):
                if isinstance(t, (list, tuple)) and len(t) == 2 and all(isinstance(x, str) for x in t):
                    if pairs is None:
                        pairs = [None] * len(texts)
                    if pairs[i] is not None:
                        raise TextInputError(message)
                    texts[i], pairs[i] = t
                else:
                    raise TextInputError(message)
        if (
            not words
            and pairs is not None
            and set(map(type, pairs)) - {str, type(None)}  # (only then each read: str subclasses pass)
            and not all(p is None or isinstance(p, str) for p in pairs)
        ):
            raise TextInputError(message)
        truncate = None
        if truncation_strategy != "do_not_truncate":
            assert max_length is not None  # (_strategies set it)
            max_length = _check_int(max_length, "max_length", 0, None)
            stride = _check_int(stride, "stride", 0, None)
            n_added = self._native.added_tokens(False)
            if max_length >= n_added and stride > max_length - n_added:  # (HF enable_truncation check)
                raise ValueError(
                    f"tokenizer stride set to {stride}, which is greater than or equal to its effective max length "
                    f"of {max_length - n_added} (= {max_length} original max length - {n_added} added special tokens), "
                )
            strategy = _STRATEGY[truncation_strategy]
            if self._python_class():
                strategy += 3  # (a Python class's truncate_sequences: the native pipeline's 3, 4, 5)
            truncate = (max_length, stride, strategy, self.truncation_side == "left")
            if add_special_tokens:
                # HF tokenizers cuts to max_length less the template's special tokens, a subtraction
                # that wraps round where they do not fit: no truncation at all then
                kinds = {p is not None for p in pairs} if pairs is not None else {False}
                fits = {self._native.added_tokens(k) <= max_length for k in kinds}
                if fits == {False}:
                    truncate = None
                elif len(fits) > 1:
                    raise ValueError(
                        f"max_length {max_length} leaves no room for a pair's special tokens but does for a single "
                        "text's: encode the pairs and the single texts of this batch in calls of their own"
                    )
        pad = None
        pad_token = ""
        if padding_strategy != "do_not_pad":
            side = padding_side if padding_side is not None else self.padding_side
            if side not in ("left", "right"):
                raise ValueError(f"padding_side must be 'left' or 'right', got {side!r}")
            length = max_length if padding_strategy == "max_length" else None
            multiple = _check_int(pad_to_multiple_of, "pad_to_multiple_of", 0, None, none="no rounding")
            pad_token = str(self.pad_token)
            pad = (
                _check_int(length, "max_length", 0, None, none="") or 0,
                multiple or 0,
                self.pad_token_id,
                0,
                side == "left",
            )
        encodings = self._encode_with(
            texts, pairs, add_special_tokens, truncate, pad, pad_token, words, split_special_tokens
        )

        input_names = self._input_names()
        if return_token_type_ids is None:
            return_token_type_ids = "token_type_ids" in input_names
        if return_attention_mask is None:
            return_attention_mask = "attention_mask" in input_names
        # each overflowing part a row of its own, after its text's (the sample it maps to)
        rows = [p for e in encodings for p in (e, *e.overflowing)] if return_overflowing_tokens else encodings
        if not rows:
            raise IndexError("list index out of range")  # (transformers' call fails so on an empty batch)
        # (a field at a time, read at C speed; transformers' key order)
        fields = [("input_ids", _IDS)]
        if return_token_type_ids:
            fields.append(("token_type_ids", _TYPE_IDS))
        if return_attention_mask:
            fields.append(("attention_mask", _ATTENTION_MASK))
        if return_special_tokens_mask:
            fields.append(("special_tokens_mask", self._special_tokens_mask_of(add_special_tokens)))
        if return_offsets_mapping:
            fields.append(("offset_mapping", _OFFSETS))
        if not batched and return_tensors is None and not return_overflowing_tokens:
            # one text: its rows without the batch dimension
            row = rows[0]
            data: dict[str, Any] = {name: read(row) for name, read in fields}
            if return_length:
                data["length"] = [len(data["input_ids"])]
        else:
            data = {name: list(map(read, rows)) for name, read in fields}
            if return_length:
                data["length"] = list(map(len, data["input_ids"]))
            if return_overflowing_tokens:
                data["overflow_to_sample_mapping"] = [
                    i for i, e in enumerate(encodings) for _ in range(1 + len(e.overflowing))
                ]
        return BatchEncoding(data, rows, tensor_type=return_tensors)

    def _special_tokens_mask_of(self, add_special_tokens: bool) -> Any:
        """What reads a call's special_tokens_mask from an encoding: the template's tokens (and
        padding) as 1, but for MarianTokenizer's get_special_tokens_mask, which also marks the
        text's tokens of a special id but the unknown token's (where add_special_tokens)."""
        config = self.config
        if not add_special_tokens or config is None or config.transformers_class != "MarianTokenizer":
            return _SPECIAL_TOKENS_MASK
        special = set(self.all_special_ids) - {self.unk_token_id}

        def read(encoding: Any) -> list[int]:
            return [int(m or i in special) for m, i in zip(encoding.special_tokens_mask, encoding.ids)]

        return read

    def _encode_with(
        self,
        texts: list[str],
        pairs: list[str | None] | None,
        add_special_tokens: bool,
        truncation: tuple[Any, ...] | None,
        padding: tuple[Any, ...] | None,
        pad_token: str,
        is_split_into_words: bool = False,
        split_special_tokens: bool | None = None,
    ) -> list[Any]:
        """encode_batch with this call's truncation and padding (the native pipeline's for one
        call; its own settings stay), on threads as encode_batch picks them; texts (and pairs)
        lists of words where is_split_into_words. split_special_tokens: None for the
        tokenizer's own, else this call's."""
        if is_split_into_words:
            every = words_of(texts, pairs)
        else:
            every = texts if pairs is None else texts + [p for p in pairs if p is not None]
        threads = batch_threads(len(texts), sum(map(len, every)))
        added = self._call_matcher(every, split_special_tokens)
        return self._native.encode_batch_with(  # type: ignore[no-any-return]
            texts,
            pairs,
            add_special_tokens,
            added,
            threads,
            truncation,
            padding,
            pad_token,
            is_pretokenized=is_split_into_words,
        )

    def _call_matcher(self, texts: Sequence[str | None], split_special_tokens: bool | None) -> Any:
        """The added-token matcher of a call over `texts` (the tokenizer's default policy, or
        this call's split_special_tokens where it differs)."""
        if split_special_tokens is not None and split_special_tokens != self._split_special():
            return self._split_matcher(split_special_tokens)
        k = self._kernel
        return self._added(k.default_allowed, k.default_disallowed, texts)

    def _split_special(self) -> bool:
        """The tokenizer's split_special_tokens (False where its kernel has no such option)."""
        return bool(self._spec.options.get("split_special_tokens", False))

    def _split_matcher(self, split_special_tokens: bool) -> Any:
        """The added-token matcher of a call with split_special_tokens other than the
        tokenizer's: every added token matched, the special ones left as text where it is True
        (as the kernel's own default with that option; the tokenizer is not changed)."""
        from .pipeline.compile import OPTIONS
        from .pipeline.staged import special_contents

        k = self._kernel
        if "split_special_tokens" not in OPTIONS.get(k.name, ()):
            raise ValueError(f"split_special_tokens is not an option of a {k.name} tokenizer")
        names = k.policy.names
        matched = names - special_contents(self._spec) if split_special_tokens else names
        return k.policy.allowed_matcher(frozenset(matched))

    def _python_class(self) -> bool:
        """Whether transformers runs this folder with a Python class (no tokenizers backend): one
        tokenforge runs as a pipeline of its own (PIPELINE_CLASSES), or one whose decode it runs
        as the class's (the option special_segments, every Python class's: the
        SentencePieceBackend classes, PhoBERT and CTRL too). Such a class tokenizes and
        truncates its own way."""
        config = self.config
        return "special_segments" in self._kernel.options or (
            config is not None and config.transformers_class in PIPELINE_CLASSES
        )

    def tokenize(self, text: Any, pair: Any = None, add_special_tokens: bool = False, **kwargs: Any) -> list[str]:
        """The tokens of a text (or a pair), without special tokens unless add_special_tokens,
        as transformers' tokenize: keywords of its _encode_plus (is_split_into_words,
        split_special_tokens, ...) apply, others are ignored, as there. A folder transformers
        runs with a Python class tokenizes the text alone, as that class does (no pair, no
        special tokens)."""
        known = {k: v for k, v in kwargs.items() if k in _ENCODE_PLUS_KEYWORDS}
        python_class = self._python_class()
        if python_class:  # (a Python class's tokenize reads the text alone: no pair, no special tokens)
            pair, add_special_tokens = None, False
        encoded = self._encode_plus(text, pair, add_special_tokens, **known)
        tokens: list[str] = encoded.tokens()
        if python_class:
            # each token by its id's name (an added token's own text, not with the spaces or
            # Siglip's punctuation its lstrip or rstrip took), a piece the vocabulary lacks by its
            # text (the encoding's, where its pipeline names it so: Siglip's)
            ids = encoded["input_ids"]
            unknown, unknown_token = self.unk_token_id, self.unk_token
            names = self.convert_ids_to_tokens(ids)
            tokens = [_own_text(t, unknown_token) if i == unknown else n for i, t, n in zip(ids, tokens, names)]
            if not known.get("is_split_into_words") and unknown in ids:
                tokens = self._class_tokens(encoded, tokens, text, known.get("split_special_tokens"))
        return tokens

    def _class_tokens(
        self, encoded: BatchEncoding, tokens: list[str], text: Any, split_special_tokens: bool | None
    ) -> list[str]:
        """`tokens` with each unknown id's token as the Python class shows it: the piece its
        vocabulary lacks, by its text. Over sentencepiece with a vocabulary of its own (M2M100,
        Marian, PLBart, the SentencePieceBackend classes): sentencepiece's piece
        (SpmTokenizer.class_tokens); over a WordLevel model (Wav2Vec2-CTC, ESM): the word, as the
        pipeline's pre_tokenize shows it; over fastBPE (PhoBERT, CTRL): the piece's text, with
        "@@" where its word goes on. Pieces go to the text's tokens in order (from the end where
        truncation cut the left side)."""
        if not isinstance(text, str):
            return tokens
        matcher = self._call_matcher([text], split_special_tokens)
        model = self._spec.model.get("type") if isinstance(self._spec.model, Mapping) else None
        if hasattr(self._native, "class_tokens") and "vocabulary" in self._spec.options:
            pieces = list(self._native.class_tokens(text, matcher))
        elif model == "WordLevel" and hasattr(self._native, "pre_tokenize"):
            pieces = [word for word, _ in self._native.pre_tokenize(text, matcher)]
        elif model == "FastBPE":
            row = encoded._encoding("tokens", 0)
            words = row.word_ids
            pieces = [
                text[a:b] + ("@@" if k + 1 < len(words) and words[k + 1] == words[k] else "")
                for k, (a, b) in enumerate(row.offsets)
            ]
        else:
            return tokens
        unknown = self.unk_token_id
        ids = encoded["input_ids"]
        at = list(range(len(ids)))
        if len(at) != len(pieces) and self.truncation_side == "left":
            at, pieces = at[::-1], pieces[::-1]
        out = list(tokens)
        unknown_token = self.unk_token
        for i, piece in zip(at, pieces):
            if ids[i] == unknown:
                out[i] = _own_text(piece, unknown_token)  # (the unknown token itself, stripped)
        return out

    # -- decoding as transformers ----------------------------------------------------------

    def _clean_up(self, text: str, clean_up_tokenization_spaces: bool) -> str:
        """Decoded text (the native decode's) made as transformers' decode with this
        clean_up_tokenization_spaces (see _finisher)."""
        return self._finisher(clean_up_tokenization_spaces)(text)

    def _finisher(self, clean_up_tokenization_spaces: bool) -> Callable[[str], str]:
        """What makes decoded text (the native decode's) as transformers' decode with this
        clean_up_tokenization_spaces: the decoder's own finishing (denormalize) without the
        folder's clean-up, then transformers' clean_up_tokenization where asked, but for a BPE
        model (transformers skips it there). (Made once per call: a batch's texts share it.)"""
        from .pipeline.compile import clean_up_tokenization

        k = self._kernel
        finish = k.uncleaned_denormalize if k.options.get("clean_up_tokenization_spaces") else k.denormalize
        clean = _check_bool(clean_up_tokenization_spaces, "clean_up_tokenization_spaces") and not self._bpe_model()
        config = self._spec.config
        if config is not None and config.transformers_class in _OWN_CLEAN_UP:
            clean = config.clean_up_tokenization_spaces  # (the class's decode passes its own setting)
        if not clean:
            return finish if finish is not None else _as_it_is
        if finish is None:
            return clean_up_tokenization  # type: ignore[no-any-return]
        return lambda text: clean_up_tokenization(finish(text))  # type: ignore[no-any-return]

    def _bpe_model(self) -> bool:
        """Whether transformers' backend model is a BPE (its decode never cleans up then); a
        Python class over sentencepiece (the option special_segments) has no backend and cleans up."""
        from .tokenizer import _model_type

        if "special_segments" in self._kernel.options:
            return False
        return _model_type(self._spec.model) == "BPE" or self.kernel in ("byte_level_bpe", "tekken")

    def batch_decode(
        self,
        sequences: Any,
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
    ) -> list[str]:
        """The text of each id sequence (lists, NumPy or torch arrays), as transformers'
        batch_decode: special tokens kept by default (transformers' default; `decode` and
        `decode_batch` skip them by default, as HF tokenizers'), cleaned up as
        clean_up_tokenization_spaces says (None: the folder's setting). A single sequence gives
        a list of its one text."""
        sequences = _to_py(sequences)
        if len(sequences) == 0:
            return []
        if not isinstance(sequences[0], (list, tuple)):
            sequences = [sequences]
        clean = (
            self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None else clean_up_tokenization_spaces
        )
        finish = self._finisher(clean)
        return [finish(self._decode_natively(ids, skip_special_tokens)) for ids in sequences]


# Classes whose decode cleans up as the folder says whatever the call asks (PLBartTokenizer's
# decode passes self.clean_up_tokenization_spaces on)
_OWN_CLEAN_UP = frozenset(("PLBartTokenizer",))


def _as_it_is(text: str) -> str:
    return text


def _choice(value: Any, choices: tuple[str, ...], enum: str) -> str:
    value = getattr(value, "value", value)  # (transformers' PaddingStrategy / TruncationStrategy)
    if value not in choices:
        raise ValueError(f"{value} is not a valid {enum}, please select one of {list(choices)}")
    return str(value)


def _named_token(name: str) -> property:
    def get(self: TransformersApi) -> str | None:
        return self._special(name)

    def set_(self: TransformersApi, value: Any) -> None:
        self._set_special(name, value)

    get.__doc__ = f"The folder's {name} (None where it names none), as transformers'."
    return property(get, set_)


def _named_id(name: str) -> property:
    def get(self: TransformersApi) -> int | None:
        text = self._special(name)
        return None if text is None else self.convert_tokens_to_ids(text)  # type: ignore[no-any-return]

    def set_(self: TransformersApi, value: int | None) -> None:
        self._set_special(name, None if value is None else self.convert_ids_to_tokens(value))

    get.__doc__ = f"The id of {name} (the unknown token's id where the vocabulary lacks it; None where unset)."
    return property(get, set_)


for _name in SPECIAL_TOKENS_ATTRIBUTES:
    setattr(TransformersApi, _name, _named_token(_name))
    setattr(TransformersApi, _name + "_id", _named_id(_name))
del _name


def _checked_side(value: str, which: str) -> str:
    """`value` where it is a side ("right" or "left"); else transformers' error for `which`
    ("Padding" or "Truncation")."""
    if value not in ("right", "left"):
        raise ValueError(f"{which} side should be selected between 'right' and 'left', current value: {value}")
    return value
