#!/usr/bin/env python
"""Builds benchmark corpora from texts on this machine, none of them from ``../shared``.

    python bench/make_extra_corpus.py                 # into /tmp/tokenforge-corpus
    python bench/make_extra_corpus.py --out DIR --mb 2
    python bench/encode.py --extra /tmp/tokenforge-corpus --corpus 'x-*'

The shared corpora (Linux docs in English, Python sources, man pages in eight languages) are
what the encoders were tuned on. These are text the tuning never saw, built the same way on
any Debian-like machine (sorted file lists, fixed byte caps, so a rerun gives the same bytes):

* ``x-c-headers``  -- C headers under /usr/include (code: identifiers, comments, macros);
* ``x-doc-en``     -- package documentation under /usr/share/doc (READMEs, changelogs,
                      copyright files; plain or gzipped), English prose with markup;
* ``x-man-<lang>`` -- man pages in languages the shared corpus lacks (Italian, Indonesian,
                      Brazilian Portuguese, Turkish, Korean, ...), their roff sources with the
                      markup stripped (macro lines kept as their arguments, font escapes dropped).

Files that are not UTF-8 are skipped. The output is not committed: rebuild it where you run.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

MB = 1_000_000
DEFAULT_OUT = Path("/tmp/tokenforge-corpus")
MAN_LANGS = ("it", "id", "pt_BR", "tr", "ko", "nl", "cs")


def read_text(path: Path) -> str | None:
    """The file as UTF-8 text (gunzipped if it ends in .gz), or None if it is not."""
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        text = data.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile):
        return None
    return text if "\x00" not in text else None


def gather(paths, cap: int, clean=lambda t: t) -> str:
    """The texts of paths (in the given order) joined by blank lines, up to cap UTF-8 bytes."""
    parts, size = [], 0
    for p in paths:
        text = read_text(p)
        if text is None:
            continue
        text = clean(text).strip("\n")
        if not text:
            continue
        parts.append(text)
        size += len(text.encode("utf-8")) + 2
        if size >= cap:
            break
    return "\n\n".join(parts) + "\n"


def c_headers(cap: int) -> str:
    files = sorted(p for p in Path("/usr/include").rglob("*.h") if p.is_file() and not p.is_symlink())
    return gather(files, cap)


def doc_en(cap: int) -> str:
    names = re.compile(r"^(readme|changelog|changes|news|copyright|authors|todo)([._-].*)?$", re.IGNORECASE)
    files = sorted(
        p
        for p in Path("/usr/share/doc").rglob("*")
        if p.is_file() and not p.is_symlink() and names.match(p.name) and "html" not in p.name.lower()
    )
    return gather(files, cap)


_FONT = re.compile(r"\\f(\[[^\]]*\]|\(..|.)")
_ESCAPES = [("\\-", "-"), ("\\(em", "—"), ("\\(en", "–"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\e", "\\"), ("\\&", "")]
_ESCAPES += [("\\ ", " "), ("\\|", ""), ("\\^", ""), ("\\(bu", "•"), ("\\(co", "©"), ("\\(lq", "“"), ("\\(rq", "”")]


def strip_roff(text: str) -> str:
    """Roff source as plain text: comments dropped, a macro line becomes its arguments."""
    out = []
    for line in text.splitlines():
        if line.startswith(('.\\"', "'\\\"", '.\\\\"')) or line in (".", "'"):
            continue
        if line.startswith((".", "'")):
            parts = line[1:].split(None, 1)
            if not parts:
                continue
            line = parts[1] if len(parts) > 1 else ""
            if not line:
                continue
        line = _FONT.sub("", line)
        for a, b in _ESCAPES:
            line = line.replace(a, b)
        out.append(line)
    return "\n".join(out)


def man_pages(lang: str, cap: int) -> str:
    root = Path("/usr/share/man") / lang
    files = sorted(p for p in root.glob("man*/*") if p.is_file() and not p.is_symlink())
    return gather(files, cap, strip_roff)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    ap.add_argument("--mb", type=float, default=2, help="MB (10**6 bytes) per corpus at most (default 2)")
    ap.add_argument("--langs", default=",".join(MAN_LANGS), help="man page languages (default %(default)s)")
    args = ap.parse_args(argv)
    cap = int(args.mb * MB)
    args.out.mkdir(parents=True, exist_ok=True)
    builders = {"x-c-headers": lambda: c_headers(cap), "x-doc-en": lambda: doc_en(cap)}
    for lang in (x.strip() for x in args.langs.split(",") if x.strip()):
        if (Path("/usr/share/man") / lang).is_dir():
            builders[f"x-man-{lang}"] = lambda lang=lang: man_pages(lang, cap)
        else:
            print(f"skipped x-man-{lang}: no /usr/share/man/{lang}", file=sys.stderr)
    for name, build in builders.items():
        text = build()
        size = len(text.encode("utf-8"))
        if size < 64 * 1024:
            print(f"skipped {name}: only {size} bytes of text here", file=sys.stderr)
            continue
        (args.out / f"{name}.txt").write_text(text, encoding="utf-8")
        print(f"{name}: {size / MB:.2f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
