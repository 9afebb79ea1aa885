"""What the `tokenforge` subcommands share: the exit statuses and the one error path, loading
-e NAME_OR_FILE, reading UTF-8 input, writing to stdout, and the options and help text that
several commands have.

Each command is its own module beside this one (encode.py, decode.py, count.py, list_names.py,
train.py); `__init__.py` puts them under one parser and its `main()` runs them through
`run_guarded()` here.
"""

from __future__ import annotations

import argparse
import difflib
import glob
import os
import sys
import warnings
from collections.abc import Callable

from ..registry import list_encoding_names, list_tokenizer_names

EXIT_ERROR = 2  # a user error: a bad argument, unreadable or invalid input, an output that cannot be written
EXIT_INTERNAL = 1  # a bug in tokenforge
EXIT_BROKEN_PIPE = 141  # stdout closed early (a shell reports 128 + SIGPIPE for a process that pipe killed)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)

REPLACE_HINT = "pass --errors replace to read invalid bytes as U+FFFD"


class CliError(ValueError):
    """A user error: the message says what is wrong and how to fix it."""


def names() -> list[str]:
    """The names -e accepts: the named encodings, then the named tokenizers."""
    return list(dict.fromkeys(list_encoding_names() + list_tokenizer_names()))


# ---------------------------------------------------------------------------------------------------
# Options and help text several commands share

FORMATTER = argparse.RawDescriptionHelpFormatter

