"""`tokenforge count`: print the number of tokens of each file (or of standard input) and the
total, as a table or, with --json, as one JSON object.

The options and loading it shares with the other commands are in common.py; the other commands
are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from .common import (
    EXIT_STATUS,
    FORMATTER,
    add_encoding_option,
    add_errors_option,
    check_inputs,
    load,
    stdin_bytes,
    utf8,
    write,
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `count` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "count",
        help="count the tokens of files (or of stdin)",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Print the number of tokens of each file, and the total: the text's own tokens (special-token "
            "text counts as text; a tokenizer file adds no [CLS]/<s>, padding or truncation). Files are "
            "read whole as UTF-8; globs are expanded (quote them); no FILES, or -, reads standard input.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge count README.md 'docs/**/*.md'\n"
        "  tokenforge count -e o200k_base --json notes.txt\n"
        "  cat notes.txt | tokenforge count -e tokenizer.json\n\n" + EXIT_STATUS,
    )
    parser.add_argument("files", nargs="*", metavar="FILES", help="files or quoted globs (default: standard input)")
    add_encoding_option(parser, help="named encoding or tokenizer file, as for encode (default: %(default)s)")
    add_errors_option(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print {encoding, files: [{file, tokens, characters, bytes}], total} as JSON",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    enc = load(args.encoding)
    rows = []
    if not args.files or args.files == ["-"]:
        data = stdin_bytes()
        text = data if isinstance(data, str) else utf8(data, "standard input", args.errors)
        rows.append(("-", text))
    else:
        for path in check_inputs(args.files, "FILES"):
            with open(path, "rb") as f:
                rows.append((path, utf8(f.read(), path, args.errors)))
    table: list[dict[str, Any]] = [
        {
            "file": name,
            "tokens": _count_tokens(enc, text),
            "characters": len(text),
            "bytes": len(text.encode("utf-8", "surrogatepass")),
        }
        for name, text in rows
    ]
    total: dict[str, Any] = {key: sum(row[key] for row in table) for key in ("tokens", "characters", "bytes")}
    if args.json:
        write(json.dumps({"encoding": args.encoding, "files": table, "total": total}, ensure_ascii=False) + "\n")
        return 0
    width = max(len(f"{row['tokens']:,}") for row in [*table, total])
    for row in table:
        write(f"{row['tokens']:>{width},}  {row['file']}\n")
    if len(table) > 1:
        write(f"{total['tokens']:>{width},}  total\n")
    return 0


def _count_tokens(enc: Any, text: str) -> int:
    """The tokens of `text` alone: special-token text counts as text, and a tokenizer file adds
    no template tokens ([CLS], <s>), padding or truncation."""
    if hasattr(enc, "encode_ordinary"):
        return len(enc.encode_ordinary(text))
    return len(enc.encode(text, add_special_tokens=False).ids)
