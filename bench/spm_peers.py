#!/usr/bin/env python
"""sentencepiece models: encode throughput and Unigram training, tokenforge against its peers, in one run.

    python bench/spm_peers.py                        # 1 MB per corpus, best of 3, both models, training
    python bench/spm_peers.py --mb 0.2 --repeat 1 --only mistral --skip-train     # quick look
    python bench/spm_peers.py --skip-encode --with-hf-train    # training only, HF's trainer too (~500 s)

A. Encode. Two models: Mistral 7B's tokenizer.model (BPE, byte fallback, identity normalizer) and a
32k Unigram model that sentencepiece trains once on en-linuxdoc with its default options (nmt_nfkc;
cached in bench/.cache/). Each corpus's first --mb MB is cut into 8 KB documents (as bench/encode.py
does) and into lines (empty ones dropped), and each library encodes them

* ``single`` -- a Python loop calling the library's one-text encode, on one thread;
* ``batch``  -- the library's own batch call over all texts with ``--threads`` threads.

Libraries: tokenforge (SentencePieceModelEncoder), sentencepiece, and HF tokenizers and fastokens on the
model converted to a tokenizer.json by transformers' converters (LlamaConverter for the BPE model,
SpmConverter for the Unigram one; cached in bench/.cache/). Each library runs in a fresh process, and
each measurement starts from a freshly loaded tokenizer, so the first of the ``--repeat`` runs ("1st
run") is a cold pass over text the tokenizer has not seen; MB/s is UTF-8 input bytes (1 MB = 10**6
bytes) over the best run. Every text's ids are compared with sentencepiece's ``encode``.

B. Unigram training (32000 pieces) on en-linuxdoc minus its last 5% (cut at a line end): tokenforge's
train_sentencepiece, sentencepiece's trainer and, with --with-hf-train, HF tokenizers' UnigramTrainer,
each in a fresh process (wall time and peak RSS of that process). Every trained model is loaded by
sentencepiece to encode the held-out lines: bytes per token (higher compresses better).

Writes bench/sentencepiece_results.md (--out). See bench/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import shlex
import subprocess
import sys
import tempfile
import time
import types
from array import array
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _peers  # noqa: E402
import encode as _enc  # noqa: E402  (corpora, documents, timing, comparison and formatting helpers)

Lib, Skip = _peers.Lib, _peers.Skip

MB = _enc.MB
CACHE = HERE / ".cache"
VOCAB = 32000
HELD_OUT = 0.05
UNITS = {"docs": "8 KB docs", "lines": "lines"}
MODELS = {  # name -> (kind, where the .model comes from)
    "mistral-7b": ("bpe", "vocab/mistral-7b-v0.1.model"),
    "unigram-32k": ("unigram", "trained here by sentencepiece on corpus/en-linuxdoc.txt, default options"),
}
ENCODERS = ("tokenforge", "tokenforge-tokenizer", "sentencepiece", "hf-tokenizers", "fastokens")
TRAINERS = ("tokenforge", "sentencepiece", "hf-tokenizers")


# --------------------------------------------------------------------------- models and conversions


def unigram_model(shared: Path, log) -> Path:
    """The 32k Unigram model for part A: sentencepiece's trainer, default options, trained once."""
    corpus = shared / "corpus" / "en-linuxdoc.txt"
    path = CACHE / f"unigram-{VOCAB}-en-linuxdoc-{corpus.stat().st_size}.model"
    if not path.exists():
        import sentencepiece as spm

        log(f"training the {VOCAB}-piece Unigram model with sentencepiece (once; cached as {path}) ...")
        CACHE.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=f"{tmp}/m", vocab_size=VOCAB, minloglevel=2)
            os.replace(f"{tmp}/m.model", path)
    return path


class _ScoreOrderedMerges:
    """transformers 4's SentencePieceExtractor for LlamaConverter: (vocab, merges ordered by the
    merged piece's score). transformers 5 changed extract() and LlamaConverter's call fails."""

    def __init__(self, model_file):
        pass

    def extract(self, vocab_scores):
        from transformers.convert_slow_tokenizer import generate_merges

        vocab = {piece: i for i, (piece, _) in enumerate(vocab_scores)}
        return vocab, generate_merges(vocab, vocab_scores)


