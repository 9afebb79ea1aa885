"""Folders that transformers runs with a Python class (ByT5, Siglip, M2M100, Marian, Wav2Vec2-CTC,
ESM: no tokenizers backend) against tokenforge's pipeline for the same folder, in one run.

For each folder and corpus, the first `--mb` MB of the corpus is cut into documents of `--doc`
bytes (at character boundaries). Each library encodes every document (`tok(doc)["input_ids"]`
for transformers, `encode(doc).ids` for tokenforge): once on a tokenizer just loaded (cold),
then best of three passes (warm); then decodes every document's ids (special tokens kept, as
transformers' default), best of three. The ids and
the decoded texts are compared (a library whose output differs is reported as "differs").
Reported: MB/s of input text for each, and tokenforge ÷ transformers.

    python bench/python_classes.py --folders DIR [DIR ...] [--corpus FILE ...] [--mb 0.3] [--doc 8000]

A ByT5 folder needs no files but its config:
    mkdir byt5 && echo '{"tokenizer_class": "ByT5Tokenizer"}' > byt5/tokenizer_config.json
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path
from typing import Any

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def documents(path: Path, megabytes: float, size: int) -> list[str]:
    text = path.read_bytes()[: int(megabytes * 1e6)].decode("utf-8", "ignore")
    docs, start = [], 0
    while start < len(text):
        end = start + size
        while end < len(text) and len(text[start:end].encode("utf-8")) > size:
            end -= max(1, (end - start) // 8)
        docs.append(text[start:end])
        start = end
    return docs


def timed(run: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = run()
    return time.perf_counter() - start, out


def best_of_three(run: Any) -> tuple[float, Any]:
    results = [timed(run) for _ in range(3)]
    return min(t for t, _ in results), results[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folders", nargs="+", type=Path, required=True)
    parser.add_argument("--corpus", nargs="*", type=Path)
    parser.add_argument("--mb", type=float, default=0.3)
    parser.add_argument("--doc", type=int, default=8000, help="document size in bytes")
    args = parser.parse_args()
    import transformers

    from tokenforge import Tokenizer

    corpora = args.corpus or [
        *sorted(p for p in (SHARED / "corpus").iterdir() if p.is_file()),
        *(SHARED / "corpus" / "man" / f"{lang}.txt" for lang in ("ja", "ru", "zh_CN")),
    ]
    print(f"documents of {args.doc} bytes, {args.mb} MB per corpus; MB/s (cold, warm best of 3, decode best of 3)")
    print(
        f"{'folder':12} {'corpus':20} {'transformers c/w/dec':>22} {'tokenforge c/w/dec':>22} {'÷ cold/warm/dec':>18}"
    )
    for folder in args.folders:
        for corpus in corpora:
            docs = documents(corpus, args.mb, args.doc)
            mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (ByT5 and Siglip warn of a text that ends with their eos)
                ref = transformers.AutoTokenizer.from_pretrained(str(folder))
                ref_cold, want = timed(lambda: [ref(d)["input_ids"] for d in docs])
                ref_warm, _ = best_of_three(lambda: [ref(d)["input_ids"] for d in docs])
                ref_dec, want_text = best_of_three(lambda: [ref.decode(ids, skip_special_tokens=False) for ids in want])
                ours = Tokenizer.from_pretrained(folder)
            cold, got = timed(lambda: [ours.encode(d).ids for d in docs])
            warm, _ = best_of_three(lambda: [ours.encode(d).ids for d in docs])
            dec, got_text = best_of_three(lambda: [ours.decode(ids, skip_special_tokens=False) for ids in got])
            speeds = [mb / t for t in (ref_cold, ref_warm, ref_dec, cold, warm, dec)]
            ratio = "/".join(f"{speeds[i + 3] / speeds[i]:.1f}" for i in range(3))
            if got != want or got_text != want_text:
                ratio = "ids differ" if got != want else "decode differs"
            print(
                f"{folder.name[:12]:12} {corpus.stem[:20]:20} {'/'.join(f'{s:.2f}' for s in speeds[:3]):>22} "
                f"{'/'.join(f'{s:.1f}' for s in speeds[3:]):>22} {ratio:>18}"
            )


if __name__ == "__main__":
    main()
