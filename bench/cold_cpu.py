"""Cold against warm in CPU time: the first pass over new text on a freshly loaded tokenizer.json,
then a second pass over the same documents, timed by the process's own user and system seconds
(resource.getrusage) rather than the wall clock, so that a busy machine's other processes do not
count. With --hf, HF tokenizers' cold pass is timed the same way (one thread) and the ratio shown.

    python bench/cold_cpu.py [--folders DIR ...] [--corpus NAME ...] [--mb 0.25] [--hf] [--shared DIR]

Corpus names: en, code, or a manual's language in ../shared/corpus/man (ja, ru, zh_CN, ...).
The documents are bench/tokenizer_json.py's (8 KB each, no special tokens added). Minor page
faults are shown too: a cold pass that faults in fresh tables pays for it in system time.

Under `valgrind --tool=callgrind --cache-sim=yes` the pass is SpmHfBpePipeline::encode's (or the
file's kernel's) inclusive cost; the load is the constructor's, and is not part of the pass.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SHARED = Path(__file__).resolve().parents[2] / "shared"
DOC_BYTES = 8192
NAMED = {"en": "en-linuxdoc.txt", "code": "code-python-stdlib.txt"}


def documents(shared: Path, name: str, megabytes: float) -> list[str]:
    corpus = shared / "corpus"
    path = corpus / NAMED[name] if name in NAMED else corpus / "man" / f"{name}.txt"
    data = path.read_bytes()[: int(megabytes * 1e6)].decode("utf-8", "ignore")
    return [data[i : i + DOC_BYTES] for i in range(0, len(data), DOC_BYTES)]


def cpu_pass(encode: Callable[[str], list[int]], docs: list[str]) -> tuple[float, float, int, list[list[int]]]:
    """(user seconds, system seconds, minor faults, ids) of one pass."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    ids = [encode(d) for d in docs]
    after = resource.getrusage(resource.RUSAGE_SELF)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, after.ru_minflt - before.ru_minflt, ids


def passes(path: str, docs: list[str]) -> tuple[str, tuple, tuple]:
    """tokenforge's kernel for the file, then its cold and warm passes (cpu_pass's answers)."""
    import tokenforge

    tok = tokenforge.Tokenizer.from_file(path)
    gc.collect()

    def encode(text: str) -> list[int]:
        return tok.encode(text, add_special_tokens=False).ids

    return tok.kernel, cpu_pass(encode, docs), cpu_pass(encode, docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folders", nargs="*", type=Path, help="model folders with a tokenizer.json")
    parser.add_argument("--corpus", nargs="*", default=["en", "code", "ja", "ru", "zh_CN"], help="corpus names")
    parser.add_argument("--mb", type=float, default=0.25, help="megabytes of each corpus (default 0.25)")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder (default ../shared)")
    parser.add_argument("--hf", action="store_true", help="time HF tokenizers' cold pass too")
    args = parser.parse_args()
    folders = args.folders or sorted(p for p in (args.shared / "vocab" / "hf").iterdir() if p.is_dir())
    print(
        "| file | corpus | kernel | cold CPU MB/s | warm CPU MB/s | cold sys s | cold faults | HF cold CPU MB/s | ÷ HF |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for folder in folders:
        path = str(folder / "tokenizer.json")
        for name in args.corpus:
            docs = documents(args.shared, name, args.mb)
            mb = sum(len(d.encode()) for d in docs) / 1e6
            hf_cell, ratio = "", ""
            expected = None
            if args.hf:
                import tokenizers

                hf = tokenizers.Tokenizer.from_file(path)
                gc.collect()
                user, system, _, expected = cpu_pass(lambda t: hf.encode(t, add_special_tokens=False).ids, docs)
                hf_rate = mb / max(user + system, 1e-9)
                hf_cell = f"{hf_rate:.1f}"
                del hf
            gc.collect()
            kernel, (user, system, faults, ids), (warm_user, warm_system, _, again) = passes(path, docs)
            cold = mb / max(user + system, 1e-9)
            warm = mb / max(warm_user + warm_system, 1e-9)
            if ids != again or (expected is not None and ids != expected):
                raise SystemExit(f"{folder.name} {name}: ids differ")
            if args.hf:
                ratio = f"{cold / float(hf_cell):.1f}×"
            print(
                f"| {folder.name} | {name} | {kernel} | {cold:.1f} | {warm:.1f} | {system:.4f} | {faults} "
                f"| {hf_cell} | {ratio} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
