"""A one-line progress display on stderr for long work (training, corpus tokenization)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Shows `label: done/total unit [bar] rate` on one stderr line, redrawn at most ten times a
    second. Drawn by default only when stderr is a terminal; `enabled` forces it on or off."""

    def __init__(self, label: str, total: int | None = None, unit: str = "", enabled: bool | None = None):
        self.label, self.total, self.unit = label, total, unit
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._start = self._drawn = time.perf_counter()
        self._done = 0
        self._note = ""

    def update(self, done: int, note: str = "") -> None:
        self._done, self._note = done, note
        now = time.perf_counter()
        if self.enabled and now - self._drawn >= 0.1:
            self._drawn = now
            self._draw(end="")

    def close(self) -> None:
        if self.enabled:
            self._draw(end="\n")

    def __enter__(self) -> Progress:  # noqa: PYI034 (Python 3.9: no typing.Self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _draw(self, end: str) -> None:
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        count = f"{self._done:,}" + (f"/{self.total:,}" if self.total else "") + (f" {self.unit}" if self.unit else "")
        bar = ""
        if self.total:
            filled = int(20 * min(self._done / self.total, 1.0))
            bar = " [" + "#" * filled + "." * (20 - filled) + "]"
        note = f" {self._note}" if self._note else ""
        sys.stderr.write(f"\r{self.label}: {count}{bar} {self._done / elapsed:,.0f}/s{note}\x1b[K" + end)
        sys.stderr.flush()
