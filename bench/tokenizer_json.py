"""Whole HF tokenizer.json files: tokenforge's `Tokenizer.from_file` against HF tokenizers,
fastokens and tokie loading the same file, per file and per corpus, in one run.

Each library encodes the corpus as 8 KB documents, without adding special tokens:
- cold: the first pass over the documents after loading (caches empty);
- warm: the best of three further passes, one document per call on one thread;
- batch: the library's own batch call over all documents (its own threads).
Ids are compared with HF tokenizers' for every document; a library whose ids differ is reported
as "differs" rather than timed as if it were exact.

    python bench/tokenizer_json.py [--folders DIR ...] [--corpus FILE ...] [--mb 2]

Defaults: the model folders in ../shared/vocab/hf and a sample of each corpus there (English
docs, Python code, ja, ru, zh_CN manuals), `--mb` megabytes of each.

Files no folder there holds are made by bench/make_*.py scripts and passed with --folders:
bench/make_unigram_file.py (T5-style Unigram), bench/make_deepseek_file.py (DeepSeek V3's,
DeepSeek LLM's and DeepSeek Coder's pre-tokenizer Sequences, on the fused byte_level_hf_bpe
kernel):

    python bench/make_deepseek_file.py /tmp/deepseek        # or /tmp/deepseek-llm llm, coder
    python bench/tokenizer_json.py --folders /tmp/deepseek
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

SHARED = Path(__file__).resolve().parents[2] / "shared"
DOC_BYTES = 8192


def documents(path: Path, megabytes: float) -> list[str]:
    data = path.read_bytes()[: int(megabytes * 1e6)].decode("utf-8", "ignore")
    return [data[i : i + DOC_BYTES] for i in range(0, len(data), DOC_BYTES)]


# (name, encode one text, encode a batch)
Encoders = tuple[str, Callable[[str], list[int]], Callable[[Sequence[str]], list[list[int]]]]


def libraries(path: str) -> list[Callable[[], Encoders]]:
    """Loaders of that library's tokenizer for the file (loaded when called, so that each
    library is loaded right before its own cold pass: see run)."""
    import tokenforge

    def encoders(name: str, tok: Any) -> Encoders:
        """A tokenizer with HF's encode / encode_batch surface (all four libraries have it)."""
        return (
            name,
            lambda t: tok.encode(t, add_special_tokens=False).ids,
            lambda ts: [e.ids for e in tok.encode_batch(list(ts), add_special_tokens=False)],
        )

    def ours() -> Encoders:
        tok = tokenforge.Tokenizer.from_file(path)
        return encoders(f"tokenforge ({tok.kernel})", tok)

    def hf() -> Encoders:
        import tokenizers

        return encoders("hf-tokenizers", tokenizers.Tokenizer.from_file(path))

    def fast() -> Encoders:
        import fastokens

        return encoders("fastokens", fastokens.Tokenizer.from_file(path))

    def tk() -> Encoders:
        import tokie

        return encoders("tokie", tokie.Tokenizer.from_json(path))

    return [ours, hf, fast, tk]


def run(folder: Path, corpora: list[Path], megabytes: float) -> list[str]:
    path = str(folder / "tokenizer.json")
    rows = []
    for corpus in corpora:
        docs = documents(corpus, megabytes)
        mb = sum(len(d.encode()) for d in docs) / 1e6
        # Fresh per corpus, so that the cold pass sees empty caches; each library is loaded right
        # before its own passes. Loaded together up front, the first one timed paid for the
        # others' loading: glibc's malloc sorts the chunks a load freed on the next calls that
        # allocate (0.2 s after HF's, fastokens' and tokie's Gemma 3 loads), whoever makes them.
        expected = None
        results = {}
        for load in libraries(path):
            encode = encode_batch = None  # the previous library goes before the next one loads
            gc.collect()
            try:
                name, encode, encode_batch = load()
            except Exception as e:  # not installed, or refuses the file
                print(f"  {load.__name__}: skipped ({type(e).__name__}: {str(e)[:80]})")
                continue
            start = time.perf_counter()
            ids = [encode(d) for d in docs]
            cold = time.perf_counter() - start
            if expected is None and name == "hf-tokenizers":
                expected = ids
            warm = min(_timed(lambda: [encode(d) for d in docs]) for _ in range(3))
            batch = min(_timed(lambda: encode_batch(docs)) for _ in range(2))
            results[name] = (ids, cold, warm, batch)
        for name, (ids, cold, warm, batch) in results.items():
            exact = ids == expected
            shown = (
                f"{mb / cold:7.1f} | {mb / warm:7.1f} | {mb / batch:7.1f}" if exact else "differs | differs | differs"
            )
            rows.append(f"| {folder.name} | {corpus.stem} | {name} | {shown} |")
    return rows


def _timed(f: Callable[[], object]) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def default_corpora() -> list[Path]:
    """The five corpora of ../shared these benchmarks read unless told (those present)."""
    corpus = SHARED / "corpus"
    names = ["en-linuxdoc.txt", "code-python-stdlib.txt", "man/ja.txt", "man/ru.txt", "man/zh_CN.txt"]
    return [p for p in (corpus / name for name in names) if p.exists()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folders", nargs="*", type=Path, help="model folders with a tokenizer.json")
    parser.add_argument("--corpus", nargs="*", type=Path, help="UTF-8 text files")
    parser.add_argument("--mb", type=float, default=2.0, help="megabytes of each corpus (default 2)")
    args = parser.parse_args()
    folders = args.folders or sorted(p for p in (SHARED / "vocab" / "hf").iterdir() if p.is_dir())
    corpora = args.corpus or default_corpora()
    print("| file | corpus | library | cold MB/s | warm MB/s | batch MB/s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for folder in folders:
        for row in run(folder, corpora, args.mb):
            print(row, flush=True)


if __name__ == "__main__":
    main()
