"""Running tokenforge's work beyond one machine, on a Dask cluster (`pip install "tokenforge[cluster]"`).

Why Dask: it installs from PyPI as pure Python (dask, distributed), a client's
`get_executor()` is a standard `concurrent.futures.Executor`, so the same code path serves a
process pool and a cluster, and `LocalCluster(n_workers=2, processes=True)` starts in a test in
seconds. Ray would serve as well but is a large binary wheel with its own object store and
runtime, which tokenforge's jobs (plain functions of paths and byte ranges returning bytes) do
not need.

>>> from tokenforge import cluster
>>> client = cluster.connect(n_workers=2)                  # doctest: +SKIP  (a local cluster)
>>> client = cluster.connect("tcp://scheduler:8786")       # doctest: +SKIP  (an existing one)
>>> enc = cluster.train_bpe("data/*.txt", 32768, client)   # doctest: +SKIP

Workers run tokenforge themselves: it must be installed, the same version, on every worker, and
the input files must be readable at the same paths there (a shared file system). Work is sent as
top-level functions of plain data (trainers.chunk_table.count_unit: path, byte range, split
pattern), and results come back in submission order, so a cluster run gives byte for byte what
the single-machine run gives. Dask is imported only when a function here needs it.
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from typing import Any

INSTALL_HINT = 'pip install "tokenforge[cluster]"'


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise ImportError(
            f"running on a cluster needs Dask's distributed scheduler ({e}); install it with {INSTALL_HINT}"
        ) from None
    return distributed


def connect(
    address: str | None = None,
    *,
    n_workers: int | None = None,
    threads_per_worker: int = 1,
    processes: bool = True,
    **kwargs: Any,
) -> Any:
    """A dask.distributed Client: of the scheduler at `address` (such as "tcp://host:8786"), or,
    with no address, of a new local cluster of `n_workers` processes (default: one per core)
    with `threads_per_worker` threads each, which closing the client shuts down. Other keywords
    go to Client (and through it to LocalCluster). Use it as a context manager to close it."""
    distributed = _distributed()
    if address is not None:
        if n_workers is not None:
            raise ValueError("n_workers applies to a local cluster, not to one at an address: leave one of them out")
        return distributed.Client(address, **kwargs)
    if n_workers is None:
        from .threads import default_threads

        n_workers = default_threads()
    if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
        raise ValueError(f"n_workers must be an int >= 1, got {n_workers!r}")
    kwargs.setdefault("dashboard_address", None)  # no web server: nothing to serve, no port to take
    return distributed.Client(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=processes, **kwargs)


def parse_cluster(spec: str) -> tuple[str | None, int | None]:
    """(address, n_workers) from a --cluster value: "local" (a worker per core), "local:N" (N
    workers), or a scheduler's address ("tcp://host:8786", "host:8786")."""
    if spec == "local":
        return None, None
    if spec.startswith("local:"):
        count = spec[len("local:") :]
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise ValueError(f"--cluster local:N takes a number of workers N >= 1, got {spec!r}")
        return None, int(count)
    if not spec or spec.isspace():
        raise ValueError("--cluster takes local, local:N or a scheduler address such as tcp://host:8786")
    return spec, None


def connect_spec(spec: str, **kwargs: Any) -> Any:
    """connect() for a --cluster value (see parse_cluster)."""
    address, n_workers = parse_cluster(spec)
    return connect(address, n_workers=n_workers, **kwargs)


def executor(client: Any) -> Executor:
    """A concurrent.futures.Executor that runs calls on the client's cluster, for tokenforge's
    `executor=` arguments (train_bpe, and corpus.tokenize_files). Calls are impure (never
    answered from an earlier identical call's result), `map` yields in submission order, and a
    call that raised on a worker raises the same exception here, with a note naming the call
    (function and arguments) it came from."""
    return NamingExecutor(client.get_executor(pure=False))


class NamingExecutor(Executor):
    """An executor that runs calls on `inner` and adds to the exception of a failed call a note
    naming it: which function, on which arguments (shortened). Results and order are inner's."""

    def __init__(self, inner: Executor) -> None:
        self._inner = inner

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        inner = self._inner.submit(fn, *args, **kwargs)
        outer = _Linked(inner)
        call = f"{getattr(fn, '__qualname__', fn)}{_short(args, kwargs)}"

        def finish(done: Future[Any]) -> None:
            if done.cancelled():
                if outer.cancel():
                    outer.set_running_or_notify_cancel()  # wakes wait() and as_completed()
            elif (error := done.exception()) is None:
                outer.set_result(done.result())
            else:
                if hasattr(error, "add_note"):
                    error.add_note(f"in {call}, run by a cluster worker")
                outer.set_exception(error)

        inner.add_done_callback(finish)
        return outer

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._inner.shutdown(wait=wait and not cancel_futures)


class _Linked(Future):
    """The future NamingExecutor hands out: done when `inner` is (finish() above), cancelled
    when `inner` can be."""

    def __init__(self, inner: Future[Any]) -> None:
        super().__init__()
        self._inner = inner

    def cancel(self) -> bool:
        return self._inner.cancel() and super().cancel()


def _short(args: tuple, kwargs: dict) -> str:
    shown = reprlib.Repr()
    shown.maxstring, shown.maxother, shown.maxlist, shown.maxtuple = 120, 60, 8, 8
    parts = [shown.repr(a) for a in args] + [f"{k}={shown.repr(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def train_bpe(
    files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], vocab_size: int, client: Any, **kwargs: Any
):
    """trainers.train_bpe on the text files `files` (paths or globs), their chunks counted by
    the cluster's workers; the same Encoding as training on one machine. Keywords go to
    train_bpe, `errors` ("strict" or "replace") to the file reading."""
    from .trainers import TextFiles
    from .trainers import train_bpe as train

    errors = kwargs.pop("errors", "strict")
    return train(TextFiles(files, errors=errors), vocab_size, executor=executor(client), **kwargs)


def count_chunks(
    files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    pattern: str | None,
    client: Any,
    *,
    errors: str = "strict",
    progress: bool | None = None,
) -> dict[bytes, int]:
    """{chunk bytes: count} of the text files `files` under the split `pattern` (a name such
    as "cl100k", a regex, or None for no split), counted by the cluster's workers."""
    from .trainers.bpe import _split_pattern
    from .trainers.chunk_table import count_chunks_on
    from .trainers.text_files import TextFiles

    counts = count_chunks_on(executor(client), TextFiles(files, errors=errors), _split_pattern(pattern), progress)
    return dict(counts.items())
