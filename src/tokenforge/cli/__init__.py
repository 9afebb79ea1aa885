"""The `tokenforge` command: encode and decode with named encodings, and train new ones, from a shell.

Every error a user can cause ends in one place, `main()`: it prints ``tokenforge: error: <what, and the
fix>`` on stderr and exits 2, as argparse does for a bad command line; a bug prints ``tokenforge:
internal error`` and exits 1 (TOKENFORGE_DEBUG=1 shows its traceback). Outputs are checked before
training starts, and text input is UTF-8 unless ``--errors replace`` says to read invalid bytes as U+FFFD.
"""
from __future__ import annotations

import argparse
import difflib
import glob
import inspect
import json
import math
import os
import sys
import textwrap
import warnings
from collections.abc import Iterator
from typing import Any, NoReturn

from ..arguments import MAX_VOCAB
from ..registry import (
    get_encoding,
    get_tokenizer,
    list_encoding_names,
    list_tokenizer_names,
)

EXIT_ERROR = 2  # a user error: a bad argument, unreadable or invalid input, an output that cannot be written
EXIT_INTERNAL = 1  # a bug in tokenforge
EXIT_BROKEN_PIPE = 141  # stdout closed early (a shell reports 128 + SIGPIPE for a process that pipe killed)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
INT64_MAX = 2**63 - 1

_TOKENIZER_FILES = (".json", ".txt", ".gguf", ".model")
_REPLACE_HINT = "pass --errors replace to read invalid bytes as U+FFFD"


class CliError(ValueError):
    """A user error: the message says what is wrong and how to fix it."""


def _names() -> list[str]:
    return list_encoding_names() + list_tokenizer_names()


# ---------------------------------------------------------------------------------------------------
# Reading input

