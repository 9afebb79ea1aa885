"""Adapters that give every tokenizer under test the same two calls.

Each ``make_*`` function returns a :class:`Lib` or raises :class:`Skip` with a
one-line reason (package missing, encoding unsupported, ...). A ``Lib`` has

* ``encode(text) -> list[int]``            -- one document, calling thread only
* ``encode_batch(texts, threads) -> list[list[int]]`` -- the library's own batch call

and records how long construction took (``load_s``, including one tiny warm-up
encode so lazily built state is counted there and not in the first timed run).

Everything here works offline: tiktoken reads copies of the shared ``.tiktoken``
files from a private ``TIKTOKEN_CACHE_DIR``; the HF ``tokenizers`` / tokie
models are built in memory from the same ranks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ENCODINGS = ("cl100k_base", "o200k_base", "p50k_base", "r50k_base")

# tiktoken's cache key is sha1(download URL); see tiktoken.load.read_file_cached.
TIKTOKEN_CACHE_KEYS = {
    "cl100k_base": "9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
    "o200k_base": "fb374d419588a4632f3f557e76b4b70aebbca790",
    "p50k_base": "ec7223a39ce59f226a68acc30dc1af2788490e15",
    "r50k_base": "0ea1e91bbb3a60f729a8dc8f777fd2fc07cd8df4",
}
# sha256 tiktoken_ext.openai_public expects for each file.
TIKTOKEN_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "p50k_base": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
}

R50K_LINES = 50256  # r50k_base.tiktoken == the first 50256 lines of p50k_base.tiktoken


class Skip(Exception):
    """The library cannot run here; the message says why."""


@dataclass
class Lib:
    name: str
    encode: Callable[[str], list[int]]
    encode_batch: Callable[[Sequence[str], int], list[list[int]]]
    load_s: float
    api: str  # human-readable description of the calls that are timed
    version: str = ""
    notes: list[str] = field(default_factory=list)


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return "?"


# --------------------------------------------------------------------------- context


class Context:
    """Shared, per-run state: where the vocab files are, the offline tiktoken cache,
    the patterns/ranks per encoding, and a cache for the derived HF tokenizer.json."""

    def __init__(self, shared_dir: Path, work_dir: Path | None = None) -> None:
        self.shared_dir = Path(shared_dir)
        self.vocab_dir = self.shared_dir / "vocab"
        self._tmp = tempfile.TemporaryDirectory(prefix="tokenforge-bench-")
        self.tmp = Path(self._tmp.name)
        # derived artefacts (HF json) are cached across runs here
        self.cache_dir = Path(
            work_dir
            or os.environ.get("TOKENFORGE_BENCH_CACHE")
            or Path(tempfile.gettempdir()) / "tokenforge-bench-cache"
        )
        self.tiktoken_cache = self.tmp / "tiktoken-cache"
        self.tiktoken_cache.mkdir()
        self._ranks: dict[str, dict[bytes, int]] = {}
        self._hf_json: dict[str, str] = {}
        self.hf_prep_s: dict[str, float] = {}
        self._tiktoken_encs: dict[str, object] = {}
        self._populate_tiktoken_cache()

    def close(self) -> None:
        self._tmp.cleanup()

    # ---- vocab files
    def vocab_bytes(self, name: str) -> bytes:
        if name == "r50k_base":
            p = self.vocab_dir / "r50k_base.tiktoken"
            if p.exists():
                return p.read_bytes()
            src = (self.vocab_dir / "p50k_base.tiktoken").read_bytes()
            return b"".join(src.splitlines(keepends=True)[:R50K_LINES])
        return (self.vocab_dir / f"{name}.tiktoken").read_bytes()

    def vocab_path(self, name: str) -> Path:
        """A path to the .tiktoken file (r50k is materialised in the temp dir)."""
        p = self.vocab_dir / f"{name}.tiktoken"
        if p.exists():
            return p
        out = self.tmp / f"{name}.tiktoken"
        if not out.exists():
            out.write_bytes(self.vocab_bytes(name))
        return out

    def _populate_tiktoken_cache(self) -> None:
        for name, key in TIKTOKEN_CACHE_KEYS.items():
            try:
                data = self.vocab_bytes(name)
            except FileNotFoundError:
                continue
            if hashlib.sha256(data).hexdigest() != TIKTOKEN_SHA256[name]:
                # tiktoken would delete it and try to download; better to say so now.
                print(f"warning: {name}.tiktoken does not have the sha256 tiktoken expects")
                continue
            (self.tiktoken_cache / key).write_bytes(data)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(self.tiktoken_cache)

    # ---- tiktoken reference (patterns, specials) -- None when tiktoken is absent
    def tiktoken_encoding(self, name: str):
        if name not in self._tiktoken_encs:
            try:
                import tiktoken
            except ImportError:
                self._tiktoken_encs[name] = None
            else:
                self._tiktoken_encs[name] = tiktoken.get_encoding(name)
        return self._tiktoken_encs[name]

    def _reference(self, name: str):
        enc = self.tiktoken_encoding(name)  # tiktoken_ext.openai_public is the source of truth
        if enc is None:
            raise SystemExit("the benchmark needs tiktoken as its reference: pip install '.[bench]'")
        return enc

    def pattern(self, name: str) -> str:
        return self._reference(name)._pat_str

    def special_tokens(self, name: str) -> dict[str, int]:
        return dict(self._reference(name)._special_tokens)

    def ranks(self, name: str) -> dict[bytes, int]:
        if name not in self._ranks:
            ranks: dict[bytes, int] = {}
            for line in self.vocab_bytes(name).splitlines():
                if line:
                    tok, rank = line.split()
                    ranks[base64.b64decode(tok)] = int(rank)
            self._ranks[name] = ranks
        return self._ranks[name]

    # ---- HF tokenizer.json derived from the ranks
    def hf_json(self, name: str) -> str:
        if name in self._hf_json:
            return self._hf_json[name]
        hf_json = import_tokenforge().formats.hf_tokenizer_json
        pat = hf_json.hf_split_pattern(self.pattern(name))
        gpt2 = name in GPT2_STYLE
        key = hashlib.sha256(self.vocab_bytes(name) + pat.encode() + (b"gpt2" if gpt2 else b"") + b"v1").hexdigest()[
            :16
        ]
        cached = self.cache_dir / f"{name}-{key}.tokenizer.json"
        t0 = time.perf_counter()
        if cached.exists():
            text = cached.read_text(encoding="utf-8")
        else:
            doc = hf_json.tokenizer_json(self.ranks(name), self.pattern(name), gpt2_style=gpt2)
            text = json.dumps(doc, ensure_ascii=False)
            try:
                self.cache_dir.mkdir(parents=True, exist_ok=True)
                tmp = cached.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(cached)
            except OSError:
                pass
        self.hf_prep_s[name] = time.perf_counter() - t0
        self._hf_json[name] = text
        return text

    def hf_json_path(self, name: str) -> Path:
        p = self.tmp / f"{name}.tokenizer.json"
        if not p.exists():
            p.write_text(self.hf_json(name), encoding="utf-8")
        return p


# --------------------------------------------------------------------------- HF json


# r50k/p50k are GPT-2's vocabulary: give HF/tokie GPT-2's own tokenizer.json form (the
# ByteLevel pre-tokenizer with its built-in regex, which tiktoken_ext documents as equivalent
# to r50k's pattern). tokie handles that form exactly; with an explicit Split it does not.
GPT2_STYLE = ("p50k_base", "r50k_base")


# --------------------------------------------------------------------------- adapters


def _timed_load(build: Callable[[], object], warm: Callable[[object], object]):
    t0 = time.perf_counter()
    obj = build()
    warm(obj)
    return obj, time.perf_counter() - t0


WARM = "Warm-up: hello world 123 ünïcödé 你好\n"


def import_tokenforge():
    """tokenforge as installed, or else from this checkout's src/ (once built in place)."""
    import importlib
    import sys

    try:
        importlib.import_module("tokenforge.formats.gpt2_files")
        return sys.modules["tokenforge"]
    except ImportError as first:
        src = Path(__file__).resolve().parent.parent / "src"
        if not src.is_dir() or str(src) in sys.path:
            raise Skip(f"tokenforge not importable ({first})")
        sys.path.insert(0, str(src))
        for mod in [m for m in sys.modules if m == "tokenforge" or m.startswith("tokenforge.")]:
            sys.modules.pop(mod)
        try:
            importlib.import_module("tokenforge.formats.gpt2_files")
            return sys.modules["tokenforge"]
        except Exception as e:
            raise Skip(f"tokenforge not importable ({first}; from src/: {type(e).__name__}: {e})")


