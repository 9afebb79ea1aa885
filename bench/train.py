#!/usr/bin/env python
"""BPE training: tokenforge against its peers, in one run, on the shared corpora.

    python bench/train.py                                  # all corpora, vocab 8192 and 32768
    python bench/train.py --corpora en --vocab 8192 --libs tokenforge,rustbpe

Each (library, corpus, vocab size) trains in a fresh Python process, so peak RSS is that
training's own. The text is read as 1 MB documents; the last 5% of each corpus is held out and
the trained tokenizer's bytes per token on it is reported (higher compresses better). Every
library splits with the cl100k pattern (HF: the same pattern, rewritten for its regex engine;
sentencepiece: its own whitespace splitting, BPE over code points with byte fallback).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))
CORPORA = {
    "en": ["en-linuxdoc.txt"],
    "en+code": ["en-linuxdoc.txt", "code-python-stdlib.txt"],
}
DOC = 1_000_000
HELD_OUT = 0.05


def read_corpus(names: list[str]) -> tuple[list[str], str]:
    train, held = [], []
    for name in names:
        text = (SHARED / "corpus" / name).read_text(encoding="utf-8")
        cut = int(len(text) * (1 - HELD_OUT))
        train += [text[i : i + DOC] for i in range(0, cut, DOC)]
        held.append(text[cut:])
    return train, "".join(held)


def train_tokenforge(docs, vocab):
    sys.path.insert(0, str(HERE.parent / "src"))
    from tokenforge.trainers import train_bpe

    enc = train_bpe(docs, vocab, "cl100k")
    return enc.encode_ordinary


def train_rustbpe(docs, vocab):
    import rustbpe

    sys.path.insert(0, str(HERE.parent / "src"))
    from tokenforge.pre_tokenizers.patterns import CL100K

    tok = rustbpe.Tokenizer()
    tok.train_from_iterator(iter(docs), vocab, pattern=CL100K)
    return tok.encode


def train_hf(docs, vocab):
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    sys.path.insert(0, str(HERE.parent / "src"))
    from tokenforge.formats.hf_tokenizer_json import hf_split_pattern
    from tokenforge.pre_tokenizers.patterns import CL100K

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(hf_split_pattern(CL100K)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(docs, trainer)
    return lambda text: tok.encode(text).ids


def train_sentencepiece(docs, vocab):
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    lines = (line for doc in docs for line in doc.split("\n") if line)
    spm.SentencePieceTrainer.train(
        sentence_iterator=lines,
        model_writer=model,
        model_type="bpe",
        vocab_size=vocab,
        byte_fallback=True,
        character_coverage=0.9995,
        max_sentence_length=1 << 16,
        input_sentence_size=0,
        minloglevel=2,
        num_threads=os.cpu_count() or 1,
    )
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    return sp.encode


TRAINERS = {
    "tokenforge": train_tokenforge,
    "rustbpe": train_rustbpe,
    "hf-tokenizers": train_hf,
    "sentencepiece": train_sentencepiece,
}


def child(lib: str, corpus: str, vocab: int) -> dict:
    docs, held = read_corpus(CORPORA[corpus])
    start = time.perf_counter()
    encode = TRAINERS[lib](docs, vocab)
    seconds = time.perf_counter() - start
    tokens = len(encode(held))
    return {
        "library": lib,
        "corpus": corpus,
        "vocab": vocab,
        "seconds": seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "train_mb": sum(len(d.encode()) for d in docs) / 1e6,
        "held_out_bytes_per_token": len(held.encode()) / max(tokens, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", default="en,en+code", help=f"comma list of {', '.join(CORPORA)}")
    ap.add_argument("--vocab", default="8192,32768", help="comma list of vocabulary sizes")
    ap.add_argument("--libs", default=",".join(TRAINERS), help=f"comma list of {', '.join(TRAINERS)}")
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("--child", nargs=3, metavar=("LIB", "CORPUS", "VOCAB"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        lib, corpus, vocab = args.child
        print(json.dumps(child(lib, corpus, int(vocab))))
        return
    results = []
    for corpus in args.corpora.split(","):
        for vocab in map(int, args.vocab.split(",")):
            for lib in args.libs.split(","):
                run = subprocess.run(
                    [sys.executable, __file__, "--child", lib, corpus, str(vocab)], capture_output=True, text=True
                )
                if run.returncode != 0:
                    last = (run.stderr.strip().splitlines() or ["failed"])[-1]
                    print(f"skipped {lib} {corpus} {vocab}: {last}", file=sys.stderr)
                    continue
                results.append(json.loads(run.stdout.strip().splitlines()[-1]))
                r = results[-1]
                print(f"  {corpus} {vocab} {lib}: {r['seconds']:.2f} s, {r['peak_rss_mb']:.0f} MB", file=sys.stderr)
    print("| corpus | vocab | library | MB | seconds | tf ÷ lib (speed) | peak RSS MB | held-out bytes/token |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        ours = next(
            (
                x
                for x in results
                if x["library"] == "tokenforge" and x["corpus"] == r["corpus"] and x["vocab"] == r["vocab"]
            ),
            None,
        )
        ratio = f"{r['seconds'] / ours['seconds']:.2f}×" if ours else "–"
        print(
            f"| {r['corpus']} | {r['vocab']} | {r['library']} | {r['train_mb']:.1f} | {r['seconds']:.2f} | {ratio} "
            f"| {r['peak_rss_mb']:.0f} | {r['held_out_bytes_per_token']:.3f} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
