#!/usr/bin/env python
"""Chunk counting of BPE training on a Dask cluster against one machine, in one run.

    python bench/cluster.py                       # ../shared/corpus (or $TOKENFORGE_SHARED), 2 workers
    python bench/cluster.py --workers 2 --pattern o200k --unit-mb 8

Counts the chunks of every file under corpus/ (recursively) three ways: on this machine with
all its cores (count_chunks over read_text_files, what train_bpe does), on this machine with one
core, and on a local Dask cluster of --workers processes of one thread each (count_chunks_on over
the cluster's executor: units of --unit-mb, counted on the workers, tables sent back as bytes
and added up here). The cluster's start-up is timed apart. The tables must be equal; the
report gives seconds, MB/s and the ratios. A local cluster on one machine only shows the cost
of the machinery (planning, pickling, sending the tables): the gain of a cluster is more
machines, which one machine cannot measure.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=str(SHARED / "corpus"), help="directory of text files (recursive)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pattern", default="cl100k")
    parser.add_argument("--unit-mb", type=int, default=16, help="MiB per unit of work")
    parser.add_argument("--repeat", type=int, default=2, help="best of this many runs")
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    from tokenforge import cluster
    from tokenforge.trainers.bpe import _split_pattern
    from tokenforge.trainers.chunk_table import count_chunks, count_chunks_on
    from tokenforge.trainers.text_files import TextFiles, read_text_files

    paths = sorted(str(p) for p in Path(args.corpus).rglob("*") if p.is_file())
    if not paths:
        print(f"no files under {args.corpus}", file=sys.stderr)
        return 1
    size = sum(os.path.getsize(p) for p in paths)
    pat = _split_pattern(args.pattern)
    files = TextFiles(paths, unit_bytes=args.unit_mb << 20)
    print(f"{len(paths)} files, {size / 1e6:.1f} MB, {len(files.units())} units of {args.unit_mb} MiB; "
          f"pattern {args.pattern}; {os.cpu_count()} cores")  # fmt: skip

    def best(run):
        times, result = [], None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = run()
            times.append(time.perf_counter() - start)
        return min(times), result

    import tokenforge.trainers.chunk_table as table

    here_s, here = best(lambda: count_chunks(read_text_files(paths), pat, False))
    real = table.resolve_threads
    table.resolve_threads = lambda n=None, name="num_threads": 1  # one core: threads=None means all
    try:
        one_s, one = best(lambda: count_chunks(read_text_files(paths), pat, False))
    finally:
        table.resolve_threads = real
    start = time.perf_counter()
    with (
        LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None) as lc,
        Client(lc) as client,
    ):
        startup = time.perf_counter() - start
        pool = cluster.executor(client)
        cluster_s, remote = best(lambda: count_chunks_on(pool, files, pat, False))
    same = sorted(remote.items()) == sorted(here.items()) == sorted(one.items())
    rows = [
        ("this machine, all cores", here_s),
        ("this machine, 1 core", one_s),
        (f"Dask LocalCluster, {args.workers} workers x 1 thread", cluster_s),
    ]
    print(f"{'how':<40} {'seconds':>8} {'MB/s':>8} {'vs all cores':>13}")
    for name, seconds in rows:
        print(f"{name:<40} {seconds:>8.2f} {size / 1e6 / seconds:>8.1f} {here_s / seconds:>12.2f}x")
    print(f"cluster start-up: {startup:.1f} s (not counted); {len(here):,} unique chunks; tables equal: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