def convert(model: Path, kind: str) -> tuple[str, str]:
    """(tokenizer.json text, how it was made): transformers' slow->fast converter for the model."""
    import sentencepiece as spm
    import transformers
    import transformers.convert_slow_tokenizer as cst

    sp = spm.SentencePieceProcessor(model_file=str(model))
    # what LlamaTokenizer / a generic sentencepiece tokenizer hands the converter; `legacy` unset is
    # Llama's legacy form (the one Mistral's own tokenizer.json has)
    original = types.SimpleNamespace(vocab_file=str(model), convert_ids_to_tokens=sp.id_to_piece)
    how = f"transformers {transformers.__version__} "
    if kind == "unigram":
        return cst.SpmConverter(original).converted().to_str(), how + "SpmConverter"
    try:
        return cst.LlamaConverter(original).converted().to_str(), how + "LlamaConverter"
    except (AttributeError, TypeError):
        patched = type("LlamaConverter", (cst.LlamaConverter,), {"SpmExtractor": _ScoreOrderedMerges})
        return patched(original).converted().to_str(), (
            how + "LlamaConverter, merges from its generate_merges ordered by piece score (as transformers 4 "
            "did; transformers 5's SentencePieceExtractor no longer fits LlamaConverter)"
        )


def tokenizer_json(model: Path, kind: str, log) -> tuple[Path | None, str]:
    """(cached tokenizer.json path or None, how it was made or why not)."""
    digest = hashlib.sha256(model.read_bytes()).hexdigest()[:12]
    try:
        from importlib.metadata import version

        tv = version("transformers")
    except Exception:
        tv = "none"
    path = CACHE / f"{model.stem}-{digest}-transformers-{tv}.tokenizer.json"
    note = path.with_suffix(".how")
    if path.exists() and note.exists():
        return path, note.read_text(encoding="utf-8")
    try:
        t0 = time.perf_counter()
        text, how = convert(model, kind)
    except ImportError as e:
        return None, f"needs transformers for the slow->fast conversion ({e})"
    except Exception as e:
        return None, f"conversion failed: {type(e).__name__}: {e}"
    log(f"converted {model.name} to tokenizer.json in {time.perf_counter() - t0:.1f}s ({how})")
    CACHE.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    note.write_text(how, encoding="utf-8")
    return path, how


def describe_json(path: Path) -> str:
    doc = json.loads(path.read_text(encoding="utf-8"))

    def name(part):
        if not part:
            return "none"
        inner = part.get("normalizers") or part.get("pretokenizers")
        return "+".join(name(p) for p in inner) if inner else part["type"]

    return f"normalizer {name(doc['normalizer'])}, pre-tokenizer {name(doc['pre_tokenizer'])}, {doc['model']['type']}"


# --------------------------------------------------------------------------- encoders (run in the child)


def make_encoder(lib: str, model: str, hf_json: str | None) -> Lib:
    """A fresh tokenizer for `lib` (a _peers.Lib: encode / encode_batch / load_s / api)."""
    if lib == "tokenforge":
        _peers.import_tokenforge()
        from tokenforge.models.sentencepiece import SentencePieceModelEncoder

        enc, load = _peers._timed_load(
            lambda: SentencePieceModelEncoder.from_file(model), lambda e: e.encode(_peers.WARM)
        )
        batch = enc.encode_batch
        return Lib(
            lib,
            enc.encode,
            lambda ts, n: batch(ts, num_threads=n),
            load,
            "SentencePieceModelEncoder.from_file(path); .encode(t); .encode_batch(ts, num_threads=N)",
            _peers._version("tokenforge"),
        )
    if lib == "tokenforge-tokenizer":
        tf = _peers.import_tokenforge()
        try:
            tok, load = _peers._timed_load(
                lambda: tf.Tokenizer.from_file(model), lambda t: t.encode(_peers.WARM, add_special_tokens=False)
            )
        except Exception as e:
            raise Skip(f"tokenforge.Tokenizer.from_file does not load .model files here ({type(e).__name__}: {e})")
        tok.no_truncation()
        tok.no_padding()
        enc, batch = tok.encode, tok.encode_batch
        return Lib(
            lib,
            lambda t: enc(t, add_special_tokens=False).ids,
            lambda ts, n: [e.ids for e in batch(ts, add_special_tokens=False, num_threads=n)],
            load,
            "tokenforge.Tokenizer.from_file(path); .encode(t, add_special_tokens=False).ids; "
            "[e.ids for e in .encode_batch(ts, add_special_tokens=False, num_threads=N)]",
            _peers._version("tokenforge"),
        )
    if lib == "sentencepiece":
        try:
            import sentencepiece as spm
        except ImportError as e:
            raise Skip(f"sentencepiece not installed ({e})")
        sp, load = _peers._timed_load(
            lambda: spm.SentencePieceProcessor(model_file=model), lambda s: s.encode(_peers.WARM)
        )
        enc = sp.encode
        return Lib(
            lib,
            enc,
            lambda ts, n: enc(ts, num_threads=n),
            load,
            "SentencePieceProcessor(model_file=path); .encode(t); .encode(ts, num_threads=N)",
            _peers._version("sentencepiece"),
        )
    if hf_json is None:
        raise Skip("no tokenizer.json (see the conversion note)")
    if lib == "hf-tokenizers":
        try:
            import tokenizers
        except ImportError as e:
            raise Skip(f"tokenizers not installed ({e})")

        def build():
            tok = tokenizers.Tokenizer.from_file(hf_json)
            tok.encode_special_tokens = True  # "<s>" in the text is text, as in sentencepiece
            return tok

        tok, load = _peers._timed_load(build, lambda t: t.encode(_peers.WARM, add_special_tokens=False))
        enc, batch = tok.encode, tok.encode_batch_fast
        return Lib(
            lib,
            lambda t: enc(t, add_special_tokens=False).ids,
            lambda ts, n: [e.ids for e in batch(ts, add_special_tokens=False)],
            load,
            "Tokenizer.from_file(tokenizer.json), encode_special_tokens = True; "
            ".encode(t, add_special_tokens=False).ids; [e.ids for e in .encode_batch_fast(ts, "
            "add_special_tokens=False)] (rayon)",
            _peers._version("tokenizers"),
        )
    if lib == "fastokens":
        try:
            import fastokens
        except ImportError as e:
            raise Skip(f"fastokens not installed ({e})")
        try:
            tok, load = _peers._timed_load(
                lambda: fastokens.Tokenizer.from_file(hf_json), lambda t: t.encode_ordinary(_peers.WARM)
            )
        except Exception as e:
            raise Skip(f"fastokens cannot load the converted tokenizer.json ({type(e).__name__}: {e})")
        enc, batch = tok.encode_ordinary, tok.encode_batch
        return Lib(
            lib,
            lambda t: enc(t).ids,
            lambda ts, n: [e.ids for e in batch(ts, add_special_tokens=False, split_special_tokens=True)],
            load,
            "Tokenizer.from_file(tokenizer.json); .encode_ordinary(t).ids; [e.ids for e in "
            ".encode_batch(ts, add_special_tokens=False, split_special_tokens=True)]",
            _peers._version("fastokens"),
        )
    raise ValueError(lib)


