"""Corrupt vocabulary files: whatever the bytes, loading either succeeds or raises a FormatError
(a ValueError) naming the file and the line; never a crash or another exception type. (Every
format is fuzzed in test_fuzz_formats.py; this is the quick .tiktoken case.)"""

from __future__ import annotations

import base64
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import FUZZ_EXAMPLES
from tokenforge.errors import FormatError

GOOD = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)) + b"aGk= 256\n"


@settings(max_examples=max(300, FUZZ_EXAMPLES), deadline=None, database=None)
@given(
    edits=st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.binary(max_size=4)), max_size=6),
    cut=st.integers(0, len(GOOD)),
)
def test_mutated_tiktoken_file(tmp_path_factory, edits, cut):
    data = bytearray(GOOD[:cut] if cut % 3 == 0 else GOOD)
    for at, replacement in edits:
        data[at : at + len(replacement)] = replacement
    path = tmp_path_factory.mktemp("vocab") / "mutated.tiktoken"
    path.write_bytes(bytes(data))
    for load in (tokenforge.load_tiktoken_bpe, lambda p: tokenforge.load_tiktoken(p, pat_str=r"\S+|\s+")):
        try:
            loaded = load(path)
        except FormatError as e:
            assert e.path == str(path) and str(path) in str(e)
            if e.where:  # a line at fault
                assert re.fullmatch(r"line \d+", e.where), str(e)
                assert int(e.where.split()[1]) <= data.count(b"\n") + 1, str(e)
            else:  # the vocabulary as a whole: a byte without a token
                assert "has no token" in str(e), str(e)
        else:
            if isinstance(loaded, tokenforge.Encoding):
                text = "hi there, ünïcode"
                try:
                    assert loaded.decode(loaded.encode_ordinary(text)) == text
                except ValueError as e:  # a byte the damaged vocabulary lost
                    assert "has no token" in str(e)
