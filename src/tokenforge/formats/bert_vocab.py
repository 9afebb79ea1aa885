"""BERT's vocab.txt: one token per line, ids by line number (from 0). Beside it, HF's
tokenizer_config.json may say how to normalize (do_lower_case, strip_accents,
tokenize_chinese_chars) and name the special tokens."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .atomic import write_files_atomically
from .validation import FormatError, read_json

if TYPE_CHECKING:
    from ..pipeline.spec import PipelineSpec

# The keys of tokenizer_config.json that BERT's loader reads, and the kinds they must be.
_CONFIG_FLAGS = ("do_lower_case", "tokenize_chinese_chars")
_CONFIG_TOKENS = tuple(f"{k}_token" for k in ("unk", "sep", "pad", "cls", "mask"))


def read_vocab_txt(path: str | os.PathLike[str]) -> list[str]:
    """The tokens of a vocab.txt by id (line number from 0); a FormatError names the line of
    an empty or repeated token, or the byte that is not UTF-8."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FormatError(
            path, f"line {line}", f"not UTF-8 text (invalid byte at offset {e.start}); is it a vocab.txt?"
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tokens = [line.rstrip("\r") for line in lines]
    if not tokens:
        raise FormatError(path, "", "the vocabulary is empty")
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if not token:
            raise FormatError(path, f"line {i + 1}", "the line is empty; every line of a vocab.txt is one token")
        if token in seen:
            raise FormatError(path, f"line {i + 1}", f"token {token!r} already on line {seen[token] + 1}")
        seen[token] = i
    return tokens


def check_special_tokens(path: str | os.PathLike[str], tokens: list[str], names: dict[str, str]) -> None:
    """A FormatError naming the file unless every token of `names` (e.g. {"unk_token": "[UNK]"})
    is in `tokens` (the vocabulary read from `path`)."""
    present = set(tokens)
    for role, token in names.items():
        if token not in present:
            what = "unknown token" if role == "unk_token" else "token"
            raise FormatError(path, "", f"the vocabulary has no {what} {token!r} ({role}), which the tokenizer needs")


def read_wpm_vocab_txt(path: str | os.PathLike[str], names: dict[str, str] | None = None) -> list[str]:
    """A vocab.txt read and converted to llama.cpp's WPM form (`models.wordpiece.to_wpm_vocab`),
    checked: a line that converts to nothing ("##"), two lines that convert to the same token,
    or a missing special token (`names`, by default [UNK], [CLS] and [SEP]) are a FormatError
    naming the file (and line)."""
    from ..models.wordpiece import to_wpm_vocab

    path = os.fspath(path)
    tokens = to_wpm_vocab(read_vocab_txt(path))
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if not token:
            raise FormatError(path, f"line {i + 1}", "'##' alone becomes an empty token in the WPM form")
        if token in seen:
            raise FormatError(
                path, f"line {i + 1}", f"becomes {token!r} in the WPM form, as line {seen[token] + 1} does"
            )
        seen[token] = i
    check_special_tokens(path, tokens, names or {"unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]"})
    return tokens


def write_vocab_txt(tokens: list[str], path: str | os.PathLike[str]) -> None:
    write_files_atomically([(os.fspath(path), "".join(t + "\n" for t in tokens).encode("utf-8"))])


def read_tokenizer_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """HF's tokenizer_config.json, or {} when there is none. The keys BERT's loader reads are
    checked: do_lower_case and tokenize_chinese_chars true/false, strip_accents true/false/null,
    the *_token names strings (or transformers' {"content": ...} objects, read as their content;
    pad_token and mask_token may be null); anything else there is a FormatError naming the key."""
    path = os.fspath(path)
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        config = read_json(path, f.read(), "a tokenizer_config.json")
    if not isinstance(config, dict):
        raise FormatError(path, "", "not a tokenizer_config.json: expected a JSON object")
    for key in _CONFIG_FLAGS:
        if key in config and not isinstance(config[key], bool):
            raise FormatError(path, key, f"must be true or false, got {config[key]!r}")
    if config.get("strip_accents") is not None and not isinstance(config["strip_accents"], bool):
        raise FormatError(path, "strip_accents", f"must be true, false or null, got {config['strip_accents']!r}")
    for key in _CONFIG_TOKENS:
        value = config.get(key)
        if isinstance(value, dict):  # transformers' serialized AddedToken
            value = config[key] = value.get("content")
        if value is None and key in ("pad_token", "mask_token"):  # null: the tokenizer has none
            continue
        if key in config and (not isinstance(value, str) or not value):
            raise FormatError(path, key, f"must be a token (a non-empty string), got {value!r}")
    return config


def read_bert(path: str | os.PathLike[str], **overrides: Any) -> PipelineSpec:
    """BERT from vocab.txt, configured by the tokenizer_config.json beside it (or `overrides`:
    do_lower_case, strip_accents, tokenize_chinese_chars, unk_token, sep_token, cls_token,
    pad_token, mask_token), as transformers' BertTokenizerFast builds it."""
    from ..pipeline import presets

    beside = os.path.join(os.path.dirname(os.path.abspath(path)), "tokenizer_config.json")
    config = {**read_tokenizer_config(beside), **overrides}
    tokens = read_vocab_txt(path)
    names = {k: config.get(f"{k}_token", f"[{k.upper()}]") for k in ("unk", "cls", "sep")}
    check_special_tokens(path, tokens, {f"{k}_token": names[k] for k in names})
    return presets.bert(tokens, config)


def read_wpm(path: str | os.PathLike[str]) -> PipelineSpec:
    """llama.cpp's WPM over a BERT vocab.txt, converted to its GGUF form."""
    from ..pipeline import presets

    return presets.wpm(read_wpm_vocab_txt(path))
