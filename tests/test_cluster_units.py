"""The pieces of cluster training that need no cluster: files cut into byte-range units that
read as the same pieces as the whole files (tiny blocks here, so cuts, forced cuts and block
edges all happen in small files), the chunk table sent as bytes and read back, and training
with a plain concurrent.futures executor equal to training here. tests/test_cluster.py runs
the same on a Dask cluster."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from conftest import CORPUS, read_sample
from tokenforge import _core
from tokenforge.trainers import TextFiles, read_text_files, train_bpe, train_bpe_merges
from tokenforge.trainers import text_files as tf
from tokenforge.trainers.chunk_table import count_chunks, count_chunks_on, count_unit

SAMPLES = ["en-linuxdoc.txt", "code-python-stdlib.txt", "man/ru.txt", "man/ja.txt", "man/zh_CN.txt", "man/de.txt"]


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of 64 bytes and carried text forced out past 200 characters (over two blocks, as
    the real sizes are), so a few KB of text holds many units, cuts and forced cuts."""
    monkeypatch.setattr(tf, "BLOCK", 64)
    monkeypatch.setattr(tf, "MAX_CARRY", 200)


def mixed_text(rng: random.Random, chars: int) -> str:
    """Lines of several languages and scripts, some without any cut point for a while (CJK
    lines, lines starting with spaces or digits), some with CRLF."""
    parts, size = [], 0
    while size < chars:
        name = rng.choice(SAMPLES)
        text = read_sample(CORPUS / name, 20_000)
        start = rng.randrange(len(text) - 500)
        piece = text[start : start + rng.randrange(1, 400)]
        if rng.random() < 0.2:
            piece = piece.replace("\n", "\r\n")
        if rng.random() < 0.2:
            piece = "\n".join(" " + line for line in piece.split("\n"))
        parts.append(piece)
        size += len(piece)
    return "".join(parts)


def pieces_of_units(units, errors="strict"):
    return [piece for path, start, end in units for piece in tf.read_text_range(path, start, end, errors=errors)]


@pytest.mark.parametrize("seed", range(12))
def test_units_read_as_the_whole_files(tmp_path, tiny_blocks, seed):
    rng = random.Random(seed)
    paths = []
    for i in range(3):
        path = tmp_path / f"f{i}.txt"
        path.write_text(mixed_text(rng, rng.randrange(1, 6000)), encoding="utf-8")
        paths.append(str(path))
    if seed % 3 == 0:  # a file of one script with no newline-then-letter at all: forced cuts only
        path = tmp_path / "zh.txt"
        path.write_text(read_sample(CORPUS / "man/zh_CN.txt", 3000).replace("\n", "\n中"), encoding="utf-8")
        paths.append(str(path))
    whole = list(read_text_files(paths))
    for unit_bytes in (128, 192, 256, 640):
        units = tf.plan_units(paths, unit_bytes)
        assert [u[0] for u in units] == sorted((u[0] for u in units), key=paths.index)
        for path in paths:  # each file covered exactly, in order
            ranges = [(s, e) for p, s, e in units if p == path]
            assert ranges[0][0] == 0 and all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        assert pieces_of_units(units) == whole  # the same pieces, not merely the same text
    assert len(tf.plan_units(paths, 128)) > len(paths)  # the files were cut


def test_units_of_invalid_utf8_with_replace(tmp_path, tiny_blocks):
    rng = random.Random(7)
    data = bytearray(mixed_text(rng, 4000).encode("utf-8"))
    for _ in range(30):
        data.insert(rng.randrange(len(data)), rng.choice([0xFF, 0xC3, 0xE2, 0x80]))
    path = tmp_path / "bad.txt"
    path.write_bytes(bytes(data))
    units = tf.plan_units([str(path)], 128)
    assert len(units) > 3
    assert pieces_of_units(units, "replace") == list(read_text_files(path, errors="replace"))
    with pytest.raises(ValueError, match=r"bad\.txt is not UTF-8 text: invalid byte at offset"):
        pieces_of_units(units)


