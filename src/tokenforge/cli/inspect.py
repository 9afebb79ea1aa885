"""`tokenforge inspect FILE`: what a tokenizer is: model type, pre-tokenizer, normalizer,
vocabulary size, special and control tokens with their ids, add_bos / add_eos and the longest
tokens, as text or (--json) as JSON; `--token ID|TEXT` shows one token's bytes and, for a BPE,
the merges that build it.

The data comes from tokenforge.inspect (`describe`, `describe_token`); this module loads FILE
(any file or named tokenizer -e takes, a model folder, a tekken.json) and prints. The options and
error path it shares with the other commands are in common.py; the other commands are the
modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import textwrap
from typing import Any

from .common import EXIT_STATUS, FORMATTER, CliError, load, write


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `inspect` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "inspect",
        help="show what a tokenizer file holds",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Show what the tokenizer FILE is: the native kernel that runs it, the model type and its settings, "
            "the pre-tokenizer (its split pattern, named where it is a known one: gpt2, cl100k, o200k, llama3, "
            "qwen2, tekken), the normalizer, the vocabulary size, the special and control tokens with their ids, "
            "whether bos and eos are added, and the longest tokens. FILE is anything tokenforge loads: a named "
            "encoding or tokenizer (`tokenforge list`), a .tiktoken or .tokenforge file, an HF tokenizer.json, "
            "a model folder (its tokenizer.json, tokenizer.model or vocab.txt), a sentencepiece .model, a BERT "
            "vocab.txt, a GGUF file, or Mistral's tekken.json. --token shows one token (by id, or by its exact "
            "text): its bytes and, for a BPE, the merges that build it down to single bytes.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge inspect tokenizer.json\n"
        "  tokenforge inspect o200k_base --longest 20\n"
        "  tokenforge inspect tekken.json --json\n"
        "  tokenforge inspect cl100k_base --token 15339 --token ' world'\n\n" + EXIT_STATUS,
    )
    parser.add_argument("file", metavar="FILE", help="a tokenizer file, a model folder, or a named tokenizer")
    parser.add_argument("--json", action="store_true", help="print everything as one JSON object")
    parser.add_argument(
        "--token",
        action="append",
        default=[],
        metavar="ID|TEXT",
        help="show this token (an id, or a token's exact text); may be given several times",
    )
    parser.add_argument(
        "--longest", type=int, default=10, metavar="N", help="how many of the longest tokens to list (default 10)"
    )
    return parser


def _load(path: str) -> Any:
    """The tokenizer `path` names: a model folder through Tokenizer.from_pretrained, anything
    else as the other commands load -e."""
    if os.path.isdir(path) and not os.path.isfile(os.path.join(path, "encoder.json")):
        if not os.access(path, os.R_OK | os.X_OK):
            raise CliError(f"{path}: cannot read the folder (permission denied); check its permissions")
        from ..tokenizer import Tokenizer

        try:
            return Tokenizer.from_pretrained(path)
        except FileNotFoundError as e:
            raise CliError(str(e)) from None
        except ValueError as e:
            raise CliError(f"{path}: cannot load the model folder ({e})") from None
    if not os.path.exists(path) and os.sep not in path and not path.endswith(".json"):
        return load(path)  # a name, or a close match to one
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file; give an existing tokenizer file, a model folder or a named tokenizer")
    return load(path)


def run(args: argparse.Namespace) -> int:
    from ..inspect import describe, describe_token, find_token

    if args.longest < 0:
        raise CliError(f"--longest {args.longest}: give a count of 0 or more")
    tokenizer = _load(args.file)
    info = describe(tokenizer, longest=args.longest)
    tokens = []
    for token in args.token:
        try:
            tokens.append(describe_token(tokenizer, find_token(tokenizer, token)))
        except ValueError as e:
            raise CliError(f"--token {token!r}: {e}") from None
    if args.json:
        out = {"file": args.file, **info}
        if args.token:
            out["tokens"] = tokens
        write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return 0
    write(_text(args.file, info, tokens))
    return 0


def _line(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_line(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_line(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def _text(path: str, info: dict[str, Any], tokens: list[dict[str, Any]]) -> str:
    lines = [f"{path}", f"  kernel:         {info['kernel']}"]
    lines.append(f"  model:          {_line(info['model'])}")
    lines.append(f"  pre-tokenizer:  {_line(info['pre_tokenizer']) if info['pre_tokenizer'] else 'none'}")
    lines.append(f"  normalizer:     {_line(info['normalizer']) if info['normalizer'] else 'none'}")
    lines.append(f"  vocabulary:     {info['vocab_size']:,} tokens")
    lines.append(f"  add_bos:        {info['add_bos']}")
    lines.append(f"  add_eos:        {info['add_eos']}")
    if "template" in info:
        lines.append(f"  template:       {info['template']}")
    special = info["special_tokens"]
    lines.append(f"  special tokens: {len(special)} ({info['control_tokens']} control)")
    shown = special if len(special) <= 40 else [*special[:20], None, *special[-10:]]
    for s in shown:
        if s is None:
            lines.append(f"    ... {len(special) - 30} more (--json lists them all)")
        else:
            kind = s.get("kind") or ("control" if s["control"] else "user-defined")
            lines.append(f"    {s['id']:>8}  {s['token']!r}  {kind}")
    if info["longest_tokens"]:
        lines.append("  longest tokens:")
        for t in info["longest_tokens"]:
            lines.append(f"    {t['id']:>8}  {t['bytes']:>4} bytes  {t['token']!r}")
    for t in tokens:
        lines.append(f"  token {t['id']}: {t['token']!r}")
        lines.append(f"    bytes:   {t['bytes']} ({t['length']} bytes){'  special' if t['special'] else ''}")
        if t["merges"] is not None:
            lines.append("    merges:")
            lines.extend(_tree(t["merges"], "      "))
    return "\n".join(lines) + "\n"


def _tree(node: Any, indent: str) -> list[str]:
    if not isinstance(node, dict):
        return [f"{indent}{node!r}"]
    if "left" not in node:
        note = f"  ({node['note']}: {node.get('parts')})" if "note" in node else ""
        return [f"{indent}{node['token']!r}{note}"]
    order = f"rank {node['rank']}" if "rank" in node else f"merge {node['merge']}"
    left = node["left"]["token"] if isinstance(node["left"], dict) else node["left"]
    right = node["right"]["token"] if isinstance(node["right"], dict) else node["right"]
    lines = [f"{indent}{node['token']!r} = {left!r} + {right!r}  ({order})"]
    for part in (node["left"], node["right"]):
        if isinstance(part, dict):
            lines.extend(_tree(part, indent + "  "))
    return lines
