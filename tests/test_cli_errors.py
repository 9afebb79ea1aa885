"""The `tokenforge` command's one error path: every bad invocation prints `tokenforge: error: ...`
(what is wrong, and the fix) on stderr and exits 2, never a traceback; outputs are checked before
training starts; invalid UTF-8 input is an error unless --errors replace; a closed stdout ends quietly.

Most cases call main() in this process (fast); the pipe and real-stdin cases run a subprocess.
"""

from __future__ import annotations

import functools
import io
import os
import pathlib
import subprocess
import sys

import pytest

import tokenforge
import tokenforge.trainers
import tokenforge.trainers.sentencepiece
from tokenforge.arguments import MAX_VOCAB
from tokenforge.cli import main

EXIT_ERROR = 2  # the documented exit status of every error the message explains
EXIT_BROKEN_PIPE = 141  # stdout closed early

PACKAGE_ROOT = pathlib.Path(tokenforge.__file__).resolve().parents[1]
CORPUS = "the cat sat on the mat\nthe dog sat on the log\n" * 20


@pytest.fixture
def files(tmp_path):
    """A small corpus, a Latin-1 file, a directory, a non-file and a few paths that do not exist."""
    (tmp_path / "a.txt").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 au lait\n" + CORPUS.encode())
    (tmp_path / "adir").mkdir()
    (tmp_path / "out.json").mkdir()  # a directory with a file's name
    (tmp_path / "plain_file").write_text("x")
    (tmp_path / "junk.tokenforge").write_bytes(b"\x00\x01 not a vocabulary")
    return tmp_path


@pytest.fixture
def cli(capsys, monkeypatch):
    """cli(*argv, stdin=bytes) -> (exit status, stdout, stderr), main() run in this process."""
    monkeypatch.delenv("TOKENFORGE_DEBUG", raising=False)

    def run(*argv, stdin: bytes | None = None):
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:  # argparse: --help, usage errors
            code = e.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def no_training(monkeypatch):
    """Trainers that fail the test if called: the errors under test must come before any training."""
    for module, name in (
        (tokenforge.trainers, "train_bpe"),
        (tokenforge.trainers, "train_wordpiece"),
        (tokenforge.trainers.sentencepiece, "train_sentencepiece"),
    ):

        @functools.wraps(getattr(module, name))  # keeps the signature, which --spm reads
        def refuse(*args, **kwargs):
            raise AssertionError("training started before the bad argument was refused")

        monkeypatch.setattr(module, name, refuse)


def assert_clean_error(code, err, *fragments):
    assert code == EXIT_ERROR, err
    assert err.startswith("tokenforge: error:"), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


TRAIN = ["train", "--quiet", "--files", "{d}/a.txt"]

