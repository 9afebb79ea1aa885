#!/usr/bin/env python
"""sentencepiece model encode throughput: tokenforge against the sentencepiece library, one thread.

    python bench/spm_encode.py                          # Mistral's model, 1 MB per corpus, best of 5
    python bench/spm_encode.py --corpus en-linuxdoc,ja --repeat 3 --model other.model
    python bench/spm_encode.py --model unigram.model --extra-corpora /tmp/tokenforge-local-corpus

Each corpus is cut into 8 KB documents (as bench/encode.py does) and encoded by a Python loop
on one thread, three ways: tokenforge's model encoder (``SentencePieceModelEncoder.encode``),
tokenforge's Tokenizer (``Tokenizer.from_file(path).encode(text, add_special_tokens=False).ids``)
and sentencepiece (``SentencePieceProcessor.encode``). Ids are compared with sentencepiece's,
document by document. Time is process CPU time (steadier than wall time on a shared machine).
tokenforge's objects are built afresh for every corpus, so its first pass ("cold") starts with
empty caches; "warm" is the best of ``--repeat`` passes. First, the model's load time: the
median of ``--loads`` wall-clock loads each of ``Tokenizer.from_file`` and
``SentencePieceProcessor(model_file=...)``, interleaved (``--loads-only``: that line alone).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from encode import corpus_paths, load_docs, select_corpora  # noqa: E402

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))


def timed(encode, docs):
    gc.collect()
    gc.disable()
    try:
        t0 = time.process_time()
        out = [encode(d) for d in docs]
        return time.process_time() - t0, out
    finally:
        gc.enable()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(SHARED / "vocab" / "mistral-7b-v0.1.model"))
    ap.add_argument("--corpus", default=None, help="comma list, globs allowed (default: all)")
    ap.add_argument("--mb", type=float, default=1.0, help="MB from the start of each corpus")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--extra-corpora",
        type=Path,
        help="a folder whose *.txt files are corpora too, named local-<stem> (bench/make_local_corpus.py)",
    )
    ap.add_argument("--loads", type=int, default=5, help="loads of the model by each library (the median is shown)")
    ap.add_argument("--loads-only", action="store_true", help="the load line alone, no encoding")
    args = ap.parse_args(argv)

    import sentencepiece as spm

    import tokenforge
    from tokenforge.models.sentencepiece import SentencePieceModelEncoder

    loads: dict[str, list[float]] = {"tokenforge": [], "sentencepiece": []}
    for _ in range(max(args.loads, 1)):
        for label, load in (
            ("tokenforge", lambda: tokenforge.Tokenizer.from_file(args.model)),
            ("sentencepiece", lambda: spm.SentencePieceProcessor(model_file=args.model)),
        ):
            t0 = time.perf_counter()
            load()
            loads[label].append(time.perf_counter() - t0)
    ours, theirs = (statistics.median(loads[k]) for k in ("tokenforge", "sentencepiece"))
    print(
        f"Load {Path(args.model).name}, median of {max(args.loads, 1)}: Tokenizer.from_file {ours:.3f} s, "
        f"sentencepiece {theirs:.3f} s\n"
    )
    if args.loads_only:
        return 0
    sp = spm.SentencePieceProcessor(model_file=args.model)
    paths = corpus_paths(SHARED)
    if args.extra_corpora:
        paths.update({f"local-{p.stem}": p for p in sorted(args.extra_corpora.glob("*.txt"))})
    print(
        "| corpus | encoder cold MB/s | encoder warm MB/s | Tokenizer cold MB/s | Tokenizer warm MB/s "
        "| sentencepiece MB/s | encoder ÷ spm (cold, warm) | Tokenizer ÷ spm (cold, warm) | ids |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    ratios = []  # Tokenizer ÷ sentencepiece per corpus: (cold, warm)
    for name in select_corpora(list(paths), args.corpus):
        docs = load_docs(paths[name], int(args.mb * 1e6))
        size = sum(len(d.encode()) for d in docs) / 1e6
        spm_best, expected = min(timed(sp.encode, docs) for _ in range(args.repeat))
        speeds, same = {}, True
        for label, make in (
            ("encoder", lambda: SentencePieceModelEncoder.from_file(args.model).encode),
            ("tokenizer", lambda: _tokenizer_encode(tokenforge.Tokenizer.from_file(args.model))),
        ):
            encode = make()
            runs = [timed(encode, docs) for _ in range(args.repeat)]
            same &= all(out == expected for _, out in runs)
            speeds[label] = (size / runs[0][0], size / min(t for t, _ in runs))
        s = size / spm_best
        (ec, ew), (tc, tw) = speeds["encoder"], speeds["tokenizer"]
        ratios.append((tc / s, tw / s))
        print(
            f"| {name} | {ec:.1f} | {ew:.1f} | {tc:.1f} | {tw:.1f} | {s:.2f} | {ec / s:.1f}×, {ew / s:.1f}× "
            f"| {tc / s:.1f}×, {tw / s:.1f}× | {'same' if same else 'DIFFER'} |",
            flush=True,
        )
    if ratios:
        cold, warm = zip(*ratios)
        print(
            f"\nTokenizer ÷ sentencepiece over {len(ratios)} corpora: cold min {min(cold):.1f}× "
            f"(mean {sum(cold) / len(cold):.1f}×), warm min {min(warm):.1f}× (mean {sum(warm) / len(warm):.1f}×)"
        )
    return 0


def _tokenizer_encode(tok):
    return lambda text: tok.encode(text, add_special_tokens=False).ids


if __name__ == "__main__":
    sys.exit(main())
