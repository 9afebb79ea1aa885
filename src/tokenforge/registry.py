"""Encodings by name, built from vocabulary files shipped inside the package (no network)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from .encoding import Encoding
from .pre_tokenizers import patterns

if TYPE_CHECKING:
    from .tokenizer import Tokenizer

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True)
class EncodingSpec:
    file: str
    pattern: str
    special_tokens: dict[str, int]
    rank_limit: int | None = None  # r50k_base/gpt2 are p50k_base's first 50256 ranks
    explicit_n_vocab: int | None = None


def _harmony_specials() -> dict[str, int]:
    # As tiktoken defines it, including "<|reserved_200018|>" beside "<|endofprompt|>" (200018).
    named = {
        ENDOFTEXT: 199999,
        ENDOFPROMPT: 200018,
        "<|startoftext|>": 199998,
        "<|reserved_200000|>": 200000,
        "<|reserved_200001|>": 200001,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|reserved_200004|>": 200004,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|reserved_200009|>": 200009,
        "<|reserved_200010|>": 200010,
        "<|reserved_200011|>": 200011,
        "<|call|>": 200012,
    }
    return named | {f"<|reserved_{i}|>": i for i in range(200013, 201088)}


_R50K = EncodingSpec("p50k_base.tiktoken", patterns.GPT2, {ENDOFTEXT: 50256}, rank_limit=50256, explicit_n_vocab=50257)
SPECS: dict[str, EncodingSpec] = {
    "gpt2": _R50K,
    "r50k_base": _R50K,
    "p50k_base": EncodingSpec("p50k_base.tiktoken", patterns.GPT2, {ENDOFTEXT: 50256}, explicit_n_vocab=50281),
    "p50k_edit": EncodingSpec(
        "p50k_base.tiktoken",
        patterns.GPT2,
        {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283},
    ),
    "cl100k_base": EncodingSpec(
        "cl100k_base.tiktoken",
        patterns.CL100K,
        {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
    ),
    "o200k_base": EncodingSpec("o200k_base.tiktoken", patterns.O200K, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}),
    "o200k_harmony": EncodingSpec("o200k_base.tiktoken", patterns.O200K, _harmony_specials()),
}

_loaded: dict[str, Encoding] = {}
_lock = threading.Lock()


def list_encoding_names() -> list[str]:
    """Names accepted by `get_encoding`."""
    return list(SPECS)


def get_encoding(encoding_name: str) -> Encoding:
    """A named encoding (loaded once per process, then shared; encodings are immutable)."""
    if not isinstance(encoding_name, str):
        raise TypeError(
            f"encoding_name must be a str (one of {list_encoding_names()}), got {type(encoding_name).__name__}"
        )
    if encoding_name in _loaded:
        return _loaded[encoding_name]
    spec = SPECS.get(encoding_name)
    if spec is None:
        raise ValueError(f"Unknown encoding {encoding_name!r}. Plugins found: {list_encoding_names()}")
    with _lock:
        if encoding_name not in _loaded:
            data = (resources.files("tokenforge") / "data" / spec.file).read_bytes()
            _loaded[encoding_name] = Encoding._from_tiktoken_data(
                encoding_name,
                spec.pattern,
                data,
                spec.special_tokens,
                rank_limit=spec.rank_limit,
                explicit_n_vocab=spec.explicit_n_vocab,
            )
    return _loaded[encoding_name]


def is_builtin(encoding: Encoding) -> bool:
    """Whether `encoding` is the shared instance of a named encoding (pickled by name)."""
    return _loaded.get(encoding.name) is encoding


TOKENIZERS = {"bert-base-uncased": "bert-base-uncased.txt"}  # BERT's vocab.txt, uncased settings


def list_tokenizer_names() -> list[str]:
    """Names accepted by `get_tokenizer`: the named encodings and BERT's vocabulary."""
    return list(SPECS) + list(TOKENIZERS)


def get_tokenizer(name: str) -> Tokenizer:
    """A named `Tokenizer` (a fresh one each call: tokenizers carry truncation/padding settings).
    An encoding's name ("cl100k_base", see list_encoding_names) gives its byte-level BPE as a
    Tokenizer over the shared encoding (same ids, plus offsets, pairs, truncation, padding);
    bert-base-uncased is BERT's uncased WordPiece: lowercase, accents stripped, [CLS] A [SEP]."""
    from .tokenizer import Tokenizer

    if not isinstance(name, str):
        raise TypeError(f"name must be a str (one of {list_tokenizer_names()}), got {type(name).__name__}")
    if name in SPECS:
        return Tokenizer(get_encoding(name))
    if name not in TOKENIZERS:
        raise ValueError(f"Unknown tokenizer {name!r}; named tokenizers: {list_tokenizer_names()}")
    with resources.as_file(resources.files("tokenforge") / "data" / TOKENIZERS[name]) as path:
        return Tokenizer.bert_from_vocab_txt(str(path), do_lower_case=True)