def inputs(path: Path, limit: int | None) -> dict:
    docs = _enc.load_docs(path, limit)
    return {"docs": docs, "lines": [line for line in "".join(docs).split("\n") if line.strip()]}


def child_encode(job: dict) -> dict:
    """One library on one model over every corpus; fresh tokenizer per measurement."""
    _enc.configure_threads(job["threads"])  # before any Rust library starts its pool
    lib, threads = job["lib"], job["threads"]
    ref = None
    if job.get("ref_in"):
        with open(job["ref_in"], "rb") as f:
            ref = pickle.load(f)
    own_ref = {}
    pieces = None

    def decode(ids):
        return [pieces[i] if 0 <= i < len(pieces) else f"<{i}>" for i in ids]

    out = {"lib": lib, "results": []}
    try:
        first = make_encoder(lib, job["model"], job["hf_json"])
    except Skip as e:
        return {**out, "skipped": str(e)}
    except Exception as e:
        return {**out, "skipped": f"{type(e).__name__}: {e}"}
    out.update(load_s=first.load_s, api=first.api, version=first.version)
    del first
    for corpus, path in job["corpora"].items():
        texts_by_unit = inputs(Path(path), job["limit"])
        for unit in job["units"]:
            texts = texts_by_unit[unit]
            nbytes = sum(len(t.encode("utf-8")) for t in texts)
            for mode in job["modes"]:
                enc = make_encoder(lib, job["model"], job["hf_json"])
                rec = {
                    "corpus": corpus,
                    "unit": unit,
                    "mode": mode,
                    "bytes": nbytes,
                    "texts": len(texts),
                    "threads": 1 if mode == "single" else threads,
                    "load_s": enc.load_s,
                }
                times, cpus, ids = [], [], None
                try:
                    for _ in range(max(1, job["repeat"])):
                        dt, dc, ids = _enc.run_once(enc, mode, texts, threads)
                        times.append(dt)
                        cpus.append(dc)
                except Exception as e:
                    rec["error"] = f"{type(e).__name__}: {e}"
                    out["results"].append(rec)
                    print(
                        f"  {job['name']:12} {lib:14} {corpus:20} {unit:5} {mode:6} FAILED {rec['error']}",
                        file=sys.stderr,
                        flush=True,
                    )
                    continue
                del enc
                ids = [x if isinstance(x, list) else list(x) for x in ids]
                best = min(times)
                key = (corpus, unit)
                expected = ref.get(key) if ref is not None else own_ref.get(key)
                expected = [x.tolist() for x in expected] if expected is not None else None
                if job.get("ref_out") and key not in own_ref:
                    own_ref[key] = [array("I", x) for x in ids]  # the reference library's first mode
                if expected is not None:
                    if pieces is None:
                        import sentencepiece as spm  # only to name the pieces of a difference

                        sp = spm.SentencePieceProcessor(model_file=job["model"])
                        pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
                    bad, first_diff = _enc.compare(expected, ids, decode, ref_name="sentencepiece")
                else:  # the reference itself (its first mode), or nothing to check against
                    bad, first_diff = (0, None) if job.get("ref_out") else (None, None)
                rec.update(
                    times_s=times,
                    best_s=best,
                    mb_s=nbytes / MB / best,
                    first_mb_s=nbytes / MB / times[0],
                    cpu_per_wall=cpus[times.index(best)] / best,
                    tokens=sum(map(len, ids)),
                    mismatched=bad,
                    first_mismatch=first_diff,
                )
                out["results"].append(rec)
                print(
                    f"  {job['name']:12} {lib:14} {corpus:20} {unit:5} {mode:6} {rec['mb_s']:8.2f} MB/s "
                    f"(1st {rec['first_mb_s']:.2f})  cpu {rec['cpu_per_wall']:.2f}  "
                    f"{'ids not checked' if bad is None else f'{bad} of {len(texts)} differ' if bad else 'same ids'}",
                    file=sys.stderr,
                    flush=True,
                )
                del ids
    if job.get("ref_out"):
        with open(job["ref_out"], "wb") as f:
            pickle.dump(own_ref, f, protocol=pickle.HIGHEST_PROTOCOL)
    return out