def test_plan_units_checks_unit_bytes(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    for bad in (0, tf.BLOCK, 3 * tf.BLOCK + 1, 2.0 * tf.BLOCK, True):
        with pytest.raises(ValueError, match="unit_bytes must be a multiple"):
            TextFiles(tmp_path / "a.txt", unit_bytes=bad)
    assert tf.plan_units([str(tmp_path / "a.txt")]) == [(str(tmp_path / "a.txt"), 0, 1)]
    (tmp_path / "empty.txt").write_bytes(b"")
    assert TextFiles(tmp_path / "empty.txt").units() == [(str(tmp_path / "empty.txt"), 0, 0)]


def test_chunk_table_as_bytes():
    counts = count_chunks([read_sample(CORPUS / "man/ru.txt", 50_000), "x" * 100_000, ""], "[\\s\\S]{1,7}", False)
    data = _core.dump_chunk_counts(counts)
    again = _core.ChunkCounts()
    _core.add_dumped_chunk_counts(again, data)
    _core.add_dumped_chunk_counts(again, data)
    assert sorted(again.items()) == sorted((c, 2 * n) for c, n in counts.items())
    empty = _core.dump_chunk_counts(_core.ChunkCounts())
    _core.add_dumped_chunk_counts(again, empty)
    assert len(again) == len(counts)
    for bad, why in (
        (b"", "does not start with TFCC"),
        (b"XXXX" + data[4:], "does not start with TFCC"),
        (data[:4] + b"\x02" + data[5:], "version 2"),
        (data[:-1], "cut short"),
        (data + b"\x00", "1 bytes after the last entry"),
        (
            empty[:8] + (1).to_bytes(8, "little") + (1).to_bytes(4, "little") + b"a" + (0).to_bytes(8, "little"),
            "count 0",
        ),
        (empty[:8] + (1).to_bytes(8, "little") + (2**32 - 1).to_bytes(4, "little") + b"a", "cut short"),
    ):
        with pytest.raises(ValueError, match=why):
            _core.add_dumped_chunk_counts(_core.ChunkCounts(), bad)


def write_corpus(tmp_path, rng, files=3, chars=5000):
    paths = []
    for i in range(files):
        path = tmp_path / f"doc{i}.txt"
        path.write_text(mixed_text(rng, chars), encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("pattern", ["cl100k", "gpt2", "o200k", None, r"\p{L}+|\s+|[^\s\p{L}]+"])
def test_training_with_an_executor_equals_training_here(tmp_path, tiny_blocks, pattern):
    paths = write_corpus(tmp_path, random.Random(hash(pattern) % 1000))
    files = TextFiles(paths, unit_bytes=256)
    assert len(files.units()) > 10
    with ThreadPoolExecutor(3) as pool:
        remote = train_bpe(files, 600, pattern, executor=pool)
        remote_merges = train_bpe_merges(files, 300, pattern, executor=pool)
    local = train_bpe(read_text_files(paths), 600, pattern)
    assert remote._mergeable_ranks == local._mergeable_ranks
    assert remote_merges == train_bpe_merges(read_text_files(paths), 300, pattern)


def test_training_in_worker_processes(tmp_path):
    rng = random.Random(3)
    paths = write_corpus(tmp_path, rng, files=2, chars=3_000_000)  # ~4 MB each: units of 2 blocks
    files = TextFiles(paths, unit_bytes=2 * tf.BLOCK)
    assert len(files.units()) >= 4
    with ProcessPoolExecutor(2) as pool:
        remote = train_bpe(files, 500, "cl100k", executor=pool, max_memory=1 << 30)
    assert remote._mergeable_ranks == train_bpe(TextFiles(paths), 500, "cl100k")._mergeable_ranks


def test_executor_needs_files():
    with ThreadPoolExecutor(1) as pool, pytest.raises(TypeError, match=r"pass trainers\.TextFiles"):
        train_bpe(["some text"], 300, executor=pool)


def test_a_failing_unit_names_itself(tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("hello world\n" * 10)
    bad.write_bytes(b"fine\nthen \xff broken\n")
    with ThreadPoolExecutor(2) as pool, pytest.raises(ValueError, match=r"bad\.txt is not UTF-8 text") as info:
        train_bpe(TextFiles([good, bad]), 300, executor=pool)
    notes = getattr(info.value, "__notes__", [str(info.value)])
    assert any("unit 1 of 2" in note and "bad.txt" in note for note in notes)


def test_count_unit_is_the_table_of_its_range(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("one two\nthree four\nfive six\n")
    counts = _core.ChunkCounts()
    _core.add_dumped_chunk_counts(counts, count_unit(str(path), 8, 19, r"\S+|\s+"))
    assert dict(counts.items()) == {b"three": 1, b" ": 1, b"four": 1, b"\n": 1}
    with ThreadPoolExecutor(1) as pool:
        table = count_chunks_on(pool, TextFiles(path), r"\S+|\s+", False)
    assert dict(table.items())[b"\n"] == 3


def fail_on(n: int) -> int:
    if n == 3:
        raise KeyError(f"no {n}")
    return n * 10


def test_naming_executor():
    import threading
    from concurrent.futures import wait

    from tokenforge.cluster import NamingExecutor

    with ThreadPoolExecutor(2) as pool:
        named = NamingExecutor(pool)
        assert list(named.map(fail_on, [5, 1, 4, 0])) == [50, 10, 40, 0]
        with pytest.raises(KeyError, match="no 3") as info:
            list(named.map(fail_on, [1, 2, 3, 4]))
        assert info.value.__notes__ == ["in fail_on(3), run by a cluster worker"]
        gate = threading.Event()
        first = named.submit(gate.wait)  # holds one thread, so the next waits in the queue
        blocked = [named.submit(gate.wait) for _ in range(3)]
        assert blocked[-1].cancel() and blocked[-1].cancelled()
        gate.set()
        done, _ = wait([first, *blocked])
        assert first.result() is True and len(done) == 4


def test_memory_bound_with_an_executor_keeps_what_training_here_keeps(tmp_path, tiny_blocks):
    paths = write_corpus(tmp_path, random.Random(11), files=4, chars=60_000)
    pat = r"\S+|\s+"
    with pytest.warns(UserWarning, match="outgrew max_memory") as here_warning:
        here = count_chunks(read_text_files(paths), pat, False, 1 << 20)
    with ThreadPoolExecutor(2) as pool, pytest.warns(UserWarning, match="outgrew max_memory") as there_warning:
        there = count_chunks_on(pool, TextFiles(paths, unit_bytes=2048), pat, False, 1 << 20)
    assert str(there_warning[0].message) == str(here_warning[0].message)
    assert sorted(there.items()) == sorted(here.items())
    assert 0 < len(here) < len(count_chunks(read_text_files(paths), pat, False))


def test_without_dask_the_error_says_what_to_install(monkeypatch):
    import sys

    from tokenforge import cluster

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    with pytest.raises(ImportError, match=r'pip install "tokenforge\[cluster\]"'):
        cluster.connect(n_workers=1)
