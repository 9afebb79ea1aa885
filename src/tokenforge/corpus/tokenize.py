"""`tokenize_files()`: a corpus to token shards, on every core, streaming, resumable.

The run: expand the inputs (inputs.py), resolve the tokenizer, separator and dtype
(worker.py), compare with a finished manifest or an unfinished journal in the output folder
(manifest.py, resume.py), cut the inputs into units (inputs.plan), run `worker.encode_unit` for
each unit on the executor with at most `2 * workers + 2` units in flight, and take the results in
unit order into shards (shards.py), journaling each shard. Order is fixed by the units alone,
so the bytes do not depend on the executor or its worker count; memory is bounded by the units
in flight and the document index of one shard, not by the corpus.

The default executor is a thread pool of `workers` threads: the native encoder releases the
GIL, so threads encode in parallel while sharing one loaded tokenizer, and a unit's ids come
back without pickling or copying. A text unit read by an Encoding is checked, cut into documents
and encoded in one native call without the GIL (worker.py), so while a worker encodes, this
thread takes the results before it into shards: on one worker, writing overlaps encoding. JSONL,
Parquet and other tokenizers read in Python, holding the GIL (JSON parsing costs the most). Any `concurrent.futures.Executor` may be
given instead (a process pool, `dask.distributed.Client(...).get_executor()`); see worker.py for
what its workers receive and return.
"""

from __future__ import annotations

import os
import warnings
from collections import deque
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from ..threads import resolve_threads
from .inputs import SPLITS, CorpusError, Unit, expand, plan
from .manifest import MANIFEST, Manifest
from .resume import JOURNAL, Journal, ResumeState, _differences, resume_state
from .shards import ShardWriter
from .worker import describe, encode_unit, separator_id, tokenizer_for, vocab_size

DEFAULT_SHARD_TOKENS = 100_000_000
DEFAULT_UNIT_BYTES = 2 << 20


def _choose_dtype(dtype: Any, n_vocab: int) -> str:
    import numpy as np

    if dtype is None:
        return "uint16" if n_vocab <= 1 << 16 else "uint32"
    name = np.dtype(dtype).name
    if name not in ("uint16", "uint32"):
        raise CorpusError(f"dtype must be uint16 or uint32, got {name}")
    if name == "uint16" and n_vocab > 1 << 16:
        raise CorpusError(f"dtype uint16 cannot hold this vocabulary's {n_vocab} ids; use uint32 (or leave dtype out)")
    return name


