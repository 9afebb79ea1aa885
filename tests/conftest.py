"""Shared fixtures: tiktoken (the reference) fed our bundled vocabularies, offline."""

from __future__ import annotations

import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING

import pytest
from hypothesis import strategies as st

if TYPE_CHECKING:
    import tokenforge

REPO = pathlib.Path(__file__).resolve().parents[1]
DATA = REPO / "src" / "tokenforge" / "data"  # the vocabularies the package ships


def _find_shared() -> pathlib.Path | None:
    """The project's shared data (whole corpora) where there is some: $TOKENFORGE_SHARED, or
    ../shared beside the clone; None in a clone with nothing beside it."""
    env = os.environ.get("TOKENFORGE_SHARED")
    for candidate in ([pathlib.Path(env)] if env else []) + [REPO.parent / "shared"]:
        if (candidate / "corpus").is_dir():
            return candidate
    return None


# What the tests read: tests/data, laid out as ../shared is (corpus/ holds the first 200-400 K
# characters of each corpus, vocab/ the small vocabularies), so a bare clone runs every test.
# The whole corpora (WHOLE_CORPUS) are for the slow tests only (-m slow).
SHARED = REPO / "tests" / "data"
CORPUS = SHARED / "corpus"
_WHOLE = _find_shared()
WHOLE_CORPUS = _WHOLE / "corpus" if _WHOLE is not None else None
ENCODINGS = ["gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base"]

_BLOB = "https://openaipublic.blob.core.windows.net/"


def _populate_tiktoken_cache(cache: pathlib.Path) -> None:
    """tiktoken looks in TIKTOKEN_CACHE_DIR for sha1(url) before downloading anything."""
    import tokenforge
    from tokenforge.formats.tiktoken_file import read_tokens

    def put(url: str, data: bytes) -> None:
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)

    p50k = (DATA / "p50k_base.tiktoken").read_bytes()
    put(_BLOB + "encodings/p50k_base.tiktoken", p50k)
    put(_BLOB + "encodings/cl100k_base.tiktoken", (DATA / "cl100k_base.tiktoken").read_bytes())
    put(_BLOB + "encodings/o200k_base.tiktoken", (DATA / "o200k_base.tiktoken").read_bytes())
    r50k = b"".join(p50k.splitlines(keepends=True)[:50256])
    put(_BLOB + "encodings/r50k_base.tiktoken", r50k)
    # gpt2 comes from encoder.json + vocab.bpe; ours are byte-identical to OpenAI's (same sha256).
    ranks = {t: r for r, t in enumerate(read_tokens(DATA / "p50k_base.tiktoken", 50256))}
    with tempfile.TemporaryDirectory() as tmp:
        enc_json, vocab_bpe = os.path.join(tmp, "encoder.json"), os.path.join(tmp, "vocab.bpe")
        tokenforge.save_gpt2_files(ranks, enc_json, vocab_bpe, {"<|endoftext|>": 50256})
        put(_BLOB + "gpt-2/encodings/main/encoder.json", pathlib.Path(enc_json).read_bytes())
        put(_BLOB + "gpt-2/encodings/main/vocab.bpe", pathlib.Path(vocab_bpe).read_bytes())


@pytest.fixture(scope="session")
def tiktoken_module(tmp_path_factory):
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    _populate_tiktoken_cache(cache)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    import tiktoken

    return tiktoken


@pytest.fixture(scope="session")
def reference(tiktoken_module):
    """name -> tiktoken Encoding, loaded lazily."""
    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = tiktoken_module.get_encoding(name)
        return cache[name]

    return get


def fresh_encoding(ref) -> tokenforge.Encoding:
    """A tokenforge Encoding of tiktoken encoding `ref`, built anew: not get_encoding's shared
    instance, whose piece tables are warm from other tests."""
    import tokenforge

    return tokenforge.Encoding(
        ref.name + "-fresh", pat_str=ref._pat_str, mergeable_ranks=ref._mergeable_ranks, special_tokens={}
    )


def corpus_files(whole: bool = False) -> list[pathlib.Path]:
    """The corpus samples (English docs, Python code, manuals in 8 languages); whole=True: the
    whole corpora, or none where they are not at hand."""
    corpus = WHOLE_CORPUS if whole else CORPUS
    if corpus is None:
        return []
    return [corpus / "en-linuxdoc.txt", corpus / "code-python-stdlib.txt", *sorted((corpus / "man").glob("*.txt"))]


def read_sample(path: pathlib.Path, chars: int | None) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read() if chars is None else f.read(chars)


# sentencepiece texts of long plain ASCII runs (its normalizer copies them 16 bytes at a time)
# broken by what stops a run or is rewritten in it: spaces after spaces, whitespace the map
# turns into a space, controls, letters before combining marks, characters outside ASCII,
# plain or mapped, "▁" and a user-defined symbol.
LONG_PLAIN_RUNS = st.lists(
    st.one_of(
        st.text("abcxyzABC019.,;:-_()", min_size=1, max_size=40),
        st.sampled_from(
            [
                " ",
                "  ",
                "\t",
                "\n",
                "\r\n",
                " \t\x0b\x0c ",
                "\n    ",
                "\x01",
                "\x7f",
                "\u0301",
                "\u0338",
                "<",
                "=",
                "é",
                "д",
                "и",
                "й",
                "и\u0306",
                "日本",
                "か",
                "\u3099",
                "Ａ",
                "ﬁ",
                "①",
                "\u3000",
                "\u00a0",
                "😀",
                "▁",
                "<sep>",
            ]
        ),
    ),
    max_size=30,
).map("".join)


# Examples per hypothesis fuzz test: small in the default run (CI), many in the long run
# (`python bench/fuzz.py`, which sets TOKENFORGE_FUZZ_EXAMPLES).
FUZZ_EXAMPLES = int(os.environ.get("TOKENFORGE_FUZZ_EXAMPLES", "60"))


def run_isolated(
    code: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter (for cases that might crash the process) and returns
    the finished process; a crash shows as a negative return code or an abort message."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=timeout, env=full_env
    )


def assert_clean_exit(proc: subprocess.CompletedProcess[str]) -> None:
    """The process ended by itself: no signal, no std::terminate, no fatal Python error."""
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}\n{proc.stderr[-3000:]}"
    for sign in ("terminate called", "Fatal Python error", "Segmentation fault", "std::bad_alloc"):
        assert sign not in proc.stderr, proc.stderr[-3000:]