# --------------------------------------------------------------------------- training (run in the child)


def _nmt_nfkc_model(pieces: list[tuple[str, float]], threads: int):
    """A sentencepiece Unigram .model around HF's pieces, with sentencepiece's defaults (nmt_nfkc)."""
    from importlib import resources

    from tokenforge.formats.sentencepiece_model import (
        NORMALIZER_SPEC,
        TRAINER_SPEC,
        ModelType,
        Piece,
        PieceType,
        SentencePieceModel,
        Spec,
    )

    types_ = {"<unk>": PieceType.UNKNOWN, "<s>": PieceType.CONTROL, "</s>": PieceType.CONTROL}
    trainer = Spec(TRAINER_SPEC)
    for k, v in (("model_type", ModelType.UNIGRAM), ("vocab_size", len(pieces)), ("num_threads", threads)):
        trainer[k] = v
    normalizer = Spec(NORMALIZER_SPEC)
    charsmap = resources.files("tokenforge").joinpath("data", "spm_rules", "nmt_nfkc.bin").read_bytes()
    for k, v in (
        ("name", "nmt_nfkc"),
        ("precompiled_charsmap", charsmap),
        ("add_dummy_prefix", True),
        ("remove_extra_whitespaces", True),
        ("escape_whitespaces", True),
    ):
        normalizer[k] = v
    return SentencePieceModel(
        [Piece(p, 0.0 if p in types_ else s, types_.get(p, PieceType.NORMAL)) for p, s in pieces], trainer, normalizer
    )


def child_train(job: dict) -> dict:
    lib, src, prefix, threads = job["lib"], job["input"], job["prefix"], job["threads"]
    start = time.perf_counter()
    if lib == "tokenforge":
        _peers.import_tokenforge()
        from tokenforge.trainers.sentencepiece import save_sentencepiece, train_sentencepiece

        # skip_long_lines: sentencepiece leaves lines over max_sentence_length out by default
        model = train_sentencepiece(src, vocab_size=VOCAB, num_threads=threads, skip_long_lines=True, progress=False)
        save_sentencepiece(model, prefix)
    elif lib == "sentencepiece":
        import sentencepiece as spm

        spm.SentencePieceTrainer.train(
            input=src, model_prefix=prefix, vocab_size=VOCAB, num_threads=threads, minloglevel=2
        )
    elif lib == "hf-tokenizers":
        from importlib import resources

        from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers

        _peers.import_tokenforge()
        charsmap = resources.files("tokenforge").joinpath("data", "spm_rules", "nmt_nfkc.bin").read_bytes()
        # sentencepiece's pipeline as transformers' SpmConverter writes it
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.Sequence(
            [normalizers.Precompiled(charsmap), normalizers.Strip(), normalizers.Replace(Regex(" {2,}"), " ")]
        )
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
        trainer = trainers.UnigramTrainer(
            vocab_size=VOCAB, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>", show_progress=False
        )
        tok.train([src], trainer)
        vocab = [tuple(p) for p in json.loads(tok.to_str())["model"]["vocab"]]
        _nmt_nfkc_model(vocab, threads).write(prefix + ".model")
    else:
        raise ValueError(lib)
    return {"lib": lib, "train_s": time.perf_counter() - start}


# --------------------------------------------------------------------------- parent


