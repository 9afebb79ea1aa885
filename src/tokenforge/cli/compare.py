"""`tokenforge compare`: several tokenizers on the same text or files — tokens, characters and
bytes per token, each against the first, and the stretches of text they split differently.

The token views and the differences are tokenforge.visualize's (what the visualizer page shows);
the options and loading it shares with the other commands are in common.py.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from .common import (
    EXIT_STATUS,
    FORMATTER,
    CliError,
    add_errors_option,
    check_inputs,
    load,
    stdin_bytes,
    utf8,
    write,
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `compare` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "compare",
        help="compare tokenizers on the same text: tokens, bytes/token, where they split differently",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Encode the same text with every tokenizer given by -e (two or more; named encodings or "
            "tokenizers, or files) and print, per tokenizer, the tokens, characters and bytes per token and "
            "the token count relative to the first; then the stretches of text where they split differently, "
            "each tokenizer's pieces side by side (bytes of a split character in hex, as <E8 AA>). The text is "
            "--text, or FILES (globs expanded; quote them) read as UTF-8, or standard input. Special-token "
            "text counts as text.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge compare -e cl100k_base -e o200k_base --text 'Hello 日本語 world'\n"
        "  tokenforge compare -e gpt2 -e cl100k_base -e tokenizer.json --json README.md\n"
        "  cat notes.txt | tokenforge compare -e cl100k_base -e bert-base-uncased\n\n" + EXIT_STATUS,
    )
    parser.add_argument("files", nargs="*", metavar="FILES", help="files or quoted globs (default: standard input)")
    parser.add_argument(
        "-e",
        "--encoding",
        action="append",
        metavar="NAME_OR_FILE",
        help="a tokenizer to compare (give -e two or more times; default: cl100k_base and o200k_base)",
    )
    parser.add_argument("--text", help="compare on this text instead of FILES or standard input")
    parser.add_argument(
        "--differences",
        type=int,
        default=10,
        metavar="N",
        help="how many differing stretches to list (default: %(default)s; 0: none)",
    )
    add_errors_option(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print {text: {characters, bytes}, tokenizers: [{name, tokens, ...}], differences: [...]} as JSON",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..visualize import differences, token_view

    names = args.encoding or ["cl100k_base", "o200k_base"]
    if len(names) < 2:
        raise CliError("compare needs two or more tokenizers: give -e NAME_OR_FILE twice or more")
    if args.differences < 0:
        raise CliError(f"--differences {args.differences}: give 0 or more")
    if args.text is not None and args.files:
        raise CliError("give the text either as --text or as FILES, not both")
    tokenizers = [load(name) for name in names]
    if args.text is not None:
        text = args.text
    elif not args.files or args.files == ["-"]:
        data = stdin_bytes()
        text = data if isinstance(data, str) else utf8(data, "standard input", args.errors)
    else:
        parts = []
        for path in check_inputs(args.files, "FILES"):
            with open(path, "rb") as f:
                parts.append(utf8(f.read(), path, args.errors))
        text = "".join(parts)
    views = [token_view(tok, text, name=name) for tok, name in zip(tokenizers, names)]
    first = views[0].count
    rows: list[dict[str, Any]] = []
    for view in views:
        row = view.as_json()
        del row["items"]
        row["tokens"] = row.pop("count")
        row["relative_to_first"] = view.count / first if first else None
        rows.append(row)
    found = differences(views, text, args.differences) if args.differences else []
    if args.json:
        out = {
            "text": {"characters": len(text), "bytes": len(text.encode("utf-8"))},
            "tokenizers": rows,
            "differences": found,
        }
        write(json.dumps(out, ensure_ascii=False) + "\n")
        return 0
    width = max(len(name) for name in names)
    write(f"{'tokenizer':<{width}}  {'tokens':>10}  {'chars/tok':>9}  {'bytes/tok':>9}  {'vs first':>8}\n")
    for row in rows:
        per_char = "-" if row["chars_per_token"] is None else f"{row['chars_per_token']:.2f}"
        per_byte = "-" if row["bytes_per_token"] is None else f"{row['bytes_per_token']:.2f}"
        rel = "-" if row["relative_to_first"] is None else f"{row['relative_to_first']:.3f}"
        write(f"{row['name']:<{width}}  {row['tokens']:>10,}  {per_char:>9}  {per_byte:>9}  {rel:>8}\n")
    if found:
        write(f"\nwhere they split differently (first {len(found)}):\n")
        for d in found:
            write(f"  {d['text']!r} (bytes {d['start']}-{d['end']})\n")
            for name, pieces in d["splits"].items():
                write(f"    {name:<{width}}  {' | '.join(repr(p)[1:-1] for p in pieces)}\n")
    return 0