def tokenize_files(
    inputs: Any,
    out_dir: str | os.PathLike[str],
    tokenizer: Any,
    *,
    field: str | None = None,
    column: str | None = None,
    split: str = "line",
    separator: int | str | None = "auto",
    shard_tokens: int = DEFAULT_SHARD_TOKENS,
    dtype: Any = None,
    workers: int | None = None,
    on_error: str = "skip",
    progress: bool | None = None,
    executor: Executor | None = None,
    unit_bytes: int = DEFAULT_UNIT_BYTES,
) -> Manifest:
    """Tokenize `inputs` (paths, globs or folders: text files, JSONL with `field`, Parquet with
    `column`) into shards in `out_dir` and return the manifest (written there as manifest.json).

    tokenizer: a named encoding or tokenizer, a tokenizer file, or a loaded Encoding/Tokenizer.
    split: what a document of a text file is: "line" (each non-empty line), "paragraph" (runs of
    non-blank lines) or "document" (the whole file).
    separator: the token after every document: "auto" (the end-of-text or end-of-sequence
    token), a token's text, an id, or None for none.
    shard_tokens: the most tokens a shard holds (a longer document gets a shard of its own).
    dtype: "uint16" or "uint32"; None picks uint16 when every id fits.
    workers: threads of the default executor (None: every core), and the units in flight.
    on_error: "skip" (bad records are listed in the manifest, with a warning) or "raise".
    progress: show a progress bar on stderr (None: when stderr is a terminal).
    executor: any concurrent.futures.Executor to run the units (default: a thread pool).
    unit_bytes: about how many input bytes one work unit reads.

    Run again with the same arguments after an interruption, it finishes the same bytes; with
    other arguments over an unfinished run it raises CorpusError naming what differs."""
    if on_error not in ("skip", "raise"):
        raise ValueError(f'on_error must be "skip" or "raise", got {on_error!r}')
    if isinstance(shard_tokens, bool) or not isinstance(shard_tokens, int) or shard_tokens < 1:
        raise ValueError(f"shard_tokens must be an int >= 1, got {shard_tokens!r}")
    if isinstance(unit_bytes, bool) or not isinstance(unit_bytes, int) or unit_bytes < 1:
        raise ValueError(f"unit_bytes must be an int >= 1, got {unit_bytes!r}")
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    n_workers = resolve_threads(workers, "workers")
    out_dir = os.fspath(out_dir)
    files = expand(inputs, field, column)
    tok = tokenizer_for(tokenizer)
    sep = separator_id(tok, separator)
    options = {
        "split": split,
        "field": field,
        "column": column,
        "separator": sep,
        "shard_tokens": shard_tokens,
        "dtype": _choose_dtype(dtype, vocab_size(tok)),
        "unit_bytes": unit_bytes,
    }
    desc = describe(tok, tokenizer)
    inputs_info = [f._asdict() for f in files]
    identity = {"tokenizer": {"sha256": desc["sha256"]}, "options": options, "inputs": inputs_info}

    os.makedirs(out_dir, exist_ok=True)
    if os.path.exists(os.path.join(out_dir, MANIFEST)):
        done = Manifest.load(out_dir)
        old = {"tokenizer": {"sha256": done.tokenizer["sha256"]}, "options": done.options, "inputs": done.inputs}
        differs = _differences(old, identity)
        if not differs:
            return done
        raise CorpusError(
            f"{out_dir} holds a finished run with other arguments: {'; '.join(differs)}; give another "
            "--out, or remove it to tokenize again"
        )
    for name in os.listdir(out_dir):
        if name.endswith(".tmp"):
            os.remove(os.path.join(out_dir, name))
    state = resume_state(out_dir, identity)
    for shard in state.shards if state else []:
        if not all(os.path.exists(os.path.join(out_dir, shard[k])) for k in ("file", "index")):
            raise CorpusError(
                f"{out_dir}: {shard['file']}, recorded as done in {JOURNAL}, is missing; remove {out_dir} to start over"
            )
    units = plan(files, split, field, column, unit_bytes)
    journal = Journal(out_dir, identity, state)
    ref = os.fspath(tokenizer) if isinstance(tokenizer, (str, os.PathLike)) else tokenizer
    own = executor is None
    pool = ThreadPoolExecutor(n_workers, thread_name_prefix="tokenize-corpus") if own else executor
    assert pool is not None
    try:
        run = _Run(out_dir, options, journal, state or ResumeState(), units, progress)
        run.go(pool, ref, on_error, 2 * n_workers + 2)
    except BaseException:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
        journal.close()
        raise
    if own:
        pool.shutdown(wait=True)
    st = run.state
    manifest = Manifest(
        tokenizer=desc,
        options=options,
        inputs=inputs_info,
        units=[
            {"path": u.path, "kind": u.kind, "start": u.start, "end": u.end, "documents": st.units.get(u.number, 0)}
            for u in units
        ],
        documents=st.documents,
        tokens=st.tokens,
        bytes=st.bytes,
        shards=st.shards,
        skipped=st.skipped,
        out_dir=out_dir,
    )
    manifest.write(out_dir)
    journal.remove()
    if st.skipped:
        first = st.skipped[0]
        warnings.warn(
            f"skipped {len(st.skipped)} bad record(s) (listed in {os.path.join(out_dir, MANIFEST)}); the first: "
            f"{first['where']}: {first['reason']}",
            stacklevel=2,
        )
    return manifest


