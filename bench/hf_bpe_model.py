#!/usr/bin/env python
"""HF BPE model alone (tokenizer.json "type": "BPE"): tokenforge's BpeModel against HF tokenizers'
BPE on the same pieces, one thread, in one run.

    TOKENIZERS_PARALLELISM=false python bench/hf_bpe_model.py            # 1 MB per corpus
    TOKENIZERS_PARALLELISM=false python bench/hf_bpe_model.py --mb 0.3 --corpus en-linuxdoc,man-ja

Two models and their pieces:

* ``llama2``: ../shared/vocab/hf/llama2/tokenizer.json's model (sentencepiece-style, byte
  fallback); each line, normalized as Llama 2's normalizer does ("▁" before, spaces as "▁"), is
  one piece (the model has no pre-tokenizer, so it sees lines whole);
* ``trained``: a 8000-token vocabulary HF's BpeTrainer makes from the corpora; pieces are
  WhitespaceSplit's words.

Both libraries get the pieces as one batch: tokenforge's ``tokenize_batch(pieces, 1)`` (lists of
(id, start, end)) and HF's ``encode_batch`` over a Tokenizer with only the model (each piece is
one input; TOKENIZERS_PARALLELISM=false keeps it on one thread; ids and offsets read back). The
ids are compared. MB/s is UTF-8 bytes of the pieces over the best of ``--repeat`` runs; the first
run (cold caches) is shown too.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time
from pathlib import Path

from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from tokenforge.models.bpe import BPE

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))


def corpora() -> dict[str, Path]:
    c = SHARED / "corpus"
    out = {"en-linuxdoc": c / "en-linuxdoc.txt", "code-python-stdlib": c / "code-python-stdlib.txt"}
    out.update({f"man-{p.stem}": p for p in sorted((c / "man").glob("*.txt"))})
    return out


def model_only(model_json: dict) -> Tokenizer:
    return Tokenizer.from_str(
        json.dumps(
            {
                "version": "1.0",
                "truncation": None,
                "padding": None,
                "added_tokens": [],
                "normalizer": None,
                "pre_tokenizer": None,
                "post_processor": None,
                "decoder": None,
                "model": model_json,
            }
        )
    )


def timed(fn, repeat: int) -> tuple[list[float], object]:
    times, out = [], None
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
        gc.enable()
    return times, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--corpus", default="")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    chosen = corpora()
    if args.corpus:
        chosen = {k: v for k, v in chosen.items() if any(w in k for w in args.corpus.split(","))}
    texts = {}
    for name, path in chosen.items():
        raw = path.read_bytes()[: int(args.mb * 1e6)] if args.mb else path.read_bytes()
        texts[name] = raw.decode("utf-8", errors="ignore")

    llama = json.loads((SHARED / "vocab" / "hf" / "llama2" / "tokenizer.json").read_text(encoding="utf-8"))["model"]
    trained_tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    trained_tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trained_tok.train_from_iterator(
        [t[:200_000] for t in texts.values()],
        trainers.BpeTrainer(vocab_size=8000, special_tokens=["[UNK]"], show_progress=False),
    )
    trained = json.loads(trained_tok.to_str())["model"]
    split = pre_tokenizers.WhitespaceSplit()

    print(
        f"{'model':8} {'corpus':20} {'pieces':>8} {'MB':>6}  {'lib':11} {'pieces/s':>11} {'MB/s':>7} {'1st MB/s':>8}  match"
    )
    for label, model_json in (("llama2", llama), ("trained", trained)):
        ours = BPE.from_json(model_json).native()
        hf = model_only(model_json)
        for name, text in texts.items():
            if label == "llama2":
                pieces = ["\u2581" + line.replace(" ", "\u2581") for line in text.split("\n") if line]
            else:
                pieces = [p for p, _ in split.pre_tokenize_str(text)]
            mb = sum(len(p.encode()) for p in pieces) / 1e6
            t_ours, out_ours = timed(lambda: ours.tokenize_batch(pieces, 1), args.repeat)

            def run_hf():
                return [(e.ids, e.offsets) for e in hf.encode_batch(pieces, add_special_tokens=False)]

            t_hf, out_hf = timed(run_hf, args.repeat)
            match = all(
                [t[0] for t in a] == b[0] and [(t[1], t[2]) for t in a] == b[1]
                for a, b in zip(out_ours, out_hf)  # type: ignore[call-overload]
            )
            for lib, t in (("tokenforge", t_ours), ("hf", t_hf)):
                print(
                    f"{label:8} {name:20} {len(pieces):8d} {mb:6.2f}  {lib:11} {len(pieces) / min(t):11,.0f} "
                    f"{mb / min(t):7.1f} {mb / t[0]:8.1f}  {'yes' if match else 'NO'}"
                )


if __name__ == "__main__":
    main()
