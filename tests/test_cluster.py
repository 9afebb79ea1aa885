"""Training on a Dask cluster (tokenforge.cluster): a local cluster of 2 worker processes,
started once for the module, counts the chunks of files written here in several languages, and
the vocabulary equals training on one machine; a worker's error comes back as an exception
naming the unit; the CLI's --cluster does the same. The corpus shards (tokenforge.corpus,
when present) are compared byte for byte too. The same logic without a cluster is in
tests/test_cluster_units.py."""

from __future__ import annotations

import json
import pathlib
import random
import re
import sys

import pytest

distributed = pytest.importorskip("distributed", reason='Dask is not installed (pip install "tokenforge[cluster]")')

from conftest import CORPUS, read_sample  # noqa: E402
from tokenforge import cluster  # noqa: E402
from tokenforge.trainers import TextFiles, continue_bpe, read_text_files, train_bpe, train_bpe_merges  # noqa: E402
from tokenforge.trainers import text_files as tf  # noqa: E402

LANGUAGES = ["en-linuxdoc.txt", "code-python-stdlib.txt", "man/ru.txt", "man/ja.txt", "man/zh_CN.txt", "man/fr.txt"]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as local_cluster,
        distributed.Client(local_cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[str]:
    """Three files of mixed languages, ~2.5 MB each: cut into several units of 2 blocks."""
    rng = random.Random(22)
    texts = {name: read_sample(CORPUS / name, 60_000) for name in LANGUAGES}
    root = tmp_path_factory.mktemp("cluster-corpus")
    paths = []
    for i in range(3):
        parts, size = [], 0
        while size < 2_500_000:
            text = texts[rng.choice(LANGUAGES)]
            start = rng.randrange(len(text) - 3000)
            piece = text[start : start + rng.randrange(100, 3000)]
            parts.append(piece)
            size += len(piece.encode("utf-8"))
        path = root / f"mixed{i}.txt"
        path.write_text("".join(parts), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_executor_keeps_order_and_raises_worker_errors(client):
    pool = cluster.executor(client)
    assert list(pool.map(pow, range(20), [2] * 20)) == [n * n for n in range(20)]
    with pytest.raises(ZeroDivisionError):
        pool.submit(divmod, 1, 0).result()


# pattern None: each piece read is one chunk, so the units must read as exactly the same pieces
# (one file and few merges: training on megabyte-long chunks is slow).
@pytest.mark.parametrize("pattern, files, vocab", [("cl100k", 3, 1200), ("o200k", 3, 1200), (None, 1, 300)])
def test_training_on_the_cluster_equals_training_here(client, corpus, pattern, files, vocab):
    text_files = TextFiles(corpus[:files], unit_bytes=2 * tf.BLOCK)
    assert len(text_files.units()) >= 2 * files
    remote = train_bpe(text_files, vocab, pattern, executor=cluster.executor(client))
    local = train_bpe(read_text_files(corpus[:files]), vocab, pattern)
    assert remote._mergeable_ranks == local._mergeable_ranks
    assert remote._pat_str == local._pat_str


def test_cluster_helpers(client, corpus):
    files = TextFiles(corpus[:1])
    local = train_bpe(files, 400, "gpt2", byte_ids="gpt2")
    assert cluster.train_bpe(corpus[:1], 400, client, pattern="gpt2", byte_ids="gpt2")._mergeable_ranks == (
        local._mergeable_ranks
    )
    merges = train_bpe_merges(TextFiles(corpus[1:], unit_bytes=2 * tf.BLOCK), 300, executor=cluster.executor(client))
    assert merges == train_bpe_merges(read_text_files(corpus[1:]), 300)
    counts = cluster.count_chunks(corpus[0], "cl100k", client)
    assert sum(counts.values()) > 100_000 and counts[b" the"] > 10
    base = continue_bpe(local, files, 500, executor=cluster.executor(client))
    assert base._mergeable_ranks == continue_bpe(local, files, 500)._mergeable_ranks


def test_a_worker_error_surfaces(client, tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("hello world\n" * 100)
    bad.write_bytes(b"fine\nthen \xfe broken\n")
    with pytest.raises(ValueError, match=r"bad\.txt is not UTF-8 text: invalid byte at offset 10") as info:
        train_bpe(TextFiles([good, bad]), 300, executor=cluster.executor(client))
    notes = getattr(info.value, "__notes__", [str(info.value)])
    assert any("unit 1 of 2" in note and "bad.txt" in note for note in notes)
    missing = tmp_path / "gone.txt"
    missing.write_text("text\n")
    files = TextFiles([good, missing])
    missing.unlink()  # gone before training starts
    with pytest.raises(ValueError, match=r"cannot read .*gone\.txt"):
        train_bpe(files, 300, executor=cluster.executor(client))


def test_connect_arguments():
    assert cluster.parse_cluster("local") == (None, None)
    assert cluster.parse_cluster("local:3") == (None, 3)
    assert cluster.parse_cluster("tcp://10.0.0.1:8786") == ("tcp://10.0.0.1:8786", None)
    for bad in ("local:0", "local:x", "local:-1", " "):
        with pytest.raises(ValueError):
            cluster.parse_cluster(bad)
    with pytest.raises(ValueError, match="n_workers"):
        cluster.connect(n_workers=0)
    with pytest.raises(ValueError, match="n_workers applies to a local cluster"):
        cluster.connect("tcp://127.0.0.1:1", n_workers=2)


def test_cli_cluster_equals_cli_here(client, corpus, tmp_path, capsys):
    from tokenforge.cli import main

    here, there = tmp_path / "here.tiktoken", tmp_path / "there.tiktoken"
    args = ["train", "--files", *corpus[:2], "--vocab-size", "700", "--quiet"]
    assert main([*args, "--out", str(here)]) == 0
    assert main([*args, "--out", str(there), "--cluster", client.scheduler.address]) == 0
    assert there.read_bytes() == here.read_bytes()
    local = tmp_path / "local.tiktoken"  # local:1: the CLI starts (and stops) a cluster of its own
    assert main([*args[:2], corpus[2], *args[4:], "--out", str(local), "--cluster", "local:1"]) == 0
    assert main([*args[:2], corpus[2], *args[4:], "--out", str(here)]) == 0
    assert local.read_bytes() == here.read_bytes()
    capsys.readouterr()
    wordpiece = ["train", "--model", "wordpiece", "--files", corpus[0], "--vocab-size", "99"]
    assert main([*wordpiece, "--out", str(tmp_path / "v.txt"), "--cluster", "local:2"]) == 2
    assert "--cluster applies to --model bpe" in capsys.readouterr().err
    assert main([*args, "--out", str(there), "--cluster", "local:0"]) == 2
    assert "--cluster local:0: --cluster local:N takes a number of workers" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------
# Corpus shards (tokenforge.corpus, built beside this): the cluster's output directory equals the
# local one byte for byte, every file but the manifest's timing and executor fields.

# Keys whose values differ between runs of the same work: timings and who ran it.
_VOLATILE_WORDS = {"time", "times", "timing", "timings", "seconds", "elapsed", "duration", "started", "finished"}
_VOLATILE_WORDS |= {"executor", "workers", "host", "hostname", "pid", "rate", "speed", "throughput", "date"}


def _volatile(key: str) -> bool:
    words = [w for w in re.split(r"[^a-z0-9]+", key.lower()) if w]
    return bool(_VOLATILE_WORDS.intersection(words)) or key.endswith(("_s", "_ms", "_at", "per_s", "_per_second"))


def _stable(value):
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if not _volatile(k)}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _directory(root: pathlib.Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            name = str(path.relative_to(root))
            out[name] = _stable(json.loads(path.read_text())) if path.name == "manifest.json" else path.read_bytes()
    return out


def test_corpus_shards_on_the_cluster_equal_the_local_ones(client, corpus, tmp_path):
    corpus_module = pytest.importorskip("tokenforge.corpus", reason="tokenforge.corpus is not in this build")
    local_dir, cluster_dir = tmp_path / "local", tmp_path / "cluster"
    corpus_module.tokenize_files(corpus, str(local_dir), tokenizer="cl100k_base")
    corpus_module.tokenize_files(corpus, str(cluster_dir), tokenizer="cl100k_base", executor=cluster.executor(client))
    local, remote = _directory(local_dir), _directory(cluster_dir)
    assert any(name.endswith(".npy") for name in local) and "manifest.json" in local
    assert sorted(remote) == sorted(local)
    for name in local:
        assert remote[name] == local[name], name


if sys.version_info < (3, 11):  # the unit is named by a note from 3.11, by a wrapping RuntimeError before
    test_a_worker_error_surfaces = pytest.mark.skip(reason="notes need Python 3.11")(test_a_worker_error_surfaces)
