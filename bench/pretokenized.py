"""Pre-tokenized input: HF tokenizers' `encode_batch(words, is_pretokenized=True)` against
tokenforge's on the same tokenizer.json, in one run.

For each folder (default: the real ones of ../shared/vocab/hf) and corpus (a sample of each
file of ../shared/corpus), the sample's lines are split at whitespace into words; each library
encodes the whole batch of word lists, best of three, in CPU seconds (time.process_time), HF
with TOKENIZERS_PARALLELISM=false and tokenforge on one thread (so that both count one core's
work). The outputs (ids, offsets, word ids) are compared on every line. For reference, the same
lines as plain text through tokenforge's encode_batch (ids read). Reported per pass.

    python bench/pretokenized.py [--folders DIR ...] [--corpus FILE ...] [--mb 1.0]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

os.environ["TOKENIZERS_PARALLELISM"] = "false"

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def best_cpu(call: Any) -> tuple[float, Any]:
    out = call()
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        out = call()
        best = min(best, time.process_time() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folders", nargs="*", type=Path)
    parser.add_argument("--corpus", nargs="*", type=Path)
    parser.add_argument("--mb", type=float, default=1.0)
    args = parser.parse_args()
    import tokenizers

    from tokenforge import Tokenizer

    folders = args.folders or sorted(p for p in (SHARED / "vocab" / "hf").iterdir() if p.is_dir())
    corpora = args.corpus or sorted(p for p in (SHARED / "corpus").iterdir() if p.is_file())
    print("CPU seconds per pass, best of 3 (HF single-threaded, tokenforge num_threads=1)")
    print(f"{'folder':10} {'corpus':24} {'words':>8} {'HF':>8} {'tokenforge':>10} {'ratio':>7} {'tf text':>8}")
    for folder in folders:
        path = folder / "tokenizer.json"
        hf = tokenizers.Tokenizer.from_file(str(path))
        ours = Tokenizer.from_file(path)
        for corpus in corpora:
            data = corpus.read_bytes()[: int(args.mb * 1e6)].decode("utf-8", "ignore")
            lines = [line for line in data.splitlines() if line.strip()]
            words = [line.split() for line in lines]
            hf_cpu, want = best_cpu(lambda: hf.encode_batch(words, is_pretokenized=True))
            cpu, got = best_cpu(lambda: ours.encode_batch(words, num_threads=1, is_pretokenized=True))
            text_cpu, _ = best_cpu(lambda: [e.ids for e in ours.encode_batch(lines, num_threads=1)])
            same = all(
                g.ids == w.ids and g.word_ids == w.word_ids and [tuple(o) for o in g.offsets] == w.offsets
                for g, w in zip(got, want)
            )
            ratio = f"{hf_cpu / cpu:6.2f}x" if same else "differs"
            print(
                f"{folder.name:10} {corpus.name[:24]:24} {sum(map(len, words)):8} {hf_cpu:8.3f} {cpu:10.3f} "
                f"{ratio:>7} {text_cpu:8.3f}"
            )


if __name__ == "__main__":
    main()