def make_tokenforge(name: str, ctx: Context) -> Lib:
    tf = import_tokenforge()
    # get_encoding shares one instance per process (with its warm piece tables): forget it, so
    # every Lib is a fresh encoder and load_s and a first run are honest
    import importlib

    importlib.import_module("tokenforge.registry")._loaded.pop(name, None)
    try:
        enc, load = _timed_load(lambda: tf.get_encoding(name), lambda e: e.encode_ordinary(WARM))
    except Exception as e:
        raise Skip(f"tokenforge.get_encoding({name!r}) failed: {type(e).__name__}: {e}")
    batch = enc.encode_ordinary_batch
    return Lib(
        name="tokenforge",
        encode=enc.encode_ordinary,
        encode_batch=lambda texts, n: batch(texts, num_threads=n),
        load_s=load,
        api="get_encoding(name) (minus its cache); .encode_ordinary(t); .encode_ordinary_batch(ts, num_threads=N)",
        version=getattr(tf, "__version__", _version("tokenforge")),
    )


def make_tokenforge_tokenizer(name: str, ctx: Context) -> Lib:
    """tokenforge's byte-level BPE as a Tokenizer (rows with offsets, type ids, masks): what the
    HF-shaped surface costs over Encoding's bare ids."""
    tf = import_tokenforge()
    try:
        tok, load = _timed_load(lambda: tf.get_tokenizer(name), lambda t: t.encode(WARM, disallowed_special=()))
    except Exception as e:
        raise Skip(f"tokenforge.get_tokenizer({name!r}) failed: {type(e).__name__}: {e}")
    return Lib(
        name="tf-Tokenizer",
        encode=lambda t: tok.encode(t, disallowed_special=()).ids,
        encode_batch=lambda texts, n: [e.ids for e in tok.encode_batch(texts, num_threads=n, disallowed_special=())],
        load_s=load,
        api="get_tokenizer(name); .encode(t, disallowed_special=()).ids; [e.ids for e in .encode_batch(ts)]",
        version=getattr(tf, "__version__", _version("tokenforge")),
    )


