"""transformers' tokenizer call against tokenforge's (transformers_api.py) on the same model
folder, in one run: batches of lines padded and truncated as a training loop asks for them.

For each folder (default: the real ones of ../shared/vocab/hf) and corpus (a sample of each of
../shared/corpus), the corpus is cut into lines of text, grouped into batches of `--batch`;
each library runs `tok(batch, padding="longest", truncation=True, max_length=--max-length,
return_offsets_mapping=True)` over every batch, best of three passes, and the outputs are compared
(a library whose values differ is reported as "differs"). Reported: wall seconds and CPU
seconds (time.process_time: every thread of the process, the fair figure on a busy machine)
per pass, and the ratio transformers / tokenforge.

A folder transformers runs with a Python class (ByT5, Siglip, M2M100, ...: no offsets there)
is called without return_offsets_mapping, for both libraries.

With --words, each line is split at whitespace into words and the call is
`tok(batch, is_split_into_words=True, ...)` (pre-tokenized input: every word encoded on its own).
With --plain, the call is `tok(batch)` alone (no padding, truncation or offsets: input_ids and
attention_mask as they come, tokenforge's ids-first path); --batch 1 calls it on one line at a
time.

    python bench/transformers_call.py [--folders DIR ...] [--corpus FILE ...] [--mb 0.5] [--words] [--plain]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

SHARED = Path(os.environ.get("TOKENFORGE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def batches(path: Path, megabytes: float, size: int, words: bool = False) -> list[list[Any]]:
    data = path.read_bytes()[: int(megabytes * 1e6)].decode("utf-8", "ignore")
    lines: list[Any] = [line for line in data.splitlines() if line.strip()]
    if words:
        lines = [line.split() for line in lines]
    return [lines[i : i + size] for i in range(0, len(lines), size)]


def best_of_three(call: Any, work: list[list[Any]], kwargs: dict[str, Any]) -> tuple[float, float, list[Any]]:
    best_wall = best_cpu = float("inf")
    out: list[Any] = []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        out = [call(b, **kwargs) for b in work]
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folders", nargs="*", type=Path)
    parser.add_argument("--corpus", nargs="*", type=Path)
    parser.add_argument("--mb", type=float, default=0.5)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--words", action="store_true", help="pre-tokenized input (is_split_into_words=True)")
    parser.add_argument("--plain", action="store_true", help="tok(batch) alone: no padding, truncation, offsets")
    args = parser.parse_args()
    import transformers

    from tokenforge import Tokenizer

    folders = args.folders or sorted(p for p in (SHARED / "vocab" / "hf").iterdir() if p.is_dir())
    corpora = args.corpus or sorted(p for p in (SHARED / "corpus").iterdir() if p.is_file())
    kwargs = {
        "padding": "longest",
        "truncation": True,
        "max_length": args.max_length,
        "return_offsets_mapping": True,
    }
    if args.plain:
        kwargs = {}
    if args.words:
        kwargs["is_split_into_words"] = True
    print(f"batches of {args.batch} lines, {kwargs}; best of 3 passes; seconds per pass")
    print(f"{'folder':10} {'corpus':24} {'transformers wall/cpu':>22} {'tokenforge wall/cpu':>20} {'cpu ratio':>9}")
    for folder in folders:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = transformers.AutoTokenizer.from_pretrained(str(folder))
        ours = Tokenizer.from_pretrained(folder)
        if ref.pad_token is None:
            ref.pad_token = ref.eos_token
            ours.pad_token = ours.eos_token
        # (a Python class has no offsets: NotImplementedError in transformers)
        call = kwargs if ref.is_fast else {k: v for k, v in kwargs.items() if k != "return_offsets_mapping"}
        for corpus in corpora:
            work = batches(corpus, args.mb, args.batch, args.words)
            ref_wall, ref_cpu, want = best_of_three(ref, work, call)
            wall, cpu, got = best_of_three(ours, work, call)
            same = all(dict(g) == dict(w) for g, w in zip(got, want))
            ratio = f"{ref_cpu / cpu:8.2f}x" if same else "  differs"
            print(
                f"{folder.name:10} {corpus.name[:24]:24} {ref_wall:10.3f}/{ref_cpu:<10.3f} "
                f"{wall:9.3f}/{cpu:<9.3f} {ratio}"
            )


if __name__ == "__main__":
    main()
