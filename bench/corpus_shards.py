#!/usr/bin/env python
"""A corpus to token shards: tokenforge.corpus.tokenize_files against the loops it replaces.

    python bench/corpus_shards.py                       # the shared corpus, cl100k_base, 1 and all cores
    python bench/corpus_shards.py --split paragraph --shard-tokens 4000000 --json out.json

The inputs are every text file of the shared corpus (`corpus/*.txt` and `corpus/man/*.txt`,
about 70 MB). Each measurement runs in a fresh process (its peak RSS is that process's), with
the encoding loaded before the clock starts, on 1 thread and on every core:

* ``tokenforge.corpus``  -- tokenize_files(inputs, dir, "cl100k_base", split=...): reading,
  splitting, encoding, shards, index, manifest, sha256s;
* ``tiktoken loop``      -- a plain Python loop: read each file, split it into the same documents,
  `tiktoken.encode_ordinary_batch` over batches of 1024, ids and <|endoftext|> appended to a
  list, each shard written with numpy.save when full (the same shard rule: documents whole);
* ``tokenforge.corpus, units read in Python`` (with --python-reading) -- the same, with each
  text unit decoded and cut into documents in Python (inputs.read_unit) and the documents'
  str handed to encode_flat, as before the native cut (encode_text_unit);
* ``tokenforge in-memory`` -- every document already in memory, one
  `Encoding.encode_ordinary_batch` call: the kernel alone, no reading, no output.

MB/s counts the input files' bytes. Every row's id stream (documents with their separators, in
order) is hashed and compared with tokenize_files' shards. "CPU s" is the process's CPU time
(every thread) over the timed part: on a busy machine it shows the work apart from the wait for
a core. "peak RSS" is ru_maxrss of the process; a row over the man pages alone (16 MB) shows
how the pipeline's memory grows with the corpus (it should not). See bench/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DEFAULT_SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))
MB = 1_000_000


def corpus_files(shared: Path, subset: str) -> list[str]:
    c = shared / "corpus"
    man = sorted(str(p) for p in (c / "man").glob("*.txt"))
    if subset == "man":
        return man
    return sorted(str(p) for p in c.glob("*.txt")) + man


def _import_tokenforge() -> None:
    try:
        import tokenforge  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(HERE.parent / "src"))


def _documents(files: list[str], split: str):
    from tokenforge.corpus.inputs import _documents

    for path in files:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        yield from ([text] if split == "document" else _documents(text, split))


def _cpu() -> float:
    """This process's CPU seconds so far (every thread, user and system)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _stream_hash(h, ids) -> None:
    import numpy as np

    h.update(np.asarray(ids, dtype="<u4").tobytes())


# --------------------------------------------------------------------------- children