def _load(name_or_path: str):
    """A named encoding, a .tokenforge file, or a Tokenizer file (tokenizer.json, vocab.txt, .gguf,
    sentencepiece .model)."""
    if name_or_path in list_encoding_names():
        return get_encoding(name_or_path)
    if name_or_path in list_tokenizer_names():
        return get_tokenizer(name_or_path)
    path = name_or_path
    if not os.path.exists(path):
        close = difflib.get_close_matches(path, _names(), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise CliError(f"-e {path!r} is neither a named encoding or tokenizer nor an existing file: {hint}"
                       f"the names are {', '.join(_names())} (`tokenforge list` prints them); a file is a "
                       ".tokenforge file, tokenizer.json, vocab.txt, .gguf or sentencepiece .model")
    if os.path.isdir(path):
        raise CliError(f"-e {path!r} is a directory: give a named encoding (`tokenforge list`) or a file "
                       "in it (.tokenforge, tokenizer.json, vocab.txt, .gguf, sentencepiece .model)")
    if not os.access(path, os.R_OK):
        raise CliError(f"-e {path!r}: cannot read the file (permission denied); check its permissions")
    try:
        if path.endswith(_TOKENIZER_FILES):
            from ..tokenizer import Tokenizer

            tok = Tokenizer.from_file(path)
            # The text's own tokens: a file's padding and truncation (BERT's pads to 128) are for
            # batches going to a model, and would make encode --count print the padded length.
            tok.no_padding()
            tok.no_truncation()
            return tok
        if path.endswith(".tiktoken"):  # OpenAI's files are known; others lack their split pattern
            from ..loaders import load_tiktoken

            try:
                return load_tiktoken(path)
            except ValueError as e:
                if "pat_str" not in str(e):
                    raise
                raise CliError(f"-e {path}: a .tiktoken file holds no split pattern and this one is not one of "
                               "OpenAI's encodings; train with --out NAME.tokenforge (which keeps the pattern), or "
                               "load it in Python with tokenforge.load_tiktoken(path, pat_str=...)") from None
        from ..formats.tokenforge_file import load_encoding

        return load_encoding(path)
    except (ValueError, KeyError, TypeError, OverflowError, IndexError) as e:
        if isinstance(e, CliError) or path in str(e):
            raise
        raise CliError(f"-e {path}: cannot load it ({_message(e)}); is it a .tokenforge file, tokenizer.json, "
                       "vocab.txt, .gguf or sentencepiece .model, whole and not corrupt?") from e


def _utf8(data: bytes, where: str, errors: str) -> str:
    """`data` decoded as UTF-8; invalid bytes raise a CliError naming `where` and the byte offset,
    unless errors is "replace"."""
    if errors == "replace":
        return data.decode("utf-8", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.end >= len(data) and e.reason == "unexpected end of data":
            what = f"it ends inside a character (byte offset {e.start})"
        else:
            what = f"invalid byte 0x{data[e.start]:02x} at byte offset {e.start}"
        raise CliError(f"{where} is not UTF-8 text: {what}; convert it to UTF-8 (e.g. with iconv -f latin1 "
                       f"-t utf-8) or {_REPLACE_HINT}") from None


def _stdin_bytes() -> bytes | str:
    """All of standard input: bytes, or str where stdin is a text stream without a buffer."""
    stdin = sys.stdin
    if stdin is None or getattr(stdin, "closed", False):
        raise CliError("there is no standard input to read: give the text as an argument, or pipe it in")
    if stdin.isatty():
        print("tokenforge: reading standard input; end it with Ctrl-D", file=sys.stderr)
    buffer = getattr(stdin, "buffer", None)
    return buffer.read() if buffer is not None else stdin.read()


def _read_text(args: argparse.Namespace) -> str:
    """TEXT, or all of stdin, as UTF-8 (by --errors)."""
    if args.text is not None:
        try:  # the bytes the shell passed: a byte that is not UTF-8 came in as a surrogate escape
            data = args.text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = args.text.encode("utf-8", "surrogatepass")
        return _utf8(data, "the TEXT argument", args.errors)
    data = _stdin_bytes()
    return data if isinstance(data, str) else _utf8(data, "standard input", args.errors)


def _check_inputs(specs: list[str], flag: str) -> list[str]:
    """The files that `specs` (paths, globs) name, each an existing readable file, or a CliError."""
    from ..trainers.text_files import expand_paths

    for spec in specs:
        if not glob.has_magic(spec) and os.path.isdir(spec):
            raise CliError(f"{flag} {spec!r} is a directory: give its files, or a glob such as "
                           f"'{os.path.join(spec, '**', '*.txt')}' (quoted, so tokenforge expands it)")
    try:
        paths = expand_paths(specs)
    except ValueError as e:
        raise CliError(f"{flag}: {e}; check the path, and quote a glob so tokenforge expands it") from None
    for path in paths:
        if not os.path.exists(path):
            raise CliError(f"{flag}: cannot read {path}: no such file or directory; check the path")
        if not os.access(path, os.R_OK):
            raise CliError(f"{flag}: cannot read {path}: permission denied; check its permissions")
    return paths


def _text_files(paths: list[str], errors: str) -> Iterator[str]:
    """The text of the files in pieces, as trainers.read_text_files gives it: invalid UTF-8 is an
    error naming the file and byte offset, or (errors="replace") U+FFFD."""
    from ..trainers.text_files import read_text_files

    try:
        yield from read_text_files(paths, errors=errors)
    except ValueError as e:
        if errors == "strict" and "not UTF-8 text" in str(e):
            raise CliError(f"{e}; convert it to UTF-8 (e.g. with iconv -f latin1 -t utf-8) or "
                           f"{_REPLACE_HINT}") from None
        raise


# ---------------------------------------------------------------------------------------------------
# Writing output

def _check_out_file(path: str, flag: str = "--out", bpe: bool = False) -> None:
    """Refuse, before any work, an output file that cannot be written: a directory, or one whose
    directory is missing or not writable."""
    if os.path.isdir(path):
        example = os.path.join(path, "vocab" + (os.path.splitext(path)[1] or ".tiktoken"))
        raise CliError(f"{flag} {path!r} is a directory, but a file is written here: name a file inside it (such "
                       f"as {example})" + (", or pass --format gpt2 to write encoder.json and vocab.bpe into it"
                                           if bpe else ""))
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        what = "is not a directory" if os.path.exists(parent) else "does not exist"
        raise CliError(f"cannot write {flag} {path}: its directory {parent} {what}; create it first "
                       f"(mkdir -p {parent}) or choose another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"cannot write {flag} {path}: no permission to create files in {parent}; choose "
                       "another directory")


def _check_out_dir(path: str, flag: str = "--out") -> None:
    """Refuse, before any work, an output directory that cannot be made or written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CliError(f"{flag} {path!r} is a file, and --format gpt2 writes encoder.json and vocab.bpe into a "
                       "directory: name a directory (it is created if missing), or choose another --format")
    existing = os.path.abspath(path)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise CliError(f"cannot create {flag} {path}: {existing} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CliError(f"cannot write {flag} {path}: no permission to write in {existing}; choose another "
                       "directory")
    for name in ("encoder.json", "vocab.bpe"):
        if os.path.isdir(os.path.join(path, name)):
            raise CliError(f"cannot write {os.path.join(path, name)}: it is a directory; remove it or choose "
                           f"another {flag}")


_PIECE = 1 << 16


def _write(text: str) -> None:
    """Write to stdout in pieces: a pipe closed by its reader fails the next piece with
    BrokenPipeError, where one large write would end short without a word."""
    for start in range(0, len(text), _PIECE):
        sys.stdout.write(text[start:start + _PIECE])


def _write_ids(ids: list[int], as_json: bool) -> None:
    """Ids on one line, space separated or as a JSON list, written in pieces."""
    sep = ", " if as_json else " "
    _write("[" if as_json else "")
    for start in range(0, len(ids), _PIECE // 8):
        _write(("" if start == 0 else sep) + sep.join(map(str, ids[start:start + _PIECE // 8])))
    _write("]\n" if as_json else "\n")


# ---------------------------------------------------------------------------------------------------
# encode, decode, list

def _encode_with_tokenizer(tok, text: str, args: argparse.Namespace) -> int:
    from ..sentencepiece_tokenizer import SentencePieceTokenizer

    enc: Any  # an Encoded: ids, tokens, offsets
    if isinstance(tok, SentencePieceTokenizer):  # special text is plain text unless allowed, as in sentencepiece
        enc = tok.encode(text, allowed_special="all" if args.allow_special else ())
    else:  # special text is the special id unless --special-as-text, as HF matches added tokens
        tok.split_special_tokens = args.special_as_text
        enc = tok.encode(text)
    if args.tokens:
        for token_id, token, span in zip(enc.ids, enc.tokens, enc.offsets):
            _write(f"{token_id}\t{token}\t{span[0]}:{span[1]}\n")
    elif args.count:
        _write(f"{len(enc.ids)}\n")
    else:
        _write_ids(list(enc.ids), args.json)
    return 0


def _encode(args: argparse.Namespace) -> int:
    enc = _load(args.encoding)
    text = _read_text(args)
    if not hasattr(enc, "encode_ordinary"):
        return _encode_with_tokenizer(enc, text, args)
    allowed = "all" if args.allow_special else frozenset()
    disallowed = () if args.special_as_text else "all"
    ids = enc.encode(text, allowed_special=allowed, disallowed_special=disallowed)
    if args.tokens:
        for token in ids:
            _write(f"{token}\t{enc.decode_single_token_bytes(token)!r}\n")
    elif args.count:
        _write(f"{len(ids)}\n")
    else:
        _write_ids(ids, args.json)
    return 0


def _parse_ids(raw: str, where: str) -> list[int]:
    ids = []
    for k, word in enumerate(raw.replace(",", " ").replace("[", " ").replace("]", " ").split()):
        digits = word[1:] if word[:1] == "-" else word
        if not (digits.isascii() and digits.isdigit()):
            raise CliError(f"{word[:40]!r} (id {k + 1} of {where}) is not a token id: decode takes whole numbers "
                           "separated by spaces or commas, or a JSON list such as [9906, 1917]")
        if len(digits) > 30:
            raise CliError(f"{word[:30]}... (id {k + 1} of {where}) is far out of range for any encoding; "
                           "decode ids with the -e that made them")
        ids.append(int(word))
    return ids


def _decode(args: argparse.Namespace) -> int:
    enc = _load(args.encoding)
    if args.ids:
        ids = _parse_ids(" ".join(args.ids), "the arguments")
    else:
        data = _stdin_bytes()
        ids = _parse_ids(data if isinstance(data, str) else data.decode("utf-8", "replace"), "standard input")
    try:
        text = enc.decode(ids)
    except (ValueError, KeyError) as e:
        raise CliError(f"{_message(e)}; decode ids with the -e that made them (here: {args.encoding})") from None
    _write(text + ("\n" if args.ids else ""))
    return 0


def _count_tokens(enc: Any, text: str) -> int:
    """The tokens of `text` alone: special-token text counts as text, and a tokenizer file adds
    no template tokens ([CLS], <s>), padding or truncation."""
    if hasattr(enc, "encode_ordinary"):
        return len(enc.encode_ordinary(text))
    return len(enc.encode(text, add_special_tokens=False).ids)


def _count(args: argparse.Namespace) -> int:
    enc = _load(args.encoding)
    rows = []
    if not args.files or args.files == ["-"]:
        data = _stdin_bytes()
        text = data if isinstance(data, str) else _utf8(data, "standard input", args.errors)
        rows.append(("-", text))
    else:
        for path in _check_inputs(args.files, "FILES"):
            with open(path, "rb") as f:
                rows.append((path, _utf8(f.read(), path, args.errors)))
    table: list[dict[str, Any]] = [{"file": name, "tokens": _count_tokens(enc, text), "characters": len(text),
              "bytes": len(text.encode("utf-8", "surrogatepass"))} for name, text in rows]
    total: dict[str, Any] = {key: sum(row[key] for row in table) for key in ("tokens", "characters", "bytes")}
    if args.json:
        _write(json.dumps({"encoding": args.encoding, "files": table, "total": total}, ensure_ascii=False) + "\n")
        return 0
    width = max(len(f"{row['tokens']:,}") for row in [*table, total])
    for row in table:
        _write(f"{row['tokens']:>{width},}  {row['file']}\n")
    if len(table) > 1:
        _write(f"{total['tokens']:>{width},}  total\n")
    return 0


def _list(args: argparse.Namespace) -> int:
    for name in _names():
        _write(name + "\n")
    return 0


# ---------------------------------------------------------------------------------------------------
# train

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


def _check_model_options(args: argparse.Namespace) -> None:
    for name, (flag, models) in _MODEL_OPTIONS.items():
        if getattr(args, name) not in (None, False) and args.model not in models:
            hint = (" (for unigram/spm-bpe, --user-defined-symbol or --spm control_symbols=... add pieces)"
                    if name == "special_token" else "")
            raise CliError(f"{flag} applies to --model {' or '.join(models)}, not --model {args.model}; "
                           f"leave it out{hint}")


def _out_format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    for suffix, form in ((".tiktoken", "tiktoken"), (".tokenforge", "tokenforge"), (".json", "hf"), (".model", "minbpe")):
        if args.out.endswith(suffix):
            return form
    if os.path.isdir(args.out):
        return "gpt2"
    raise CliError(f"cannot tell the output format from {args.out!r}: end it in .tiktoken, .tokenforge, "
                   ".json or .model, or name one with --format")


def _check_bpe_out(args: argparse.Namespace, form: str) -> None:
    if form == "gpt2":
        _check_out_dir(args.out)
    elif form == "minbpe":
        prefix = args.out.removesuffix(".model")
        _check_out_file(prefix + ".model")
        _check_out_file(prefix + ".vocab")
        if args.byte_ids == "gpt2":
            raise CliError("minbpe files number the 256 bytes 0..255: leave out --byte-ids gpt2, or write "
                           "another --format")
    else:
        _check_out_file(args.out, bpe=True)


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
        save_gpt2_files(enc._mergeable_ranks, os.path.join(out, "encoder.json"), os.path.join(out, "vocab.bpe"),
                        enc._special_tokens)
    else:
        save_minbpe(enc, out.removesuffix(".model"))


def _size(text: str) -> int:
    """Bytes from '500M', '2G', '1.5G', '4096' (K, M, G, T: powers of 1024), at least 1 MiB."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    number, unit = (text[:-1], units[text[-1].upper()]) if text[-1:].upper() in units else (text, 1)
    try:
        value = float(number) * unit
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 4096, 500M or 2G") from None
    if not math.isfinite(value) or not 1 << 20 <= value <= 1 << 60:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give a size from 1M to 1024P, such as 500M "
                                         "or 2G")
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
        if (not sep or name not in params or params[name].kind != inspect.Parameter.KEYWORD_ONLY
                or name in ("sentences", "errors", "progress")):
            raise CliError(f"--spm takes NAME=VALUE with NAME an option of train_sentencepiece (such as "
                           f"input_sentence_size=1000000), got {pair!r}; --quiet turns progress off")
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


def _bytes_per_token(texts: Iterator[str], count) -> float:
    n_bytes = n_tokens = 0
    for text in texts:
        n_bytes += len(text.encode("utf-8", "surrogatepass"))
        n_tokens += count(text)
    return n_bytes / max(n_tokens, 1)


def _train_wordpiece(args: argparse.Namespace, files: list[str], held_out: list[str]) -> int:
    import time

    from ..normalizers import BertNormalizer
    from ..trainers import train_wordpiece

    if not args.out.endswith((".json", ".txt")):
        raise CliError(f"a WordPiece vocabulary is written as tokenizer.json (*.json) or vocab.txt (*.txt), "
                       f"not {args.out!r}: end --out in .json or .txt")
    _check_out_file(args.out)
    specials = args.special_token or ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalizer = BertNormalizer(lowercase=not args.cased, strip_accents=None if not args.cased else False)
    start = time.perf_counter()
    tok: Any = train_wordpiece(_text_files(files, args.errors), args.vocab_size, normalizer=normalizer,
                          special_tokens=specials, min_frequency=args.min_frequency or 2,
                          progress=False if args.quiet else None)
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
    for flag, name in (("character_coverage", "character_coverage"), ("normalization_rule", "normalization_rule_name"),
                       ("byte_fallback", "byte_fallback"), ("split_digits", "split_digits"),
                       ("user_defined_symbol", "user_defined_symbols")):
        if getattr(args, flag) not in (None, False):
            options[name] = getattr(args, flag)
    start = time.perf_counter()
    try:
        model = train_sentencepiece(files, vocab_size=args.vocab_size,
                                    model_type="unigram" if args.model == "unigram" else "bpe",
                                    errors=args.errors, progress=False if args.quiet else None, **options)
    except ValueError as e:
        if "not UTF-8 text" in str(e):
            raise CliError(f"{e}; convert it to UTF-8 (e.g. with iconv -f latin1 -t utf-8) or {_REPLACE_HINT}") from None
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


def _train(args: argparse.Namespace) -> int:
    import time

    from ..trainers import train_bpe

    _check_model_options(args)
    files = _check_inputs(args.files, "--files")
    held_out = _check_inputs(args.held_out, "--held-out") if args.held_out else []
    if args.model == "wordpiece":
        return _train_wordpiece(args, files, held_out)
    if args.model in ("unigram", "spm-bpe"):
        return _train_sentencepiece(args, files, held_out)

    if args.vocab_size < 256:
        raise CliError(f"--vocab-size {args.vocab_size} is below 256: a byte-level BPE vocabulary holds the 256 "
                       "bytes plus its merges, so give at least 256 (e.g. 32768)")
    specials = {text: args.vocab_size + i for i, text in enumerate(args.special_token or [])}
    if args.vocab_size + len(specials) > MAX_VOCAB:
        raise CliError(f"--vocab-size {args.vocab_size} leaves no room for the {len(specials)} --special-token ids: "
                       f"a vocabulary holds at most {MAX_VOCAB} tokens, special ones included")
    form = _out_format(args)
    _check_bpe_out(args, form)
    pattern = None if args.pattern == "none" else (args.pattern or "cl100k")
    byte_ids = args.byte_ids or "bytes"
    start = time.perf_counter()
    enc = train_bpe(_text_files(files, args.errors), args.vocab_size, pattern, min_frequency=args.min_frequency or 1,
                    max_token_length=args.max_token_length, special_tokens=specials,
                    forced_tokens=args.force_token or (), byte_ids="gpt2" if form == "gpt2" else byte_ids,
                    max_memory=args.max_memory, progress=False if args.quiet else None)
    seconds = time.perf_counter() - start
    _save(enc, form, args.out)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    merges = len(enc._mergeable_ranks) - 256
    print(f"trained {256 + merges} tokens (256 bytes + {merges} merges) in {seconds:.1f} s; "
          f"wrote {args.out} ({form})")
    for text, token_id in specials.items():
        print(f"special token {text!r}: id {token_id}")
    print(f"bytes per token, training data: {_bytes_per_token(_text_files(files, args.errors), count):.3f}")
    if held_out:
        print(f"bytes per token, held out: {_bytes_per_token(_text_files(held_out, args.errors), count):.3f}")
    return 0


# ---------------------------------------------------------------------------------------------------
# The parser

class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in tokenforge's one form: `tokenforge: error: ...`, then the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"tokenforge: error: {message}\n{self.format_usage()}"
                              f"(`{self.prog} --help` explains every option)\n")


