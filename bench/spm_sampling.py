#!/usr/bin/env python
"""Subword regularization throughput: tokenforge against the sentencepiece library, one thread.

    python bench/spm_sampling.py                 # 1 MB of en-linuxdoc, line by line, best of 3

Calls, each over every non-empty line of the first --mb MB of en-linuxdoc: Unigram n-best (10),
Unigram sampling over the whole lattice (nbest_size -1) and among the 5 best, on an 8000-piece
Unigram model that sentencepiece trains here on the corpus's first 2 MB (default options); and
BPE-dropout (alpha 0.1) on Mistral's model. n-best lists are compared with sentencepiece's; draws
are random, so only their speed is compared (the tests check their distributions). Time is
process CPU time, best of --repeat passes.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))


def best_time(call, lines, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for line in lines:
            call(line)
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0, help="MB from the start of en-linuxdoc")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    import sentencepiece as spm

    from tokenforge.models.sentencepiece import SentencePieceModelEncoder

    corpus = (SHARED / "corpus" / "en-linuxdoc.txt").read_text(encoding="utf-8")
    lines = [ln for ln in corpus[: int(args.mb * 1e6)].splitlines() if ln.strip()]
    size = sum(len(ln.encode()) for ln in lines) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "train.txt").write_text(corpus[:2_000_000], encoding="utf-8")
        spm.SentencePieceTrainer.train(
            input=f"{tmp}/train.txt", model_prefix=f"{tmp}/u", vocab_size=8000, minloglevel=2
        )
        unigram = f"{tmp}/u.model"
        mistral = str(SHARED / "vocab" / "mistral-7b-v0.1.model")
        rows = []
        for label, model, ours_call, theirs_call in [
            (
                "`encode_nbest(text, 10)`",
                unigram,
                lambda e: lambda t: e.encode_nbest(t, 10),
                lambda s: lambda t: s.nbest_encode_as_ids(t, 10),
            ),
            (
                "`sample_encode(text, 0.1, -1)`",
                unigram,
                lambda e: lambda t: e.sample_encode(t, 0.1, -1),
                lambda s: lambda t: s.sample_encode_as_ids(t, -1, 0.1),
            ),
            (
                "`sample_encode(text, 0.1, 5)`",
                unigram,
                lambda e: lambda t: e.sample_encode(t, 0.1, 5),
                lambda s: lambda t: s.sample_encode_as_ids(t, 5, 0.1),
            ),
            (
                "`sample_encode(text, 0.1)`",
                mistral,
                lambda e: lambda t: e.sample_encode(t, 0.1),
                lambda s: lambda t: s.sample_encode_as_ids(t, -1, 0.1),
            ),
        ]:
            ours, theirs = SentencePieceModelEncoder.from_file(model), spm.SentencePieceProcessor(model_file=model)
            if "nbest" in label:
                assert all(ours.encode_nbest(t, 10) == theirs.nbest_encode_as_ids(t, 10) for t in lines[:2000])
            name = "Unigram, 8000 pieces" if model == unigram else "Mistral (BPE-dropout)"
            tf = size / best_time(ours_call(ours), lines, args.repeat)
            sp = size / best_time(theirs_call(theirs), lines, args.repeat)
            rows.append(f"| {label} | {name} | {tf:.1f} MB/s | {sp:.1f} MB/s | {tf / sp:.2f}× |")
    print(f"{len(lines)} lines, {size:.2f} MB, one thread, best of {args.repeat}\n")
    print("| call | model | tokenforge | sentencepiece | ratio |\n| --- | --- | ---: | ---: | ---: |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