def child(args: argparse.Namespace) -> dict:
    _import_tokenforge()
    import numpy as np

    files = corpus_files(Path(args.shared), args.subset)
    size = sum(os.path.getsize(p) for p in files)
    threads = args.threads
    h = hashlib.sha256()
    out = Path(args.out)
    if args.which in ("pipeline", "pipeline-python"):
        from tokenforge import get_encoding
        from tokenforge.corpus import tokenize_files, worker

        if args.which == "pipeline-python":  # the units read in Python, as before encode_text_unit
            worker._encode_text_natively = lambda *a: None

        get_encoding("cl100k_base").encode_ordinary("warm up")
        c0, t0 = _cpu(), time.perf_counter()
        m = tokenize_files(
            files, out, "cl100k_base", split=args.split, shard_tokens=args.shard_tokens, workers=threads, progress=False
        )
        wall, cpu_s = time.perf_counter() - t0, _cpu() - c0
        for i in range(len(m.shards)):
            _stream_hash(h, m.load_shard(i)[0])
        tokens, docs = m.tokens, m.documents
    elif args.which == "tiktoken":
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base")
        enc.encode_ordinary("warm up")
        eot = enc.eot_token
        c0, t0 = _cpu(), time.perf_counter()
        shard: list[int] = []
        n_shards = tokens = docs = 0

        def flush() -> None:
            nonlocal shard, n_shards
            np.save(out / f"shard_{n_shards:06d}.npy", np.array(shard, dtype=np.uint32))
            n_shards += 1
            shard = []

        batch: list[str] = []

        def run_batch() -> None:
            nonlocal tokens, docs
            for ids in enc.encode_ordinary_batch(batch, num_threads=threads):
                if shard and len(shard) + len(ids) + 1 > args.shard_tokens:
                    flush()
                shard.extend(ids)
                shard.append(eot)
                tokens += len(ids)
                docs += 1
            batch.clear()

        for doc in _documents(files, args.split):
            batch.append(doc)
            if len(batch) == 1024:
                run_batch()
        run_batch()
        if shard:
            flush()
        wall, cpu_s = time.perf_counter() - t0, _cpu() - c0
        for i in range(n_shards):
            _stream_hash(h, np.load(out / f"shard_{i:06d}.npy"))
    else:
        from tokenforge import get_encoding

        enc = get_encoding("cl100k_base")
        enc.encode_ordinary("warm up")
        documents = list(_documents(files, args.split))
        c0, t0 = _cpu(), time.perf_counter()
        rows = enc.encode_ordinary_batch(documents, num_threads=threads)
        wall, cpu_s = time.perf_counter() - t0, _cpu() - c0
        eot = enc.eot_token
        tokens, docs = sum(len(r) for r in rows), len(rows)
        for r in rows:
            _stream_hash(h, [*r, eot])
    return {
        "which": args.which,
        "threads": threads,
        "subset": args.subset,
        "bytes": size,
        "wall_s": wall,
        "mb_s": size / MB / wall,
        "tokens": tokens,
        "documents": docs,
        "ids_sha256": h.hexdigest(),
        "cpu_s": cpu_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


# --------------------------------------------------------------------------- parent


def run_child(which: str, threads: int, subset: str, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="corpus-bench-") as tmp:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            which,
            "--threads",
            str(threads),
            "--subset",
            subset,
            "--out",
            tmp,
            "--split",
            args.split,
            "--shard-tokens",
            str(args.shard_tokens),
            "--shared",
            str(args.shared),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode:
            raise SystemExit(f"{which} ({threads} threads) failed:\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shared", default=str(DEFAULT_SHARED))
    p.add_argument("--split", default="line", choices=("line", "paragraph", "document"))
    p.add_argument("--shard-tokens", type=int, default=4_000_000)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="'all cores' (default: os.cpu_count())")
    p.add_argument("--json", metavar="PATH")
    p.add_argument(
        "--python-reading",
        action="store_true",
        help="also time the pipeline reading and splitting text units in Python (as before the native cut)",
    )
    p.add_argument("--subset", default="all", choices=("all", "man"), help="all: the whole corpus; man: man/ only")
    p.add_argument("--child", choices=("pipeline", "pipeline-python", "tiktoken", "memory"), help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        args.which = args.child
        print(json.dumps(child(args)))
        return

    from _peers import Context  # the offline tiktoken cache for the children

    ctx = Context(Path(args.shared))
    try:
        rows = []
        for threads in sorted({1, args.threads}):
            kinds = ("pipeline", "pipeline-python") if args.python_reading else ("pipeline",)
            for which in (*kinds, "tiktoken", "memory"):
                r = run_child(which, threads, args.subset, args)
                rows.append(r)
                print(f"{which:15} {threads}T {r['mb_s']:8.2f} MB/s  {r['peak_rss_mb']:7.0f} MB RSS", flush=True)
        small = run_child("pipeline", args.threads, "man", args)
        print(f"pipeline on man/ only: {small['peak_rss_mb']:.0f} MB RSS", flush=True)
    finally:
        ctx.close()
    ref = rows[0]["ids_sha256"]
    names = {
        "pipeline": "tokenforge.corpus",
        "pipeline-python": "tokenforge.corpus, units read in Python",
        "tiktoken": "tiktoken loop",
        "memory": "tokenforge in-memory batch",
    }
    print(
        f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"{ref and rows[0]['bytes'] / MB:.1f} MB, split={args.split}, {rows[0]['documents']:,} documents, "
        f"{rows[0]['tokens']:,} tokens\n"
    )
    print("| threads | run | MB/s | pipeline ÷ run | CPU s | peak RSS MB | ids equal |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        pipe = next(x for x in rows if x["which"] == "pipeline" and x["threads"] == r["threads"])
        print(
            f"| {r['threads']} | {names[r['which']]} | {r['mb_s']:.2f} | {pipe['mb_s'] / r['mb_s']:.2f}× | "
            f"{r['cpu_s']:.2f} | {r['peak_rss_mb']:.0f} | {'yes' if r['ids_sha256'] == ref else 'NO'} |"
        )
    print(
        f"| {small['threads']} | tokenforge.corpus, man/ only ({small['bytes'] / MB:.1f} MB) | {small['mb_s']:.2f} | | "
        f"{small['cpu_s']:.2f} | {small['peak_rss_mb']:.0f} | |"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "man_only": small}, indent=1))


if __name__ == "__main__":
    main()