EXIT_STATUS = """\
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

ERRORS_HELP = (
    "what to do with bytes that are not UTF-8: strict stops with an error naming where (the "
    "default); replace reads each as U+FFFD"
)


def add_encoding_option(parser: argparse.ArgumentParser, help: str) -> None:
    """-e/--encoding NAME_OR_FILE, default cl100k_base, read by `load()` (a model folder too)."""
    parser.add_argument("-e", "--encoding", default="cl100k_base", metavar="NAME_OR_FILE", help=help)


def add_errors_option(parser: argparse.ArgumentParser) -> None:
    """--errors strict|replace: what `utf8()` does with bytes that are not UTF-8."""
    parser.add_argument("--errors", choices=("strict", "replace"), default="strict", help=ERRORS_HELP)


# ---------------------------------------------------------------------------------------------------
# Reading input


def load(name_or_path: str):
    """A named encoding or tokenizer, or a file as tokenforge.formats.detect tells them apart: a
    byte-level BPE (.tokenforge, .tiktoken, GPT-2's encoder.json or folder) as an Encoding, any
    other (tokenizer.json, vocab.txt, .gguf, sentencepiece .model) as a Tokenizer; a model folder
    through Tokenizer.from_pretrained."""
    # The package's get_encoding and get_tokenizer, looked up when called: a test replaces them there.
    from . import get_encoding, get_tokenizer

    if name_or_path in list_encoding_names():
        return get_encoding(name_or_path)
    if name_or_path in list_tokenizer_names():
        return get_tokenizer(name_or_path)
    path = name_or_path
    if not os.path.exists(path):
        close = difflib.get_close_matches(path, names(), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise CliError(
            f"-e {path!r} is neither a named encoding or tokenizer nor an existing file: {hint}"
            f"the names are {', '.join(names())} (`tokenforge list` prints them); a file is a "
            ".tokenforge file, tokenizer.json, vocab.txt, .gguf or sentencepiece .model"
        )
    if not os.access(path, os.R_OK):
        raise CliError(f"-e {path!r}: cannot read the file (permission denied); check its permissions")
    from ..formats import detect

    try:
        kind = detect(path)
    except ValueError:
        kind = None
    if os.path.isdir(path) and kind is None:
        folder_error = ""
        from ..formats.convert import MODEL_FOLDER_FILES

        if any(os.path.isfile(os.path.join(path, n)) for n in MODEL_FOLDER_FILES):
            # a model folder, as transformers reads one (its tokenizer.json or the class's files)
            from ..tokenizer import Tokenizer

            try:
                tok = Tokenizer.from_pretrained(path)
            except (OSError, ValueError) as e:
                folder_error = f" (as a model folder: {e})"
            else:
                tok.no_padding()  # (the text's own tokens, as for a file below)
                tok.no_truncation()
                return tok
        raise CliError(
            f"-e {path!r} is a directory that is no model folder{folder_error}: give a named encoding "
            "(`tokenforge list`), a model folder (tokenizer.json or the files its class reads, beside "
            "tokenizer_config.json), a file in it (.tokenforge, tokenizer.json, vocab.txt, .gguf, "
            "sentencepiece .model), or GPT-2's folder (encoder.json and vocab.bpe)"
        )
    try:
        if kind is None:
            raise CliError(
                f"-e {path}: unknown tokenizer file; give a .tokenforge or .tiktoken file, tokenizer.json, "
                "vocab.txt, .gguf, a sentencepiece .model, or GPT-2's encoder.json (vocab.bpe beside it)"
            )
        if kind != "byte_level_bpe":
            from ..tokenizer import Tokenizer

            tok = Tokenizer.from_file(path)
            # The text's own tokens: a file's padding and truncation (BERT's pads to 128) are for
            # batches going to a model, and would make encode --count print the padded length.
            tok.no_padding()
            tok.no_truncation()
            return tok
        from ..formats import read_byte_level_bpe

        try:  # a byte-level BPE runs as an Encoding (tiktoken's surface)
            return read_byte_level_bpe(path).model
        except ValueError as e:
            if not path.endswith(".tiktoken") or "pat_str" not in str(e):
                raise
            # OpenAI's files are known; others lack their split pattern.
            raise CliError(
                f"-e {path}: a .tiktoken file holds no split pattern and this one is not one of "
                "OpenAI's encodings; train with --out NAME.tokenforge (which keeps the pattern), or "
                "load it in Python with tokenforge.load_tiktoken(path, pat_str=...)"
            ) from None
    except (ValueError, KeyError, TypeError, OverflowError, IndexError) as e:
        if isinstance(e, CliError) or path in str(e):
            raise
        raise CliError(
            f"-e {path}: cannot load it ({message(e)}); is it a .tokenforge file, tokenizer.json, "
            "vocab.txt, .gguf or sentencepiece .model, whole and not corrupt?"
        ) from e


def utf8(data: bytes, where: str, errors: str) -> str:
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
        raise CliError(
            f"{where} is not UTF-8 text: {what}; convert it to UTF-8 (e.g. with iconv -f latin1 "
            f"-t utf-8) or {REPLACE_HINT}"
        ) from None


def stdin_bytes() -> bytes | str:
    """All of standard input: bytes, or str where stdin is a text stream without a buffer."""
    stdin = sys.stdin
    if stdin is None or getattr(stdin, "closed", False):
        raise CliError("there is no standard input to read: give the text as an argument, or pipe it in")
    if stdin.isatty():
        print("tokenforge: reading standard input; end it with Ctrl-D", file=sys.stderr)
    buffer = getattr(stdin, "buffer", None)
    return buffer.read() if buffer is not None else stdin.read()


def check_inputs(specs: list[str], flag: str) -> list[str]:
    """The files that `specs` (paths, globs) name, each an existing readable file, or a CliError."""
    from ..trainers.text_files import expand_paths

    for spec in specs:
        if not glob.has_magic(spec) and os.path.isdir(spec):
            raise CliError(
                f"{flag} {spec!r} is a directory: give its files, or a glob such as "
                f"'{os.path.join(spec, '**', '*.txt')}' (quoted, so tokenforge expands it)"
            )
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


# ---------------------------------------------------------------------------------------------------
# Writing output

PIECE = 1 << 16


def write(text: str) -> None:
    """Write to stdout in pieces: a pipe closed by its reader fails the next piece with
    BrokenPipeError, where one large write would end short without a word."""
    for start in range(0, len(text), PIECE):
        sys.stdout.write(text[start : start + PIECE])


# ---------------------------------------------------------------------------------------------------
# The one error path


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"tokenforge: warning: {message}", file=sys.stderr)


def message(e: BaseException) -> str:
    """An exception's text: KeyError's without repr quotes, OSError's with its file."""
    if isinstance(e, KeyError) and not isinstance(e, ValueError) and len(e.args) == 1:
        return str(e.args[0])
    if isinstance(e, OSError) and e.strerror:
        files = [n for n in (e.filename, e.filename2) if n is not None]
        return f"{' -> '.join(map(str, files))}: {e.strerror}" if files else e.strerror
    return str(e) or type(e).__name__


def _error(text: str) -> int:
    print(f"tokenforge: error: {text}", file=sys.stderr)
    return EXIT_ERROR


def _run(command: Callable[[], int], debug: bool) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return command()
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
            return _error(message(e) + ("; check the path and its permissions" if path_problem else ""))
        except UnicodeEncodeError as e:
            if debug:
                raise
            if e.encoding.replace("-", "").lower() == "utf8":  # text that no encoding holds (a lone surrogate)
                return _error(message(e))
            return _error(
                f"cannot write the output as {e.encoding} ({e.reason}): run with PYTHONIOENCODING=utf-8 "
                "or in a UTF-8 locale"
            )
        except (ValueError, KeyError, TypeError, OverflowError) as e:
            if debug:
                raise
            return _error(message(e))
        except Exception as e:
            if debug:
                raise
            print(
                f"tokenforge: internal error: {type(e).__name__}: {e}\n"
                "This is a bug in tokenforge; please report it, with the traceback that TOKENFORGE_DEBUG=1 "
                "shows.",
                file=sys.stderr,
            )
            return EXIT_INTERNAL


def run_guarded(command: Callable[[], int]) -> int:
    """Run `command` (parse the command line, run the subcommand) and return its exit status, with
    every error it raises reported in one form: a user error (CliError, a bad value, an unreadable
    file) prints ``tokenforge: error: ...`` and returns 2, a bug prints ``tokenforge: internal
    error`` and returns 1 (TOKENFORGE_DEBUG=1 raises instead, for the traceback), Ctrl-C returns
    130, and a stdout closed early returns 141 quietly."""
    debug = os.environ.get("TOKENFORGE_DEBUG", "") not in ("", "0")
    try:
        try:
            return _run(command, debug)
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
