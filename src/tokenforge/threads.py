"""How many threads a batch call runs on: one rule for every surface.

`num_threads=None` means every core (`os.cpu_count()`), or for `Tokenizer`'s batches and
transformers' call as many as the work is worth (`batch_threads`); any other value must be an
int >= 1 and is capped at `MAX_THREADS` (more threads than that only cost memory and start-up
time, and an operating system may refuse to start them). The native `parallel_for`
(src/native/base/parallel.h) runs no more threads than the machine has cores (the work is
CPU-bound), and copes with a thread that fails to start: the work goes on the threads that did.
"""

from __future__ import annotations

import operator
import os

MAX_THREADS = 256


def default_threads() -> int:
    """Every core this process may use."""
    return os.cpu_count() or 1


def resolve_threads(num_threads: int | None, name: str = "num_threads") -> int:
    """`num_threads` checked and capped: None gives `default_threads()`; an int below 1, or a
    value that is not an int, raises ValueError/TypeError naming `name`."""
    if num_threads is None:
        return min(default_threads(), MAX_THREADS)
    if isinstance(num_threads, bool):
        raise TypeError(f"{name} must be an int >= 1 or None, got {num_threads!r}")
    try:
        n = operator.index(num_threads)
    except TypeError:
        raise TypeError(f"{name} must be an int >= 1 or None, got {type(num_threads).__name__}") from None
    if n < 1:
        raise ValueError(f"{name} must be >= 1 (or None for every core), got {n}")
    return min(n, MAX_THREADS)


def batch_threads(texts: int, characters: int) -> int:
    """The threads a batch call runs on by default: one per 32 K characters of work, each text
    counting 64 characters more for its own call, up to every core. Starting a thread costs
    tens to hundreds of microseconds (a virtual machine's are the slow ones), what 64 short
    lines take to encode on one; a few long documents still share the cores. (Where one thread
    is wanted, the core count is not asked: os.cpu_count reads a file under /sys on Linux.)"""
    wanted = (characters + 64 * texts) // 32768 + 1
    return 1 if wanted == 1 else min(wanted, resolve_threads(None))