# (argv, fragments the message must hold); {d} is the fixture's directory. None of these may train.
BAD_INVOCATIONS = {
    # the encoding: a directory, unknown names, missing / corrupt files
    "encoding_is_directory": (["encode", "-e", "{d}/adir", "x"], ["is a directory", "tokenforge list"]),
    "encoding_unknown_name": (["encode", "-e", "nope", "x"], ["'nope'", "tokenforge list", "cl100k_base"]),
    "encoding_near_name": (["encode", "-e", "cl100k", "x"], ["did you mean 'cl100k_base'"]),
    "encoding_missing_file": (["encode", "-e", "{d}/missing.json", "x"], ["missing.json", "nor an existing file"]),
    "encoding_corrupt_file": (["encode", "-e", "{d}/junk.tokenforge", "x"], ["junk.tokenforge"]),
    "decode_encoding_is_directory": (["decode", "-e", "{d}/adir", "1"], ["is a directory"]),
    # encode's arguments
    "encode_bad_errors_choice": (["encode", "--errors", "ignore", "x"], ["--errors", "invalid choice"]),
    "encode_exclusive_outputs": (["encode", "--json", "--count", "x"], ["not allowed with"]),
    "encode_special_text": (["encode", "hi <|endoftext|>"], ["<|endoftext|>"]),
    # decode's ids
    "decode_word": (["decode", "1", "2", "abc"], ["'abc' (id 3", "not a token id"]),
    "decode_float": (["decode", "1.5"], ["'1.5'", "whole numbers"]),
    "decode_negative": (["decode", "--", "-1"], ["invalid token id -1", "valid ids are 0..100276", "-e"]),
    "decode_out_of_range": (["decode", "999999999"], ["999999999", "valid ids"]),
    "decode_far_out_of_range": (["decode", "1" * 40], ["far out of range"]),
    "decode_tokenizer_out_of_range": (["decode", "-e", "bert-base-uncased", "40000"], ["40000", "vocabulary"]),
    # the command line itself
    "no_command": ([], ["required: COMMAND", "usage:"]),
    "unknown_command": (["frobnicate"], ["invalid choice: 'frobnicate'"]),
    "train_without_out": (["train", "--files", "{d}/a.txt", "--vocab-size", "300"], ["required: --out"]),
    # --vocab-size and the other numbers
    "vocab_size_below_bytes": ([*TRAIN, "--vocab-size", "100", "--out", "{d}/x.tiktoken"], ["at least 256"]),
    "vocab_size_zero": ([*TRAIN, "--vocab-size", "0", "--out", "{d}/x.tiktoken"], ["out of range", "from 1 to"]),
    "vocab_size_negative": ([*TRAIN, "--vocab-size", "-5", "--out", "{d}/x.tiktoken"], ["out of range"]),
    "vocab_size_huge": (
        [*TRAIN, "--vocab-size", str(10**30), "--out", "{d}/x.tiktoken"],
        ["--vocab-size", "out of range", str(MAX_VOCAB)],
    ),
    "vocab_size_word": ([*TRAIN, "--vocab-size", "lots", "--out", "{d}/x.tiktoken"], ["not a whole number"]),
    "vocab_size_float": ([*TRAIN, "--vocab-size", "300.5", "--out", "{d}/x.tiktoken"], ["not a whole number"]),
    "min_frequency_zero": (
        [*TRAIN, "--vocab-size", "300", "--min-frequency", "0", "--out", "{d}/x.tiktoken"],
        ["--min-frequency", "out of range"],
    ),
    "max_token_length_one": (
        [*TRAIN, "--vocab-size", "300", "--max-token-length", "1", "--out", "{d}/x.tiktoken"],
        ["--max-token-length", "from 2"],
    ),
    "max_memory_infinite": (
        [*TRAIN, "--vocab-size", "300", "--max-memory", "1e400", "--out", "{d}/x.tiktoken"],
        ["--max-memory", "out of range"],
    ),
    "max_memory_negative": (
        [*TRAIN, "--vocab-size", "300", "--max-memory=-5M", "--out", "{d}/x.tiktoken"],
        ["--max-memory", "out of range"],
    ),
    "max_memory_word": (
        [*TRAIN, "--vocab-size", "300", "--max-memory", "lots", "--out", "{d}/x.tiktoken"],
        ["'lots' is not a size"],
    ),
    "character_coverage_range": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--character-coverage", "2", "--out", "{d}/u"],
        ["--character-coverage", "0.98"],
    ),
    "character_coverage_nan": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--character-coverage", "nan", "--out", "{d}/u"],
        ["--character-coverage"],
    ),
    "spm_num_threads_negative": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--spm", "num_threads=-1", "--out", "{d}/u"],
        ["num_threads", ">= 1"],
    ),
    "spm_num_threads_word": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--spm", "num_threads=many", "--out", "{d}/u"],
        ["--spm num_threads", "not a whole number"],
    ),
    "spm_int_huge": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--spm", f"pad_id={10**30}", "--out", "{d}/u"],
        ["--spm pad_id", "out of range"],
    ),
    "spm_progress": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--spm", "progress=true", "--out", "{d}/u"],
        ["--spm takes NAME=VALUE", "--quiet"],
    ),
    "spm_bool": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--spm", "byte_fallback=maybe", "--out", "{d}/u"],
        ["true or false"],
    ),
    # options for another model are refused, not ignored
    "option_for_other_model": (
        [*TRAIN, "--vocab-size", "300", "--character-coverage", "1.0", "--out", "{d}/x.tiktoken"],
        ["--character-coverage applies to --model unigram"],
    ),
    "special_token_for_unigram": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--special-token", "<s>", "--out", "{d}/u"],
        ["--special-token", "--user-defined-symbol"],
    ),
    # outputs, checked before training
    "out_in_missing_directory": (
        [*TRAIN, "--vocab-size", "300", "--out", "{d}/missing/x.tiktoken"],
        ["does not exist", "mkdir -p"],
    ),
    "out_is_directory": (
        [*TRAIN, "--vocab-size", "300", "--out", "{d}/adir", "--format", "tiktoken"],
        ["is a directory", "name a file inside it"],
    ),
    "out_json_is_directory": ([*TRAIN, "--vocab-size", "300", "--out", "{d}/out.json"], ["is a directory"]),
    "out_under_a_file": ([*TRAIN, "--vocab-size", "300", "--out", "{d}/plain_file/x.tiktoken"], ["is not a directory"]),
    "out_unknown_format": (
        [*TRAIN, "--vocab-size", "300", "--out", "{d}/x.bin"],
        ["cannot tell the output format", "--format"],
    ),
    "out_gpt2_is_file": (
        [*TRAIN, "--vocab-size", "300", "--format", "gpt2", "--out", "{d}/plain_file"],
        ["is a file", "directory"],
    ),
    "out_minbpe_gpt2_bytes": (
        [*TRAIN, "--vocab-size", "300", "--byte-ids", "gpt2", "--out", "{d}/m.model"],
        ["--byte-ids gpt2"],
    ),
    "out_minbpe_missing_directory": (
        [*TRAIN, "--vocab-size", "300", "--out", "{d}/missing/m.model"],
        ["does not exist"],
    ),
    "wordpiece_out_missing_directory": (
        [*TRAIN, "--model", "wordpiece", "--vocab-size", "60", "--out", "{d}/missing/wp.json"],
        ["does not exist"],
    ),
    "wordpiece_out_is_directory": (
        [*TRAIN, "--model", "wordpiece", "--vocab-size", "60", "--out", "{d}/out.json"],
        ["is a directory"],
    ),
    "wordpiece_out_suffix": (
        [*TRAIN, "--model", "wordpiece", "--vocab-size", "60", "--out", "{d}/x.tiktoken"],
        ["*.json", "vocab.txt"],
    ),
    "unigram_out_missing_directory": (
        [*TRAIN, "--model", "unigram", "--vocab-size", "30", "--out", "{d}/missing/u"],
        ["does not exist", "u.model"],
    ),
    # inputs, checked before training
    "files_missing": (
        ["train", "--files", "{d}/missing.txt", "--vocab-size", "300", "--out", "{d}/x.tiktoken"],
        ["cannot read", "missing.txt"],
    ),
    "files_directory": (
        ["train", "--files", "{d}/adir", "--vocab-size", "300", "--out", "{d}/x.tiktoken"],
        ["is a directory", "glob"],
    ),
    "files_glob_matches_nothing": (
        ["train", "--files", "{d}/*.none", "--vocab-size", "300", "--out", "{d}/x.tiktoken"],
        ["no file matches"],
    ),
    "held_out_missing": (
        [*TRAIN, "--vocab-size", "300", "--out", "{d}/x.tiktoken", "--held-out", "{d}/none.txt"],
        ["--held-out", "none.txt"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_INVOCATIONS))
