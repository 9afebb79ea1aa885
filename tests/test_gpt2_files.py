"""Tests for tokenforge.formats.gpt2_files (GPT-2 encoder.json + vocab.bpe)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import inspect
import json
import os
import re
import stat
import time
from pathlib import Path

import pytest

from conftest import DATA

try:
    from tokenforge.formats import gpt2_files as gf
except ImportError:  # package not importable yet (e.g. native module not built)
    _spec = importlib.util.spec_from_file_location(
        "_tokenforge_gpt2_files",
        Path(__file__).resolve().parents[1] / "src/tokenforge/formats/gpt2_files.py",
    )
    gf = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(gf)

tiktoken_load = pytest.importorskip("tiktoken.load")

P50K = DATA / "p50k_base.tiktoken"
ENDOFTEXT = "<|endoftext|>"
R50K_N = 50256  # r50k_base / GPT-2 = the first 50256 ranks of p50k_base


def _load_r50k() -> dict[bytes, int]:
    """Tiny private .tiktoken reader: "base64(token) rank" per line."""
    ranks = {}
    with open(P50K, "rb") as f:
        for line in f:
            token, rank = line.split()
            if int(rank) < R50K_N:
                ranks[base64.b64decode(token)] = int(rank)
    assert len(ranks) == R50K_N
    return ranks


@pytest.fixture(scope="module")
def r50k() -> dict[bytes, int]:
    if not P50K.exists():
        pytest.skip(f"{P50K} not available")
    return _load_r50k()


@pytest.fixture(scope="module")
def r50k_files(r50k, tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("gpt2")
    enc, bpe = d / "encoder.json", d / "vocab.bpe"
    gf.save_gpt2_files(r50k, enc, bpe, {ENDOFTEXT: R50K_N})
    return enc, bpe


@pytest.fixture(autouse=True)
def _no_tiktoken_cache(monkeypatch):
    # tiktoken caches files by path (not content) when no hash is given; an empty
    # cache dir disables that so reused tmp paths never serve stale data.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")


# ------------------------------------------------------------ bytes_to_unicode


def _gpt2_bytes_to_unicode_reference() -> dict[int, str]:
    """Independent re-statement of GPT-2 encoder.py's table (tiktoken does not
    expose one; its loader inlines the same rule as "printable and not space")."""
    kept = [b for b in range(256) if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255]
    shifted = [b for b in range(256) if b not in kept]
    table = {b: chr(b) for b in kept}
    table.update({b: chr(256 + i) for i, b in enumerate(shifted)})
    return table


def test_bytes_to_unicode_is_a_printable_bijection():
    table = gf.bytes_to_unicode()
    assert sorted(table) == list(range(256))
    chars = list(table.values())
    assert len(set(chars)) == 256
    assert all(c.isprintable() and not c.isspace() for c in chars)
    assert gf.unicode_to_bytes() == {c: b for b, c in table.items()}


def test_bytes_to_unicode_matches_gpt2_and_tiktoken_order():
    table = gf.bytes_to_unicode()
    assert table == _gpt2_bytes_to_unicode_reference()
    # Rank order of single bytes: tiktoken's rule in data_gym_to_mergeable_bpe_ranks.
    printable_first = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    printable_first += [b for b in range(256) if b not in printable_first]
    assert list(table) == printable_first


def test_bytes_to_unicode_returns_copies():
    gf.bytes_to_unicode()[ord("!")] = "X"
    gf.unicode_to_bytes()["!"] = 0
    assert gf.bytes_to_unicode()[ord("!")] == "!"
    assert gf.unicode_to_bytes()["!"] == ord("!")


def test_single_byte_ranks_match_tiktoken_loader(tmp_path):
    # The actual tiktoken implementation, on a merge-free vocabulary.
    table = gf.bytes_to_unicode()
    enc, bpe = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    enc.write_text(json.dumps({c: i for i, c in enumerate(table.values())}))
    bpe.write_text("#version: 0.2\n")
    expected = {bytes([b]): i for i, b in enumerate(table)}
    assert tiktoken_load.data_gym_to_mergeable_bpe_ranks(str(bpe), str(enc)) == expected
    assert gf.load_gpt2_files(enc, bpe) == (expected, {})


# ------------------------------------------------------- r50k round trip/parity


def test_r50k_round_trip(r50k, r50k_files):
    ranks, special = gf.load_gpt2_files(*r50k_files)
    assert ranks == r50k
    assert special == {ENDOFTEXT: R50K_N}


def test_r50k_parity_with_tiktoken(r50k, r50k_files):
    enc, bpe = r50k_files
    ranks = tiktoken_load.data_gym_to_mergeable_bpe_ranks(vocab_bpe_file=str(bpe), encoder_json_file=str(enc))
    assert ranks == r50k


def test_r50k_files_are_byte_identical_to_gpt2_originals(r50k_files):
    # Expected hashes of GPT-2's published files, as pinned by tiktoken itself.
    from tiktoken_ext import openai_public

    src = inspect.getsource(openai_public.gpt2)
    expected = dict(re.findall(r'(vocab_bpe_hash|encoder_json_hash)="([0-9a-f]{64})"', src))
    enc, bpe = r50k_files
    assert hashlib.sha256(bpe.read_bytes()).hexdigest() == expected["vocab_bpe_hash"]
    assert hashlib.sha256(enc.read_bytes()).hexdigest() == expected["encoder_json_hash"]


def test_r50k_save_and_load_are_fast(r50k, tmp_path):
    # CPU time, not wall time, so a busy machine does not make this flaky. Each takes about
    # 0.4-0.7 s on an idle host; CPU time still grows on a host running two test suites at
    # once (save read 2.1 s there), so the bound is set to catch a slowdown of several times.
    enc, bpe = tmp_path / "e.json", tmp_path / "v.bpe"
    t0 = time.process_time()
    gf.save_gpt2_files(r50k, enc, bpe, {ENDOFTEXT: R50K_N})
    t1 = time.process_time()
    gf.load_gpt2_files(enc, bpe)
    t2 = time.process_time()
    assert t1 - t0 < 4.0 and t2 - t1 < 4.0, (t1 - t0, t2 - t1)


# --------------------------------------------------------- small vocabularies


def _small_ranks() -> dict[bytes, int]:
    ranks = {bytes([b]): i for i, b in enumerate(gf.bytes_to_unicode())}
    for token in (b"he", b"ll", b"hell", b"o ", b"hello "):
        ranks[token] = len(ranks)
    return ranks


def _write(tmp_path: Path, merges: list[str], encoder: dict | str | None = None):
    """Write vocab.bpe from merge lines and encoder.json (default: consistent)."""
    bpe = tmp_path / "vocab.bpe"
    bpe.write_text("#version: 0.2\n" + "".join(m + "\n" for m in merges), encoding="utf-8")
    enc = tmp_path / "encoder.json"
    if encoder is None:
        table = gf.bytes_to_unicode()
        encoder = {"".join(table[b] for b in t): r for t, r in _small_ranks().items()}
    text = encoder if isinstance(encoder, str) else json.dumps(encoder)
    enc.write_text(text, encoding="utf-8")
    return enc, bpe


SMALL_MERGES = ["h e", "l l", "he ll", "o Ġ", "hell oĠ"]


def test_small_vocab_round_trip_and_specials(tmp_path):
    ranks = _small_ranks()
    specials = {ENDOFTEXT: 300, "<pad> x": 301}  # a space: not in the table, still fine
    enc, bpe = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    gf.save_gpt2_files(ranks, enc, bpe, specials)
    assert bpe.read_text().splitlines()[1:] == SMALL_MERGES
    assert gf.load_gpt2_files(enc, bpe) == (ranks, specials)


def test_load_tolerates_missing_final_newline_and_crlf(tmp_path):
    enc, bpe = _write(tmp_path, SMALL_MERGES)
    text = bpe.read_text()
    for variant in (text.rstrip("\n"), text.replace("\n", "\r\n")):
        bpe.write_bytes(variant.encode())
        assert gf.load_gpt2_files(enc, bpe)[0] == _small_ranks()


# ----------------------------------------------------------------- load errors


def test_missing_files(tmp_path):
    enc, bpe = _write(tmp_path, SMALL_MERGES)
    with pytest.raises(FileNotFoundError, match=r"nope\.json"):
        gf.load_gpt2_files(tmp_path / "nope.json", bpe)
    with pytest.raises(FileNotFoundError, match=r"nope\.bpe"):
        gf.load_gpt2_files(enc, tmp_path / "nope.bpe")


@pytest.mark.parametrize(
    "encoder, message",
    [
        ('{"!": 0,', "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"!": 0, "!": 1}', "entry '!' appears more than once"),
        ('{"!": "zero"}', "entry '!': id must be an integer"),
    ],
)
def test_bad_encoder_json(tmp_path, encoder, message):
    enc, bpe = _write(tmp_path, SMALL_MERGES, encoder)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        gf.load_gpt2_files(enc, bpe)
    assert "encoder.json" in str(info.value)


@pytest.mark.parametrize(
    "merges, message",
    [
        (["h e", "l l l"], "line 3: a merge needs exactly two space-separated parts, got 3"),
        (["h e", "", "l l"], "line 3: a merge needs exactly two space-separated parts, got 0"),
        (["h e", "hell o"], "line 3: merge half 'hell' is not a token defined"),
        (["h e", "l €"], "line 3: character '€' (U+20AC)"),
        (["h e", "h e"], "line 3: merge 'h e' produces b'he', which already has rank 256"),
    ],
)
def test_bad_vocab_bpe(tmp_path, merges, message):
    enc, bpe = _write(tmp_path, merges)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        gf.load_gpt2_files(enc, bpe)
    assert "vocab.bpe" in str(info.value)


def test_vocab_bpe_needs_version_header(tmp_path):
    enc, bpe = _write(tmp_path, SMALL_MERGES)
    bpe.write_text("h e\n")
    with pytest.raises(ValueError, match=r"vocab\.bpe: line 1: expected a '#version"):
        gf.load_gpt2_files(enc, bpe)


def _encoder_for(ranks: dict[bytes, int]) -> dict[str, int]:
    table = gf.bytes_to_unicode()
    return {"".join(table[b] for b in t): r for t, r in ranks.items()}


def test_encoder_json_disagrees_with_vocab_bpe(tmp_path):
    swapped = _encoder_for(_small_ranks())
    swapped["he"], swapped["ll"] = swapped["ll"], swapped["he"]
    enc, bpe = _write(tmp_path, SMALL_MERGES, swapped)
    with pytest.raises(ValueError, match=r"encoder\.json: entry 'he': has id 257 but .*vocab\.bpe"):
        gf.load_gpt2_files(enc, bpe)

    missing = _encoder_for(_small_ranks())
    del missing["hell"]
    enc, bpe = _write(tmp_path, SMALL_MERGES, missing)
    with pytest.raises(ValueError, match=r"encoder\.json: lacks 1 token.*'hell' \(rank 258\)"):
        gf.load_gpt2_files(enc, bpe)

    clash = _encoder_for(_small_ranks()) | {ENDOFTEXT: 5}
    enc, bpe = _write(tmp_path, SMALL_MERGES, clash)
    with pytest.raises(ValueError, match=r"encoder\.json: entry '<\|endoftext\|>': id 5 is also"):
        gf.load_gpt2_files(enc, bpe)


# ----------------------------------------------------------------- save errors


def _save(tmp_path: Path, ranks, special=None):
    gf.save_gpt2_files(ranks, tmp_path / "encoder.json", tmp_path / "vocab.bpe", special)


def test_save_rejects_bad_ranks(tmp_path):
    ranks = _small_ranks()
    with pytest.raises(ValueError, match="dense"):
        _save(tmp_path, ranks | {b"xyz": 1000})
    with pytest.raises(ValueError, match="rank 5 is used by both"):
        _save(tmp_path, {k: v for k, v in ranks.items() if v != 6} | {b"zz": 5})
    with pytest.raises(ValueError, match="only 3 tokens"):
        _save(tmp_path, {b"a": 0, b"b": 1, b"c": 2})
    with pytest.raises(ValueError, match=r"rank 0 is b'he'"):
        _save(tmp_path, ranks | {b"he": 0, b"!": 256})


def test_save_rejects_non_gpt2_byte_order(tmp_path):
    identity = {bytes([b]): b for b in range(256)}  # e.g. a freshly trained vocabulary
    with pytest.raises(ValueError, match="cannot be represented in GPT-2 format"):
        _save(tmp_path, identity)
    assert not list(tmp_path.iterdir())


def test_save_rejects_tokens_without_two_part_merge(tmp_path):
    ranks = {bytes([b]): i for i, b in enumerate(gf.bytes_to_unicode())}
    ranks[b"abc"] = 256  # neither b"ab" nor b"bc" exists below it
    with pytest.raises(ValueError, match=r"b'abc' \(rank 256\) has no merge.*3 parts"):
        _save(tmp_path, ranks)


def test_save_rejects_colliding_special_tokens(tmp_path):
    ranks = _small_ranks()
    with pytest.raises(ValueError, match="also a regular token"):
        _save(tmp_path, ranks, {"he": 500})
    with pytest.raises(ValueError, match=r"id 3 is already used by b'\$'"):
        _save(tmp_path, ranks, {ENDOFTEXT: 3})
    with pytest.raises(ValueError, match="id 500 is already used by '<a>'"):
        _save(tmp_path, ranks, {"<a>": 500, "<b>": 500})


# ------------------------------------------------------------ atomic writing


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.iterdir()}


def test_failed_save_leaves_existing_files_untouched(tmp_path, monkeypatch):
    _save(tmp_path, _small_ranks(), {ENDOFTEXT: 300})
    before = _snapshot(tmp_path)
    bigger = _small_ranks() | {b"hello hello ": 261}

    # 1. Invalid ranks: rejected before anything is written.
    with pytest.raises(ValueError):
        _save(tmp_path, bigger | {b"\x00\x00": 999})
    assert _snapshot(tmp_path) == before

    # 2. Failure midway: encoder.json's temp file is fully written, then writing
    # vocab.bpe's temp fails. Neither target may change; no temp file may remain.
    calls = []

    def flaky_fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError("disk full (simulated)")

    with monkeypatch.context() as m:
        m.setattr(gf.os, "fsync", flaky_fsync)
        with pytest.raises(OSError, match="simulated"):
            _save(tmp_path, bigger)
    assert len(calls) == 2
    assert _snapshot(tmp_path) == before

    # 3. A failing rename is cleaned up too.
    def failing_replace(src, dst):
        raise OSError("read-only file system (simulated)")

    with monkeypatch.context() as m:
        m.setattr(gf.os, "replace", failing_replace)
        with pytest.raises(OSError, match="simulated"):
            _save(tmp_path, bigger)
    assert _snapshot(tmp_path) == before

    # And a successful save replaces both, leaving no temp files behind.
    _save(tmp_path, bigger)
    assert gf.load_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe") == (bigger, {})
    assert sorted(os.listdir(tmp_path)) == ["encoder.json", "vocab.bpe"]


def test_saved_files_honour_umask(tmp_path):
    # Temp-file helpers such as mkstemp create 0o600 files; ours must not.
    umask = os.umask(0o022)
    try:
        _save(tmp_path, _small_ranks())
    finally:
        os.umask(umask)
    for name in ("encoder.json", "vocab.bpe"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644
