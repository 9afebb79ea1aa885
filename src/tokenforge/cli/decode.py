"""`tokenforge decode`: print the text of token ids given as arguments or on standard input.

The options and loading it shares with the other commands are in common.py; the other commands
are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import textwrap

from .common import EXIT_STATUS, FORMATTER, CliError, add_encoding_option, load, message, stdin_bytes, write


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `decode` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "decode",
        help="print the text of token ids",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Print the text of token IDS: whole numbers separated by spaces or commas, as arguments or on "
            "standard input (a JSON list too). Ids from arguments end with a newline; from stdin, the text is "
            "printed as it is. Ids must come from the same encoding (-e); bytes that are not whole UTF-8 "
            "characters print as U+FFFD.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge decode 15339 1917\n"
        "  tokenforge encode 'hi there' --json | tokenforge decode\n"
        "  tokenforge decode -e bert-base-uncased 101 7592 102\n\n" + EXIT_STATUS,
    )
    parser.add_argument("ids", nargs="*", metavar="ID", help="token ids (default: read standard input)")
    add_encoding_option(
        parser,
        help="named encoding (`tokenforge list`), .tokenforge file, tokenizer file or model folder "
        "(default: %(default)s)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    enc = load(args.encoding)
    if args.ids:
        ids = _parse_ids(" ".join(args.ids), "the arguments")
    else:
        data = stdin_bytes()
        ids = _parse_ids(data if isinstance(data, str) else data.decode("utf-8", "replace"), "standard input")
    try:
        text = enc.decode(ids)
    except (ValueError, KeyError) as e:
        raise CliError(f"{message(e)}; decode ids with the -e that made them (here: {args.encoding})") from None
    write(text + ("\n" if args.ids else ""))
    return 0


def _parse_ids(raw: str, where: str) -> list[int]:
    ids = []
    for k, word in enumerate(raw.replace(",", " ").replace("[", " ").replace("]", " ").split()):
        digits = word[1:] if word[:1] == "-" else word
        if not (digits.isascii() and digits.isdigit()):
            raise CliError(
                f"{word[:40]!r} (id {k + 1} of {where}) is not a token id: decode takes whole numbers "
                "separated by spaces or commas, or a JSON list such as [9906, 1917]"
            )
        if len(digits) > 30:
            raise CliError(
                f"{word[:30]}... (id {k + 1} of {where}) is far out of range for any encoding; "
                "decode ids with the -e that made them"
            )
        ids.append(int(word))
    return ids
