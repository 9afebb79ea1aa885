"""`tokenforge serve`: the token visualizer, a local web page that colours the tokens of a text
for one or several tokenizers side by side (the server and page are tokenforge.server).

The options and loading it shares with the other commands are in common.py; the other commands
are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from .common import EXIT_STATUS, FORMATTER, CliError, load


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `serve` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "serve",
        help="open the token visualizer web page (localhost only)",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Serve the token visualizer on this machine: type, paste or drop text and see each token as a "
            "coloured span with its id and bytes on hover, whitespace and partial UTF-8 bytes made visible, "
            "the token count and characters and bytes per token, for several tokenizers side by side. The "
            "address bar always holds a link that reproduces the view. The page offers every named encoding "
            "and tokenizer (`tokenforge list`) and the files or model folders given as TOKENIZERS. Nothing is "
            "fetched from the network; the server answers only this machine unless --allow-remote.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge serve                                  # then open http://127.0.0.1:8765/\n"
        "  tokenforge serve path/to/tokenizer.json path/to/model-folder --port 9000\n\n" + EXIT_STATUS,
    )
    parser.add_argument(
        "tokenizers",
        nargs="*",
        metavar="TOKENIZERS",
        help="tokenizer files or model folders to offer besides the named ones (the first two are shown first)",
    )
    parser.add_argument(
        "--port", type=int, default=8765, help="the port to listen on (default: %(default)s; 0: any free one)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to bind (default: %(default)s); a non-loopback address needs --allow-remote",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host: the page then answers any machine that can reach the port",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..server import TokenizerSet, serve

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port} is not a port number; give 1-65535, or 0 for any free port")
    tokenizers = TokenizerSet(args.tokenizers, load=load)
    try:
        serve(
            tokenizers,
            args.host,
            args.port,
            allow_remote=args.allow_remote,
            on_ready=lambda url: print(
                f"tokenforge: the visualizer is at {url} (Ctrl-C stops it)", file=sys.stderr, flush=True
            ),
        )
    except ValueError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"cannot listen on {args.host}:{args.port} ({e.strerror or e}); pick another --port") from None
    return 0
