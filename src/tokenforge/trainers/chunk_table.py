"""The chunk table of a training corpus ({chunk bytes: count}), counted in batches on all cores.

Only the table is ever held whole, never the corpus. With a memory budget, a table that outgrows
it is spilled to temporary partition files (split by hash), and at the end each partition is
added up alone; if the whole still does not fit, the rarest chunks are left out, with a warning.

With an executor (any concurrent.futures.Executor: a process pool, or a Dask cluster's through
tokenforge.cluster), files are counted by its workers instead: text_files.plan_units cuts them
into byte ranges where reading the whole file cuts anyway, each worker counts one range
(`count_unit`, a plain function of plain data) and sends the table back as bytes, and the tables
are added up here in unit order, so the result is the table the single-machine path counts.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Executor, Future

import regex

from .. import _core
from ..arguments import INT64_MAX, _check_int
from ..encoding import _without_surrogates
from ..pre_tokenizers.patterns import scanner_id
from ..progress import Progress
from ..threads import resolve_threads
from .text_files import TextFiles, read_text_range

_BATCH_CHARS = 1 << 24  # text counted per native call
_PARTITIONS = 64
# While counting, the table may take half the budget before it is spilled. The merge state built
# from the final table takes several times the table (6-8x measured on English and code), so
# the final table gets a tenth. Batches of text are kept small too.
_COUNTING_SHARE = 2
_TABLE_SHARE = 10
_BATCH_SHARE = 32


def check_max_memory(max_memory: int | None) -> int | None:
    """max_memory read as an int: None (no limit) or at least a MiB of bytes."""
    return _check_int(max_memory, "max_memory", 1 << 20, INT64_MAX, none="no limit", why=" bytes (1 MiB or more)")


def count_chunks(
    texts: Iterable[str], pat_str: str, progress: bool | None, max_memory: int | None = None
) -> _core.ChunkCounts:
    """The table of the chunks `pat_str` cuts `texts` into, with exact counts. `max_memory`
    (bytes, or None for no limit): counting spills to disk past half of it, and the table
    returned keeps the most frequent chunks that fit in a tenth of it."""
    max_memory = check_max_memory(max_memory)
    if not max_memory:
        return _count(texts, pat_str, progress, _BATCH_CHARS, None, [])[0]
    batch_limit = max(1 << 20, min(_BATCH_CHARS, max_memory // _BATCH_SHARE))
    with tempfile.TemporaryDirectory(prefix="tokenforge-chunks-") as spill_dir:
        parts = [os.path.join(spill_dir, f"part{i:02d}") for i in range(_PARTITIONS)]
        counts, spilled = _count(texts, pat_str, progress, batch_limit, max_memory // _COUNTING_SHARE, parts)
        return _finish(counts, spilled, parts, max_memory, progress)


def _finish(counts: _core.ChunkCounts, spilled: bool, parts: list[str], max_memory: int, progress) -> _core.ChunkCounts:
    if not spilled and counts.memory() <= max_memory // _TABLE_SHARE:
        return counts
    counts.spill(parts)
    return _merge_partitions(parts, max_memory, progress)


def count_unit(path: str, start: int, end: int, pat_str: str, errors: str = "strict", threads: int | None = 1) -> bytes:
    """The chunk table of bytes [start, end) of file `path` (a unit of text_files.plan_units),
    dumped as bytes (_core.add_dumped_chunk_counts reads it). What a worker runs: a top-level
    function of plain data, so any executor can send it; `threads` native threads (None: every
    core of the worker's machine)."""
    counts, _ = _count(
        read_text_range(path, start, end, errors=errors), pat_str, False, _BATCH_CHARS, None, [], threads
    )
    return _core.dump_chunk_counts(counts)


def count_chunks_on(
    executor: Executor,
    files: TextFiles,
    pat_str: str,
    progress: bool | None,
    max_memory: int | None = None,
    *,
    threads: int | None = 1,
) -> _core.ChunkCounts:
    """count_chunks for `files`, counted by `executor`'s workers (`count_unit` per unit, each
    on `threads` native threads) and added up here in unit order; the same table as
    count_chunks(files, ...) gives. A unit that fails raises its worker's exception, with a note
    naming the unit (a RuntimeError naming it before Python 3.11)."""
    if not isinstance(files, TextFiles):
        raise TypeError(
            "training with an executor needs the text as files that workers read themselves: pass "
            f"trainers.TextFiles(paths or globs), not {type(files).__name__}"
        )
    max_memory = check_max_memory(max_memory)
    units = files.units()
    futures: list[Future[bytes] | None] = [
        executor.submit(count_unit, path, start, end, pat_str, files.errors, threads) for path, start, end in units
    ]
    with tempfile.TemporaryDirectory(prefix="tokenforge-chunks-") as spill_dir:
        parts = [os.path.join(spill_dir, f"part{i:02d}") for i in range(_PARTITIONS)]
        counts, spilled = _core.ChunkCounts(), False
        try:
            with Progress("counting chunks", total=len(units), unit="units", enabled=progress) as shown:
                for i, (future, (path, start, end)) in enumerate(zip(futures, units)):
                    assert future is not None  # set to None only once read
                    try:
                        dumped = future.result()
                    except Exception as e:
                        what = f"while counting unit {i} of {len(units)} ({path}, bytes {start}..{end}) on a worker"
                        if not hasattr(e, "add_note"):  # Python before 3.11
                            raise RuntimeError(f"{what}: {type(e).__name__}: {e}") from e
                        e.add_note(what)
                        raise
                    futures[i] = None  # let the executor forget the result
                    _core.add_dumped_chunk_counts(counts, dumped)
                    del dumped
                    if max_memory and counts.memory() > max_memory // _COUNTING_SHARE:
                        counts.spill(parts)
                        spilled = True
                    shown.update(i + 1, f"{len(counts):,} unique chunks")
        finally:
            for future in futures:
                if future is not None:
                    future.cancel()
        if not max_memory:
            return counts
        return _finish(counts, spilled, parts, max_memory, progress)


def _count(texts, pat_str, progress, batch_limit, spill_at, parts, threads=None) -> tuple[_core.ChunkCounts, bool]:
    counts = _core.ChunkCounts()
    scanner = scanner_id(pat_str)
    compiled = regex.compile(pat_str) if scanner < 0 else None
    batch: list[str] = []
    batch_chars = read_chars = seen = 0
    spilled = False

    def flush() -> None:
        nonlocal spilled
        if scanner >= 0:
            counts.add_texts(batch, scanner, resolve_threads(threads))
        else:
            assert compiled is not None  # no native scanner: the pattern was compiled
            for text in batch:
                for chunk, n in Counter(m.group().encode("utf-8") for m in compiled.finditer(text)).items():
                    counts.add(chunk, n)
        batch.clear()
        if spill_at is not None and counts.memory() > spill_at:
            counts.spill(parts)
            spilled = True

    with Progress("counting chunks", unit="texts", enabled=progress) as shown:
        for seen, text in enumerate(texts, 1):
            if not isinstance(text, str):
                raise TypeError(f"training text {seen - 1} is {type(text).__name__}, not str")
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                text = _without_surrogates(text)
            batch.append(text)
            batch_chars += len(text)
            if batch_chars >= batch_limit:
                flush()
                read_chars += batch_chars
                batch_chars = 0
                shown.update(
                    seen,
                    f"{read_chars / 1e6:,.0f}M chars, {len(counts):,} unique chunks"
                    + (" in memory (spilling)" if spilled else ""),
                )
        flush()
        shown.update(seen, f"{len(counts):,} unique chunks" + (" in memory (spilling)" if spilled else ""))
    return counts, spilled


def _merge_partitions(parts: list[str], max_memory: int, progress: bool | None) -> _core.ChunkCounts:
    # Pass 1 adds up each partition (rewritten with one record per chunk) and learns how much
    # memory the chunks of each count take; pass 2 reads back those frequent enough to fit.
    by_count: Counter = Counter()
    chunks_by_count: Counter = Counter()
    with Progress("adding up spilled chunks", total=2 * len(parts), unit="partitions", enabled=progress) as shown:
        for i, path in enumerate(parts):
            table = _core.ChunkCounts()
            table.read_spilled(path)
            for count, (chunks, memory) in table.memory_by_count().items():
                chunks_by_count[count] += chunks
                by_count[count] += memory
            os.remove(path)
            table.spill([path])
            shown.update(i + 1)
        threshold, kept = 1, 0
        for count in sorted(by_count, reverse=True):
            if kept + by_count[count] > max_memory // _TABLE_SHARE:
                threshold = count + 1
                break
            kept += by_count[count]
        counts = _core.ChunkCounts()
        for i, path in enumerate(parts):
            counts.read_spilled(path, threshold)
            os.remove(path)
            shown.update(len(parts) + i + 1)
    if not len(counts):
        raise ValueError(
            f"max_memory {max_memory} is too small for this corpus: even its most "
            f"frequent chunks take more than a tenth of it; raise max_memory"
        )
    if threshold > 1:
        total = sum(chunks_by_count.values())
        warnings.warn(
            f"the chunk table outgrew max_memory: the {total - len(counts):,} of {total:,} unique chunks seen "
            f"fewer than {threshold} times were left out of training; raise max_memory to keep them",
            stacklevel=4,
        )
    return counts
