#!/usr/bin/env python
"""Encode throughput: tokenforge against its peers, in one run, on the shared corpora.

    python bench/encode.py --mb 1                  # quick: 1 MB per corpus, both encodings
    python bench/encode.py                         # 4 MB per corpus, best of 3
    python bench/encode.py --encodings cl100k_base --corpus en-linuxdoc,man-* --json out.json

Every corpus is cut into 8 KB documents (8192 bytes, backed off to a UTF-8 character
boundary); the shared corpora come first, then those make_extra_corpus.py built (x-*). Each
library encodes the same documents twice:

* ``single``  -- a Python loop calling the library's one-document encode, on one thread;
* ``batch``   -- the library's own batch call over all documents with ``--threads`` threads.

MB/s is UTF-8 input bytes (1 MB = 10**6 bytes) over the best wall time of ``--repeat`` runs
(warm); "cold" is the first run of a library built afresh for that corpus and mode.
"tf ÷ lib" is tokenforge's speed divided by that library's (above 1: tokenforge is faster).
Every library's ids are compared, document by document, with tiktoken's ``encode_ordinary``.
Libraries that are not installed, or that lack an encoding, are skipped with the reason.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = Path(os.environ.get("TOKENFORGE_SHARED", "/work/shared"))
DEFAULT_EXTRA = Path(os.environ.get("TOKENFORGE_EXTRA_CORPUS", "/tmp/tokenforge-corpus"))
DOC_BYTES = 8192
MB = 1_000_000


# --------------------------------------------------------------------------- corpora


def corpus_paths(shared: Path, extra: Path | None = None) -> dict:
    c = shared / "corpus"
    out = {"en-linuxdoc": c / "en-linuxdoc.txt", "code-python-stdlib": c / "code-python-stdlib.txt"}
    for p in sorted((c / "man").glob("*.txt")):
        out[f"man-{p.stem}"] = p
    # corpora built by make_extra_corpus.py from this machine's own texts (x-*)
    if extra is not None and extra.is_dir():
        for p in sorted(extra.glob("*.txt")):
            out[p.stem if p.stem.startswith("x-") else f"x-{p.stem}"] = p
    return out


def select_corpora(all_names, spec: str | None):
    if not spec:
        return list(all_names)
    chosen = []
    for pat in (s.strip() for s in spec.split(",")):
        if not pat:
            continue
        hits = [n for n in all_names if fnmatch.fnmatchcase(n, pat) or n == f"man-{pat}"]
        if not hits:
            sys.exit(f"error: no corpus matches {pat!r}; have: {', '.join(all_names)}")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def cut_utf8(data: bytes, end: int) -> int:
    """Largest cut <= end that does not split a UTF-8 character."""
    while 0 < end < len(data) and (data[end] & 0xC0) == 0x80:
        end -= 1
    return end


def load_docs(path: Path, limit: int | None, doc_bytes: int = DOC_BYTES) -> list:
    with open(path, "rb") as f:
        data = f.read(limit + 4) if limit else f.read()
    if limit and len(data) > limit:
        data = data[: cut_utf8(data, limit)]
    docs, i = [], 0
    while i < len(data):
        j = cut_utf8(data, min(i + doc_bytes, len(data)))
        if j <= i:  # cannot happen for valid UTF-8, but never loop forever
            j = min(i + doc_bytes, len(data))
        docs.append(data[i:j].decode("utf-8"))
        i = j
    return docs


# --------------------------------------------------------------------------- timing


def run_once(lib, mode: str, docs: list, threads: int):
    gc.collect()
    gc.disable()
    try:
        c0, t0 = time.process_time(), time.perf_counter()
        if mode == "single":
            enc = lib.encode
            out = [enc(d) for d in docs]
        else:
            out = lib.encode_batch(docs, threads)
        t1, c1 = time.perf_counter(), time.process_time()
    finally:
        gc.enable()
    return t1 - t0, c1 - c0, out


def compare(ref: list | None, out: list, decode=None, ref_name: str = "tiktoken"):
    """(differing docs, first difference as a short string) -- ref None: not checked."""
    if ref is None:
        return None, None
    if len(out) != len(ref):
        return len(ref), f"returned {len(out)} results for {len(ref)} docs"
    bad, first = 0, None
    for i, (a, b) in enumerate(zip(ref, out)):
        b = list(b) if not isinstance(b, list) else b
        if a != b:
            bad += 1
            if first is None:
                k = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                first = (
                    f"doc {i}: first difference at token {k}: {ref_name} {a[k : k + 4]} vs {b[k : k + 4]} "
                    f"({len(a)} vs {len(b)} tokens)"
                )
                if decode is not None:
                    first += f"; {ref_name} {decode(a[k : k + 4])!r} vs {decode(b[k : k + 4])!r}"
    return bad, first


# --------------------------------------------------------------------------- formatting


def fmt_speed(x):
    return "—" if x is None else (f"{x:.1f}" if x >= 10 else f"{x:.2f}")


def fmt_ratio(tf, x):
    if tf is None or x is None or x <= 0:
        return "—"
    return f"{tf / x:.2f}×"


def fmt_match(bad, n):
    if bad is None:
        return "n/a (no tiktoken)"
    return "yes" if bad == 0 else f"{bad} of {n} docs differ"


def md_table(header, rows, align=None):
    align = align or ["l"] * len(header)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", help="comma list of corpora (globs ok: 'man-*'); default all")
    ap.add_argument("--mb", type=float, default=4, help="MB (10**6 bytes) per corpus, 0 = whole file (default 4)")
    ap.add_argument(
        "--encodings",
        default="cl100k_base,o200k_base",
        help="comma list of cl100k_base, o200k_base, p50k_base, r50k_base",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, best is kept (default 3)")
    ap.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="threads for batch mode (default: cpu count)"
    )
    ap.add_argument("--modes", default="single,batch", help="comma list of single, batch")
    ap.add_argument(
        "--libs",
        help="comma list of libraries (default all): "
        + ", ".join(["tokenforge", "tf-Tokenizer", "tiktoken", "fastokens", "bpe-openai", "tokie", "hf-tokenizers"]),
    )
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help=f"shared data dir (default {DEFAULT_SHARED})")
    ap.add_argument(
        "--extra",
        type=Path,
        default=DEFAULT_EXTRA,
        help=f"folder of more corpora (*.txt, named x-*; default {DEFAULT_EXTRA}, built by make_extra_corpus.py)",
    )
    ap.add_argument(
        "--no-cold",
        dest="cold",
        action="store_false",
        help="do not rebuild each library before each corpus and mode (then the first run is only "
        "the first over this text, with caches warm from the corpora before)",
    )
    ap.add_argument("--json", type=Path, help="write all results here")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return ap.parse_args(argv)


def configure_threads(n: int) -> None:
    # Must happen before any Rust library starts its pool: rayon (tokie, HF tokenizers,
    # fastokens) reads these once. Single mode calls one-document encodes, which do not
    # use the pool; the "cpu" column shows how many cores a run actually kept busy.
    os.environ["RAYON_NUM_THREADS"] = str(n)
    os.environ["RAYON_RS_NUM_CPUS"] = str(n)
    os.environ["TOKENIZERS_PARALLELISM"] = "true"
    # caches that would let repeats 2..n replay repeat 1 are kept off
    for var in ("FASTOKENS_INPUT_CACHE", "FASTOKENS_SEGMENT_CACHE"):
        os.environ.pop(var, None)


def main(argv=None) -> int:
    import faulthandler

    faulthandler.enable()  # a native crash names the library that was running
    args = parse_args(argv)
    configure_threads(args.threads)
    sys.path.insert(0, str(HERE))
    import _peers

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    encodings = [e.strip() for e in args.encodings.split(",") if e.strip()]
    for e in encodings:
        if e not in _peers.ENCODINGS:
            sys.exit(f"error: unknown encoding {e!r}; choose from {', '.join(_peers.ENCODINGS)}")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in ("single", "batch"):
            sys.exit(f"error: unknown mode {m!r}")
    lib_names = list(_peers.FACTORIES)
    if args.libs:
        want = [x.strip() for x in args.libs.split(",") if x.strip()]
        for w in want:
            if w not in _peers.FACTORIES:
                sys.exit(f"error: unknown library {w!r}; have {', '.join(_peers.FACTORIES)}")
        lib_names = [n for n in lib_names if n in want]
    paths = corpus_paths(args.shared, args.extra)
    corpora = select_corpora(list(paths), args.corpus)
    limit = int(args.mb * MB) if args.mb and args.mb > 0 else None

    ctx = _peers.Context(args.shared)
    results, loads, skipped, notes, apis, versions = [], [], [], [], {}, {}
    docs_cache = {}
    t_start = time.perf_counter()
    try:
        for enc_name in encodings:
            # ---- construct every library for this encoding
            libs = {}
            for name in lib_names:
                try:
                    lib = _peers.FACTORIES[name](enc_name, ctx)
                except _peers.Skip as e:
                    skipped.append((enc_name, name, str(e)))
                    print(f"skipped: {name} [{enc_name}]: {e}", file=sys.stderr, flush=True)
                    continue
                except Exception as e:  # a peer failing to load must not end the run
                    skipped.append((enc_name, name, f"{type(e).__name__}: {e}"))
                    print(f"skipped: {name} [{enc_name}]: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
                    continue
                libs[name] = lib
                apis[name], versions[name] = lib.api, lib.version
                loads.append({"encoding": enc_name, "library": name, "load_s": lib.load_s})
                log(f"loaded {name} [{enc_name}] in {lib.load_s:.3f}s")
            if enc_name in ctx.hf_prep_s:
                notes.append(
                    f"{enc_name}: tokenizer.json for hf-tokenizers/tokie derived from the ranks "
                    f"in {ctx.hf_prep_s[enc_name]:.2f}s (bench prep, cached; not in load s)"
                )
            inv = {r: t for t, r in ctx.ranks(enc_name).items()}

            def decode(ids, inv=inv):
                return [inv.get(i, b"<%d>" % i) for i in ids]

            # tiktoken runs first so its ids are the reference for everyone else
            order = sorted(libs, key=lambda n: n != "tiktoken")

            for corpus in corpora:
                if corpus not in docs_cache:
                    docs_cache[corpus] = load_docs(paths[corpus], limit)
                docs = docs_cache[corpus]
                nbytes = sum(len(d.encode("utf-8")) for d in docs)
                ref = None
                for mode in modes:
                    for name in order:
                        if args.cold:
                            # cold: a library built afresh, so its first run meets every piece anew
                            libs.pop(name, None)
                            gc.collect()
                            try:
                                libs[name] = _peers.FACTORIES[name](enc_name, ctx)
                            except Exception as e:
                                notes.append(f"{name} {enc_name} {corpus} {mode}: rebuild failed: {e}")
                                continue
                        lib = libs.get(name)
                        if lib is None:
                            continue
                        times, cpus, out, err = [], [], None, None
                        for _ in range(max(1, args.repeat)):
                            try:
                                dt, dc, out = run_once(lib, mode, docs, args.threads)
                            except Exception as e:
                                err = f"{type(e).__name__}: {e}"
                                break
                            times.append(dt)
                            cpus.append(dc)
                        rec = {
                            "encoding": enc_name,
                            "corpus": corpus,
                            "mode": mode,
                            "library": name,
                            "threads": 1 if mode == "single" else args.threads,
                            "bytes": nbytes,
                            "docs": len(docs),
                        }
                        if err:
                            rec.update(error=err)
                            notes.append(f"{name} {enc_name} {corpus} {mode}: failed: {err}")
                            results.append(rec)
                            log(f"  {enc_name} {corpus:20s} {mode:6s} {name:14s} FAILED {err}")
                            continue
                        if name == "tiktoken" and ref is None:
                            ref = [list(x) for x in out]
                        bad, first = compare(ref, out, decode) if name != "tiktoken" or mode != modes[0] else (0, None)
                        if ref is None:
                            bad, first = None, None
                        best = min(times)
                        i_best = times.index(best)
                        rec.update(
                            times_s=times,
                            cpus_s=cpus,
                            best_s=best,
                            mb_s=nbytes / MB / best,
                            cpu_per_wall=cpus[i_best] / best if best > 0 else None,
                            tokens=sum(len(x) for x in out),
                            mismatched_docs=bad,
                            first_mismatch=first,
                        )
                        results.append(rec)
                        log(
                            f"  {enc_name} {corpus:20s} {mode:6s} {name:14s} {rec['mb_s']:8.2f} MB/s"
                            f"  cpu {rec['cpu_per_wall']:.2f}  {fmt_match(bad, len(docs))}"
                        )
                        del out
    finally:
        ctx.close()

    report = render(
        args,
        encodings,
        corpora,
        modes,
        lib_names,
        results,
        loads,
        skipped,
        notes,
        apis,
        versions,
        time.perf_counter() - t_start,
    )
    print(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                    "machine": machine(),
                    "versions": versions,
                    "apis": apis,
                    "loads": loads,
                    "skipped": [dict(encoding=e, library=lib, reason=r) for e, lib, r in skipped],
                    "notes": notes,
                    "results": results,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
        print(f"\nwrote {args.json}", file=sys.stderr)
    return 0


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


def render(args, encodings, corpora, modes, lib_names, results, loads, skipped, notes, apis, versions, elapsed):
    ok = [r for r in results if "error" not in r]
    by = {(r["encoding"], r["corpus"], r["mode"], r["library"]): r for r in ok}
    load_of = {(x["encoding"], x["library"]): x["load_s"] for x in loads}
    m = machine()
    out = ["# tokenforge encode benchmark", ""]
    out.append(
        f"{m['cpu']} ({m['cores']} cores), Python {m['python']}; 8 KB docs, "
        f"{'whole files' if not args.mb else f'{args.mb:g} MB per corpus'}, best of {args.repeat}, "
        f"batch = {args.threads} threads; MB = 10^6 bytes of UTF-8 input. "
        f"tf ÷ lib = tokenforge MB/s ÷ lib MB/s."
    )
    out.append("Versions: " + ", ".join(f"{k} {versions[k]}" for k in lib_names if k in versions))
    out.append("")

    # ---- summary: all corpora together
    out.append(f"## All corpora ({', '.join(corpora)})")
    out.append("")
    cold_lab = "cold" if args.cold else "1st run"
    hdr = ["encoding", "library", "load s"]
    for mode in modes:
        lab = "1 thread" if mode == "single" else f"batch {args.threads}T"
        hdr += [f"{lab} MB/s", "tf ÷ lib", "min", f"{cold_lab} MB/s", "tf ÷ lib", "min"]
    hdr += ["ids match tiktoken"]
    rows = []
    for enc in encodings:
        for lib in lib_names:
            if (enc, lib) not in load_of:
                continue
            row = [enc, lib, f"{load_of[(enc, lib)]:.3f}"]
            mism = []
            for mode in modes:
                for first in (False, True):  # warm (best run), then cold (first run)

                    def secs(r, first=first):
                        return r["times_s"][0] if first else r["best_s"]

                    tot = {}
                    for name in (lib, "tokenforge"):
                        rs = [by.get((enc, c, mode, name)) for c in corpora]
                        tot[name] = (sum(r["bytes"] for r in rs) / MB / sum(secs(r) for r in rs)) if all(rs) else None
                    row += [fmt_speed(tot[lib]), fmt_ratio(tot["tokenforge"], tot[lib])]
                    # the per-corpus minimum of tf ÷ lib, and where
                    worst = None
                    for c in corpora:
                        a, b = by.get((enc, c, mode, "tokenforge")), by.get((enc, c, mode, lib))
                        if a and b:
                            ratio = secs(b) / secs(a)
                            if worst is None or ratio < worst[0]:
                                worst = (ratio, c)
                    row.append("—" if worst is None or lib == "tokenforge" else f"{worst[0]:.2f}× {worst[1]}")
                rs = [by.get((enc, c, mode, lib)) for c in corpora]
                rs = [r for r in rs if r]
                if any(r["mismatched_docs"] is None for r in rs):
                    mism.append(None)
                else:
                    mism.append((sum(r["mismatched_docs"] for r in rs), sum(r["docs"] for r in rs)))
            if not mism or any(x is None for x in mism):
                row.append(fmt_match(None, 0))
            elif len(set(mism)) == 1:
                row.append(fmt_match(*mism[0]))
            else:
                row.append("; ".join(f"{md}: {fmt_match(*x)}" for md, x in zip(modes, mism)))
            rows.append(row)
    out.append(md_table(hdr, rows, ["l", "l", "r"] + ["r"] * (6 * len(modes)) + ["l"]))
    out.append("")
    out.append(
        "tf ÷ lib over all corpora together (bytes ÷ summed seconds); min: the smallest tf ÷ lib "
        "of any one corpus, and which. "
        + (
            "cold: the first run of a library built afresh for that corpus and mode."
            if args.cold
            else "1st run: the first run over that corpus (caches warm from the corpora before)."
        )
    )
    out.append("")

    # ---- per encoding: every corpus x mode x library
    for enc in encodings:
        libs_here = [lib for lib in lib_names if (enc, lib) in load_of]
        if not libs_here:
            continue
        out.append(f"## {enc} by corpus")
        out.append("")
        hdr = ["corpus", "MB", "mode", "library", "MB/s", "tf ÷ lib", f"{cold_lab} MB/s", "tf ÷ lib", "cpu"]
        hdr += ["ids match tiktoken"]
        rows = []
        for c in corpora:
            for mode in modes:
                tf = by.get((enc, c, mode, "tokenforge"))
                for lib in libs_here:
                    r = by.get((enc, c, mode, lib))
                    if r is None:
                        rows.append([c, "", mode, lib, "failed", "", "", "", "", ""])
                        continue
                    cold = r["bytes"] / MB / r["times_s"][0]
                    tf_cold = tf["bytes"] / MB / tf["times_s"][0] if tf else None
                    rows.append(
                        [
                            c,
                            f"{r['bytes'] / MB:.2f}",
                            mode if mode == "single" else f"batch {r['threads']}T",
                            lib,
                            fmt_speed(r["mb_s"]),
                            fmt_ratio(tf["mb_s"] if tf else None, r["mb_s"]),
                            fmt_speed(cold),
                            fmt_ratio(tf_cold, cold),
                            f"{r['cpu_per_wall']:.2f}",
                            fmt_match(r["mismatched_docs"], r["docs"]),
                        ]
                    )
        out.append(md_table(hdr, rows, ["l", "r", "l", "l", "r", "r", "r", "r", "r", "l"]))
        out.append("")

    # ---- footnotes
    if skipped:
        out.append("Skipped:")
        out += [f"- {lib} [{enc}]: {why}" for enc, lib, why in skipped]
        out.append("")
    firsts = {}
    for r in ok:
        if r.get("first_mismatch"):
            firsts.setdefault((r["library"], r["encoding"]), f"{r['corpus']} {r['mode']}: {r['first_mismatch']}")
    if firsts or notes:
        out.append("Notes:")
        out += [f"- {n}" for n in notes]
        out += [f"- {lib} [{enc}] first mismatch: {s}" for (lib, enc), s in firsts.items()]
        out.append("")
    out.append(
        "Calls timed (cpu = process CPU time ÷ wall time of the best run; "
        + (
            "cold = the first run of a library built afresh for that corpus and mode):"
            if args.cold
            else "1st run = the first of the repeats over that corpus):"
        )
    )
    out += [f"- {k}: `{v}`" for k, v in apis.items()]
    out.append("")
    out.append(f"Total bench time {elapsed:.1f}s.")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
