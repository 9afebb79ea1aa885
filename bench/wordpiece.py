#!/usr/bin/env python
"""WordPiece (BERT uncased) encode throughput: tokenforge, HF tokenizers and tokie, in one run.

    python bench/wordpiece.py                 # 1 MB per corpus, best of 3
    python bench/wordpiece.py --mb 0.3 --corpus en-linuxdoc,man-ja

Every library loads ../shared/vocab/bert/tokenizer.json with truncation and padding off. Each
corpus is cut into lines (empty ones dropped), the unit BERT models are fed, and encoded two ways:

* ``single`` -- a Python loop calling the library's encode per line, on one thread;
* ``batch``  -- the library's batch call over all lines with ``--threads`` threads.

Every result's ids are read back into Python (the work a caller does) and compared with HF's,
line by line. MB/s is UTF-8 input bytes over the best of ``--repeat`` runs; "tf ÷ lib" is
tokenforge's speed over that library's.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))
BERT_JSON = SHARED / "vocab" / "bert" / "tokenizer.json"


def corpora() -> dict[str, Path]:
    c = SHARED / "corpus"
    out = {"en-linuxdoc": c / "en-linuxdoc.txt", "code-python-stdlib": c / "code-python-stdlib.txt"}
    out.update({f"man-{p.stem}": p for p in sorted((c / "man").glob("*.txt"))})
    return out


def load(lib: str):
    """(encode one, encode many) for a library, truncation and padding off."""
    if lib == "tokenforge":
        import tokenforge

        tok = tokenforge.Tokenizer.from_file(BERT_JSON)
        tok.no_truncation()
        tok.no_padding()
        return (lambda s: tok.encode(s).ids), (lambda xs, n: [e.ids for e in tok.encode_batch(xs, num_threads=n)])
    if lib == "hf-tokenizers":
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(BERT_JSON))
        tok.no_truncation()
        tok.no_padding()
        return (lambda s: tok.encode(s).ids), (lambda xs, n: [e.ids for e in tok.encode_batch(xs)])
    if lib == "tokie":
        import tokie

        tok = tokie.Tokenizer.from_json(str(BERT_JSON))
        return (lambda s: tok.encode(s).ids), (lambda xs, n: [e.ids for e in tok.encode_batch(xs)])
    raise ValueError(lib)


def best(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0, help="MB of each corpus (default 1)")
    ap.add_argument("--corpus", help="comma list of corpus names (default all)")
    ap.add_argument("--libs", default="tokenforge,hf-tokenizers,tokie")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    os.environ["TOKENIZERS_PARALLELISM"] = "true"
    names = args.corpus.split(",") if args.corpus else list(corpora())
    libs = args.libs.split(",")
    loaded = {lib: load(lib) for lib in libs}
    rows = []
    for name in names:
        text = corpora()[name].read_text(encoding="utf-8")
        data = text.encode("utf-8")[: int(args.mb * 1e6)].decode("utf-8", "ignore")
        lines = [line for line in data.split("\n") if line.strip()]
        size = sum(len(line.encode("utf-8")) for line in lines)
        expected = None
        for mode in ("single", "batch"):
            speeds = {}
            for lib in libs:
                one, many = loaded[lib]
                run = (lambda: [one(s) for s in lines]) if mode == "single" else (lambda: many(lines, args.threads))
                seconds, ids = best(run, args.repeat)
                if lib == "hf-tokenizers" or expected is None:
                    expected = expected or ids
                speeds[lib] = size / 1e6 / seconds
                rows.append({"corpus": name, "mode": mode, "lib": lib, "mb_s": speeds[lib], "same_ids": ids == expected})
                print(f"{name:20} {mode:6} {lib:14} {speeds[lib]:8.2f} MB/s  ids {'=' if ids == expected else '≠'} HF",
                      file=sys.stderr, flush=True)
    print("| corpus | mode | " + " | ".join(f"{lib} MB/s" for lib in libs) + " | "
          + " | ".join(f"tf ÷ {lib}" for lib in libs if lib != "tokenforge") + " |")
    print("| --- | --- |" + " ---: |" * (2 * len(libs) - 1))
    for name in names:
        for mode in ("single", "batch"):
            got = {r["lib"]: r for r in rows if r["corpus"] == name and r["mode"] == mode}
            cells = [f"{got[lib]['mb_s']:.2f}" + ("" if got[lib]["same_ids"] else " (ids differ)") for lib in libs]
            ratios = [f"{got['tokenforge']['mb_s'] / got[lib]['mb_s']:.1f}×" for lib in libs if lib != "tokenforge"]
            print(f"| {name} | {mode} | " + " | ".join(cells + ratios) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
