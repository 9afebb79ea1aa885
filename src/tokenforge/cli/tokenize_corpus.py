"""`tokenforge tokenize-corpus`: text, JSONL and Parquet files to token shards for pretraining
(tokenforge.corpus.tokenize_files), and `--verify DIR` to check shards written before
(tokenforge.corpus.verify).

The options and loading it shares with the other commands are in common.py; the other commands
are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import json
import textwrap

from .common import EXIT_STATUS, FORMATTER, CliError, load, write

EXIT_VERIFY_FAILED = 3


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `tokenize-corpus` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "tokenize-corpus",
        help="tokenize text, JSONL or Parquet files into .npy token shards (for pretraining)",
        formatter_class=FORMATTER,
        description="\n\n".join(
            textwrap.fill(p, 100)
            for p in (
                "Tokenize INPUTS (files, quoted globs, folders) into shards in --out DIR: shard_NNNNNN.npy "
                "(uint16 when every id fits, else uint32; numpy.load(path, mmap_mode='r') maps it) holds "
                "documents back to back, each followed by the separator token; shard_NNNNNN.idx.npy holds "
                "each document's first offset; manifest.json the tokenizer's sha256, the counts, the shards' "
                "sha256, the inputs and the skipped records.",
                "A document is a line of a text file (--split line; paragraph: runs of non-blank lines; "
                "document: the whole file), the --field of a JSONL record (*.jsonl, *.ndjson, *.json), or the --column of a Parquet row (*.parquet, needs pyarrow). Special-token text "
                "in documents is text.",
                "Every core encodes (--workers); memory stays flat whatever the corpus size. Interrupted, "
                "the same command again finishes the same bytes; other arguments over an unfinished run "
                "are refused, naming what differs. Bad records (invalid JSON or UTF-8, a missing field) are "
                "reported with file and line, and skipped (--on-error skip) or stop the run (raise).",
            )
        ),
        epilog="examples:\n"
        "  tokenforge tokenize-corpus 'data/*.txt' --out shards --tokenizer cl100k_base\n"
        "  tokenforge tokenize-corpus web.jsonl --field text --out shards --tokenizer tokenizer.json\n"
        "  tokenforge tokenize-corpus 'pq/*.parquet' --column text --out shards --tokenizer o200k_base\n"
        "  tokenforge tokenize-corpus --verify shards\n\n"
        + EXIT_STATUS
        + f"\n\n  {EXIT_VERIFY_FAILED} (--verify) the shards differ from the manifest or the inputs",
    )
    parser.add_argument("inputs", nargs="*", metavar="INPUTS", help="text, JSONL or Parquet files, globs or folders")
    parser.add_argument("--out", metavar="DIR", help="the folder for the shards and manifest.json")
    parser.add_argument(
        "--tokenizer",
        "-e",
        "--encoding",
        dest="tokenizer",
        default=None,
        metavar="NAME_OR_FILE",
        help="named encoding or tokenizer, or a tokenizer file, as for encode (default: cl100k_base; "
        "with --verify, the one the manifest names)",
    )
    parser.add_argument("--field", metavar="F", help="the JSONL field holding each document's text")
    parser.add_argument("--column", metavar="C", help="the Parquet column holding each document's text")
    parser.add_argument(
        "--split",
        choices=("line", "paragraph", "document"),
        default="line",
        help="what one document of a text file is (default: %(default)s)",
    )
    parser.add_argument(
        "--separator",
        default="auto",
        metavar="TOKEN",
        help="the token after each document: its text or id, 'none' for none (default: the end-of-text token)",
    )
    parser.add_argument(
        "--shard-tokens", type=int, default=100_000_000, metavar="N", help="tokens per shard (default: %(default)s)"
    )
    parser.add_argument("--dtype", choices=("uint16", "uint32"), help="the ids' type (default: uint16 when all fit)")
    parser.add_argument("--workers", type=int, metavar="N", help="threads encoding (default: every core)")
    parser.add_argument(
        "--on-error",
        choices=("skip", "raise"),
        default="skip",
        help="bad records: skip them (listed in the manifest) or stop (default: %(default)s)",
    )
    parser.add_argument("--verify", metavar="DIR", help="check the shards in DIR against their manifest and inputs")
    parser.add_argument(
        "--samples",
        type=int,
        default=100,
        metavar="N",
        help="with --verify: documents re-encoded (default: %(default)s)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show progress (MB/s, tokens/s) on stderr (default: when stderr is a terminal)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary (or the verify report) as JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    from ..corpus import tokenize_files, verify

    if args.verify:
        if args.inputs or args.out:
            raise CliError("--verify DIR takes no INPUTS or --out")
        tok = load(args.tokenizer) if args.tokenizer else None
        report = verify(args.verify, tok, samples=args.samples)
        if args.json:
            write(json.dumps(vars(report), ensure_ascii=False) + "\n")
        else:
            write(str(report) + "\n")
        return 0 if report.ok else EXIT_VERIFY_FAILED
    if not args.inputs:
        raise CliError("give INPUTS (files or quoted globs) and --out DIR, or --verify DIR")
    if not args.out:
        raise CliError("give --out DIR: the folder for the shards")
    name = args.tokenizer or "cl100k_base"
    load(name)  # the CLI's checks and messages for a bad name or file
    separator: int | str | None = args.separator
    if args.separator.lower() == "none":
        separator = None
    elif args.separator.isdigit():
        separator = int(args.separator)
    m = tokenize_files(
        args.inputs,
        args.out,
        name,
        field=args.field,
        column=args.column,
        split=args.split,
        separator=separator,
        shard_tokens=args.shard_tokens,
        dtype=args.dtype,
        workers=args.workers,
        on_error=args.on_error,
        progress=args.progress,
    )
    summary = {
        "out": args.out,
        "tokenizer": m.tokenizer,
        "documents": m.documents,
        "tokens": m.tokens,
        "bytes": m.bytes,
        "shards": len(m.shards),
        "dtype": m.dtype,
        "skipped": len(m.skipped),
    }
    if args.json:
        write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        write(
            f"{m.documents:,} documents, {m.tokens:,} tokens ({m.bytes:,} bytes) in {len(m.shards)} "
            f"{m.dtype} shard(s) in {args.out}"
            + (f"; skipped {len(m.skipped)} bad record(s)" if m.skipped else "")
            + "\n"
        )
    return 0
