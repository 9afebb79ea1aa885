"""`tokenforge train`: train a vocabulary on text files (byte-level BPE by default; WordPiece, or a
sentencepiece Unigram or BPE model, with --model) and write it in the format --out names, after
checking the inputs and --out; then report bytes per token.

The options and input checks it shares with the other commands are in common.py; the other
commands are the modules beside this one, put under one parser by `__init__.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import math
import os
import textwrap
from collections.abc import Iterator
from typing import Any

from ..arguments import MAX_VOCAB
from .common import EXIT_STATUS, FORMATTER, REPLACE_HINT, CliError, add_errors_option, check_inputs

INT64_MAX = 2**63 - 1

OUT_FORMATS = {
    "tiktoken": "a .tiktoken file (ranks only; tiktoken and load_tiktoken read it)",
    "tokenforge": "a .tokenforge file: ranks, split pattern and special tokens in one file (-e reads it)",
    "hf": "an HF tokenizer.json (byte-level BPE with the split pattern)",
    "gpt2": "encoder.json + vocab.bpe in the directory --out (bytes numbered in GPT-2's order)",
    "minbpe": "minbpe's OUT.model + OUT.vocab (--out without the suffix, or ending in .model)",
}

# Options that only some --model values use: given with another, they are an error rather than ignored.
_MODEL_OPTIONS = {
    "pattern": ("--pattern", ("bpe",)),
    "format": ("--format", ("bpe",)),
    "force_token": ("--force-token", ("bpe",)),
    "byte_ids": ("--byte-ids", ("bpe",)),
    "max_token_length": ("--max-token-length", ("bpe",)),
    "max_memory": ("--max-memory", ("bpe",)),
    "cluster": ("--cluster", ("bpe",)),
    "cased": ("--cased", ("wordpiece",)),
    "min_frequency": ("--min-frequency", ("bpe", "wordpiece")),
    "special_token": ("--special-token", ("bpe", "wordpiece")),
    "character_coverage": ("--character-coverage", ("unigram", "spm-bpe")),
    "normalization_rule": ("--normalization-rule", ("unigram", "spm-bpe")),
    "byte_fallback": ("--byte-fallback", ("unigram", "spm-bpe")),
    "split_digits": ("--split-digits", ("unigram", "spm-bpe")),
    "user_defined_symbol": ("--user-defined-symbol", ("unigram", "spm-bpe")),
    "spm": ("--spm", ("unigram", "spm-bpe")),
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `train` parser, added to `subparsers`."""
    parser = subparsers.add_parser(
        "train",
        help="train a vocabulary (byte-level BPE, WordPiece, sentencepiece Unigram or BPE) on text files",
        formatter_class=FORMATTER,
        description=textwrap.fill(
            "Train a byte-level BPE vocabulary (minbpe's semantics: the most frequent adjacent pair "
            "is merged first, ties to the smallest pair) on UTF-8 text files, streamed; write it in the "
            "format --out's suffix names (or --format); report bytes per token. --model picks WordPiece or "
            "a sentencepiece model instead. The inputs and --out are checked before training starts.",
            100,
        ),
        epilog="examples:\n"
        "  tokenforge train --files 'data/*.txt' --vocab-size 32768 --pattern cl100k --out my.tiktoken\n"
        "  tokenforge train --model wordpiece --files corpus.txt --vocab-size 30000 --out vocab.txt\n"
        "  tokenforge train --model unigram --files corpus.txt --vocab-size 8000 --out spm\n\n" + EXIT_STATUS,
    )
    parser.add_argument(
        "--files",
        nargs="+",
        required=True,
        metavar="PATH",
        help="text files or glob patterns ('data/**/*.txt' recurses; quote it); UTF-8 unless --errors replace",
    )
    parser.add_argument(
        "--model",
        choices=("bpe", "wordpiece", "unigram", "spm-bpe"),
        default="bpe",
        help="bpe: byte-level BPE (the options below); wordpiece: BERT's WordPiece with likelihood-scored "
        "merges, written as tokenizer.json or vocab.txt, special tokens [PAD] [UNK] [CLS] [SEP] [MASK] "
        "unless --special-token is given, min frequency 2 by default; unigram / spm-bpe: a "
        "sentencepiece model (Unigram, or BPE over characters) on the files' lines, written as "
        "OUT.model + OUT.vocab, with sentencepiece's options and defaults (--character-coverage and "
        "the flags after it, --spm for the rest); an option meant for another model is an error "
        "(default: %(default)s)",
    )
    add_errors_option(parser)
    parser.add_argument("--cased", action="store_true", help="wordpiece: keep case and accents (default: uncased)")
    parser.add_argument(
        "--character-coverage",
        type=_float_option(0.98, 1.0),
        metavar="SHARE",
        help="unigram/spm-bpe: share of the text's characters the alphabet covers, 0.98 to 1.0; the "
        "rarest others are unknown (default: 0.9995; 1.0 for small alphabets)",
    )
    parser.add_argument(
        "--normalization-rule",
        choices=("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"),
        help="unigram/spm-bpe: sentencepiece's normalization rule (default: nmt_nfkc)",
    )
    parser.add_argument(
        "--byte-fallback",
        action="store_true",
        help="unigram/spm-bpe: add the 256 <0xNN> byte pieces, so unknown characters become bytes",
    )
    parser.add_argument("--split-digits", action="store_true", help="unigram/spm-bpe: every digit its own piece")
    parser.add_argument(
        "--user-defined-symbol",
        action="append",
        metavar="TEXT",
        help="unigram/spm-bpe: a piece always kept whole, matched in text first (repeatable)",
    )
    parser.add_argument(
        "--spm",
        action="append",
        metavar="NAME=VALUE",
        help="unigram/spm-bpe: any other option of sentencepiece's trainer by its name, e.g. "
        "input_sentence_size=1000000, max_sentencepiece_length=8, pad_id=3, "
        "skip_long_lines=true, num_threads=4, control_symbols=<a>,<b> (repeatable)",
    )
    parser.add_argument(
        "--vocab-size",
        type=_int_option(1, MAX_VOCAB),
        required=True,
        metavar="N",
        help="ordinary tokens in the result: the 256 bytes plus the merges (at least 256); for "
        f"unigram/spm-bpe, every piece (special ones included); at most {MAX_VOCAB}",
    )
    parser.add_argument(
        "--pattern",
        help="how text is cut before merging: gpt2, cl100k, o200k, none (no split: each piece "
        "of about 1 MB, cut after a line, is one chunk), or a regex; merges never cross a "
        "cut (default: cl100k)",
    )
    parser.add_argument(
        "--out",
        required=True,
        help="where to write: *.tiktoken, *.tokenforge, *.json (HF), *.model (minbpe) or, with "
        "--format gpt2, a directory; unigram/spm-bpe: OUT.model + OUT.vocab (OUT may end in "
        ".model); its directory must exist",
    )
    parser.add_argument(
        "--format",
        choices=OUT_FORMATS,
        help="output format when --out's suffix does not say: "
        + "; ".join(f"{k}: {v}" for k, v in OUT_FORMATS.items()),
    )
    parser.add_argument(
        "--force-token",
        action="append",
        metavar="TEXT",
        help="text that must be one ordinary token (repeatable); made first, before training",
    )
    parser.add_argument(
        "--byte-ids",
        choices=("bytes", "gpt2"),
        help="ids of the 256 byte tokens: bytes (id b is byte b, as minbpe) or gpt2 (GPT-2's "
        "order, as tiktoken's encodings); gpt2 output always uses gpt2 (default: bytes)",
    )
    parser.add_argument(
        "--min-frequency",
        type=_int_option(1, INT64_MAX),
        metavar="N",
        help="stop when the best pair occurs fewer times than this (default: 1; wordpiece merges pairs seen "
        "once only into room that pairs seen twice leave)",
    )
    parser.add_argument(
        "--max-token-length",
        type=_int_option(2, INT64_MAX),
        metavar="BYTES",
        help="never make a token longer than this many bytes, at least 2 (default: no limit)",
    )
    parser.add_argument(
        "--special-token",
        action="append",
        metavar="TEXT",
        help="add a special token after training, ids from --vocab-size on (repeatable); "
        "a .tiktoken file does not store them, the other formats do",
    )
    parser.add_argument(
        "--held-out", nargs="+", metavar="PATH", help="files not trained on, to report bytes per token on them too"
    )
    parser.add_argument(
        "--max-memory",
        type=_size,
        metavar="SIZE",
        help="memory budget such as 2G (at least 1M): the chunk table spills to temporary files past "
        "half of it, and if the corpus's unique chunks still outgrow a tenth of it the rarest are "
        "left out of training, with a warning (default: no limit)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS|local:N",
        help="count the chunks on a Dask cluster: a scheduler's address (tcp://host:8786; workers need "
        "tokenforge and the files at the same paths), local:N for N local worker processes, or local for "
        "one per core; the vocabulary is the one training here gives (needs "
        'pip install "tokenforge[cluster]")',
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    return parser


def run(args: argparse.Namespace) -> int:
    import time

    from ..trainers import train_bpe

    _check_model_options(args)
    files = check_inputs(args.files, "--files")
    held_out = check_inputs(args.held_out, "--held-out") if args.held_out else []
    if args.model == "wordpiece":
        return _train_wordpiece(args, files, held_out)
    if args.model in ("unigram", "spm-bpe"):
        return _train_sentencepiece(args, files, held_out)

    if args.vocab_size < 256:
        raise CliError(
            f"--vocab-size {args.vocab_size} is below 256: a byte-level BPE vocabulary holds the 256 "
            "bytes plus its merges, so give at least 256 (e.g. 32768)"
        )
    specials = {text: args.vocab_size + i for i, text in enumerate(args.special_token or [])}
    if args.vocab_size + len(specials) > MAX_VOCAB:
        raise CliError(
            f"--vocab-size {args.vocab_size} leaves no room for the {len(specials)} --special-token ids: "
            f"a vocabulary holds at most {MAX_VOCAB} tokens, special ones included"
        )
    form = _out_format(args)
    _check_bpe_out(args, form)
    pattern = None if args.pattern == "none" else (args.pattern or "cl100k")
    byte_ids = args.byte_ids or "bytes"
    start = time.perf_counter()
    with _cluster_executor(args.cluster) as executor:
        enc = _train_bpe_files(train_bpe, files, executor, args, pattern, specials, byte_ids, form)
    seconds = time.perf_counter() - start
    _save(enc, form, args.out)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    merges = len(enc._mergeable_ranks) - 256
    print(f"trained {256 + merges} tokens (256 bytes + {merges} merges) in {seconds:.1f} s; wrote {args.out} ({form})")
    for text, token_id in specials.items():
        print(f"special token {text!r}: id {token_id}")
    print(f"bytes per token, training data: {_bytes_per_token(_text_files(files, args.errors), count):.3f}")
    if held_out:
        print(f"bytes per token, held out: {_bytes_per_token(_text_files(held_out, args.errors), count):.3f}")
    return 0


@contextlib.contextmanager
def _cluster_executor(spec: str | None) -> Iterator[Any]:
    """None without --cluster; else the executor of a client connected as --cluster says,
    closed (with the local cluster it started, if any) when training ends."""
    if spec is None:
        yield None
        return
    import logging

    from .. import cluster

    logging.getLogger("distributed").setLevel(logging.ERROR)  # not its start-up and shut-down chatter
    try:
        client = cluster.connect_spec(spec)
    except ImportError as e:
        raise CliError(str(e)) from None
    except (ValueError, OSError) as e:
        raise CliError(f"--cluster {spec}: {e}") from None
    with client:
        yield cluster.executor(client)


def _train_bpe_files(
    train_bpe, files: list[str], executor, args: argparse.Namespace, pattern, specials, byte_ids: str, form: str
) -> Any:
    """train_bpe on the files, here (streamed) or, with an executor, on its workers."""
    from ..trainers.text_files import TextFiles

    texts = _text_files(files, args.errors) if executor is None else TextFiles(files, errors=args.errors)
    try:
        return train_bpe(
            texts,
            args.vocab_size,
            pattern,
            min_frequency=args.min_frequency or 1,
            max_token_length=args.max_token_length,
            special_tokens=specials,
            forced_tokens=args.force_token or (),
            byte_ids="gpt2" if form == "gpt2" else byte_ids,
            max_memory=args.max_memory,
            progress=False if args.quiet else None,
            executor=executor,
        )
    except ValueError as e:
        if executor is not None and args.errors == "strict" and "not UTF-8 text" in str(e):
            raise CliError(f"{e}; convert it to UTF-8 (e.g. with iconv -f latin1 -t utf-8) or {REPLACE_HINT}") from None
        raise


def _train_wordpiece(args: argparse.Namespace, files: list[str], held_out: list[str]) -> int:
    import time

    from ..normalizers import BertNormalizer
    from ..trainers import train_wordpiece

    if not args.out.endswith((".json", ".txt")):
        raise CliError(
            f"a WordPiece vocabulary is written as tokenizer.json (*.json) or vocab.txt (*.txt), "
            f"not {args.out!r}: end --out in .json or .txt"
        )
    _check_out_file(args.out)
    specials = args.special_token or ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalizer = BertNormalizer(lowercase=not args.cased, strip_accents=None if not args.cased else False)
    start = time.perf_counter()
    tok: Any = train_wordpiece(
        _text_files(files, args.errors),
        args.vocab_size,
        normalizer=normalizer,
        special_tokens=specials,
        min_frequency=args.min_frequency or 1,
        progress=False if args.quiet else None,
    )
    seconds = time.perf_counter() - start
    if args.out.endswith(".json"):
        tok.save(args.out)
    else:
        tok.save_vocab_txt(args.out)
    print(f"trained {tok.get_vocab_size()} WordPiece tokens in {seconds:.1f} s; wrote {args.out}")

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    print(f"bytes per token, training data: {_bytes_per_token(_text_files(files, args.errors), count):.3f}")
    if held_out:
        print(f"bytes per token, held out: {_bytes_per_token(_text_files(held_out, args.errors), count):.3f}")
    return 0


def _train_sentencepiece(args: argparse.Namespace, files: list[str], held_out: list[str]) -> int:
    import time

    from ..models.sentencepiece import SentencePieceModelEncoder
    from ..trainers.sentencepiece import save_sentencepiece, train_sentencepiece

    prefix = args.out.removesuffix(".model")
    _check_out_file(prefix + ".model")
    _check_out_file(prefix + ".vocab")
    options = _spm_options(args.spm or [])
    for flag, name in (
        ("character_coverage", "character_coverage"),
        ("normalization_rule", "normalization_rule_name"),
        ("byte_fallback", "byte_fallback"),
        ("split_digits", "split_digits"),
        ("user_defined_symbol", "user_defined_symbols"),
    ):
        if getattr(args, flag) not in (None, False):
            options[name] = getattr(args, flag)
    start = time.perf_counter()
    try:
        model = train_sentencepiece(
            files,
            vocab_size=args.vocab_size,
            model_type="unigram" if args.model == "unigram" else "bpe",
            errors=args.errors,
            progress=False if args.quiet else None,
            **options,
        )
    except ValueError as e:
        if "not UTF-8 text" in str(e):
            raise CliError(f"{e}; convert it to UTF-8 (e.g. with iconv -f latin1 -t utf-8) or {REPLACE_HINT}") from None
        raise
    seconds = time.perf_counter() - start
    model_path, vocab_path = save_sentencepiece(model, prefix)
    print(f"trained {len(model.pieces)} {args.model} pieces in {seconds:.1f} s; wrote {model_path} and {vocab_path}")
    encoder = SentencePieceModelEncoder(model)

    def bytes_per_token(paths: list[str]) -> float:
        n_bytes = n_tokens = 0
        for text in _text_files(paths, args.errors):
            lines = text.split("\n")
            n_bytes += sum(len(line.encode("utf-8")) for line in lines)
            n_tokens += sum(map(len, encoder.encode_batch(lines)))
        return n_bytes / max(n_tokens, 1)

    print(f"bytes per token, training data: {bytes_per_token(files):.3f}")
    if held_out:
        print(f"bytes per token, held out: {bytes_per_token(held_out):.3f}")
    return 0


def _check_model_options(args: argparse.Namespace) -> None:
    for name, (flag, models) in _MODEL_OPTIONS.items():
        if getattr(args, name) not in (None, False) and args.model not in models:
            hint = (
                " (for unigram/spm-bpe, --user-defined-symbol or --spm control_symbols=... add pieces)"
                if name == "special_token"
                else ""
            )
            raise CliError(
                f"{flag} applies to --model {' or '.join(models)}, not --model {args.model}; leave it out{hint}"
            )


def _out_format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    for suffix, form in (
        (".tiktoken", "tiktoken"),
        (".tokenforge", "tokenforge"),
        (".json", "hf"),
        (".model", "minbpe"),
    ):
        if args.out.endswith(suffix):
            return form
    if os.path.isdir(args.out):
        return "gpt2"
    raise CliError(
        f"cannot tell the output format from {args.out!r}: end it in .tiktoken, .tokenforge, "
        ".json or .model, or name one with --format"
    )


def _check_bpe_out(args: argparse.Namespace, form: str) -> None:
    if form == "gpt2":
        _check_out_dir(args.out)
    elif form == "minbpe":
        prefix = args.out.removesuffix(".model")
        _check_out_file(prefix + ".model")
        _check_out_file(prefix + ".vocab")
        if args.byte_ids == "gpt2":
            raise CliError(
                "minbpe files number the 256 bytes 0..255: leave out --byte-ids gpt2, or write another --format"
            )
    else:
        _check_out_file(args.out, bpe=True)


def _check_out_file(path: str, flag: str = "--out", bpe: bool = False) -> None:
    """Refuse, before any work, an output file that cannot be written: a directory, or one whose
    directory is missing or not writable."""
    if os.path.isdir(path):
        example = os.path.join(path, "vocab" + (os.path.splitext(path)[1] or ".tiktoken"))
        raise CliError(
            f"{flag} {path!r} is a directory, but a file is written here: name a file inside it (such "
            f"as {example})" + (", or pass --format gpt2 to write encoder.json and vocab.bpe into it" if bpe else "")
        )
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        what = "is not a directory" if os.path.exists(parent) else "does not exist"
        raise CliError(
            f"cannot write {flag} {path}: its directory {parent} {what}; create it first "
            f"(mkdir -p {parent}) or choose another path"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(
            f"cannot write {flag} {path}: no permission to create files in {parent}; choose another directory"
        )


def _check_out_dir(path: str, flag: str = "--out") -> None:
    """Refuse, before any work, an output directory that cannot be made or written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CliError(
            f"{flag} {path!r} is a file, and --format gpt2 writes encoder.json and vocab.bpe into a "
            "directory: name a directory (it is created if missing), or choose another --format"
        )
    existing = os.path.abspath(path)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise CliError(f"cannot create {flag} {path}: {existing} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CliError(f"cannot write {flag} {path}: no permission to write in {existing}; choose another directory")
    for name in ("encoder.json", "vocab.bpe"):
        if os.path.isdir(os.path.join(path, name)):
            raise CliError(
                f"cannot write {os.path.join(path, name)}: it is a directory; remove it or choose another {flag}"
            )


def _save(enc, form: str, out: str) -> None:
    from ..formats.gpt2_files import save_gpt2_files
    from ..formats.hf_tokenizer_json import save_tokenizer_json
    from ..formats.minbpe_files import save_minbpe
    from ..formats.tiktoken_file import dump_tiktoken_bpe
    from ..formats.tokenforge_file import save_encoding

    if form == "tiktoken":
        dump_tiktoken_bpe(enc._mergeable_ranks, out)
    elif form == "tokenforge":
        save_encoding(enc, out)
    elif form == "hf":
        save_tokenizer_json(enc, out)
    elif form == "gpt2":
        os.makedirs(out, exist_ok=True)
        save_gpt2_files(
            enc._mergeable_ranks, os.path.join(out, "encoder.json"), os.path.join(out, "vocab.bpe"), enc._special_tokens
        )
    else:
        save_minbpe(enc, out.removesuffix(".model"))


def _text_files(paths: list[str], errors: str) -> Iterator[str]:
    """The text of the files in pieces, as trainers.read_text_files gives it: invalid UTF-8 is an
    error naming the file and byte offset, or (errors="replace") U+FFFD."""
    from ..trainers.text_files import read_text_files

    try:
        yield from read_text_files(paths, errors=errors)
    except ValueError as e:
        if errors == "strict" and "not UTF-8 text" in str(e):
            raise CliError(f"{e}; convert it to UTF-8 (e.g. with iconv -f latin1 -t utf-8) or {REPLACE_HINT}") from None
        raise


def _bytes_per_token(texts: Iterator[str], count) -> float:
    n_bytes = n_tokens = 0
    for text in texts:
        n_bytes += len(text.encode("utf-8", "surrogatepass"))
        n_tokens += count(text)
    return n_bytes / max(n_tokens, 1)


def _size(text: str) -> int:
    """Bytes from '500M', '2G', '1.5G', '4096' (K, M, G, T: powers of 1024), at least 1 MiB."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    number, unit = (text[:-1], units[text[-1].upper()]) if text[-1:].upper() in units else (text, 1)
    try:
        value = float(number) * unit
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 4096, 500M or 2G") from None
    if not math.isfinite(value) or not 1 << 20 <= value <= 1 << 60:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give a size from 1M to 1024P, such as 500M or 2G")
    return int(value)


def _int_option(low: int, high: int):
    """An argparse type: a whole number in [low, high], or an error that says which."""

    def parse(text: str) -> int:
        digits = text.strip().removeprefix("-").removeprefix("+")
        whole = digits.isascii() and digits.isdigit()
        value = int(text) if whole and len(digits) <= 1000 else None
        if value is None or not low <= value <= high:
            shown = text if len(text) <= 40 else text[:37] + "..."
            what = "out of range" if whole else "not a whole number"
            raise argparse.ArgumentTypeError(f"{shown!r} is {what}: give a whole number from {low} to {high}")
        return value

    return parse


def _float_option(low: float, high: float):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not low <= value <= high:  # NaN fails too
            raise argparse.ArgumentTypeError(f"{text!r} is not a number from {low} to {high}")
        return value

    return parse


def _spm_options(pairs: list[str]) -> dict:
    """--spm NAME=VALUE pairs as train_sentencepiece keywords, typed like their defaults."""
    from ..threads import resolve_threads
    from ..trainers.sentencepiece import train_sentencepiece

    params = inspect.signature(train_sentencepiece).parameters
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.replace("-", "_")
        if (
            not sep
            or name not in params
            or params[name].kind != inspect.Parameter.KEYWORD_ONLY
            or name in ("sentences", "errors", "progress")
        ):
            raise CliError(
                f"--spm takes NAME=VALUE with NAME an option of train_sentencepiece (such as "
                f"input_sentence_size=1000000), got {pair!r}; --quiet turns progress off"
            )
        default = params[name].default
        annotation = str(params[name].annotation)
        if isinstance(default, bool):
            if value.lower() not in ("true", "false", "1", "0"):
                raise CliError(f"--spm {name} takes true or false, got {value!r}")
            options[name] = value.lower() in ("true", "1")
        elif isinstance(default, float) or (default is None and "float" in annotation):
            number = _float_option(-math.inf, math.inf)
            try:
                options[name] = number(value)
            except argparse.ArgumentTypeError:
                raise CliError(f"--spm {name} takes a number, got {value!r}") from None
        elif isinstance(default, int) or (default is None and "int" in annotation):
            try:
                options[name] = _int_option(-INT64_MAX - 1, INT64_MAX)(value)
            except argparse.ArgumentTypeError as e:
                raise CliError(f"--spm {name}: {e}") from None
            if name == "num_threads":
                options[name] = resolve_threads(options[name], "--spm num_threads")
        elif isinstance(default, tuple):
            options[name] = [v for v in value.split(",") if v]
        else:
            options[name] = value
    return options
