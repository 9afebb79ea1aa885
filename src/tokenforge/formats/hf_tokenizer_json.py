"""HF tokenizers' `tokenizer.json`: byte-level BPE vocabularies (writing) and WordPiece
tokenizers (reading and writing).

For byte-level BPE, the file holds the vocabulary in GPT-2's byte-to-unicode spelling, the merges recovered from
the ranks, the split pattern as a `Split` pre-tokenizer followed by `ByteLevel`, and the
special tokens as added tokens. HF's BPE then gives tiktoken's ids: `ignore_merges` makes it
look a whole piece up first, as tiktoken does.
"""
from __future__ import annotations

import json
import os

from .atomic import write_files_atomically
from .gpt2_files import bytes_to_unicode, split_for_merge


def hf_split_pattern(pattern: str) -> str:
    r"""`pattern` rewritten so HF's regex engine (Oniguruma, Ruby syntax) reads it as tiktoken's does.

    * ``\p{N}{1,3}+`` is possessive in tiktoken's engine, but Oniguruma reads it as
      ``(\p{N}{1,3})+`` (unbounded digit runs). The plain ``\p{N}{1,3}`` matches the same,
      since nothing follows it in its alternative.
    * ``?+``, ``++`` and ``*+`` are possessive in Oniguruma too, so they stay. ``\s++$`` must stay
      possessive: Oniguruma's ``$`` also matches before any ``\n``, and a greedy ``\s+$`` would
      stop before a newline inside the text.
    """
    return pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")


def tokenizer_json(
    mergeable_ranks: dict[bytes, int],
    pattern: str,
    special_tokens: dict[str, int] | None = None,
    *,
    gpt2_style: bool = False,
) -> dict:
    """The tokenizer.json document. `gpt2_style` uses GPT-2's own form (the ByteLevel
    pre-tokenizer with its built-in regex) instead of an explicit Split with `pattern`."""
    b2u = bytes_to_unicode()

    def spell(token: bytes) -> str:
        return "".join(b2u[b] for b in token)

    merges = []
    for token, rank in sorted(mergeable_ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = split_for_merge(mergeable_ranks, token, rank)
        if len(parts) == 2:  # a token no merge reaches is still found whole (ignore_merges)
            merges.append(f"{spell(parts[0])} {spell(parts[1])}")
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
    if gpt2_style:
        pre_tokenizer = {**byte_level, "use_regex": True}
    else:
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": hf_split_pattern(pattern)}, "behavior": "Isolated", "invert": False},
                {**byte_level, "use_regex": False},
            ],
        }
    added = [
        {"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for text, i in sorted((special_tokens or {}).items(), key=lambda kv: kv[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": {**byte_level, "add_prefix_space": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            # Special tokens are in the vocabulary too: HF keeps an added token's own id only then.
            "vocab": {
                **{spell(token): rank for token, rank in mergeable_ranks.items()},
                **{spell(text.encode("utf-8")): i for text, i in (special_tokens or {}).items()},
            },
            "merges": merges,
        },
    }


def save_tokenizer_json(encoding, path: str | os.PathLike[str]) -> None:
    """Write `encoding` (a byte-level BPE `Encoding`, or a WordPiece `Tokenizer`) as an HF
    tokenizer.json, atomically."""
    from ..tokenizer import Tokenizer
    from ..wordpiece_tokenizer import WordPieceTokenizer

    if isinstance(encoding, WordPieceTokenizer):
        doc = _wordpiece_json(encoding)
    elif isinstance(encoding, Tokenizer):
        raise ValueError(f"{type(encoding).__name__} cannot be written as tokenizer.json yet (its save() writes "
                         "its own format)")
    else:
        doc = tokenizer_json(encoding._mergeable_ranks, encoding._pat_str, encoding._special_tokens)
    write_files_atomically([(os.fspath(path), json.dumps(doc, ensure_ascii=False).encode("utf-8"))])


_DIRECTION = {"left": "Left", "right": "Right"}
_STRATEGY = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}