def test_bad_invocation_is_one_clear_error(case, files, cli, no_training):
    argv, fragments = BAD_INVOCATIONS[case]
    code, _, err = cli(*(a.replace("{d}", str(files)) for a in argv))
    assert_clean_error(code, err, *fragments)
    assert not (files / "x.tiktoken").exists() and not (files / "u.model").exists()


def test_unreadable_file(files, cli, no_training, monkeypatch):
    path = files / "secret.tokenforge"
    path.write_text("x")
    path.chmod(0)
    real_access = os.access
    if real_access(path, os.R_OK):  # root reads anything: make os.access tell the truth for others
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(path) else real_access(p, mode))
    code, _, err = cli("encode", "-e", path, "x")
    assert_clean_error(code, err, "permission denied")
    code, _, err = cli("train", "--files", path, "--vocab-size", "300", "--out", files / "x.tiktoken")
    assert_clean_error(code, err, "--files: cannot read", "permission denied")


def test_invalid_utf8_training_file_names_file_offset_and_fix(files, cli):
    code, _, err = cli(
        *[a.replace("{d}", str(files)) for a in TRAIN[:-1]],
        files / "latin1.txt",
        "--vocab-size",
        "300",
        "--out",
        files / "x.tiktoken",
    )
    assert_clean_error(code, err, "latin1.txt is not UTF-8 text: invalid byte at offset 3", "--errors replace")
    assert not (files / "x.tiktoken").exists()
    for model, out in (("wordpiece", "wp.json"), ("unigram", "u")):
        code, _, err = cli(
            "train",
            "--quiet",
            "--model",
            model,
            "--files",
            files / "latin1.txt",
            "--vocab-size",
            "30",
            "--out",
            files / out,
        )
        assert_clean_error(code, err, "latin1.txt", "not UTF-8 text", "--errors replace")