def run_child(kind: str, job: dict) -> tuple[dict | None, str, float, float]:
    """(child's JSON or None, last stderr line on failure, wall s, peak RSS MB) of a fresh process."""
    # encode children print progress to our stderr; a trainer's stderr is kept for its failure line
    with tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, __file__, f"--child-{kind}", json.dumps(job)],
            stdout=subprocess.PIPE,
            stderr=err if kind == "train" else None,
            text=True,
        )
        stdout = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage: its peak RSS
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        err.seek(0)
        stderr = err.read()
    if proc.returncode != 0 or not stdout.strip():
        last = (stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return None, last, wall, usage.ru_maxrss / 1024
    return json.loads(stdout.strip().splitlines()[-1]), "", wall, usage.ru_maxrss / 1024


def split_corpus(path: Path) -> tuple[Path, list[str]]:
    """(training file = the corpus minus its last HELD_OUT, cut at a line end; held-out lines)."""
    data = path.read_bytes()
    cut = data.index(b"\n", int(len(data) * (1 - HELD_OUT))) + 1
    train = CACHE / f"{path.stem}-{len(data)}-train{int(100 * (1 - HELD_OUT))}.txt"
    if not train.exists() or train.stat().st_size != cut:
        CACHE.mkdir(exist_ok=True)
        tmp = train.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data[:cut])
        tmp.replace(train)
    held = [line for line in data[cut:].decode("utf-8").split("\n") if line.strip()]
    return train, held


def bench_training(args, log) -> dict:
    import sentencepiece as spm

    train_path, held = split_corpus(args.shared / "corpus" / "en-linuxdoc.txt")
    held_bytes = sum(len(line.encode("utf-8")) for line in held)
    libs = [lib for lib in TRAINERS if lib != "hf-tokenizers" or args.with_hf_train]
    out = {
        "train_mb": train_path.stat().st_size / MB,
        "held_out_mb": held_bytes / MB,
        "held_out_lines": len(held),
        "results": [],
        "skipped": [],
    }
    models_dir = CACHE / "trained"
    models_dir.mkdir(parents=True, exist_ok=True)
    pieces = {}
    for lib in libs:
        prefix = str(models_dir / f"{lib}-{VOCAB}")
        for suffix in (".model", ".vocab"):
            Path(prefix + suffix).unlink(missing_ok=True)
        log(f"training: {lib} on {train_path.name} ({out['train_mb']:.1f} MB), {VOCAB} pieces ...")
        res, why, wall, rss = run_child(
            "train", {"lib": lib, "input": str(train_path), "prefix": prefix, "threads": args.threads}
        )
        if res is None:
            out["skipped"].append((lib, why))
            log(f"  {lib} failed: {why}")
            continue
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        tokens = sum(map(len, sp.encode(held)))
        pieces[lib] = {sp.id_to_piece(i) for i in range(sp.get_piece_size())}
        res.update(
            wall_s=wall,
            peak_rss_mb=rss,
            pieces=sp.get_piece_size(),
            held_out_tokens=tokens,
            held_out_bytes_per_token=held_bytes / tokens,
        )
        out["results"].append(res)
        log(
            f"  {lib}: {res['train_s']:.2f} s training ({wall:.2f} s process), peak RSS {rss:.0f} MB, "
            f"held-out {res['held_out_bytes_per_token']:.4f} bytes/token"
        )
    for r in out["results"]:
        if "sentencepiece" in pieces:
            r["shared_with_sentencepiece"] = len(pieces[r["lib"]] & pieces["sentencepiece"])
    return out


def bench_encoding(args, corpora: dict, log) -> dict:
    models = {}
    for name in args.only:
        kind, where = MODELS[name]
        path = args.shared / where if kind == "bpe" else unigram_model(args.shared, log)
        hf_json, how = tokenizer_json(path, kind, log)
        models[name] = {
            "kind": kind,
            "path": str(path),
            "source": where,
            "hf_json": str(hf_json) if hf_json else None,
            "conversion": how,
            "hf_pipeline": describe_json(hf_json) if hf_json else None,
        }
    out = {"models": models, "runs": []}
    libs = sorted(args.libs, key=lambda lib: lib != "sentencepiece")  # the reference runs first
    with tempfile.TemporaryDirectory(prefix="tokenforge-spm-bench-") as tmp:
        for name, m in models.items():
            ref = Path(tmp) / f"{name}.ref.pickle"
            for lib in libs:
                job = {
                    "name": name,
                    "lib": lib,
                    "model": m["path"],
                    "hf_json": m["hf_json"],
                    "corpora": {c: str(p) for c, p in corpora.items()},
                    "limit": args.limit,
                    "units": args.units,
                    "modes": args.modes,
                    "repeat": args.repeat,
                    "threads": args.threads,
                    "ref_out": str(ref) if lib == "sentencepiece" else None,
                    "ref_in": str(ref) if lib != "sentencepiece" and ref.exists() else None,
                }
                res, why, _, _ = run_child("encode", job)
                if res is None:
                    res = {"lib": lib, "skipped": f"crashed: {why}", "results": []}
                res["model"] = name
                if "skipped" in res:
                    log(f"skipped: {lib} [{name}]: {res['skipped']}")
                out["runs"].append(res)
    return out


# --------------------------------------------------------------------------- report


