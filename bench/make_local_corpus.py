#!/usr/bin/env python
"""Benchmark corpora from this machine's own files, none from ``../shared`` (text the encoders
were never tuned on), written as plain UTF-8 text files into one folder:

    python bench/make_local_corpus.py                       # into /tmp/tokenforge-local-corpus
    python bench/spm_peers.py --extra-corpora /tmp/tokenforge-local-corpus ...

- ``doc.txt``: package documentation under /usr/share/doc (README, changelog, copyright and
  other text files, gzip-compressed ones unpacked), English prose with code and changelog lines;
- ``c-headers.txt``: C headers under /usr/include;
- ``man-<lang>.txt``: man page sources of languages the shared corpus has not (Ukrainian,
  Korean, Italian), their roff requests dropped.

Files are taken in sorted path order, each at most 256 KB, until the corpus has ``--mb`` MB;
what is not valid UTF-8 is skipped, so the same machine gives the same corpora.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

MB = 10**6
PER_FILE = 256 * 1024
ROFF_REQUEST = re.compile(r"^[.'][A-Za-z\\]")


def read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        text = data[:PER_FILE].decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile):
        return None
    return text if "\x00" not in text else None


def gather(paths, limit: int, clean=None) -> str:
    out, size = [], 0
    for path in paths:
        text = read_text(path)
        if text is None:
            continue
        if clean:
            text = clean(text)
        if not text.strip():
            continue
        out.append(text if text.endswith("\n") else text + "\n")
        size += len(out[-1].encode("utf-8"))
        if size >= limit:
            break
    return "".join(out)


def strip_roff(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not ROFF_REQUEST.match(line))


def doc_files(root: Path):
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        name = p.name.lower().removesuffix(".gz")
        if name.startswith(("readme", "changelog", "news", "copyright", "authors", "todo")) or name.endswith(
            (".txt", ".md", ".rst")
        ):
            yield p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("/tmp/tokenforge-local-corpus"))
    ap.add_argument("--mb", type=float, default=2.0, help="MB per corpus at most (default 2)")
    args = ap.parse_args(argv)
    limit = int(args.mb * MB)
    args.out.mkdir(parents=True, exist_ok=True)
    corpora = {
        "doc": gather(doc_files(Path("/usr/share/doc")), limit),
        "c-headers": gather(sorted(Path("/usr/include").rglob("*.h")), limit),
    }
    for lang in ("uk", "ko", "it"):
        root = Path("/usr/share/man") / lang
        corpora[f"man-{lang}"] = gather(sorted(root.rglob("*.gz")), limit, strip_roff)
    for name, text in corpora.items():
        if len(text.encode("utf-8")) < 100_000:
            print(f"{name}: only {len(text)} characters on this machine, skipped", file=sys.stderr)
            continue
        path = args.out / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        print(f"{path}: {len(text.encode('utf-8')) / MB:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
