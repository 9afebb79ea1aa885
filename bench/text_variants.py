"""The same text written differently, through whole tokenizer.json files: where a kernel's fast
path refuses a text (a normalizer changes it in a way the kernel does not write itself), that
text runs slower; this shows by how much, against HF tokenizers and fastokens in one run.

Variants of one corpus sample (French man pages by default, English docs for the line-end and
space variants), each cut into 8 KB documents:
- as it is; NFD (every accented letter decomposed: files with NFC or a sentencepiece map
  compose them again);
- CRLF line ends; NBSP after each sentence and in place of some spaces; tabs for runs of four
  spaces; emoji with skin tones before each period;
- with ``--scripts``, text in scripts the shared corpora lack, made up from each script's letters
  (words drawn from a Zipf-like list, so pieces repeat as in prose): Devanagari syllables with
  vowel signs and viramas (grapheme clusters of several code points), Thai without spaces
  between words (long pieces, marks above and below), Arabic with some harakat, Hangul, emoji
  joined with ZWJ, fullwidth Latin letters and digits (NFKC folds them), English in capitals.

Each library encodes every document without special tokens, one call per document on one
thread, best of three passes (warm), process CPU time; ids are compared with HF tokenizers'
document by document, and a library whose ids differ is reported as "differs".

    python bench/text_variants.py FILE ... [--mb 0.3] [--corpus FILE]

FILE: tokenizer.json files (the model folders of ../shared/vocab/hf; bench/make_shape_files.py
and bench/make_unigram_file.py make others).
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spm_sampling import best_time  # (process CPU time, the best of some passes)

SHARED = Path(__file__).resolve().parents[2] / "shared"
DOC_BYTES = 8192


def variants(french: str, english: str) -> dict[str, str]:
    """The texts, by name."""
    return {
        "fr": french,
        "fr NFD": unicodedata.normalize("NFD", french),
        "en": english,
        "en CRLF": english.replace("\n", "\r\n"),
        "en NBSP": english.replace(" ", "\u00a0", 2000).replace(". ", ".\u00a0"),
        "en tabs": english.replace("    ", "\t"),
        "en emoji": english.replace(".", "\U0001f600\U0001f44d\U0001f3fd."),
    }


def made_up(script: str, size: int, seed: int = 7) -> str:
    """About size bytes of prose-like text in one script (see the module's docstring)."""
    import random

    rng = random.Random(seed)
    consonants = {
        "hi": [chr(c) for c in range(0x915, 0x939)],
        "th": [chr(c) for c in range(0xE01, 0xE2F)],
        "ar": [chr(c) for c in range(0x628, 0x64B)],
    }

    def syllable() -> str:
        if script == "hi":
            tail = rng.choice(["", "", "\u093e", "\u093f", "\u0940", "\u0941", "\u0947", "\u094b", "\u094d", "\u0902"])
            return rng.choice(consonants["hi"]) + tail
        if script == "th":
            mark = rng.choice(["", "", "\u0e31", "\u0e34", "\u0e35", "\u0e38", "\u0e48", "\u0e49", "\u0e32", "\u0e33"])
            return rng.choice(consonants["th"]) + mark
        if script == "ar":
            return rng.choice(consonants["ar"]) + rng.choice(["", "", "", "\u064e", "\u0650", "\u064f", "\u0651"])
        return chr(0xAC00 + rng.randrange(11172))  # ko: a Hangul syllable

    words = ["".join(syllable() for _ in range(rng.randint(1, 4))) for _ in range(3000)]
    weights = [1 / (rank + 1) for rank in range(len(words))]
    gap = "" if script == "th" else " "  # Thai writes a sentence's words together
    out: list[str] = []
    total = 0
    while total < size:
        sentence = gap.join(rng.choices(words, weights, k=rng.randint(4, 14)))
        sentence += {"hi": "\u0964 ", "ar": "\u060c "}.get(script, ". " if script == "ko" else " ")
        out.append(sentence)
        total += len(sentence.encode())
        if rng.random() < 0.15:
            out.append("\n")
    return "".join(out)


def script_variants(english: str, size: int) -> dict[str, str]:
    """The --scripts texts, by name."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    fullwidth = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in english)
    out = {name: made_up(name, size) for name in ("hi", "th", "ar", "ko")}
    out["en ZWJ emoji"] = english.replace(". ", f". {family} \U0001f3f3\ufe0f\u200d\U0001f308 ")
    out["en fullwidth"] = fullwidth
    out["en CAPS"] = english.upper()
    return out


def documents(text: str) -> list[str]:
    return [text[i : i + DOC_BYTES] for i in range(0, len(text), DOC_BYTES)]


def libraries(path: str) -> list[tuple[str, Callable[[], Callable[[str], list[int]]]]]:
    """(name, loader of an encode function) for each library."""

    def ours() -> Callable[[str], list[int]]:
        import tokenforge

        tok = tokenforge.Tokenizer.from_file(path)
        return lambda t: tok.encode(t, add_special_tokens=False).ids

    def hf() -> Callable[[str], list[int]]:
        import tokenizers

        tok = tokenizers.Tokenizer.from_file(path)
        return lambda t: tok.encode(t, add_special_tokens=False).ids

    def fast() -> Callable[[str], list[int]]:
        import fastokens

        tok: Any = fastokens.Tokenizer.from_file(path)
        return lambda t: tok.encode(t, add_special_tokens=False).ids

    return [("hf-tokenizers", hf), ("tokenforge", ours), ("fastokens", fast)]


def run(path: Path, texts: dict[str, str]) -> list[str]:
    cells: dict[str, dict[str, str]] = {}
    ratios: dict[str, list[str]] = {"tokenforge ÷ hf": []}
    hf_time: dict[str, float] = {}
    expected: dict[str, list[list[int]]] = {}
    ours_time: dict[str, float] = {}
    for name, load in libraries(str(path)):
        try:
            encode = load()
        except Exception as e:  # not installed, or refuses the file
            print(f"  {name}: skipped on {path.parent.name} ({type(e).__name__}: {str(e)[:80]})")
            continue
        row = cells.setdefault(name, {})
        for variant, text in texts.items():
            docs = documents(text)
            mb = len(text.encode()) / 1e6
            ids = [encode(d) for d in docs]
            if name == "hf-tokenizers":
                expected[variant] = ids
            elif ids != expected.get(variant):
                row[variant] = "differs"
                continue
            seconds = best_time(encode, docs, 1 if name == "hf-tokenizers" else 3)
            row[variant] = f"{mb / seconds:.1f}"
            if name == "hf-tokenizers":
                hf_time[variant] = seconds
            elif name == "tokenforge":
                ours_time[variant] = seconds
    ratios["tokenforge ÷ hf"] = [
        f"{hf_time[v] / ours_time[v]:.0f}×" if v in hf_time and v in ours_time else "-" for v in texts
    ]
    file = path.parent.name
    rows = [f"| {file} | {name} | " + " | ".join(row.get(v, "-") for v in texts) + " |" for name, row in cells.items()]
    rows.append(f"| {file} | tokenforge ÷ hf | " + " | ".join(ratios["tokenforge ÷ hf"]) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, help="tokenizer.json files")
    parser.add_argument("--mb", type=float, default=0.3, help="megabytes of each sample (default 0.3)")
    parser.add_argument("--french", type=Path, default=SHARED / "corpus" / "man" / "fr.txt")
    parser.add_argument("--english", type=Path, default=SHARED / "corpus" / "en-linuxdoc.txt")
    parser.add_argument("--scripts", action="store_true", help="also text in scripts the corpora lack")
    parser.add_argument("--only", help="comma-separated variant names to run (default: all)")
    args = parser.parse_args()
    size = int(args.mb * 1e6)
    for corpus in (args.french, args.english):
        if not corpus.exists():
            parser.error(f"no corpus at {corpus}: pass --french / --english")
    french = args.french.read_bytes()[:size].decode("utf-8", "ignore")
    english = args.english.read_bytes()[:size].decode("utf-8", "ignore")
    texts = variants(french, english)
    if args.scripts:
        texts.update(script_variants(english, size))
    if args.only:
        wanted = [v.strip() for v in args.only.split(",")]
        unknown = [v for v in wanted if v not in texts]
        if unknown:
            parser.error(f"no variant {unknown[0]!r}; have: {', '.join(texts)}")
        texts = {v: texts[v] for v in wanted}
    print("MB/s, warm, one thread (ids checked against HF tokenizers):\n")
    print("| file | library | " + " | ".join(texts) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in texts) + " |")
    for path in args.files:
        for row in run(path, texts):
            print(row, flush=True)


if __name__ == "__main__":
    main()
