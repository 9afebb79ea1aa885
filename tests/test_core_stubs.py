"""The native module's type stubs (src/tokenforge/_core.pyi, shipped with py.typed) are what
nanobind's stub generator (the version the test extra pins) makes of the built extension: a
binding changed without them fails."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO

PATTERNS = REPO / "tools" / "core_stub_patterns.txt"  # the return types the binding leaves as object


def test_core_stubs_are_current(tmp_path):
    pytest.importorskip("nanobind.stubgen")
    out = tmp_path / "_core.pyi"
    subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "tokenforge._core", "-p", str(PATTERNS), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    shipped = REPO / "src" / "tokenforge" / "_core.pyi"
    assert out.read_text() == shipped.read_text(), (
        "src/tokenforge/_core.pyi is stale: regenerate it with "
        "`python -m nanobind.stubgen -q -m tokenforge._core -p tools/core_stub_patterns.txt -o src/tokenforge/_core.pyi`"
    )