class _Run:
    """Takes unit results in order into shards and journals each shard (see the module's prose)."""

    def __init__(
        self,
        out_dir: str,
        options: dict[str, Any],
        journal: Journal,
        state: ResumeState,
        units: list[Unit],
        progress: Any,
    ):
        import numpy as np

        self.np = np
        self.out_dir, self.options, self.journal, self.state, self.units = out_dir, options, journal, state, units
        self.sep = options["separator"]
        self.limit = options["shard_tokens"]
        self.writer: ShardWriter | None = None
        self.pending_units: list[tuple[int, int]] = []
        self.pending_skips: list[dict[str, Any]] = []
        self.show = progress

    def _writer(self) -> ShardWriter:
        if self.writer is None:
            self.writer = ShardWriter(self.out_dir, len(self.state.shards), self.options["dtype"])
        return self.writer

    def _close(self, next_unit: int, next_doc: int) -> None:
        assert self.writer is not None
        entry = self.writer.close()
        self.writer = None
        st = self.state
        st.shards.append(entry)
        self.journal.record(
            {
                "shard": entry,
                "next": [next_unit, next_doc],
                "documents": st.documents,
                "tokens": st.tokens,
                "bytes": st.bytes,
                "units": self.pending_units,
                "skipped": self.pending_skips,
            }
        )
        self.pending_units, self.pending_skips = [], []

    def go(self, pool: Executor, ref: Any, on_error: str, window: int) -> None:
        from ..progress import Progress

        st = self.state
        todo = self.units[st.next_unit :]
        total_bytes = sum(u.end - u.start for u in todo if u.kind != "parquet")
        bar = Progress("tokenize-corpus", total=len(todo), unit="units", enabled=self.show)
        import time

        t0, done_bytes, done_tokens = time.perf_counter(), 0, 0
        inflight: deque[tuple[Unit, Future[Any]]] = deque()
        it = iter(todo)
        try:
            for unit in it:
                inflight.append((unit, pool.submit(encode_unit, unit, ref, self.sep, on_error)))
                if len(inflight) >= window:
                    break
            n = 0
            while inflight:
                unit, fut = inflight.popleft()
                result = fut.result()
                nxt = next(it, None)
                if nxt is not None:
                    inflight.append((nxt, pool.submit(encode_unit, nxt, ref, self.sep, on_error)))
                first = st.next_doc if unit.number == st.next_unit else 0
                self._take(unit, result, first)
                n += 1
                if unit.kind != "parquet":
                    done_bytes += unit.end - unit.start
                done_tokens += int(result.doc_tokens.sum())
                elapsed = max(time.perf_counter() - t0, 1e-9)
                bar.update(
                    n,
                    f"{done_bytes / 1e6 / elapsed:,.1f} MB/s {done_tokens / elapsed:,.0f} tokens/s"
                    + (f" ({done_bytes / max(total_bytes, 1):.0%} of bytes)" if total_bytes else ""),
                )
            if self.writer is not None:
                self._close(len(self.units), 0)
            bar.close()
        except BaseException:
            for _, fut in inflight:
                fut.cancel()
            if self.writer is not None:
                self.writer.abandon()
            raise

    def _take(self, unit: Unit, result: Any, first: int) -> None:
        np, st = self.np, self.state
        lens = np.asarray(result.doc_tokens, dtype=np.int64)
        sizes = np.asarray(result.doc_bytes, dtype=np.int64)
        n = len(lens)
        ids = np.asarray(result.ids, dtype=np.uint32)
        tok_at = np.zeros(n + 1, dtype=np.int64)  # documents' tokens before each
        np.cumsum(lens, out=tok_at[1:])
        at = np.zeros(n + 1, dtype=np.int64)  # offsets in ids (separators counted) of each document
        np.cumsum(lens + (0 if self.sep is None else 1), out=at[1:])
        if at[n] != len(ids):
            raise CorpusError(
                f"unit {unit.number} ({unit.path}): {len(ids)} ids for {at[n]} counted; a worker returned a bad result"
            )
        d = first
        while d < n:
            w = self._writer()
            room = self.limit - w.tokens
            e = int(np.searchsorted(at, at[d] + room, side="right")) - 1
            if e <= d:
                if w.tokens:
                    self._close(unit.number, d)
                    continue
                e = d + 1  # longer than a shard: a shard of its own
            w.add(ids[at[d] : at[e]], at[d:e] - at[d])
            st.documents += e - d
            st.tokens += int(tok_at[e] - tok_at[d])
            st.bytes += int(sizes[d:e].sum())
            d = e
        st.units[unit.number] = n
        self.pending_units.append((unit.number, n))
        skips = [{"path": b.path, "line": b.line, "where": b.where(), "reason": b.reason} for b in result.bad]
        st.skipped.extend(skips)
        self.pending_skips.extend(skips)
        st.next_unit, st.next_doc = unit.number + 1, 0


__all__ = ["DEFAULT_SHARD_TOKENS", "JOURNAL", "tokenize_files"]