def make_tiktoken(name: str, ctx: Context) -> Lib:
    try:
        import tiktoken
    except ImportError as e:
        raise Skip(f"tiktoken not installed ({e})")
    if not (ctx.tiktoken_cache / TIKTOKEN_CACHE_KEYS[name]).exists():
        raise Skip(f"no usable {name}.tiktoken under {ctx.vocab_dir}")
    import tiktoken

    # get_encoding caches its result; build a fresh Encoding so load_s is honest
    import tiktoken_ext.openai_public as op

    def build():
        return tiktoken.Encoding(**getattr(op, name)())

    enc, load = _timed_load(build, lambda e: e.encode_ordinary(WARM))
    batch = enc.encode_ordinary_batch
    return Lib(
        name="tiktoken",
        encode=enc.encode_ordinary,
        encode_batch=lambda texts, n: batch(texts, num_threads=n),
        load_s=load,
        api="tiktoken.Encoding(**tiktoken_ext.openai_public.<name>()) (get_encoding minus its cache); "
        ".encode_ordinary(t); .encode_ordinary_batch(ts, num_threads=N)",
        version=_version("tiktoken"),
    )


FASTOKENS_PRESETS = ("cl100k_base", "o200k_base")


def make_fastokens(name: str, ctx: Context) -> Lib:
    try:
        import fastokens
    except ImportError as e:
        raise Skip(f"fastokens not installed ({e})")
    path, pat, specials = str(ctx.vocab_path(name)), ctx.pattern(name), ctx.special_tokens(name)
    # fastokens' hand-written scanner runs only for pattern strings it recognizes verbatim, and
    # tiktoken's cl100k pattern is not one of them; its presets always take the fast path.
    if name in FASTOKENS_PRESETS:
        make = lambda: fastokens.Tokenizer.from_tiktoken(path, encoding=name)
        how = f"encoding={name!r}"
    else:
        make = lambda: fastokens.Tokenizer.from_tiktoken(path, pattern=pat, special_tokens=specials)
        how = "pattern=pat, special_tokens=sp"
    tok, load = _timed_load(make, lambda t: t.encode_ordinary(WARM).ids)
    enc_ord = tok.encode_ordinary
    enc_batch = tok.encode_batch

    def encode_batch(texts, n):
        # split_special_tokens=True: special-token text is plain text, as in encode_ordinary.
        # Threads: fastokens' own pool / rayon, sized by env at import (see encode.py).
        return [e.ids for e in enc_batch(texts, add_special_tokens=False, split_special_tokens=True)]

    return Lib(
        name="fastokens",
        encode=lambda t: enc_ord(t).ids,
        encode_batch=encode_batch,
        load_s=load,
        api=f"Tokenizer.from_tiktoken(path, {how}); .encode_ordinary(t).ids; "
        "[e.ids for e in .encode_batch(ts, add_special_tokens=False, split_special_tokens=True)]",
        version=_version("fastokens"),
    )


