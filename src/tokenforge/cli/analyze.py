"""`tokenforge analyze KIND`: the analyses of tokenforge.analysis from a shell — each a table
(text, --json or --csv) and, with --plot FILE.png|svg, a chart.

The options and loading it shares with the other commands are in common.py.
"""

from __future__ import annotations

import argparse
import json
import os
import textwrap
from typing import Any

from .common import EXIT_STATUS, FORMATTER, CliError, add_errors_option, check_inputs, load, stdin_bytes, utf8, write

KINDS = {
    "languages": "tokens per language across tokenizers; FILES are one text per language (named by file stem), "
    "ideally the same content translated",
    "numbers": "how 1-6 digit numbers split, by token count and split shape (no FILES)",
    "whitespace": "tokens spent on whitespace and indentation in FILES (code)",
    "formats": "the same records as JSON, YAML and CSV, tokens each; FILES: a JSON list of objects or JSON "
    "lines (default: 200 built-in sample records)",
    "glitch": "tokens their own text never encodes to, and tokens absent or rare in the reference corpus FILES "
    "(first -e only)",
    "vocabulary": "token length histogram, scripts, byte tokens, special tokens (first -e only; no FILES)",
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `analyze` parser, added to `subparsers`, with one sub-command per KIND (argparse
    cannot take KIND, options, then FILES as two positionals of one parser)."""
    kinds = "\n".join(f"  {k:<11} {textwrap.shorten(v, 86)}" for k, v in KINDS.items())
    parser = subparsers.add_parser(
        "analyze",
        help="analyses of token quirks: languages, numbers, whitespace, formats, glitch tokens, vocabulary",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Run one analysis of how tokenizers treat text and print its table; --json or --csv for the data, "
            "--plot for a chart (PNG or SVG; needs matplotlib: pip install 'tokenforge[analysis]'). "
            "FILES (globs expanded; quote them) are read as UTF-8; '-' reads standard input. "
            "`tokenforge analyze KIND --help` explains each.",
            100,
        )
        + "\n\nkinds:\n"
        + kinds,
        epilog="examples:\n"
        "  tokenforge analyze languages -e gpt2 -e cl100k_base -e o200k_base 'man/*.txt' --plot langs.svg\n"
        "  tokenforge analyze numbers -e cl100k_base -e o200k_base --max-digits 6\n"
        "  tokenforge analyze glitch -e cl100k_base 'corpus/*.txt' --rare 0 --limit 50 --json\n\n" + EXIT_STATUS,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-e",
        "--encoding",
        action="append",
        metavar="NAME_OR_FILE",
        help="a tokenizer (repeat for several; default: cl100k_base and o200k_base)",
    )
    output = common.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the table as JSON: {title, columns, rows, notes}")
    output.add_argument("--csv", action="store_true", help="print the table's rows as CSV")
    common.add_argument("--plot", metavar="FILE", help="also write a chart to FILE (.png or .svg)")
    add_errors_option(common)
    kind_parsers = parser.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, about in KINDS.items():
        sub = kind_parsers.add_parser(kind, parents=[common], help=about, description=about, formatter_class=FORMATTER)
        if kind not in ("numbers", "vocabulary"):
            sub.add_argument("files", nargs="*", metavar="FILES", help="input files or quoted globs ('-': stdin)")
        if kind == "numbers":
            sub.add_argument("--max-digits", type=int, default=6, help="the longest numbers (default: %(default)s)")
            sub.add_argument("--sample", type=int, default=10_000, help="numbers per length (default: %(default)s)")
            sub.add_argument("--prefix", default="", help="text before each number, e.g. ' ' (default: none)")
        if kind == "glitch":
            sub.add_argument("--rare", type=int, default=0, help="at most this many occurrences is rare (default: 0)")
            sub.add_argument("--limit", type=int, default=100, help="rows to list, 0 for all (default: %(default)s)")
        if kind == "languages":
            sub.add_argument("--reference", help="the language the others are compared with (default: the first)")
    return parser


def _texts(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.files == ["-"]:
        data = stdin_bytes()
        return [("-", data if isinstance(data, str) else utf8(data, "standard input", args.errors))]
    out = []
    for path in check_inputs(args.files, "FILES"):
        with open(path, "rb") as f:
            out.append((path, utf8(f.read(), path, args.errors)))
    return out


def _records(args: argparse.Namespace) -> list[dict[str, Any]]:
    if not args.files:
        return [
            {
                "id": i,
                "name": f"user{i}",
                "email": f"user{i}@example.com",
                "active": i % 3 != 0,
                "score": round(i * 1.7, 1),
            }
            for i in range(200)
        ]
    records: list[dict[str, Any]] = []
    for path, text in _texts(args):
        try:
            value = json.loads(text)
            items = value if isinstance(value, list) else [value]
        except json.JSONDecodeError:
            try:
                items = [json.loads(line) for line in text.splitlines() if line.strip()]
            except json.JSONDecodeError as e:
                raise CliError(
                    f"{path}: not JSON or JSON lines ({e}); give a list of objects or one object per line"
                ) from None
        if not all(isinstance(r, dict) for r in items):
            raise CliError(f"{path}: every record must be a JSON object")
        records += items
    if not records:
        raise CliError("no records in FILES: give a JSON list of objects or JSON lines")
    return records


def run(args: argparse.Namespace) -> int:
    from .. import analysis

    args.files = getattr(args, "files", [])

    names = args.encoding or ["cl100k_base", "o200k_base"]
    tokenizers = {name: load(name) for name in names}
    kind = args.kind
    needs_files = kind in ("languages", "whitespace", "glitch")
    if needs_files and not args.files:
        raise CliError(f"analyze {kind} needs FILES ({KINDS[kind]})")
    first = names[0]
    if kind == "languages":
        texts = {os.path.splitext(os.path.basename(p))[0]: t for p, t in _texts(args)}
        if args.reference is not None and args.reference not in texts:
            raise CliError(f"--reference {args.reference!r} is not one of the languages: {', '.join(texts)}")
        table = analysis.language_cost(tokenizers, texts, args.reference)
    elif kind == "numbers":
        if not 1 <= args.max_digits <= 12 or args.sample < 1:
            raise CliError("--max-digits must be 1-12 and --sample at least 1")
        table = analysis.number_splits(tokenizers, args.max_digits, args.sample, args.prefix)
    elif kind == "whitespace":
        table = analysis.whitespace_cost(tokenizers, "\n".join(t for _, t in _texts(args)))
    elif kind == "formats":
        table = analysis.format_cost(tokenizers, _records(args))
    elif kind == "glitch":
        if args.rare < 0 or args.limit < 0:
            raise CliError("--rare and --limit must be 0 or more")
        table = analysis.glitch_audit(tokenizers[first], [t for _, t in _texts(args)], args.rare, args.limit, first)
    else:
        table = analysis.vocabulary_report(tokenizers[first], first)
    if args.plot:
        if not args.plot.endswith((".png", ".svg")):
            raise CliError(f"--plot {args.plot}: name a .png or .svg file")
        if not table.plot:
            raise CliError(f"analyze {kind} has no chart; drop --plot")
        try:
            table.save_plot(args.plot)
        except ImportError as e:
            raise CliError(str(e)) from None
        except OSError as e:
            raise CliError(f"--plot {args.plot}: cannot write it ({e.strerror or e}); check the folder") from None
    if args.json:
        write(table.to_json() + "\n")
    elif args.csv:
        write(table.to_csv())
    else:
        write(table.to_text(max_rows=60))
    return 0
