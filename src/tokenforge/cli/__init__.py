"""The `tokenforge` command: encode and decode with named encodings from a shell."""
from __future__ import annotations

import argparse
import json
import sys

from ..registry import get_encoding, list_encoding_names


def _read_text(args: argparse.Namespace) -> str:
    return args.text if args.text is not None else sys.stdin.read()


def _encode(args: argparse.Namespace) -> int:
    enc = get_encoding(args.encoding)
    text = _read_text(args)
    allowed = "all" if args.allow_special else frozenset()
    disallowed = () if args.special_as_text else "all"
    ids = enc.encode(text, allowed_special=allowed, disallowed_special=disallowed)
    if args.tokens:
        for token in ids:
            print(f"{token}\t{enc.decode_single_token_bytes(token)!r}")
    elif args.count:
        print(len(ids))
    else:
        print(json.dumps(ids) if args.json else " ".join(map(str, ids)))
    return 0


def _decode(args: argparse.Namespace) -> int:
    enc = get_encoding(args.encoding)
    raw = " ".join(args.ids) if args.ids else sys.stdin.read()
    ids = [int(x) for x in raw.replace(",", " ").replace("[", " ").replace("]", " ").split()]
    sys.stdout.write(enc.decode(ids) + ("\n" if args.ids else ""))
    return 0


def _list(args: argparse.Namespace) -> int:
    for name in list_encoding_names():
        print(name)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokenforge",
        description="Turn text into tokens and back with tiktoken-exact byte-level BPE encodings.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    enc = sub.add_parser("encode", help="print the token ids of TEXT (or of stdin)",
                         description="Print the token ids of TEXT, or of standard input when TEXT is omitted.")
    enc.add_argument("text", nargs="?", help="text to encode (default: read standard input)")
    enc.add_argument("-e", "--encoding", default="cl100k_base", choices=list_encoding_names(),
                     help="named encoding (default: %(default)s)")
    enc.add_argument("--allow-special", action="store_true",
                     help="turn special-token text such as <|endoftext|> into its special id "
                          "(default: such text is an error)")
    enc.add_argument("--special-as-text", action="store_true",
                     help="encode special-token text as ordinary text instead of raising")
    out = enc.add_mutually_exclusive_group()
    out.add_argument("--tokens", action="store_true", help="print each id with its bytes")
    out.add_argument("--count", action="store_true", help="print only the number of tokens")
    out.add_argument("--json", action="store_true", help="print ids as a JSON list")
    enc.set_defaults(run=_encode)

    dec = sub.add_parser("decode", help="print the text of token ids",
                         description="Print the text of token IDS (space/comma separated, or a JSON list on stdin).")
    dec.add_argument("ids", nargs="*", help="token ids (default: read standard input)")
    dec.add_argument("-e", "--encoding", default="cl100k_base", choices=list_encoding_names(),
                     help="named encoding (default: %(default)s)")
    dec.set_defaults(run=_decode)

    lst = sub.add_parser("list", help="list the named encodings")
    lst.set_defaults(run=_list)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, KeyError) as e:
        print(f"tokenforge: error: {e}", file=sys.stderr)
        return 2