@pytest.mark.parametrize(
    "model,out,size", [("bpe", "x.tiktoken", "270"), ("wordpiece", "wp.json", "40"), ("unigram", "u", "20")]
)
def test_train_errors_replace_reads_invalid_bytes_as_replacement(files, cli, model, out, size):
    code, stdout, err = cli(
        "train",
        "--quiet",
        "--model",
        model,
        "--files",
        files / "latin1.txt",
        "--vocab-size",
        size,
        "--out",
        files / out,
        "--errors",
        "replace",
    )
    assert code == 0, err
    assert "trained" in stdout


# --- stdin and TEXT: bytes, decoded explicitly ------------------------------------------------------


def test_encode_invalid_utf8_on_stdin_is_an_error(cli):
    code, out, err = cli("encode", stdin=b"caf\xe9 au lait\n")
    assert_clean_error(code, err, "standard input is not UTF-8 text", "0xe9", "byte offset 3", "--errors replace")
    assert out == ""
    code, _, err = cli("encode", stdin=b"caf\xc3")
    assert_clean_error(code, err, "standard input", "ends inside a character (byte offset 3)")


def test_encode_errors_replace_reads_invalid_bytes_as_replacement(cli):
    enc = tokenforge.get_encoding("cl100k_base")
    code, out, err = cli("encode", "--errors", "replace", stdin=b"caf\xe9 au lait\n")
    assert code == 0, err
    assert [int(x) for x in out.split()] == enc.encode("caf\ufffd au lait\n")


def test_encode_stdin_keeps_bytes_exactly(cli):
    enc = tokenforge.get_encoding("cl100k_base")
    code, out, _ = cli("encode", stdin="a\r\nb 你好\n".encode())
    assert code == 0 and [int(x) for x in out.split()] == enc.encode("a\r\nb 你好\n")


def test_encode_text_argument_not_utf8(cli):
    # A byte that is not UTF-8 in argv reaches Python as a surrogate escape.
    code, _, err = cli("encode", "caf\udce9 au lait")
    assert_clean_error(code, err, "the TEXT argument is not UTF-8 text", "byte offset 3")
    code, out, _ = cli("encode", "--errors", "replace", "caf\udce9")
    assert code == 0 and [int(x) for x in out.split()] == tokenforge.get_encoding("cl100k_base").encode("caf\ufffd")


