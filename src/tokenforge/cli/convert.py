"""`tokenforge convert IN OUT`: write the tokenizer file (or model folder) IN in another format
(tokenizer.json, sentencepiece .model, .tiktoken, .tokenforge, vocab.txt, GGUF), refusing with
the reason where the target cannot express the model. The work is tokenforge.formats.convert
(convert_spec for a folder, read here as Tokenizer.from_pretrained reads it): it reads the
written file back and checks that it describes the same tokenizer before moving it into place.

The options and error path it shares with the other commands are in common.py; the other
commands are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import textwrap

from .common import EXIT_STATUS, FORMATTER, CliError, write


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `convert` parser, added to `subparsers`."""
    from ..formats.convert import FORMATS

    formats = ", ".join(f"{name} ({suffix})" for name, suffix in FORMATS.items())
    parser = subparsers.add_parser(
        "convert",
        help="write a tokenizer file in another format",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Write the tokenizer file IN (any file -e reads: tokenizer.json, a sentencepiece .model, .tiktoken, "
            ".tokenforge, vocab.txt, GGUF, GPT-2's encoder.json; or a model folder, read as from_pretrained reads "
            "it: the tokenizer its class builds, without the decode clean-up and chat template its "
            "tokenizer_config.json keeps) as OUT, in the format OUT's name says or --to "
            f"names. Formats: {formats}. tokenizer.json holds every tokenizer; a .model holds sentencepiece "
            "models; .tiktoken and .tokenforge hold byte-level BPEs of tiktoken's form (a .tiktoken file keeps "
            "only the ranks, so its pattern and special tokens come back only for OpenAI's own files); "
            "vocab.txt holds a WordPiece vocabulary with BERT's pipeline. The written file is read back and "
            "must give the same tokenizer; where the format cannot hold it, nothing is written and the error "
            "says what would be lost. OUT is replaced atomically.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge convert tokenizer.model tokenizer.json\n"
        "  tokenforge convert cl100k_base.tiktoken cl100k.json --json\n"
        "  tokenforge convert tokenizer.json out --to tiktoken\n"
        "  tokenforge convert ./Llama-3.2-1B llama3.tiktoken\n\n" + EXIT_STATUS,
    )
    parser.add_argument("input", metavar="IN", help="the tokenizer file or model folder to read")
    parser.add_argument("output", metavar="OUT", help="the file to write (replaced if it exists)")
    parser.add_argument(
        "--to",
        choices=list(FORMATS),
        metavar="FORMAT",
        help=f"the format to write (default: the one OUT's name ends in); one of {', '.join(FORMATS)}",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print {input, output, input_format, format, model, vocab_size} as JSON",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..formats.convert import FORMATS, convert, convert_spec, is_model_folder

    if not os.path.exists(args.input):
        raise CliError(f"{args.input}: no such file; give an existing tokenizer file or model folder as IN")
    if args.to is None and not args.output.endswith(tuple(FORMATS.values())):
        raise CliError(
            f"{args.output}: its name does not say a format; end it in {', '.join(FORMATS.values())}, "
            "or give --to FORMAT"
        )
    try:
        if is_model_folder(args.input):
            # the tokenizer its class builds, without the settings no tokenizer file holds (the
            # writers leave out transformers' decode clean-up and a Python class's rules too)
            from dataclasses import replace

            from ..tokenizer import Tokenizer

            spec = Tokenizer.from_pretrained(args.input).spec
            spec = replace(spec, truncation=None, padding=None, config=None)
            done = convert_spec(spec, args.input, "model folder", args.output, to=args.to)
        else:
            done = convert(args.input, args.output, to=args.to)
    except (ValueError, OSError) as e:
        raise CliError(f"cannot convert {args.input} to {args.to or args.output}: {e}") from None
    if args.json:
        summary = {
            "input": done.source,
            "output": done.destination,
            "input_format": done.source_format,
            "format": done.format,
            "model": done.model,
            "vocab_size": done.vocab_size,
        }
        write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        write(f"{done.destination}: {done.format}, {done.model} model, {done.vocab_size:,} tokens\n")
    return 0
