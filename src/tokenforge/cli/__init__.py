"""The `tokenforge` command: encode and decode with named encodings, and train new ones, from a shell.

Each subcommand is one module of this package, and each has the same shape:

    add_parser(subparsers) -> argparse.ArgumentParser   adds the command, its options and help
    run(args: argparse.Namespace) -> int                runs it; returns the exit status (0)

    encode.py       tokenforge encode: the token ids of TEXT or stdin
    decode.py       tokenforge decode: the text of token ids
    train.py        tokenforge train: a vocabulary trained on text files
    count.py        tokenforge count: the number of tokens of files
    tokenize_corpus.py  tokenforge tokenize-corpus: files to token shards (tokenforge.corpus)
    compare.py      tokenforge compare: several tokenizers on the same text
    analyze.py      tokenforge analyze: analyses of token quirks (tokenforge.analysis)
    convert.py      tokenforge convert: a tokenizer file written in another format
    inspect.py      tokenforge inspect: what a tokenizer file holds (tokenforge.inspect gathers it)
    serve.py        tokenforge serve: the token visualizer web page
    list_names.py   tokenforge list: the names -e accepts

common.py holds what several commands share: -e loading, UTF-8 input, output in pieces, the
shared options and help text, and the one error path. This module only puts the commands under
one parser, `build_parser()`, in `COMMANDS` order, and runs a command line with `main()`, the
entry point (`tokenforge`, `python -m tokenforge`, `python -m tokenforge.cli`). A new command is
a module of that shape, listed in `COMMANDS`.

Every error a user can cause ends in one place, `common.run_guarded()`, which `main()` runs each
command line through: it prints ``tokenforge: error: <what, and the fix>`` on stderr and exits 2, as
argparse (`_Parser` here) does for a bad command line; a bug prints ``tokenforge: internal error``
and exits 1 (TOKENFORGE_DEBUG=1 shows its traceback). Outputs are checked before training starts,
and text input is UTF-8 unless ``--errors replace`` says to read invalid bytes as U+FFFD.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

# Loading (common.load) calls get_encoding and get_tokenizer through this module, where a test
# can replace them.
from ..registry import get_encoding, get_tokenizer
from . import analyze, compare, convert, count, decode, encode, inspect, list_names, serve, tokenize_corpus, train
from .common import EXIT_ERROR, EXIT_STATUS, FORMATTER, run_guarded

__all__ = ["COMMANDS", "build_parser", "get_encoding", "get_tokenizer", "main"]

COMMANDS = (  # in the order `tokenforge --help` lists them
    encode,
    decode,
    train,
    count,
    tokenize_corpus,
    compare,
    analyze,
    inspect,
    convert,
    serve,
    list_names,
)


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in tokenforge's one form: `tokenforge: error: ...`, then the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(
            EXIT_ERROR,
            f"tokenforge: error: {message}\n{self.format_usage()}(`{self.prog} --help` explains every option)\n",
        )


def build_parser() -> argparse.ArgumentParser:
    """The `tokenforge` parser: its own options, and each command of COMMANDS (parsed arguments
    carry the command's `run` as `args.run`)."""
    parser = _Parser(
        prog="tokenforge",
        description="Turn text into tokens and back with tiktoken-exact byte-level BPE encodings, and train new ones.",
        epilog="examples:\n"
        "  tokenforge encode 'hello world'            # token ids with cl100k_base\n"
        "  tokenforge encode -e o200k_base --count < file.txt\n"
        "  tokenforge decode 15339 1917\n"
        "  tokenforge list                            # the named encodings\n"
        "  tokenforge train --files 'data/*.txt' --vocab-size 32768 --out my.tiktoken\n\n"
        "`tokenforge COMMAND --help` explains each command.\n\n" + EXIT_STATUS,
        formatter_class=FORMATTER,
    )
    from .. import __version__

    parser.add_argument(
        "--version", action="version", version=f"tokenforge {__version__}", help="print tokenforge's version and exit"
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", title="commands (`tokenforge COMMAND --help` for each)"
    )
    for command in COMMANDS:
        command.add_parser(sub).set_defaults(run=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); returns the exit status."""

    def parse_and_run() -> int:
        args = build_parser().parse_args(argv)
        return args.run(args)

    return run_guarded(parse_and_run)
