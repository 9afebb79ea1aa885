"""Concurrent use of one Encoding: its native caches are lent to one thread at a time, so
Python threads (each releasing the GIL inside encode) and native batch threads all get the
ids a lone caller gets."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import tokenforge
from conftest import corpus_files, read_sample


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_python_threads_share_an_encoding(name):
    enc = tokenforge.get_encoding(name)
    docs = [read_sample(p, 30_000)[i : i + 3000] for p in corpus_files() for i in range(0, 30_000, 3000)]
    expected = [tokenforge.get_encoding(name).encode_ordinary(d) for d in docs]
    with ThreadPoolExecutor(max_workers=6) as pool:
        for _ in range(3):
            assert list(pool.map(enc.encode_ordinary, docs)) == expected
            batches = [docs[i::4] for i in range(4)]
            got = list(pool.map(lambda b: enc.encode_ordinary_batch(b, num_threads=3), batches))
            assert got == [expected[i::4] for i in range(4)]