def render(args, corpora, enc, train, started, elapsed) -> str:
    m = _enc.machine()
    out = ["# tokenforge sentencepiece benchmark", ""]
    if args.note:
        out += [f"**{args.note}**", ""]
    load = os.getloadavg()
    out.append(
        f"{m['cpu']} ({m['cores']} cores), Python {m['python']}, {time.strftime('%Y-%m-%d %H:%M', started)}; "
        f"load average at start {args.load_start[0]:.1f}, at end {load[0]:.1f}. "
        f"Command: `{shlex.join(['python', 'bench/spm_peers.py', *args.argv])}`"
    )
    versions = {
        dist: _peers._version(dist)
        for dist in ("tokenforge", "sentencepiece", "tokenizers", "fastokens", "transformers")
    }
    out += ["Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v != "?"), ""]
    if enc:
        out += render_encoding(args, corpora, enc)
    if train:
        out += render_training(train)
    out.append(f"Total bench time {elapsed:.0f} s.")
    return "\n".join(out) + "\n"


def _cell(r, key="mb_s"):
    return _enc.fmt_speed(r[key]) if r and "error" not in r else "—"


def render_encoding(args, corpora, enc) -> list:
    out = ["## A. Encode", ""]
    out.append(
        f"First {args.mb:g} MB of each corpus ({', '.join(corpora)}) as 8 KB documents and as lines; "
        f"single = one thread, a Python loop over the texts; batch = the library's batch call, "
        f"{args.threads} threads. MB/s of UTF-8 input, best of {args.repeat} runs, each measurement on a "
        f'freshly loaded tokenizer; "1st" = its first run (cold). tf ÷ lib = tokenforge MB/s ÷ lib MB/s. '
        f"Each library runs in its own process."
    )
    out.append("")
    for name, m in enc["models"].items():
        out.append(
            f"- **{name}** ({m['kind']}): {m['source']}. tokenizer.json for hf-tokenizers / fastokens: "
            + (f"{m['conversion']} ({m['hf_pipeline']})." if m["hf_json"] else f"none: {m['conversion']}.")
        )
    out.append("")
    runs = [r for r in enc["runs"] if "skipped" not in r]
    by = {(r["model"], x["corpus"], x["unit"], x["mode"], r["lib"]): x for r in runs for x in r["results"]}
    libs = [lib for lib in ENCODERS if any(r["lib"] == lib for r in runs)]
    peers = [lib for lib in libs if lib != "tokenforge"]
    combos = [(u, md) for u in args.units for md in args.modes]

    def total(model, unit, mode, lib, key):
        rs = [by.get((model, c, unit, mode, lib)) for c in corpora]
        if not all(rs) or any("error" in r for r in rs):
            return None
        return sum(r["bytes"] for r in rs) / MB / sum(r["best_s"] if key == "best" else r["times_s"][0] for r in rs)

    for key, title in (("best", f"best of {args.repeat}"), ("first", "1st run (cold)")):
        out += [f"### All corpora together, {title} (MB/s; total bytes ÷ total time)", ""]
        rows = []
        for model in enc["models"]:
            for unit, mode in combos:
                speeds = {lib: total(model, unit, mode, lib, key) for lib in libs}
                if not any(speeds.values()):
                    continue
                rows.append(
                    [model, UNITS[unit], mode if mode == "single" else f"batch {args.threads}T"]
                    + [_enc.fmt_speed(speeds[lib]) for lib in libs]
                    + [_enc.fmt_ratio(speeds.get("tokenforge"), speeds[lib]) for lib in peers]
                )
        out += [
            _enc.md_table(
                ["model", "input", "mode"] + libs + [f"tf ÷ {lib}" for lib in peers],
                rows,
                ["l", "l", "l"] + ["r"] * (len(libs) + len(peers)),
            ),
            "",
        ]

    for model in enc["models"]:
        for unit, mode in combos:
            if not any(by.get((model, c, unit, mode, lib)) for c in corpora for lib in libs):
                continue
            label = "1 thread" if mode == "single" else f"batch, {args.threads} threads"
            out += [f"### {model}, {UNITS[unit]}, {label} (MB/s, best (1st run))", ""]
            rows = []
            for c in corpora:
                rs = {lib: by.get((model, c, unit, mode, lib)) for lib in libs}
                any_r = next((r for r in rs.values() if r), None)
                if any_r is None:
                    continue
                tf = rs.get("tokenforge")
                rows.append(
                    [c, f"{any_r['bytes'] / MB:.2f}", str(any_r["texts"])]
                    + [
                        f"{_cell(r)} ({_cell(r, 'first_mb_s')})" if r and "error" not in r else "failed" if r else "—"
                        for r in rs.values()
                    ]
                    + [
                        _enc.fmt_ratio(tf and tf.get("mb_s"), r and r.get("mb_s"))
                        for lib, r in rs.items()
                        if lib != "tokenforge"
                    ]
                )
            out += [
                _enc.md_table(
                    ["corpus", "MB", "texts"] + libs + [f"tf ÷ {lib}" for lib in peers],
                    rows,
                    ["l", "r", "r"] + ["r"] * (len(libs) + len(peers)),
                ),
                "",
            ]

    out += ["### Ids against sentencepiece (texts whose ids differ, all corpora)", ""]
    rows, firsts = [], []
    for r in runs:
        row = [r["model"], r["lib"]]
        for unit, mode in combos:
            xs = [x for x in r["results"] if x["unit"] == unit and x["mode"] == mode and "error" not in x]
            if r["lib"] == "sentencepiece" and mode == args.modes[0]:
                row.append("(reference)")
                continue
            if not xs or any(x["mismatched"] is None for x in xs):
                row.append("not checked")
                continue
            bad, n = sum(x["mismatched"] for x in xs), sum(x["texts"] for x in xs)
            worst = sorted((x for x in xs if x["mismatched"]), key=lambda x: -x["mismatched"])[:3]
            row.append(
                ("same" if bad == 0 else f"{bad} of {n} differ")
                + (" (" + ", ".join(f"{x['corpus']} {x['mismatched']}" for x in worst) + ")" if worst else "")
            )
            for x in xs:
                if x["first_mismatch"] and not any(f[:2] == (r["model"], r["lib"]) for f in firsts):
                    firsts.append((r["model"], r["lib"], f"{x['corpus']} {UNITS[unit]} {mode}: {x['first_mismatch']}"))
        rows.append(row)
    out += [_enc.md_table(["model", "library"] + [f"{UNITS[u]}, {md}" for u, md in combos], rows), ""]
    if firsts:
        out += ["First difference per library:", ""] + [f"- {m} {lib}: {s}" for m, lib, s in firsts] + [""]

    out += ["### Libraries", ""]
    rows = []
    for r in enc["runs"]:
        if "skipped" in r:
            rows.append([r["model"], r["lib"], "—", "—", f"skipped: {r['skipped']}"])
            continue
        batch = [x for x in r["results"] if x["mode"] == "batch" and "error" not in x]
        cpu = (sum(x["cpu_per_wall"] * x["best_s"] for x in batch) / sum(x["best_s"] for x in batch)) if batch else None
        rows.append([r["model"], r["lib"], f"{r['load_s']:.3f}", f"{cpu:.2f}" if cpu else "—", f"`{r['api']}`"])
    out += [
        _enc.md_table(
            ["model", "library", "load s", "batch cpu ÷ wall", "calls timed"], rows, ["l", "l", "r", "r", "l"]
        ),
        "",
    ]
    failed = [(r["model"], r["lib"], x) for r in runs for x in r["results"] if "error" in x]
    if failed:
        out += (
            ["Failed:", ""]
            + [f"- {m} {lib} {x['corpus']} {x['unit']} {x['mode']}: {x['error']}" for m, lib, x in failed]
            + [""]
        )
    return out


def render_training(train) -> list:
    out = ["## B. Unigram training", ""]
    out.append(
        f"{VOCAB} pieces on en-linuxdoc minus its last {HELD_OUT:.0%} ({train['train_mb']:.1f} MB; cut at a line "
        f"end), each library in a fresh process. train s = the training call plus writing the model, inside "
        f"the process; process s = the whole process (interpreter, imports); peak RSS = that process's. "
        f"Held-out: the last {HELD_OUT:.0%} ({train['held_out_mb']:.2f} MB, {train['held_out_lines']:,} "
        f"non-empty lines), encoded by sentencepiece loading each trained .model; bytes/token of UTF-8 "
        f"(higher compresses better)."
    )
    out.append("")
    rows = []
    ours = next((r for r in train["results"] if r["lib"] == "tokenforge"), None)
    for r in train["results"]:
        rows.append(
            [
                r["lib"],
                f"{r['train_s']:.2f}",
                f"{r['wall_s']:.2f}",
                f"{r['train_s'] / ours['train_s']:.2f}×" if ours else "—",
                f"{r['peak_rss_mb']:.0f}",
                str(r["pieces"]),
                f"{r['held_out_bytes_per_token']:.4f}",
                str(r.get("shared_with_sentencepiece", "—")),
            ]
        )
    out += [
        _enc.md_table(
            [
                "library",
                "train s",
                "process s",
                "lib s ÷ tf s",
                "peak RSS MB",
                "pieces",
                "held-out bytes/token",
                "pieces shared with sentencepiece's",
            ],
            rows,
            ["l"] + ["r"] * 7,
        ),
        "",
    ]
    out += [f"- skipped {lib}: {why}" for lib, why in train["skipped"]]
    if any(r["lib"] == "hf-tokenizers" for r in train["results"]):
        out.append(
            "HF's UnigramTrainer has none of sentencepiece's piece rules (split_by_unicode_script, "
            "split_by_number), so many of its pieces join letters with punctuation or "
            "digits (`▁example,`, `(struct`, `▁SPDX-License`), which sentencepiece and tokenforge never make: "
            "its held-out bytes/token is not comparable with theirs."
        )
        out.append("")
    out.append(
        "Calls: tokenforge `train_sentencepiece(path, vocab_size=32000, num_threads=N, skip_long_lines=True, "
        "progress=False)` + `save_sentencepiece`; sentencepiece `SentencePieceTrainer.train(input=path, "
        "model_prefix=..., vocab_size=32000, num_threads=N)`; HF tokenizers (--with-hf-train) "
        "`UnigramTrainer(vocab_size=32000, special_tokens=[<unk>, <s>, </s>])` behind SpmConverter's nmt_nfkc "
        "pipeline (Precompiled + Strip + Replace, Metaspace), its pieces written as a sentencepiece .model. "
        "Everything else is each library's default."
    )
    out.append("")
    return out


# --------------------------------------------------------------------------- main


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0, help="MB (10**6 bytes) from the start of each corpus (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, the best is kept (default 3)")
    ap.add_argument(
        "--only",
        help=f"comma list of models to encode with (default all): {', '.join(MODELS)} "
        "(a prefix is enough: mistral, unigram)",
    )
    ap.add_argument("--corpus", help="comma list of corpora (globs ok: 'man-*', or just 'ja'); default all")
    ap.add_argument("--libs", default=",".join(ENCODERS), help="comma list of encoding libraries (default all)")
    ap.add_argument("--units", default="docs,lines", help="comma list of docs (8 KB documents), lines")
    ap.add_argument("--modes", default="single,batch", help="comma list of single, batch")
    ap.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="threads for batch mode and training (default: cpu count)",
    )
    ap.add_argument("--skip-train", action="store_true", help="no training benchmark (part B)")
    ap.add_argument("--skip-encode", action="store_true", help="no encoding benchmark (part A)")
    ap.add_argument("--with-hf-train", action="store_true", help="also train with HF tokenizers' UnigramTrainer (slow)")
    ap.add_argument("--note", help="a line put at the top of the results (e.g. 'taken on a busy machine')")
    ap.add_argument("--shared", type=Path, default=_enc.DEFAULT_SHARED, help="where corpus/ and vocab/ are")
    ap.add_argument(
        "--extra-corpora",
        type=Path,
        help="a folder whose *.txt files are corpora too, named local-<stem> (bench/make_local_corpus.py)",
    )
    ap.add_argument("--out", type=Path, default=HERE / "sentencepiece_results.md", help="markdown results file")
    ap.add_argument("--json", type=Path, help="also write every measurement here")
    ap.add_argument("--child-encode", help=argparse.SUPPRESS)
    ap.add_argument("--child-train", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    for opt, allowed in (("units", UNITS), ("modes", ("single", "batch")), ("libs", ENCODERS)):
        values = [v.strip() for v in getattr(args, opt).split(",") if v.strip()]
        for v in values:
            if v not in allowed:
                ap.error(f"unknown {opt[:-1]} {v!r}; choose from {', '.join(allowed)}")
        setattr(args, opt, values)
    only = [v.strip() for v in (args.only or ",".join(MODELS)).split(",") if v.strip()]
    args.only = []
    for v in only:
        hits = [m for m in MODELS if m.startswith(v)]
        if not hits:
            ap.error(f"unknown model {v!r}; choose from {', '.join(MODELS)}")
        args.only += [h for h in hits if h not in args.only]
    args.limit = int(args.mb * MB) if args.mb and args.mb > 0 else None
    return args


def main(argv=None) -> int:
    import faulthandler

    faulthandler.enable()  # a native crash names the library that was running
    args = parse_args(argv)
    if args.child_encode or args.child_train:
        job = json.loads(args.child_encode or args.child_train)
        print(json.dumps(child_encode(job) if args.child_encode else child_train(job)))
        return 0
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        sys.exit("the benchmark needs sentencepiece as its reference: pip install '.[test]'")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    args.load_start = os.getloadavg()
    started, t0 = time.localtime(), time.perf_counter()
    paths = _enc.corpus_paths(args.shared)
    if args.extra_corpora:
        paths.update({f"local-{p.stem}": p for p in sorted(args.extra_corpora.glob("*.txt"))})
    corpora = {c: paths[c] for c in _enc.select_corpora(list(paths), args.corpus)}
    enc = None if args.skip_encode else bench_encoding(args, corpora, log)
    train = None if args.skip_train else bench_training(args, log)
    report = render(args, list(corpora), enc, train, started, time.perf_counter() - t0)
    print(report)
    args.out.write_text(report, encoding="utf-8")
    log(f"wrote {args.out}")
    if args.json:
        args.json.write_text(
            json.dumps({"machine": _enc.machine(), "argv": args.argv, "encode": enc, "train": train}, indent=1),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