_EXIT_STATUS = """\
exit status:
  0    success
  2    an error the message explains: a bad argument, a missing, unreadable or invalid input
       (text that is not UTF-8, without --errors replace), an output that cannot be written;
       the message, on stderr, starts with 'tokenforge: error:' and says how to fix it
  1    an internal error (a bug: please report it; TOKENFORGE_DEBUG=1 shows the traceback)
  130  interrupted (Ctrl-C); files are written whole or not at all
  141  standard output was closed before everything was written (e.g. piped into head)

environment:
  TOKENFORGE_DEBUG=1  show the Python traceback of any error"""

_ERRORS_HELP = ("what to do with bytes that are not UTF-8: strict stops with an error naming where (the "
                "default); replace reads each as U+FFFD")


def build_parser() -> argparse.ArgumentParser:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="tokenforge",
        description="Turn text into tokens and back with tiktoken-exact byte-level BPE encodings, "
                    "and train new ones.",
        epilog="examples:\n"
               "  tokenforge encode 'hello world'            # token ids with cl100k_base\n"
               "  tokenforge encode -e o200k_base --count < file.txt\n"
               "  tokenforge decode 15339 1917\n"
               "  tokenforge list                            # the named encodings\n"
               "  tokenforge train --files 'data/*.txt' --vocab-size 32768 --out my.tiktoken\n\n"
               "`tokenforge COMMAND --help` explains each command.\n\n" + _EXIT_STATUS,
        formatter_class=formatter,
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"tokenforge {__version__}",
                        help="print tokenforge's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands (`tokenforge COMMAND --help` for each)")
    named = ", ".join(_names())

    enc = sub.add_parser(
        "encode", help="print the token ids of TEXT (or of stdin)", formatter_class=formatter,
        description=textwrap.fill(
            "Print the token ids of TEXT, or of standard input (read whole, as UTF-8 bytes) when TEXT is "
            "omitted. Special-token text such as <|endoftext|> is an error unless --allow-special or "
            "--special-as-text says what it means.", 100),
        epilog="examples:\n"
               "  tokenforge encode 'hello world'\n"
               "  tokenforge encode -e o200k_base --json < notes.txt\n"
               "  tokenforge encode -e tokenizer.json --tokens 'Hello!'\n"
               "  tokenforge encode --errors replace < latin1.txt   # invalid bytes become U+FFFD\n\n"
               + _EXIT_STATUS)
    enc.add_argument("text", nargs="?", help="text to encode (default: read standard input)")
    enc.add_argument("-e", "--encoding", default="cl100k_base", metavar="NAME_OR_FILE",
                     help=f"named encoding ({named}; `tokenforge list`), a .tokenforge file, or a "
                          "tokenizer file: HF tokenizer.json, BERT vocab.txt, GGUF, sentencepiece .model "
                          "(default: %(default)s)")
    enc.add_argument("--allow-special", action="store_true",
                     help="turn special-token text such as <|endoftext|> into its special id "
                          "(default: such text is an error; a tokenizer file matches its special tokens, as HF does, "
                          "except a sentencepiece .model, which reads them as text, as sentencepiece does)")
    enc.add_argument("--special-as-text", action="store_true",
                     help="encode special-token text as ordinary text (instead of raising, or of matching it)")
    enc.add_argument("--errors", choices=("strict", "replace"), default="strict", help=_ERRORS_HELP)
    out = enc.add_mutually_exclusive_group()
    out.add_argument("--tokens", action="store_true",
                     help="print each id with its bytes (tokenizer files: its token and character span)")
    out.add_argument("--count", action="store_true", help="print only the number of tokens")
    out.add_argument("--json", action="store_true", help="print ids as a JSON list")
    enc.set_defaults(run=_encode)

    dec = sub.add_parser(
        "decode", help="print the text of token ids", formatter_class=formatter,
        description=textwrap.fill(
            "Print the text of token IDS: whole numbers separated by spaces or commas, as arguments or on "
            "standard input (a JSON list too). Ids from arguments end with a newline; from stdin, the text is "
            "printed as it is. Ids must come from the same encoding (-e); bytes that are not whole UTF-8 "
            "characters print as U+FFFD.", 100),
        epilog="examples:\n"
               "  tokenforge decode 15339 1917\n"
               "  tokenforge encode 'hi there' --json | tokenforge decode\n"
               "  tokenforge decode -e bert-base-uncased 101 7592 102\n\n" + _EXIT_STATUS)
    dec.add_argument("ids", nargs="*", metavar="ID", help="token ids (default: read standard input)")
    dec.add_argument("-e", "--encoding", default="cl100k_base", metavar="NAME_OR_FILE",
                     help="named encoding (`tokenforge list`), .tokenforge file or tokenizer file "
                          "(default: %(default)s)")
    dec.set_defaults(run=_decode)

    tr = sub.add_parser(
        "train", help="train a vocabulary (byte-level BPE, WordPiece, sentencepiece Unigram or BPE) on text files",
        formatter_class=formatter,
        description=textwrap.fill(
            "Train a byte-level BPE vocabulary (minbpe's semantics: the most frequent adjacent pair "
            "is merged first, ties to the smallest pair) on UTF-8 text files, streamed; write it in the "
            "format --out's suffix names (or --format); report bytes per token. --model picks WordPiece or "
            "a sentencepiece model instead. The inputs and --out are checked before training starts.", 100),
        epilog="examples:\n"
               "  tokenforge train --files 'data/*.txt' --vocab-size 32768 --pattern cl100k --out my.tiktoken\n"
               "  tokenforge train --model wordpiece --files corpus.txt --vocab-size 30000 --out vocab.txt\n"
               "  tokenforge train --model unigram --files corpus.txt --vocab-size 8000 --out spm\n\n"
               + _EXIT_STATUS,
    )
    tr.add_argument("--files", nargs="+", required=True, metavar="PATH",
                    help="text files or glob patterns ('data/**/*.txt' recurses; quote it); UTF-8 unless "
                         "--errors replace")
    tr.add_argument("--model", choices=("bpe", "wordpiece", "unigram", "spm-bpe"), default="bpe",
                    help="bpe: byte-level BPE (the options below); wordpiece: BERT's WordPiece with likelihood-scored "
                         "merges, written as tokenizer.json or vocab.txt, special tokens [PAD] [UNK] [CLS] [SEP] [MASK] "
                         "unless --special-token is given, min frequency 2 by default; unigram / spm-bpe: a "
                         "sentencepiece model (Unigram, or BPE over characters) on the files' lines, written as "
                         "OUT.model + OUT.vocab, with sentencepiece's options and defaults (--character-coverage and "
                         "the flags after it, --spm for the rest); an option meant for another model is an error "
                         "(default: %(default)s)")
    tr.add_argument("--errors", choices=("strict", "replace"), default="strict", help=_ERRORS_HELP)
    tr.add_argument("--cased", action="store_true", help="wordpiece: keep case and accents (default: uncased)")
    tr.add_argument("--character-coverage", type=_float_option(0.98, 1.0), metavar="SHARE",
                    help="unigram/spm-bpe: share of the text's characters the alphabet covers, 0.98 to 1.0; the "
                         "rarest others are unknown (default: 0.9995; 1.0 for small alphabets)")
    tr.add_argument("--normalization-rule", choices=("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"),
                    help="unigram/spm-bpe: sentencepiece's normalization rule (default: nmt_nfkc)")
    tr.add_argument("--byte-fallback", action="store_true",
                    help="unigram/spm-bpe: add the 256 <0xNN> byte pieces, so unknown characters become bytes")
    tr.add_argument("--split-digits", action="store_true", help="unigram/spm-bpe: every digit its own piece")
    tr.add_argument("--user-defined-symbol", action="append", metavar="TEXT",
                    help="unigram/spm-bpe: a piece always kept whole, matched in text first (repeatable)")
    tr.add_argument("--spm", action="append", metavar="NAME=VALUE",
                    help="unigram/spm-bpe: any other option of sentencepiece's trainer by its name, e.g. "
                         "input_sentence_size=1000000, max_sentencepiece_length=8, pad_id=3, "
                         "skip_long_lines=true, num_threads=4, control_symbols=<a>,<b> (repeatable)")
    tr.add_argument("--vocab-size", type=_int_option(1, MAX_VOCAB), required=True, metavar="N",
                    help="ordinary tokens in the result: the 256 bytes plus the merges (at least 256); for "
                         f"unigram/spm-bpe, every piece (special ones included); at most {MAX_VOCAB}")
    tr.add_argument("--pattern",
                    help="how text is cut before merging: gpt2, cl100k, o200k, none (no split: each piece "
                         "of about 1 MB, cut after a line, is one chunk), or a regex; merges never cross a "
                         "cut (default: cl100k)")
    tr.add_argument("--out", required=True,
                    help="where to write: *.tiktoken, *.tokenforge, *.json (HF), *.model (minbpe) or, with "
                         "--format gpt2, a directory; unigram/spm-bpe: OUT.model + OUT.vocab (OUT may end in "
                         ".model); its directory must exist")
    tr.add_argument("--format", choices=OUT_FORMATS,
                    help="output format when --out's suffix does not say: "
                         + "; ".join(f"{k}: {v}" for k, v in OUT_FORMATS.items()))
    tr.add_argument("--force-token", action="append", metavar="TEXT",
                    help="text that must be one ordinary token (repeatable); made first, before training")
    tr.add_argument("--byte-ids", choices=("bytes", "gpt2"),
                    help="ids of the 256 byte tokens: bytes (id b is byte b, as minbpe) or gpt2 (GPT-2's "
                         "order, as tiktoken's encodings); gpt2 output always uses gpt2 (default: bytes)")
    tr.add_argument("--min-frequency", type=_int_option(1, INT64_MAX), metavar="N",
                    help="stop when the best pair occurs fewer times than this (default: 1 for bpe, 2 for "
                         "wordpiece)")
    tr.add_argument("--max-token-length", type=_int_option(2, INT64_MAX), metavar="BYTES",
                    help="never make a token longer than this many bytes, at least 2 (default: no limit)")
    tr.add_argument("--special-token", action="append", metavar="TEXT",
                    help="add a special token after training, ids from --vocab-size on (repeatable); "
                         "a .tiktoken file does not store them, the other formats do")
    tr.add_argument("--held-out", nargs="+", metavar="PATH",
                    help="files not trained on, to report bytes per token on them too")
    tr.add_argument("--max-memory", type=_size, metavar="SIZE",
                    help="memory budget such as 2G (at least 1M): the chunk table spills to temporary files past "
                         "half of it, and if the corpus's unique chunks still outgrow a tenth of it the rarest are "
                         "left out of training, with a warning (default: no limit)")
    tr.add_argument("--quiet", action="store_true", help="no progress display")
    tr.set_defaults(run=_train)

    cnt = sub.add_parser(
        "count", help="count the tokens of files (or of stdin)", formatter_class=formatter,
        description=textwrap.fill(
            "Print the number of tokens of each file, and the total: the text's own tokens (special-token "
            "text counts as text; a tokenizer file adds no [CLS]/<s>, padding or truncation). Files are "
            "read whole as UTF-8; globs are expanded (quote them); no FILES, or -, reads standard input.", 100),
        epilog="examples:\n"
               "  tokenforge count README.md 'docs/**/*.md'\n"
               "  tokenforge count -e o200k_base --json notes.txt\n"
               "  cat notes.txt | tokenforge count -e tokenizer.json\n\n" + _EXIT_STATUS)
    cnt.add_argument("files", nargs="*", metavar="FILES", help="files or quoted globs (default: standard input)")
    cnt.add_argument("-e", "--encoding", default="cl100k_base", metavar="NAME_OR_FILE",
                     help="named encoding or tokenizer file, as for encode (default: %(default)s)")
    cnt.add_argument("--errors", choices=("strict", "replace"), default="strict", help=_ERRORS_HELP)
    cnt.add_argument("--json", action="store_true",
                     help="print {encoding, files: [{file, tokens, characters, bytes}], total} as JSON")
    cnt.set_defaults(run=_count)

    lst = sub.add_parser("list", help="list the named encodings and tokenizers", formatter_class=formatter,
                         description="Print the names -e accepts, one a line: the named encodings, then the "
                                     "named tokenizers.",
                         epilog=_EXIT_STATUS)
    lst.set_defaults(run=_list)
    return parser


