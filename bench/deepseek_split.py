"""DeepSeek's pre-tokenizer Sequences on the fused byte_level_hf_bpe kernel, before and after
their built-in stages, against HF tokenizers and fastokens, in one run.

For each file made by bench/make_deepseek_file.py (v3, llm, coder) and each corpus, the
libraries encode the corpus as 8 KB documents, one document per call on one thread, without
special tokens, interleaved, best of `--rounds` warm passes (after one cold pass each):
- tokenforge: the file as Tokenizer.from_file runs it (the built-in stages);
- tokenforge before: what ran before them: DeepSeek V3's main pattern through Oniguruma inside
  the fused pass; DeepSeek LLM and Coder files on the staged pipeline;
- hf-tokenizers, fastokens (if installed and it takes the file).
Ids are compared with HF's for every document; a library that differs is reported as such.

    python bench/make_deepseek_file.py /tmp/ds-v3 v3   # and /tmp/ds-llm llm, /tmp/ds-coder coder
    python bench/deepseek_split.py --folders /tmp/ds-v3 /tmp/ds-llm /tmp/ds-coder [--mb 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import time
from collections.abc import Callable
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
DOC_BYTES = 8192


def documents(path: Path, megabytes: float) -> list[str]:
    data = path.read_bytes()[: int(megabytes * 1e6)].decode("utf-8", "ignore")
    return [data[i : i + DOC_BYTES] for i in range(0, len(data), DOC_BYTES)]


def libraries(path: Path) -> dict[str, Callable[[str], list[int]]]:
    import tokenizers

    import tokenforge
    from tokenforge.formats import read_tokenizer_file
    from tokenforge.pipeline.fused_hf_bpe import DEEPSEEK_V3, SEQUENCES, fused_description
    from tokenforge.tokenizer import _resolve_policy

    libs: dict[str, Callable[[str], list[int]]] = {}
    ours = tokenforge.Tokenizer.from_file(path)
    libs[f"tokenforge ({ours.kernel})"] = lambda t: ours.encode(t, add_special_tokens=False).ids
    spec = read_tokenizer_file(path)
    d = fused_description(spec)
    if d is not None and d["pre_splits"] == list(SEQUENCES["DeepSeek V3"]):
        old = tokenforge._core.ByteLevelHfBpe(**{**d, "pre_splits": [1, 2], "split": -1, "pattern": DEEPSEEK_V3})
        old.set_template([(True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])], default_process=True)
        k = ours._kernel
        old.set_policy(k.default_added, functools.partial(_resolve_policy, k.policy))
        libs["tokenforge before (Oniguruma main)"] = lambda t: old.encode(t, None).ids
    else:
        staged = tokenforge.Tokenizer.from_spec(dataclasses.replace(spec, kernel="staged"))
        libs["tokenforge before (staged)"] = lambda t: staged.encode(t, add_special_tokens=False).ids
    hf = tokenizers.Tokenizer.from_file(str(path))
    libs["hf-tokenizers"] = lambda t: hf.encode(t, add_special_tokens=False).ids
    try:
        import fastokens

        fast = fastokens.Tokenizer.from_file(str(path))
        libs["fastokens"] = lambda t: fast.encode(t, add_special_tokens=False).ids
    except Exception as e:  # not installed, or refuses the file
        print(f"  fastokens: skipped ({type(e).__name__}: {str(e)[:80]})")
    return libs


def run(folder: Path, corpora: list[Path], megabytes: float, rounds: int) -> list[str]:
    rows = []
    for corpus in corpora:
        docs = documents(corpus, megabytes)
        mb = sum(len(d.encode()) for d in docs) / 1e6
        libs = libraries(folder / "tokenizer.json")
        ids = {name: [encode(d) for d in docs] for name, encode in libs.items()}  # the cold pass
        best = dict.fromkeys(libs, float("inf"))
        for _ in range(rounds):  # interleaved: each library once per round
            for name, encode in libs.items():
                start = time.perf_counter()
                for d in docs:
                    encode(d)
                best[name] = min(best[name], time.perf_counter() - start)
        hf = best["hf-tokenizers"]
        for name in libs:
            exact = ids[name] == ids["hf-tokenizers"]
            shown = f"{mb / best[name]:7.1f} | {hf / best[name]:5.2f}x" if exact else "differs | differs"
            rows.append(f"| {folder.name} | {corpus.stem} | {name} | {shown} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folders", nargs="+", type=Path, help="folders made by bench/make_deepseek_file.py")
    parser.add_argument("--corpus", nargs="*", type=Path, help="UTF-8 text files")
    parser.add_argument("--mb", type=float, default=1.0, help="megabytes of each corpus (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="warm passes per library (default 5)")
    args = parser.parse_args()
    corpus = SHARED / "corpus" if (SHARED / "corpus").exists() else Path("/work/shared/corpus")
    corpora = args.corpus or [
        p
        for p in [corpus / "en-linuxdoc.txt", corpus / "code-python-stdlib.txt", corpus / "man" / "zh_CN.txt"]
        if p.exists()
    ]
    print("| file | corpus | library | warm MB/s | vs HF |")
    print("| --- | --- | --- | --- | --- |")
    for folder in args.folders:
        for row in run(folder, corpora, args.mb, args.rounds):
            print(row, flush=True)


if __name__ == "__main__":
    main()
