"""The tokenizer inside a GGUF model file (llama.cpp's format): its `tokenizer.ggml.*` metadata,
read with the `gguf` package (pip install gguf).

Supported: `tokenizer.ggml.model = "bert"`, llama.cpp's WPM tokenizer (the vocabulary in its
"▁"-prefixed form), with the unknown, CLS (stored as BOS) and SEP token ids. Other tokenizer
models are refused with their name.
"""
from __future__ import annotations

import os
from typing import Any


def _reader(path: str):
    try:
        import gguf
    except ImportError:
        raise ImportError("reading GGUF files needs the gguf package: pip install gguf") from None
    try:
        return gguf.GGUFReader(path)
    except (ValueError, OSError) as e:
        raise ValueError(f"{path}: not a readable GGUF file ({e})") from None


def read_gguf_tokenizer_fields(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file's tokenizer.ggml.* metadata, as Python values."""
    path = os.fspath(path)
    reader = _reader(path)
    return {name: field.contents() for name, field in reader.fields.items() if name.startswith("tokenizer.ggml.")}


def load_gguf_tokenizer(path: str | os.PathLike[str]):
    from ..tokenizer import Tokenizer

    path = os.fspath(path)
    fields = read_gguf_tokenizer_fields(path)
    model = fields.get("tokenizer.ggml.model")
    if model is None or "tokenizer.ggml.tokens" not in fields:
        raise ValueError(f"{path}: the GGUF file holds no tokenizer (no tokenizer.ggml.model / tokens)")
    if model != "bert":
        raise ValueError(f"{path}: tokenizer model {model!r} is not supported yet (\"bert\", llama.cpp's WPM, is)")
    tokens = list(fields["tokenizer.ggml.tokens"])

    def token_at(key: str, default: str) -> str:
        i = fields.get(f"tokenizer.ggml.{key}")
        if i is None:
            return default
        if not 0 <= i < len(tokens):
            raise ValueError(f"{path}: tokenizer.ggml.{key} {i} is outside the {len(tokens)} tokens")
        return tokens[i]

    return Tokenizer.wpm(tokens, unk_token=token_at("unknown_token_id", "[UNK]"),
                         cls_token=token_at("bos_token_id", "[CLS]"),
                         sep_token=token_at("seperator_token_id", "[SEP]"))
