"""`tokenforge encode`: print the token ids of TEXT or of standard input (or, with --tokens, each
id with its bytes; with --count, their number).

The options and loading it shares with the other commands are in common.py; the other commands
are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from .common import (
    EXIT_STATUS,
    FORMATTER,
    PIECE,
    add_encoding_option,
    add_errors_option,
    load,
    names,
    stdin_bytes,
    utf8,
    write,
)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `encode` parser, added to `subparsers`."""
    named = ", ".join(names())
    parser = subparsers.add_parser(
        "encode",
        help="print the token ids of TEXT (or of stdin)",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Print the token ids of TEXT, or of standard input (read whole, as UTF-8 bytes) when TEXT is "
            "omitted. Special-token text such as <|endoftext|> is an error unless --allow-special or "
            "--special-as-text says what it means.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge encode 'hello world'\n"
        "  tokenforge encode -e o200k_base --json < notes.txt\n"
        "  tokenforge encode -e tokenizer.json --tokens 'Hello!'\n"
        "  tokenforge encode --errors replace < latin1.txt   # invalid bytes become U+FFFD\n\n" + EXIT_STATUS,
    )
    parser.add_argument("text", nargs="?", help="text to encode (default: read standard input)")
    add_encoding_option(
        parser,
        help=f"named encoding ({named}; `tokenforge list`), a .tokenforge file, a "
        "tokenizer file (HF tokenizer.json, BERT vocab.txt, GGUF, sentencepiece .model), or a model "
        "folder as transformers reads one (default: %(default)s)",
    )
    parser.add_argument(
        "--allow-special",
        action="store_true",
        help="turn special-token text such as <|endoftext|> into its special id "
        "(default: such text is an error; a tokenizer file matches its special tokens, as HF does, "
        "except a sentencepiece .model, which reads them as text, as sentencepiece does)",
    )
    parser.add_argument(
        "--special-as-text",
        action="store_true",
        help="encode special-token text as ordinary text (instead of raising, or of matching it)",
    )
    add_errors_option(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--tokens",
        action="store_true",
        help="print each id with its bytes (tokenizer files: its token and character span)",
    )
    out.add_argument("--count", action="store_true", help="print only the number of tokens")
    out.add_argument("--json", action="store_true", help="print ids as a JSON list")
    return parser


def run(args: argparse.Namespace) -> int:
    enc = load(args.encoding)
    text = _read_text(args)
    if not hasattr(enc, "encode_ordinary"):
        return _encode_with_tokenizer(enc, text, args)
    allowed = "all" if args.allow_special else frozenset()
    disallowed = () if args.special_as_text else "all"
    ids = enc.encode(text, allowed_special=allowed, disallowed_special=disallowed)
    if args.tokens:
        for token in ids:
            write(f"{token}\t{enc.decode_single_token_bytes(token)!r}\n")
    elif args.count:
        write(f"{len(ids)}\n")
    else:
        _write_ids(ids, args.json)
    return 0


def _encode_with_tokenizer(tok, text: str, args: argparse.Namespace) -> int:
    enc: Any  # an Encoded: ids, tokens, offsets
    if tok.kernel == "sentencepiece":  # special text is plain text unless allowed, as in sentencepiece
        enc = tok.encode(text, allowed_special="all" if args.allow_special else ())
    else:  # special text is the special id unless --special-as-text, as HF matches added tokens
        tok.split_special_tokens = args.special_as_text
        enc = tok.encode(text)
    if args.tokens:
        for token_id, token, span in zip(enc.ids, enc.tokens, enc.offsets):
            write(f"{token_id}\t{token}\t{span[0]}:{span[1]}\n")
    elif args.count:
        write(f"{len(enc.ids)}\n")
    else:
        _write_ids(list(enc.ids), args.json)
    return 0


def _read_text(args: argparse.Namespace) -> str:
    """TEXT, or all of stdin, as UTF-8 (by --errors)."""
    if args.text is not None:
        try:  # the bytes the shell passed: a byte that is not UTF-8 came in as a surrogate escape
            data = args.text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = args.text.encode("utf-8", "surrogatepass")
        return utf8(data, "the TEXT argument", args.errors)
    data = stdin_bytes()
    return data if isinstance(data, str) else utf8(data, "standard input", args.errors)


def _write_ids(ids: list[int], as_json: bool) -> None:
    """Ids on one line, space separated or as a JSON list, written in pieces."""
    sep = ", " if as_json else " "
    write("[" if as_json else "")
    for start in range(0, len(ids), PIECE // 8):
        write(("" if start == 0 else sep) + sep.join(map(str, ids[start : start + PIECE // 8])))
    write("]\n" if as_json else "\n")
