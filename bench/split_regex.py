#!/usr/bin/env python
"""Split throughput of a regex pattern, one thread: tokenforge's Oniguruma path
(``_core.Regex.find_matches``), HF tokenizers' ``Split(Regex(p), "isolated").pre_tokenize_str``
(the same engine, plus HF's string slicing), the ``regex`` module's ``finditer`` and, for the
three patterns that have one, tokenforge's hand-made scanner (``_core._piece_ends``, the fast
path the Oniguruma one stands in for elsewhere).

    python bench/split_regex.py                      # cl100k's pattern on the tests/data samples
    python bench/split_regex.py --pattern o200k --corpus en-linuxdoc,man-ja --repeat 5

Each sample is cut into 8 KB documents (as bench/encode.py does) and every library splits every
document; MB/s is UTF-8 input bytes over the best of ``--repeat`` runs. Every library's pieces
are checked against HF's first.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TOKENFORGE_SHARED", REPO / "tests" / "data"))

try:
    from tokenforge import _core
    from tokenforge.pre_tokenizers.patterns import BY_NAME, scanner_id
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(REPO / "src"))
    from tokenforge import _core
    from tokenforge.pre_tokenizers.patterns import BY_NAME, scanner_id


def corpora() -> dict[str, Path]:
    c = SHARED / "corpus"
    out = {"en-linuxdoc": c / "en-linuxdoc.txt", "code-python-stdlib": c / "code-python-stdlib.txt"}
    out.update({f"man-{p.stem}": p for p in sorted((c / "man").glob("*.txt"))})
    return out


def documents(text: str, size: int = 8192) -> list[str]:
    """8 KB pieces of text, each cut back to a character boundary."""
    data, docs, i = text.encode(), [], 0
    while i < len(data):
        j = min(i + size, len(data))
        while j < len(data) and (data[j] & 0xC0) == 0x80:
            j -= 1
        docs.append(data[i:j].decode())
        i = j
    return docs


def splitters(pattern: str) -> dict:
    """name -> function(doc) -> list of (start, end) in code points."""
    import regex
    import tokenizers

    ours = _core.Regex(pattern)
    hf = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated")
    compiled = regex.compile(pattern)
    out = {
        "tokenforge Regex": lambda d: [(s, e) for s, e, _ in ours.find_matches(d)],
        "HF Split": lambda d: [o for _, o in hf.pre_tokenize_str(d)],
        "regex finditer": lambda d: [m.span() for m in compiled.finditer(d)],
    }
    sid = scanner_id(pattern)
    if sid >= 0:

        def scanner(d: str) -> list[tuple[int, int]]:
            data, spans, prev, chars = d.encode(), [], 0, 0
            for end in _core._piece_ends(d, sid, True):
                n = len(data[prev:end].decode())
                spans.append((chars, chars + n))
                prev, chars = end, chars + n
            return spans

        out["tokenforge scanner (check only)"] = scanner
        out["tokenforge scanner"] = lambda d: _core._piece_ends(d, sid, True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pattern", default="cl100k", help="cl100k, o200k, gpt2 or a regex")
    ap.add_argument("--corpus", default="all", help="comma list of corpus names (en-linuxdoc, man-ja, ...)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    pattern = BY_NAME.get(args.pattern, args.pattern)
    names = corpora()
    chosen = names if args.corpus == "all" else {k: names[k] for k in args.corpus.split(",")}
    libs = splitters(pattern)
    print(f"pattern: {pattern!r}\n")
    header = ["corpus", "MB"] + [k for k in libs if "check only" not in k]
    print(" | ".join(header))
    totals = {k: [0.0, 0] for k in header[2:]}
    for name, path in chosen.items():
        docs = documents(path.read_text(encoding="utf-8"))
        size = sum(len(d.encode()) for d in docs)
        expected = [libs["HF Split"](d) for d in docs]
        row = [name, f"{size / 1e6:.2f}"]
        for lib, split in libs.items():
            if lib != "tokenforge scanner" and [split(d) for d in docs] != expected:
                print(f"  {lib}: pieces differ from HF's on {name}")
            if "check only" in lib:
                continue
            best = float("inf")
            for _ in range(args.repeat):
                gc.collect()
                gc.disable()
                t = time.perf_counter()
                for d in docs:
                    split(d)
                best = min(best, time.perf_counter() - t)
                gc.enable()
            row.append(f"{size / 1e6 / best:.1f}")
            totals[lib][0] += best
            totals[lib][1] += size
        print(" | ".join(row))
    print(" | ".join(["all", ""] + [f"{b / 1e6 / t:.1f}" for t, b in totals.values()]))


if __name__ == "__main__":
    main()
