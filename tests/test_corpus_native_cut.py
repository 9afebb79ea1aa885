"""The native reading of a text work unit (_core.encode_text_unit, formats/text_documents.h)
against the Python reading it replaces (tokenforge.corpus.inputs): the same documents (cut at
lines, paragraphs or whole files, "\r\n" and blank lines included) give the same ids, counts and
sizes as encode_flat over inputs._documents; bytes are refused exactly when Python's strict
UTF-8 decoder refuses them; and tokenize_files writes the same shards and manifest either way."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _core, get_encoding
from tokenforge.corpus import tokenize_files, worker
from tokenforge.corpus.inputs import _documents


@pytest.fixture(scope="module")
def cl100k():
    return get_encoding("cl100k_base")


def _python(enc, text: str, split: str, sep: int):
    docs = ([text] if text else []) if split == "document" else _documents(text, split)
    return _core.encode_flat(enc._core, docs, sep, 1)


def _same(a, b) -> None:
    assert a is not None and b is not None
    for x, y in zip(a, b):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


# Pieces that make every case of the cuts: line breaks, blank characters, "\r" before and away
# from "\n", multi-byte characters, special-token text.
_PIECES = ["\n", "\r\n", "\r", " ", "\t", "\f", "\v", "a", "word ", "é", "日本", "😀", "<|endoftext|>", "\n\n", " \n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.sampled_from(["line", "paragraph", "document"]))
def test_native_cut_equals_python(cl100k, pieces, split):
    text = "".join(pieces)
    for sep in (100257, -1):
        _same(_core.encode_text_unit(cl100k._core, text.encode(), split, sep), _python(cl100k, text, split, sep))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "\n\n\n",
        " \n \n",
        "a",
        "a\n",
        "a\r",
        "a\r\r\n",
        "\ra\r\n\rb\r",
        "  \nfirst\n\nsecond\n  \n\t\n third \r\n\r\nlast\n \t",
        "\n\nstarts after blanks\n\n",
        "one\ntwo\r\n three \n\n\n\nfour\nfive\n\r\n\v\f\n",
        "x\n\r",
        "  ",
        "\r\n\r\n",
    ],
)
@pytest.mark.parametrize("split", ["line", "paragraph", "document"])
def test_native_cut_edge_cases(cl100k, text, split):
    _same(_core.encode_text_unit(cl100k._core, text.encode(), split, 100257), _python(cl100k, text, split, 100257))


_BAD_OR_GOOD = [
    b"\xc0\x80",  # overlong
    b"\xc1\xbf",
    b"\xe0\x80\x80",
    b"\xe0\x9f\xbf",
    b"\xe0\xa0\x80",  # good: U+0800
    b"\xed\x9f\xbf",  # good: U+D7FF
    b"\xed\xa0\x80",  # a surrogate
    b"\xed\xbf\xbf",
    b"\xee\x80\x80",  # good
    b"\xf0\x8f\xbf\xbf",
    b"\xf0\x90\x80\x80",  # good: U+10000
    b"\xf4\x8f\xbf\xbf",  # good: U+10FFFF
    b"\xf4\x90\x80\x80",  # above U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xff",
    b"\x80",
    b"\xc3",  # cut short
    b"\xe6\x97",
    b"\xf0\x9f\x98",
    b"\xc3\x28",
    b"\xe6\x28\xa5",
]


@pytest.mark.parametrize("raw", _BAD_OR_GOOD)
@pytest.mark.parametrize("around", [(b"", b""), (b"abcdefgh" * 2, b"\n"), (b"x\n", b"12345678901")])
def test_utf8_check_equals_python(cl100k, raw, around):
    data = around[0] + raw + around[1]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        valid = False
    else:
        valid = True
    got = _core.encode_text_unit(cl100k._core, data, "line", 100257)
    assert (got is not None) == valid


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=24))
def test_utf8_check_on_random_bytes(cl100k, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert _core.encode_text_unit(cl100k._core, data, "paragraph", 100257) is None
    else:
        _same(
            _core.encode_text_unit(cl100k._core, data, "paragraph", 100257), _python(cl100k, text, "paragraph", 100257)
        )


def test_bad_arguments(cl100k):
    with pytest.raises(ValueError, match="split must be"):
        _core.encode_text_unit(cl100k._core, b"a", "sentence", 1)
    with pytest.raises(ValueError, match="separator"):
        _core.encode_text_unit(cl100k._core, b"a", "line", 1 << 33)
    with pytest.raises(TypeError):
        _core.encode_text_unit(cl100k._core, "a str", "line", 1)


def _run_files(tmp_path, name: str, split: str, native: bool, monkeypatch) -> dict[str, bytes]:
    if not native:
        monkeypatch.setattr(worker, "_encode_text_natively", lambda *a: None)
    out = tmp_path / name
    tokenize_files(
        sorted(str(p) for p in (tmp_path / "in").iterdir()),
        out,
        "cl100k_base",
        split=split,
        shard_tokens=300,
        unit_bytes=500,
        workers=1,
        progress=False,
    )
    monkeypatch.undo()
    files = {p: (out / p).read_bytes() for p in sorted(os.listdir(out))}
    manifest = json.loads(files.pop("manifest.json"))
    manifest.pop("out_dir", None)
    files["manifest"] = json.dumps(manifest, sort_keys=True).encode()
    return files


@pytest.mark.parametrize("split", ["line", "paragraph", "document"])
def test_tokenize_files_same_bytes_native_or_python(tmp_path, monkeypatch, split):
    rng = np.random.default_rng(7)
    (tmp_path / "in").mkdir()
    for f in range(3):
        pieces = rng.choice(_PIECES, size=3000)
        (tmp_path / "in" / f"f{f}.txt").write_bytes("".join(pieces).encode())
    (tmp_path / "in" / "bad.txt").write_bytes(b"good line\n\nbad \xff line\n\nafter\n")  # read in Python
    with pytest.warns(UserWarning, match="skipped 1 bad record"):
        native = _run_files(tmp_path, "native", split, True, monkeypatch)
    with pytest.warns(UserWarning, match="skipped 1 bad record"):
        python = _run_files(tmp_path, "python", split, False, monkeypatch)
    assert native.keys() == python.keys()
    assert len([k for k in native if k.endswith(".idx.npy")]) >= 3
    for k in native:
        assert native[k] == python[k], k
