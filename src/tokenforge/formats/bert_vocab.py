"""BERT's vocab.txt: one token per line, ids by line number (from 0). Beside it, HF's
tokenizer_config.json may say how to normalize (do_lower_case, strip_accents,
tokenize_chinese_chars) and name the special tokens."""
from __future__ import annotations

import json
import os
from typing import Any

from .atomic import write_files_atomically


def read_vocab_txt(path: str | os.PathLike[str]) -> list[str]:
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (invalid byte at offset {e.start}); is it a vocab.txt?") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tokens = [line.rstrip("\r") for line in lines]
    if not tokens:
        raise ValueError(f"{path}: the vocabulary is empty")
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if not token:
            raise ValueError(f"{path}: line {i + 1} is empty; every line of a vocab.txt is one token")
        if token in seen:
            raise ValueError(f"{path}: line {i + 1}: token {token!r} already on line {seen[token] + 1}")
        seen[token] = i
    return tokens


def write_vocab_txt(tokens: list[str], path: str | os.PathLike[str]) -> None:
    write_files_atomically([(os.fspath(path), "".join(t + "\n" for t in tokens).encode("utf-8"))])


def read_tokenizer_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """HF's tokenizer_config.json, or {} when there is none."""
    path = os.fspath(path)
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return config
