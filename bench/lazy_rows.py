"""Ids first against every row at once on the fused byte-level and sentencepiece-style BPE of
tokenizer.json files (the kernels that give ids first), in CPU
seconds (time.process_time, the best of `--repeat` passes: the machine is shared, wall time is
noisy; MB/s of CPU time), per file and per corpus, over 8 KB documents without special tokens:
- ids first: `Tokenizer.encode(d).ids` (rows not built);
- eager rows: the same pipeline's `_encode_eager(d).ids` (every row built, as before ids came first);
- rows read: `encode(d)` then `.ids` and `.offsets` (ids first, then the rows built on that read),
  against `_encode_eager(d)` then the same reads (the price of reading rows that came lazily);
- cl100k Encoding: `get_encoding("cl100k_base").encode_ordinary(d)` (tiktoken's path, another
  vocabulary of the same kind: the speed a byte-level BPE file is meant to match).

    python bench/lazy_rows.py [--folders DIR ...] [--corpus FILE ...] [--mb 0.25]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import tokenforge
from tokenizer_json import SHARED, default_corpora, documents


def best(f: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folders", nargs="*", type=Path)
    parser.add_argument("--corpus", nargs="*", type=Path)
    parser.add_argument("--mb", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folders = args.folders or sorted(p for p in (SHARED / "vocab" / "hf").iterdir() if p.is_dir())
    corpora = args.corpus or default_corpora()
    cl100k = tokenforge.get_encoding("cl100k_base")
    print("| file | corpus | ids first | eager rows | rows read, lazy | rows read, eager | cl100k Encoding |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for folder in folders:
        tok = tokenforge.Tokenizer.from_file(str(folder / "tokenizer.json"))
        if tok.kernel not in ("byte_level_hf_bpe", "spm_hf_bpe"):
            continue
        native = tok._native
        for path in corpora:
            docs = documents(path, args.mb)
            mb = sum(len(d.encode()) for d in docs) / 1e6
            for d in docs:  # warm the caches, and check the two paths agree
                assert tok.encode(d, add_special_tokens=False).ids == native._encode_eager(d, None, False).ids
                cl100k.encode_ordinary(d)
            first = best(lambda: [tok.encode(d, add_special_tokens=False).ids for d in docs], args.repeat)
            eager = best(lambda: [native._encode_eager(d, None, False).ids for d in docs], args.repeat)

            def read(d: str) -> None:
                e = tok.encode(d, add_special_tokens=False)
                e.ids, e.offsets  # noqa: B018 (the reads are the point)

            rows = best(lambda: [read(d) for d in docs], args.repeat)

            def read_eager(d: str) -> None:
                e = native._encode_eager(d, None, False)
                e.ids, e.offsets  # noqa: B018

            eager_rows = best(lambda: [read_eager(d) for d in docs], args.repeat)
            tiktoken_path = best(lambda: [cl100k.encode_ordinary(d) for d in docs], args.repeat)
            print(
                f"| {folder.name} | {path.stem} | {mb / first:6.1f} | {mb / eager:6.1f} | {mb / rows:6.1f} "
                f"| {mb / eager_rows:6.1f} "
                f"| {mb / tiktoken_path:6.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