# ---------------------------------------------------------------------------------------------------
# main: the one error path

def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"tokenforge: warning: {message}", file=sys.stderr)


def _message(e: BaseException) -> str:
    """An exception's text: KeyError's without repr quotes, OSError's with its file."""
    if isinstance(e, KeyError) and not isinstance(e, ValueError) and len(e.args) == 1:
        return str(e.args[0])
    if isinstance(e, OSError) and e.strerror:
        names = [n for n in (e.filename, e.filename2) if n is not None]
        return f"{' -> '.join(map(str, names))}: {e.strerror}" if names else e.strerror
    return str(e) or type(e).__name__


def _error(message: str) -> int:
    print(f"tokenforge: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _run(argv: list[str] | None, debug: bool) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args = build_parser().parse_args(argv)
            return args.run(args)
        except BrokenPipeError:
            raise
        except KeyboardInterrupt:
            if debug:
                raise
            print("tokenforge: interrupted (files are written whole or not at all)", file=sys.stderr)
            return EXIT_INTERRUPTED
        except MemoryError:
            if debug:
                raise
            return _error("out of memory; for train, --max-memory SIZE bounds the chunk table, or train on less text")
        except OSError as e:
            if debug:
                raise
            path_problem = isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError))
            return _error(_message(e) + ("; check the path and its permissions" if path_problem else ""))
        except UnicodeEncodeError as e:
            if debug:
                raise
            if e.encoding.replace("-", "").lower() == "utf8":  # text that no encoding holds (a lone surrogate)
                return _error(_message(e))
            return _error(f"cannot write the output as {e.encoding} ({e.reason}): run with PYTHONIOENCODING=utf-8 "
                          "or in a UTF-8 locale")
        except (ValueError, KeyError, TypeError, OverflowError) as e:
            if debug:
                raise
            return _error(_message(e))
        except Exception as e:
            if debug:
                raise
            print(f"tokenforge: internal error: {type(e).__name__}: {e}\n"
                  "This is a bug in tokenforge; please report it, with the traceback that TOKENFORGE_DEBUG=1 "
                  "shows.", file=sys.stderr)
            return EXIT_INTERNAL


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); returns the exit status."""
    debug = os.environ.get("TOKENFORGE_DEBUG", "") not in ("", "0")
    try:
        try:
            return _run(argv, debug)
        finally:  # a closed pipe shows on this flush when the output fits the buffer
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        # Python's recipe (docs, "Note on SIGPIPE"): point stdout at devnull, so that the flush at
        # exit does not fail again with "Exception ignored ... BrokenPipeError".
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return EXIT_BROKEN_PIPE
