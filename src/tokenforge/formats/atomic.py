"""Atomic file writes: a failed save never leaves a half-written file over a good one."""

from __future__ import annotations

import contextlib
import os
import secrets


def _write_temp(path: str, data: bytes) -> str:
    """Write `data` to a new temp file beside `path` (same file system) and return its name."""
    directory, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
    # os.open with 0o666 (not mkstemp's 0o600) so the final file honours the umask.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def write_files_atomically(files: list[tuple[str, bytes]]) -> None:
    """Write every file to a temp first, then rename them all into place, so a failure while
    writing leaves every existing target untouched."""
    temps: list[tuple[str, str]] = []
    try:
        for path, data in files:
            temps.append((_write_temp(os.fspath(path), data), os.fspath(path)))
        for tmp, path in temps:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
