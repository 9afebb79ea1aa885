#!/usr/bin/env python
"""GGUF tokenizers against the same family's tokenizer.json, in one run: load time and encode
throughput (one thread, 8 KB documents of the shared corpora).

    python bench/gguf.py                 # 1 MB per corpus, best of 3, loads: median of 5
    python bench/gguf.py --mb 4 --repeat 5 --loads 9
    python bench/gguf.py --loads-only    # the load table alone

Pairs (../shared): llama.cpp's ggml-vocab-llama-spm.gguf (Llama 2's vocabulary) against Llama 2's
tokenizer.json; ggml-vocab-qwen2.gguf against Qwen3's tokenizer.json (the same split, a vocabulary
of the same size). "gguf ÷ json" is the GGUF tokenizer's speed over the tokenizer.json one's
(1.00: the same); "json (same vocab)" is the GGUF tokenizer saved as a tokenizer.json and loaded
again (the same vocabulary and pipeline read the other way). Encodes are interleaved, best of
--repeat each. Loads (`Tokenizer.from_file`) are the median of --loads, every file's loads
interleaved in one round after another, the tokenizer.json folders of ../shared/vocab/hf (Llama 3,
Qwen3, Gemma 3, Llama 2) among them, so that the machine's load hits all alike.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
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
# tokenizer.json folders whose load time is measured in the same rounds as the GGUF files'.
JSON_LOADS = [
    ("Llama 3 (128k)", "vocab/hf/llama3/tokenizer.json"),
    ("Qwen3 (151k)", "vocab/hf/qwen3/tokenizer.json"),
    ("Gemma 3 (262k)", "vocab/hf/gemma3/tokenizer.json"),
    ("Llama 2 (32k)", "vocab/hf/llama2/tokenizer.json"),
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


def load_times(paths: dict[str, Path], rounds: int) -> dict[str, float]:
    """The median `Tokenizer.from_file` time of each file, the files interleaved round by round."""
    times: dict[str, list[float]] = {key: [] for key in paths}
    for _ in range(rounds):
        for key, path in paths.items():
            gc.collect()
            start = time.perf_counter()
            tokenforge.Tokenizer.from_file(path)
            times[key].append(time.perf_counter() - start)
    return {key: statistics.median(t) for key, t in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--loads", type=int, default=5, help="loads per file (the median is shown)")
    ap.add_argument("--loads-only", action="store_true", help="the load table alone, no encoding")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    # Every file whose load is timed: the GGUF files, each saved as a tokenizer.json (the same
    # vocabulary read the other way), the family files and the tokenizer.json folders.
    files: dict[str, dict[str, Path]] = {}
    for name, gguf_path, json_path in PAIRS:
        if not (SHARED / gguf_path).exists():
            continue
        same = tmp / f"{name}.json"
        exported = tokenforge.Tokenizer.from_file(SHARED / gguf_path)
        exported.split_special_tokens = False  # tokenizer.json has no field for it
        exported.save(same)
        files[name] = {"gguf": SHARED / gguf_path, "json (same vocab)": same}
        if json_path is not None and (SHARED / json_path).exists():
            files[name]["json (family)"] = SHARED / json_path
    everything = {(name, kind): path for name, kinds in files.items() for kind, path in kinds.items()}
    everything.update({(name, "tokenizer.json"): SHARED / p for name, p in JSON_LOADS if (SHARED / p).exists()})
    loads = load_times(everything, args.loads)  # type: ignore[arg-type]
    print(f"Load: median of {args.loads} `Tokenizer.from_file`, every file in each round")
    print("| model | file | kernel | load s |")
    print("|---|---|---|---|")
    for (name, kind), path in everything.items():
        kernel = tokenforge.Tokenizer.from_file(path).kernel
        print(f"| {name} | {kind}: {path.name} | {kernel} | {loads[(name, kind)]:.3f} |")
    if args.loads_only:
        return
    docs = documents(args.mb)
    size = sum(len(d.encode("utf-8")) for d in docs) / 1_000_000
    print()
    print(f"{len(docs)} documents, {size:.1f} MB, best of {args.repeat}")
    print("| model | file | kernel | load s | MB/s | gguf ÷ json |")
    print("|---|---|---|---|---|---|")
    for name, by_kind in files.items():
        toks = {kind: tokenforge.Tokenizer.from_file(path) for kind, path in by_kind.items()}
        times: dict[str, list[float]] = {kind: [] for kind in by_kind}
        for _ in range(args.repeat):  # interleaved, so that the machine's load hits all alike
            for kind, tok in toks.items():
                times[kind].append(best(lambda tok=tok: [tok.encode(d, add_special_tokens=False) for d in docs], 1))
        speed = {kind: size / min(t) for kind, t in times.items()}
        for kind, path in by_kind.items():
            ratio = "" if kind == "gguf" else f"{speed['gguf'] / speed[kind]:.2f}"
            load = loads[(name, kind)]
            print(f"| {name} | {kind}: {path.name} | {toks[kind].kernel} | {load:.3f} | {speed[kind]:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
