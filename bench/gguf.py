#!/usr/bin/env python
"""GGUF tokenizers against the same family's tokenizer.json, in one run: load time and encode
throughput (one thread, 8 KB documents of the shared corpora).

    python bench/gguf.py                 # 1 MB per corpus, best of 3
    python bench/gguf.py --mb 4 --repeat 5

Pairs (../shared): llama.cpp's ggml-vocab-llama-spm.gguf (Llama 2's vocabulary) against Llama 2's
tokenizer.json; ggml-vocab-qwen2.gguf against Qwen3's tokenizer.json (the same split, a vocabulary
of the same size). "gguf ÷ json" is the GGUF tokenizer's speed over the tokenizer.json one's
(1.00: the same); "json (same vocab)" is the GGUF tokenizer saved as a tokenizer.json and loaded
again (the same vocabulary and pipeline read the other way). Encodes are interleaved, best of
--repeat each.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from pathlib import Path

import tokenforge

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))
PAIRS = [
    ("llama-spm", "vocab/gguf/ggml-vocab-llama-spm.gguf", "vocab/hf/llama2/tokenizer.json"),
    ("qwen2", "vocab/gguf/ggml-vocab-qwen2.gguf", "vocab/hf/qwen3/tokenizer.json"),
    ("gpt-2", "vocab/gguf/ggml-vocab-gpt-2.gguf", None),
]


def documents(mb: float) -> list[str]:
    docs = []
    corpus = SHARED / "corpus"
    for path in [corpus / "en-linuxdoc.txt", corpus / "code-python-stdlib.txt", *sorted((corpus / "man").glob("*"))]:
        data = path.read_bytes()[: int(mb * 1_000_000)]
        for i in range(0, len(data), 8192):
            docs.append(data[i : i + 8192].decode("utf-8", "ignore"))
    return docs


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        gc.enable()
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    docs = documents(args.mb)
    size = sum(len(d.encode("utf-8")) for d in docs) / 1_000_000
    print(f"{len(docs)} documents, {size:.1f} MB, best of {args.repeat}")
    print("| model | file | kernel | load s | MB/s | gguf ÷ json |")
    print("|---|---|---|---|---|---|")
    tmp = Path(tempfile.mkdtemp())
    for name, gguf_path, json_path in PAIRS:
        if not (SHARED / gguf_path).exists():
            continue
        # The GGUF tokenizer saved as a tokenizer.json: the same vocabulary, loaded the other way.
        same = tmp / f"{name}.json"
        exported = tokenforge.Tokenizer.from_file(SHARED / gguf_path)
        exported.split_special_tokens = False  # tokenizer.json has no field for it
        exported.save(same)
        files = {"gguf": SHARED / gguf_path, "json (same vocab)": same}
        if json_path is not None and (SHARED / json_path).exists():
            files["json (family)"] = SHARED / json_path
        toks = {kind: tokenforge.Tokenizer.from_file(path) for kind, path in files.items()}
        loads = {
            kind: best(lambda path=path: tokenforge.Tokenizer.from_file(path), args.repeat)
            for kind, path in files.items()
        }
        times: dict[str, list[float]] = {kind: [] for kind in files}
        for _ in range(args.repeat):  # interleaved, so that the machine's load hits all alike
            for kind, tok in toks.items():
                times[kind].append(best(lambda tok=tok: [tok.encode(d, add_special_tokens=False) for d in docs], 1))
        speed = {kind: size / min(t) for kind, t in times.items()}
        for kind, path in files.items():
            ratio = "" if kind == "gguf" else f"{speed['gguf'] / speed[kind]:.2f}"
            print(
                f"| {name} | {kind}: {path.name} | {toks[kind].kernel} | {loads[kind]:.2f} | {speed[kind]:.1f} | {ratio} |"
            )


if __name__ == "__main__":
    main()