def make_bpe_openai(name: str, ctx: Context) -> Lib:
    try:
        import bpe_openai
        from bpe_openai import _bindings
    except ImportError as e:
        raise Skip(f"bpe-openai not installed ({e})")
    supported = list(_bindings.supported_encodings())
    if name not in supported:
        raise Skip(f"bpe-openai's Rust backend has no {name} (has {', '.join(supported)})")
    enc, load = _timed_load(lambda: bpe_openai.get_encoding(name), lambda e: e.encode_ordinary(WARM))
    batch = enc.encode_ordinary_batch
    return Lib(
        name="bpe-openai",
        encode=enc.encode_ordinary,
        encode_batch=lambda texts, n: batch(texts, num_threads=n),
        load_s=load,
        api="bpe_openai.get_encoding(name) (bundled vocab); .encode_ordinary(t); "
        ".encode_ordinary_batch(ts, num_threads=N) (a Python ThreadPoolExecutor)",
        version=_version("bpe-openai"),
    )


def make_tokie(name: str, ctx: Context) -> Lib:
    try:
        import tokie
    except ImportError as e:
        raise Skip(f"tokie not installed ({e})")
    path = str(ctx.hf_json_path(name))  # prep (json build) is not counted in load_s
    tok, load = _timed_load(lambda: tokie.Tokenizer.from_json(path), lambda t: t.encode(WARM, add_special_tokens=False))
    enc = tok.encode
    enc_batch = tok.encode_batch
    return Lib(
        name="tokie",
        encode=lambda t: enc(t, add_special_tokens=False).ids,
        encode_batch=lambda texts, n: [e.ids for e in enc_batch(texts, add_special_tokens=False)],
        load_s=load,
        api="tokie.Tokenizer.from_json(<derived tokenizer.json>); .encode(t, add_special_tokens=False).ids; "
        "[e.ids for e in .encode_batch(ts, add_special_tokens=False)] (rayon)",
        version=_version("tokie"),
    )


def make_hf_tokenizers(name: str, ctx: Context) -> Lib:
    try:
        import tokenizers
    except ImportError as e:
        raise Skip(f"tokenizers not installed ({e})")
    text = ctx.hf_json(name)
    tok, load = _timed_load(
        lambda: tokenizers.Tokenizer.from_str(text), lambda t: t.encode(WARM, add_special_tokens=False)
    )
    enc = tok.encode
    fast = getattr(tok, "encode_batch_fast", None)
    enc_batch = fast or tok.encode_batch
    return Lib(
        name="hf-tokenizers",
        encode=lambda t: enc(t, add_special_tokens=False).ids,
        encode_batch=lambda texts, n: [e.ids for e in enc_batch(texts, add_special_tokens=False)],
        load_s=load,
        api="tokenizers.Tokenizer.from_str(<derived tokenizer.json>); .encode(t, add_special_tokens=False).ids; "
        f"[e.ids for e in .{'encode_batch_fast' if fast else 'encode_batch'}(ts, add_special_tokens=False)] (rayon)",
        version=_version("tokenizers"),
    )


# name -> factory, in table order
FACTORIES = {
    "tokenforge": make_tokenforge,
    "tf-Tokenizer": make_tokenforge_tokenizer,
    "tiktoken": make_tiktoken,
    "fastokens": make_fastokens,
    "bpe-openai": make_bpe_openai,
    "tokie": make_tokie,
    "hf-tokenizers": make_hf_tokenizers,
}