def _wordpiece_json(tok) -> dict:
    from ..decoders.wordpiece import WordPieceDecoder

    if tok.normalizer is not None and not hasattr(tok.normalizer, "to_json"):
        raise ValueError("tokenizer.json cannot hold llama.cpp's WPM preprocessing; save it as vocab.txt")
    t, p = tok.truncation, tok.padding
    return {
        "version": "1.0",
        "truncation": t and {"direction": _DIRECTION[t["direction"]], "max_length": t["max_length"],
                             "strategy": _STRATEGY[t["strategy"]], "stride": t["stride"]},
        "padding": p and {"strategy": {"Fixed": p["length"]} if p["length"] else "BatchLongest",
                          "direction": _DIRECTION[p["direction"]], "pad_to_multiple_of": p["pad_to_multiple_of"],
                          "pad_id": p["pad_id"], "pad_type_id": p["pad_type_id"], "pad_token": p["pad_token"]},
        "added_tokens": [{"id": a.id, "content": a.content, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": a.special} for a in tok.added_tokens],
        "normalizer": tok.normalizer and tok.normalizer.to_json(),
        "pre_tokenizer": tok.pre_tokenizer.to_json(),
        "post_processor": tok.post_processor and tok.post_processor.to_json(dict(enumerate(tok.model.tokens))),
        "decoder": tok.decoder.to_json() if isinstance(tok.decoder, WordPieceDecoder) else None,
        "model": tok.model.to_json(),
    }


def load_tokenizer_json(path: str | os.PathLike[str]):
    """A `Tokenizer` from an HF tokenizer.json with a WordPiece model (BERT's form)."""
    from ..decoders.wordpiece import WordPieceDecoder
    from ..models.wordpiece import WordPiece
    from ..normalizers.bert import BertNormalizer
    from ..postprocessors.template import TemplateProcessing
    from ..pretokenizers.bert import BertPreTokenizer
    from ..tokenizer import AddedToken, Tokenizer

    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a tokenizer.json (invalid JSON: {e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
        raise ValueError(f"{path}: not a tokenizer.json (no \"model\" object)")

    def component(key: str, allowed: dict):
        part = doc.get(key)
        if part is None:
            return None
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            raise ValueError(f"{path}: {key} {kind!r} is not supported here (supported: {', '.join(allowed)})")
        return allowed[kind](part)

    try:
        m = doc["model"]
        if m.get("type", "WordPiece") != "WordPiece":
            raise ValueError(f"model type {m.get('type')!r} is not supported by Tokenizer yet (WordPiece is); "
                             "byte-level BPE files load with tokenforge.load_tiktoken or get_encoding")
        model = WordPiece(m["vocab"], m.get("unk_token", "[UNK]"), m.get("continuing_subword_prefix", "##"),
                          m.get("max_input_chars_per_word", 100))
        normalizer = component("normalizer", {"BertNormalizer": lambda d: BertNormalizer(
            d.get("clean_text", True), d.get("handle_chinese_chars", True), d.get("strip_accents"),
            d.get("lowercase", True))})
        pre = component("pre_tokenizer", {"BertPreTokenizer": lambda d: BertPreTokenizer()})
        if pre is None:
            raise ValueError("a WordPiece tokenizer needs a pre_tokenizer (BertPreTokenizer)")
        post = component("post_processor", {"TemplateProcessing": TemplateProcessing.from_json,
                                            "BertProcessing": TemplateProcessing.from_json})
        decoder = component("decoder", {"WordPiece": lambda d: WordPieceDecoder(d.get("prefix", "##"),
                                                                               d.get("cleanup", True))})
        added = []
        for a in doc.get("added_tokens") or []:
            unsupported = [k for k in ("lstrip", "rstrip", "single_word", "normalized") if a.get(k)]
            if unsupported:
                raise ValueError(f"added token {a.get('content')!r} sets {', '.join(unsupported)}, which tokenforge "
                                 "does not support yet")
            added.append(AddedToken(a["content"], a["id"], a.get("special", False)))
        tok = Tokenizer(model, normalizer, pre, post, decoder, added)
        t = doc.get("truncation")
        if t:
            tok.enable_truncation(t["max_length"], t.get("stride", 0),
                                  {v: k for k, v in _STRATEGY.items()}[t.get("strategy", "LongestFirst")],
                                  t.get("direction", "Right").lower())
        p = doc.get("padding")
        if p:
            strategy = p.get("strategy", "BatchLongest")
            tok.enable_padding(p.get("direction", "Right").lower(), p.get("pad_id", 0), p.get("pad_type_id", 0),
                               p.get("pad_token", "[PAD]"), strategy["Fixed"] if isinstance(strategy, dict) else None,
                               p.get("pad_to_multiple_of"))
        return tok
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}: malformed tokenizer.json ({type(e).__name__}: {e})") from None
    except ValueError as e:
        if str(e).startswith(path):
            raise
        raise ValueError(f"{path}: {e}") from None
