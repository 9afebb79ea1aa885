"""`tokenforge list`: print the names -e accepts, one a line (the module is not called list.py,
which would hide the builtin `list` inside the package).

The names come from common.py, which the other commands share; the other commands are the modules
beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse

from .common import EXIT_STATUS, FORMATTER, names, write


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `list` parser, added to `subparsers`."""
    return subparsers.add_parser(
        "list",
        help="list the named encodings and tokenizers",
        formatter_class=FORMATTER,
        description="Print the names -e accepts, one a line: the named encodings, then the named tokenizers.",
        epilog=EXIT_STATUS,
    )


def run(args: argparse.Namespace) -> int:
    for name in names():
        write(name + "\n")
    return 0