def test_no_stdin(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    code, _, err = cli("encode")
    assert_clean_error(code, err, "no standard input")


def test_decode_bad_ids_on_stdin(cli):
    code, _, err = cli("decode", stdin=b"[15339, 19xx]")
    assert_clean_error(code, err, "'19xx' (id 2 of standard input)")
    code, out, _ = cli("decode", stdin=b"[15339, 1917]")
    assert code == 0 and out == "hello world"


def test_output_encoding_that_cannot_hold_the_text(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    code, _, err = cli("decode", "9468", "235")  # "é" or the like
    assert_clean_error(code, err, "cannot write the output as ascii", "PYTHONIOENCODING=utf-8")


# --- help, debug, internal errors -------------------------------------------------------------------


@pytest.mark.parametrize("command", ["encode", "decode", "train", "list", None])
def test_help_explains_and_documents_exit_status(cli, command):
    code, out, _ = cli(*([command] if command else []), "--help")
    assert code == 0
    assert out.startswith("usage: tokenforge") and "exit status:" in out and "TOKENFORGE_DEBUG" in out
    if command in ("encode", "train"):
        assert "--errors {strict,replace}" in out
    if command in ("encode", "decode", "train"):
        assert "examples:" in out


def test_debug_shows_the_traceback(files, cli, monkeypatch):
    monkeypatch.setenv("TOKENFORGE_DEBUG", "1")
    with pytest.raises(ValueError, match="is a directory"):
        main(["encode", "-e", str(files / "adir"), "x"])


def test_internal_error_is_reported_as_a_bug(cli, monkeypatch):
    import tokenforge.cli as cli_module

    def broken(name):
        raise RuntimeError("std::bad_cast")

    monkeypatch.setattr(cli_module, "get_encoding", broken)
    code, _, err = cli("encode", "x")
    assert code == 1
    assert err.startswith("tokenforge: internal error: RuntimeError: std::bad_cast") and "TOKENFORGE_DEBUG=1" in err
    assert "Traceback" not in err


def test_warning_display_is_restored(cli):
    import warnings

    before = warnings.showwarning
    cli("list")
    assert warnings.showwarning is before


# --- subprocess: a real stdin, a closed stdout ------------------------------------------------------


def _env():
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT))
    env.pop("TOKENFORGE_DEBUG", None)
    return env


def test_real_stdin_invalid_utf8():
    proc = subprocess.run(
        [sys.executable, "-m", "tokenforge", "encode"],
        input=b"caf\xe9\n",
        capture_output=True,
        env=_env(),
        timeout=60,
        check=False,
    )
    err = proc.stderr.decode()
    assert_clean_error(proc.returncode, err, "standard input is not UTF-8 text", "byte offset 3")


@pytest.mark.parametrize(
    "args,large_input",
    [
        (["list"], False),
        (["encode"], True),
        (["encode", "--json"], True),
        (["encode", "--tokens"], True),
        (["decode", "15339", "1917"], False),
        (["--help"], False),
        (["train", "--help"], False),
    ],
)
def test_closed_stdout_ends_quietly(args, large_input, tmp_path):
    """stdout is a pipe whose reader is gone before anything is written: no traceback and no
    'Exception ignored' message, exit status 141 (as a shell reports a process SIGPIPE ended)."""
    big = tmp_path / "big.txt"
    big.write_text("hello world " * 50_000 if large_input else "", encoding="utf-8")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        with open(big, "rb") as stdin:
            proc = subprocess.run(
                [sys.executable, "-m", "tokenforge", *args],
                stdin=stdin,
                stdout=write_end,
                stderr=subprocess.PIPE,
                env=_env(),
                timeout=60,
                check=False,
            )
    finally:
        os.close(write_end)
    err = proc.stderr.decode()
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipeError" not in err, err
    # argparse's --help swallows the write error itself and exits 0
    assert proc.returncode == (0 if "--help" in args else EXIT_BROKEN_PIPE), err


def test_reader_that_stops_early():
    """`tokenforge encode < big | head -c1`: the reader exits after one byte."""
    text = ("hello world " * 200_000).encode()
    writer = subprocess.Popen(
        [sys.executable, "-m", "tokenforge", "encode"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert writer.stdin is not None and writer.stdout is not None and writer.stderr is not None
    writer.stdin.write(text)
    writer.stdin.close()
    assert writer.stdout.read(1) == b"1"  # of 15339, "hello"
    writer.stdout.close()
    err = writer.stderr.read().decode()
    writer.wait(timeout=60)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert writer.returncode == EXIT_BROKEN_PIPE
