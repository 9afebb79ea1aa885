#!/usr/bin/env python
"""WordPiece (BERT uncased) encode throughput: tokenforge, HF tokenizers and tokie, in one run.

    python bench/wordpiece.py                 # 1 MB per corpus, best of 3
    python bench/wordpiece.py --mb 0.3 --corpus en-linuxdoc,man-ja

Every library loads ../shared/vocab/bert/tokenizer.json with truncation and padding off. Each
corpus is cut two ways: into 8 KB documents (as bench/encode.py does; per-call costs fade) and
into lines (empty ones dropped; short inputs, where per-call costs dominate). Each is encoded:

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


def documents(text: str, size: int = 8192) -> list[str]:
    data, docs, i = text.encode("utf-8"), [], 0
    while i < len(data):
        j = min(i + size, len(data))
        while j < len(data) and data[j] & 0xC0 == 0x80:  # back off to a character boundary
            j -= 1
        docs.append(data[i:j].decode("utf-8"))
        i = j
    return docs


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
    modes = [(unit, mode) for unit in ("8KB docs", "lines") for mode in ("single", "batch")]
    rows = []
    for name in names:
        text = corpora()[name].read_text(encoding="utf-8")
        data = text.encode("utf-8")[: int(args.mb * 1e6)].decode("utf-8", "ignore")
        inputs = {"8KB docs": documents(data), "lines": [line for line in data.split("\n") if line.strip()]}
        for unit, mode in modes:
            texts = inputs[unit]
            size = sum(len(t.encode("utf-8")) for t in texts)
            _, expected = (
                best(lambda: loaded["hf-tokenizers"][1](texts, args.threads), 1)
                if "hf-tokenizers" in libs
                else (0, None)
            )
            for lib in libs:
                one, many = loaded[lib]
                run = (lambda: [one(t) for t in texts]) if mode == "single" else (lambda: many(texts, args.threads))
                seconds, ids = best(run, args.repeat)
                same = expected is None or ids == expected
                rows.append(
                    {
                        "corpus": name,
                        "unit": unit,
                        "mode": mode,
                        "lib": lib,
                        "mb_s": size / 1e6 / seconds,
                        "same_ids": same,
                    }
                )
                print(
                    f"{name:20} {unit:8} {mode:6} {lib:14} {size / 1e6 / seconds:8.2f} MB/s  ids {'=' if same else '≠'} HF",
                    file=sys.stderr,
                    flush=True,
                )
    print(
        "| corpus | input | mode | "
        + " | ".join(f"{lib} MB/s" for lib in libs)
        + " | "
        + " | ".join(f"tf ÷ {lib}" for lib in libs if lib != "tokenforge")
        + " |"
    )
    print("| --- | --- | --- |" + " ---: |" * (2 * len(libs) - 1))
    for name in names:
        for unit, mode in modes:
            got = {r["lib"]: r for r in rows if (r["corpus"], r["unit"], r["mode"]) == (name, unit, mode)}
            cells = [f"{got[lib]['mb_s']:.2f}" + ("" if got[lib]["same_ids"] else " (ids differ)") for lib in libs]
            ratios = [f"{got['tokenforge']['mb_s'] / got[lib]['mb_s']:.1f}×" for lib in libs if lib != "tokenforge"]
            print(f"| {name} | {unit} | {mode} | " + " | ".join(cells + ratios) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
