"""One-thread encode throughput of byte-level BPE tokenizer.json files (Llama 3, Qwen3 from
/work/shared/vocab/hf): the fused kernel (pipeline/fused_hf_bpe.py) against the staged pipeline
and HF tokenizers on the same file, and tokenforge's cl100k_base `Encoding` (encode_ordinary: ids only) and `Tokenizer`
over it (rows with offsets, as the others), in one run.

    python bench/fused_hf_bpe.py [--shared /work/shared] [--docs 200] [--repeat 3] [--names llama3,qwen3]

The corpus samples of tests/data (English docs, Python code, manuals in 8 languages) are cut
into 8 KB documents (backed off to a character boundary); each library encodes them one call
per document on one thread; MB/s = UTF-8 bytes / the best of --repeat runs (the first run, with
cold piece caches, is shown too). Every document's ids are checked against HF's first.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gc
import itertools
import os
import pathlib
import time

REPO = pathlib.Path(__file__).resolve().parent.parent


def documents(limit: int) -> list[str]:
    corpus = REPO / "tests" / "data" / "corpus"
    paths = [corpus / "en-linuxdoc.txt", corpus / "code-python-stdlib.txt", *sorted((corpus / "man").glob("*.txt"))]
    per_file = []
    for path in paths:
        data, docs, at = path.read_bytes(), [], 0
        while at < len(data):
            end = min(at + 8192, len(data))
            while end < len(data) and (data[end] & 0xC0) == 0x80:  # back off to a character start
                end -= 1
            docs.append(data[at:end].decode("utf-8"))
            at = end
        per_file.append(docs)
    # Round-robin over the files, so that a prefix still covers every language.
    docs = [d for group in itertools.zip_longest(*per_file) for d in group if d is not None]
    return docs[:limit] if limit else docs


def timed(encode, docs, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        t = time.perf_counter()
        for d in docs:
            encode(d)
        times.append(time.perf_counter() - t)
        gc.enable()
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.environ.get("TOKENFORGE_SHARED", "/work/shared"))
    ap.add_argument("--docs", type=int, default=0, help="documents (0: all)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--names", default="llama3,qwen3")
    args = ap.parse_args()

    import tokenizers

    from tokenforge import Tokenizer, get_encoding
    from tokenforge.formats import read_tokenizer_file
    from tokenforge.pipeline.fused_hf_bpe import build_fused_hf_bpe
    from tokenforge.tokenizer import _resolve_policy

    docs = documents(args.docs)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"{len(docs)} documents, {mb:.2f} MB, one thread, best of {args.repeat} (1st run)")
    enc = get_encoding("cl100k_base")
    for label, encode in (
        ("cl100k_base Encoding", enc.encode_ordinary),
        ("cl100k_base Tokenizer", functools.partial(Tokenizer(enc).encode, add_special_tokens=False)),
    ):
        t = timed(encode, docs, args.repeat)
        print(f"{label:28s} {mb / min(t):8.1f} MB/s ({mb / t[0]:.1f})")
    for name in args.names.split(","):
        path = pathlib.Path(args.shared) / "vocab" / "hf" / name / "tokenizer.json"
        spec = read_tokenizer_file(path)
        staged = Tokenizer.from_spec(dataclasses.replace(spec, kernel="staged"))
        fused = build_fused_hf_bpe(spec)
        k = staged._kernel
        fused.set_policy(k.default_added, functools.partial(_resolve_policy, k.policy))
        hf = tokenizers.Tokenizer.from_file(str(path))
        for d in docs:
            want = hf.encode(d, add_special_tokens=False).ids
            got = fused.encode(d, add_special_tokens=False).ids
            if got != want:
                raise SystemExit(f"{name}: fused ids differ from HF's on {d[:60]!r}")
        rates = {}
        for label, encode in (
            ("fused", functools.partial(fused.encode, add_special_tokens=False)),
            ("staged", functools.partial(staged.encode, add_special_tokens=False)),
            ("HF tokenizers", functools.partial(hf.encode, add_special_tokens=False)),
        ):
            t = timed(encode, docs, args.repeat)
            rates[label] = mb / min(t)
            print(f"{name + ' ' + label:28s} {mb / min(t):8.1f} MB/s ({mb / t[0]:.1f})")
        print(
            f"{name}: fused / HF = {rates['fused'] / rates['HF tokenizers']:.1f}x, "
            f"fused / staged = {rates['fused'] / rates['staged']:.1f}x"
        )


if __name__ == "__main__":
    main()
