"""No quadratic blow-ups: 1 MB of pathological text encodes in well under 5 s (quadratic
behaviour would take minutes) and decodes back; ids are checked against tiktoken on 20 KB
prefixes, where tiktoken itself is fast."""

from __future__ import annotations

import contextlib
import random
import signal
import time

import pytest

import tokenforge
from conftest import SHARED
from tokenforge.models.sentencepiece import SentencePieceModelEncoder

N = 1_000_000
SMALL = 20_000
LIMIT_S = 5.0
NAMES = ["cl100k_base", "o200k_base", "r50k_base"]
GPT2_ORIGINAL = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _random_no_spaces(n: int) -> str:
    alphabet = [chr(b) for b in range(256) if chr(b).isprintable() and not chr(b).isspace()]
    return "".join(random.Random(0).choices(alphabet, k=n))


INPUTS = {
    "a": lambda n: "a" * n,
    "digit": lambda n: "1" * n,
    "random-latin1": _random_no_spaces,
    "newline": lambda n: "\n" * n,
    "space": lambda n: " " * n,
    "emoji": lambda n: "👋" * n,
    "ideographic-space": lambda n: "\u3000" * n,
    "cjk": lambda n: "你" * n,
    "combining": lambda n: "\u0301" * n,
    "crlf": lambda n: ("\r\n" * n)[:n],
}


@contextlib.contextmanager
def time_limit(seconds: float):
    """Fail (instead of hanging for minutes) when Python-level work runs past `seconds`."""

    def handler(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _timed(fn, limit_s: float = LIMIT_S):
    start = time.perf_counter()
    with time_limit(limit_s):
        result = fn()
    elapsed = time.perf_counter() - start
    assert elapsed < limit_s, f"took {elapsed:.1f} s"
    return result


@pytest.fixture(scope="module")
def big_inputs():
    return {name: make(N) for name, make in INPUTS.items()}


@pytest.mark.parametrize("kind", sorted(INPUTS))
@pytest.mark.parametrize("name", NAMES)
def test_one_megabyte(name, kind, big_inputs, reference):
    enc = tokenforge.get_encoding(name)
    text = big_inputs[kind]
    assert len(text) == N
    ids = _timed(lambda: enc.encode(text))
    assert _timed(lambda: enc.decode(ids)) == text
    small = text[:SMALL]
    assert enc.encode(small) == reference(name).encode(small)


@pytest.mark.parametrize("kind", ["a", "random-latin1", "space", "emoji", "newline"])
def test_one_megabyte_other_surfaces(kind, big_inputs):
    enc = tokenforge.get_encoding("cl100k_base")
    text = big_inputs[kind]
    ids = _timed(lambda: enc.encode_ordinary(text))
    assert _timed(lambda: enc.encode_to_numpy(text)).tolist() == ids
    got, offsets, _ = _timed(lambda: enc.encode_with_offsets(text))
    assert got == ids and len(offsets) == len(ids)
    assert _timed(lambda: enc.encode_ordinary_batch([text, text[:1000]], num_threads=2))[0] == ids

    # the stream decoder is a Python loop per id: a 200 KB stream is enough to see it is linear
    part = text[:200_000]
    part_ids = enc.encode_ordinary(part)

    def stream():
        dec = enc.stream_decoder()
        return "".join(dec.push(t) for t in part_ids) + dec.flush()

    assert _timed(stream) == part


@pytest.fixture(scope="module")
def custom_pair(reference, tiktoken_module):
    ranks = reference("r50k_base")._mergeable_ranks
    specials = {"<|endoftext|>": 50256}
    ours = tokenforge.Encoding("custom", pat_str=GPT2_ORIGINAL, mergeable_ranks=ranks, special_tokens=specials)
    ref = tiktoken_module.Encoding("custom", pat_str=GPT2_ORIGINAL, mergeable_ranks=ranks, special_tokens=specials)
    return ours, ref


@pytest.mark.parametrize("kind", ["a", "random-latin1", "space", "emoji", "newline", "cjk"])
def test_one_megabyte_non_native_pattern(kind, big_inputs, custom_pair):
    ours, ref = custom_pair
    text = big_inputs[kind]
    ids = _timed(lambda: ours.encode(text))
    assert ours.decode(ids) == text
    small = text[:SMALL]
    assert ours.encode(small) == ref.encode(small)


def _special_heavy(n: int) -> str:
    return ("<|endoftext|>é" * (n // 14 + 1))[:n]


@pytest.mark.parametrize("name", NAMES)
def test_one_megabyte_of_special_tokens(name, reference):
    enc = tokenforge.get_encoding(name)
    text = _special_heavy(N)
    ids = _timed(lambda: enc.encode(text, allowed_special="all"))
    assert ids.count(enc.eot_token) == text.count("<|endoftext|>")
    assert enc.decode(ids) == text
    assert _timed(lambda: enc.encode(text, disallowed_special=())) == enc.encode_ordinary(text)
    with pytest.raises(ValueError):
        _timed(lambda: enc.encode(text))
    small = text[:SMALL]
    assert enc.encode(small, allowed_special="all") == reference(name).encode(small, allowed_special="all")


def test_one_megabyte_of_special_tokens_non_native_pattern(custom_pair):
    ours, ref = custom_pair
    text = _special_heavy(N)
    small = text[:SMALL]
    assert ours.encode(small, allowed_special="all") == ref.encode(small, allowed_special="all")
    ids = _timed(lambda: ours.encode(text, allowed_special="all"))
    assert ours.decode(ids) == text


@pytest.mark.parametrize("kind", ["a", "cjk", "space", "emoji", "combining", "random-latin1"])
def test_one_megabyte_sentencepiece_bpe(kind, big_inputs):
    """Mistral's sentencepiece BPE: a megabyte of one letter is one segment to merge (a heap, not
    rescans), one of a CJK character a million segments; both well under a second."""
    spm = pytest.importorskip("sentencepiece")
    path = str(SHARED / "vocab" / "mistral-7b-v0.1.model")
    encoder, tokenizer = SentencePieceModelEncoder.from_file(path), tokenforge.Tokenizer.from_file(path)
    text = big_inputs[kind]
    ids = _timed(lambda: encoder.encode(text), 1.0)
    assert _timed(lambda: tokenizer.encode(text, add_special_tokens=False), 1.0).ids == ids
    small = text[:SMALL]
    assert encoder.encode(small) == spm.SentencePieceProcessor(model_file=path).encode(small)


@pytest.mark.parametrize("run", ["x", "é", "ab", "\n"])
def test_bpe_training_on_long_runs_of_one_token(run):
    """400 KB of one repeated token: training merges it into very long tokens, and building the
    vocabulary's tables (every cut of a token into two) took 44 s (quadratic in a token's length)."""
    from tokenforge.trainers import train_bpe

    text = run * (400_000 // len(run))
    enc = _timed(lambda: train_bpe([text, "some other text"], 2000, pattern="cl100k", progress=False))
    assert enc.decode(enc.encode_ordinary(text)) == text
    assert len(enc.encode_ordinary(text)) < 40  # a few very long tokens
