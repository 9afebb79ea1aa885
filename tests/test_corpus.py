"""tokenforge.corpus (corpus -> token shards): shards decode back to the exact documents (text
lines, paragraphs and files, globs, JSONL, Parquet), ids equal tiktoken's and HF tokenizers',
the bytes do not depend on the worker count or executor, a run killed mid-way resumes to the
bytes of an uninterrupted one, bad records are skipped or raised with file and line, the dtype
follows the vocabulary, the manifest holds what it says, and verify catches a corrupted shard.
The inputs are small files made here."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from tokenforge import get_encoding
from tokenforge.cli import main
from tokenforge.corpus import CorpusError, Manifest, tokenize_files, verify

DATA = pathlib.Path(__file__).parent / "data"

LINES = [
    "Hello world",
    "  indented line with trailing spaces   ",
    "日本語のテキスト and ünïcödé",
    "special text <|endoftext|> stays text",
    "\ttabs\tand emoji 😀",
    "x" * 300,
    "[SEP] and [CLS] as text",
    "numbers 1234567 3.14159",
]


def _write_text(path: pathlib.Path, n: int, crlf: bool = False, seed: int = 0) -> list[str]:
    """A text file of n lines (some empty, some blank) built from LINES; returns the lines."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        k = int(rng.integers(0, len(LINES) + 2))
        lines.append("" if k == len(LINES) else "   " if k == len(LINES) + 1 else f"{i} {LINES[k]}")
    nl = "\r\n" if crlf else "\n"
    path.write_bytes((nl.join(lines) + nl).encode("utf-8"))
    return lines


def _expected(lines: list[str], split: str) -> list[str]:
    """The documents of a text file's lines, as the docs of tokenize_files define them."""
    if split == "line":
        return [line for line in lines if line]
    if split == "document":
        return ["\n".join(lines) + "\n"]
    docs, run = [], []
    for line in [*lines, ""]:
        if line.strip(" \t"):
            run.append(line)
        elif run:
            docs.append("\n".join(run))
            run = []
    return docs


def _decoded(m: Manifest, enc) -> list[str]:
    return [enc.decode(d.tolist()) for i in range(len(m.shards)) for d in m.documents_of(i)]


def _shard_bytes(m: Manifest) -> list[bytes]:
    out = []
    for s in m.shards:
        for name in (s["file"], s["index"]):
            out.append(pathlib.Path(m.out_dir, name).read_bytes())
    return out


@pytest.fixture(scope="module")
def cl100k():
    return get_encoding("cl100k_base")


@pytest.mark.parametrize("split", ["line", "paragraph", "document"])
def test_text_documents_round_trip(tmp_path, cl100k, reference, split):
    lines = _write_text(tmp_path / "a.txt", 400)
    m = tokenize_files(
        [tmp_path / "a.txt"], tmp_path / "out", "cl100k_base", split=split, shard_tokens=700, unit_bytes=512
    )
    want = _expected(lines, split)
    assert _decoded(m, cl100k) == want
    assert m.documents == len(want)
    assert len(m.shards) > 1 or split == "document"
    # ids equal tiktoken's encode_ordinary of each document, and each is followed by <|endoftext|>
    ref = reference("cl100k_base")
    got = [d.tolist() for i in range(len(m.shards)) for d in m.documents_of(i)]
    assert got == [ref.encode_ordinary(d) for d in want]
    ids, starts = m.load_shard(0)
    assert ids.dtype == np.uint32
    assert ids[int(starts[1]) - 1] == cl100k.eot_token if len(starts) > 1 else ids[-1] == cl100k.eot_token
    assert m.tokens == sum(len(g) for g in got)
    assert m.bytes == sum(len(d.encode()) for d in want)


def test_crlf_lines_and_paragraphs(tmp_path, cl100k):
    lines = _write_text(tmp_path / "a.txt", 200, crlf=True)
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "out", "cl100k_base", unit_bytes=300)
    assert _decoded(m, cl100k) == _expected(lines, "line")
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "par", "cl100k_base", split="paragraph", unit_bytes=300)
    assert _decoded(m, cl100k) == [d.replace("\r\n", "\n").replace("\n", "\r\n") for d in _expected(lines, "paragraph")]


def test_globs_and_folders_in_order(tmp_path, cl100k):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    a = _write_text(tmp_path / "in" / "b.txt", 30, seed=1)
    b = _write_text(tmp_path / "in" / "a.txt", 30, seed=2)
    c = _write_text(tmp_path / "in" / "sub" / "c.txt", 30, seed=3)
    m = tokenize_files([str(tmp_path / "in" / "*.txt")], tmp_path / "o1", "cl100k_base")
    assert _decoded(m, cl100k) == _expected(b, "line") + _expected(a, "line")
    m = tokenize_files([tmp_path / "in"], tmp_path / "o2", "cl100k_base")
    assert _decoded(m, cl100k) == _expected(b, "line") + _expected(a, "line") + _expected(c, "line")
    with pytest.raises(CorpusError, match="matched nothing"):
        tokenize_files([str(tmp_path / "*.none")], tmp_path / "o3", "cl100k_base")


def test_jsonl_field_and_bad_records(tmp_path, cl100k):
    path = tmp_path / "d.jsonl"
    rows = [
        json.dumps({"text": "first document", "id": 1}),
        json.dumps({"text": "second\nwith a newline <|endoftext|>", "id": 2}),
        "{not json",
        json.dumps({"body": "no text field"}),
        "",
        json.dumps({"text": 42}),
        json.dumps({"text": "ünïcödé 😀"}, ensure_ascii=False),
    ]
    data = (
        "\n".join(rows).encode()
        + b"\n"
        + b'{"text": "bad \xff byte"}\n'
        + json.dumps({"text": "last"}).encode()
        + b"\n"
    )
    path.write_bytes(data)
    with pytest.warns(UserWarning, match="skipped 4 bad record"):
        m = tokenize_files(path, tmp_path / "out", "cl100k_base", field="text", unit_bytes=40)
    assert _decoded(m, cl100k) == [
        "first document",
        "second\nwith a newline <|endoftext|>",
        "ünïcödé 😀",
        "last",
    ]
    where = [(s["line"], s["reason"].split(" ")[0]) for s in m.skipped]
    assert where == [(3, "invalid"), (4, "no"), (6, "field"), (8, "invalid")]
    assert all(s["path"] == str(path) for s in m.skipped)
    assert "UTF-8" in m.skipped[3]["reason"]
    with pytest.raises(CorpusError, match=r"d\.jsonl:3: invalid JSON"):
        tokenize_files(path, tmp_path / "raise", "cl100k_base", field="text", on_error="raise")


def test_invalid_utf8_in_text_is_reported_with_its_line(tmp_path, cl100k):
    path = tmp_path / "a.txt"
    path.write_bytes(b"good one\nbad \xc3\x28 here\n\nanother good\n")
    with pytest.warns(UserWarning, match="skipped 1"):
        m = tokenize_files(path, tmp_path / "out", "cl100k_base")
    assert _decoded(m, cl100k) == ["good one", "another good"]
    assert m.skipped[0]["line"] == 2 and "UTF-8" in m.skipped[0]["reason"]
    with pytest.raises(CorpusError, match=r"a\.txt:2: invalid UTF-8"):
        tokenize_files(path, tmp_path / "raise", "cl100k_base", on_error="raise")


def test_parquet_column(tmp_path, cl100k):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    texts = [f"row {i}: {LINES[i % len(LINES)]}" for i in range(50)]
    table = pa.table({"text": [*texts[:20], None, *texts[20:]], "n": list(range(51))})
    pq.write_table(table, tmp_path / "d.parquet", row_group_size=7)
    with pytest.warns(UserWarning, match="skipped 1"):
        m = tokenize_files(tmp_path / "d.parquet", tmp_path / "out", "cl100k_base", column="text", shard_tokens=100)
    assert _decoded(m, cl100k) == texts
    assert m.skipped[0]["line"] == 20
    assert len(m.units) == 8  # one per row group
    with pytest.raises(CorpusError, match="column"):
        tokenize_files(tmp_path / "d.parquet", tmp_path / "o2", "cl100k_base")


def test_same_bytes_for_any_worker_count_and_executor(tmp_path):
    _write_text(tmp_path / "a.txt", 600)
    kw = dict(shard_tokens=900, unit_bytes=700)
    one = tokenize_files(tmp_path / "a.txt", tmp_path / "w1", "cl100k_base", workers=1, **kw)
    four = tokenize_files(tmp_path / "a.txt", tmp_path / "w4", "cl100k_base", workers=4, **kw)
    assert len(one.shards) > 3
    assert _shard_bytes(one) == _shard_bytes(four)
    assert one.to_json() == four.to_json()
    with ProcessPoolExecutor(2) as pool:
        procs = tokenize_files(tmp_path / "a.txt", tmp_path / "pp", "cl100k_base", executor=pool, **kw)
    assert _shard_bytes(one) == _shard_bytes(procs)


# Runs tokenize_files in a fresh interpreter that kills itself (SIGKILL) at the N-th shard:
# "journal:N" right after the shard is journaled, "rename:N" after it is renamed into place but
# before the journal records it (the journal's record is wrapped to do so).
_KILLED = """
import os, signal
from tokenforge.corpus import tokenize, tokenize_files
stage, n = {when!r}.split(":")
record, calls = tokenize.Journal.record, [0]
def killing_record(self, entry):
    calls[0] += 1
    if stage == "rename" and calls[0] == int(n):
        os.kill(os.getpid(), signal.SIGKILL)
    record(self, entry)
    if stage == "journal" and calls[0] == int(n):
        os.kill(os.getpid(), signal.SIGKILL)
tokenize.Journal.record = killing_record
tokenize_files({text!r}, {out!r}, "cl100k_base", **{kw!r})
"""


def _killed_run(tmp_path, out: pathlib.Path, when: str, **kw) -> subprocess.CompletedProcess[str]:
    code = _KILLED.format(when=when, text=str(tmp_path / "a.txt"), out=str(out), kw=kw)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("when", ["journal:2", "rename:3"])
def test_resume_after_kill_gives_the_same_bytes(tmp_path, when):
    _write_text(tmp_path / "a.txt", 600)
    kw = dict(shard_tokens=900, unit_bytes=700, workers=2)
    whole = tokenize_files(tmp_path / "a.txt", tmp_path / "whole", "cl100k_base", **kw)
    out = tmp_path / "killed"
    proc = _killed_run(tmp_path, out, when, **kw)
    assert proc.returncode == -9, proc.stderr
    assert not (out / "manifest.json").exists()
    assert (out / "journal.jsonl").exists()
    # other arguments over the unfinished run are refused, naming the difference
    with pytest.raises(CorpusError, match="shard_tokens"):
        tokenize_files(tmp_path / "a.txt", out, "cl100k_base", **{**kw, "shard_tokens": 1000})
    with pytest.raises(CorpusError, match="tokenizer"):
        tokenize_files(tmp_path / "a.txt", out, "o200k_base", **kw)
    resumed = tokenize_files(tmp_path / "a.txt", out, "cl100k_base", **{**kw, "workers": 3})
    assert _shard_bytes(resumed) == _shard_bytes(whole)
    assert resumed.to_json() == whole.to_json()
    assert not (out / "journal.jsonl").exists()
    assert sorted(os.listdir(out)) == sorted(os.listdir(tmp_path / "whole"))
    # a finished run is returned as it is; with other arguments it is refused
    assert tokenize_files(tmp_path / "a.txt", out, "cl100k_base", **kw).to_json() == whole.to_json()
    with pytest.raises(CorpusError, match="finished run"):
        tokenize_files(tmp_path / "a.txt", out, "cl100k_base", **{**kw, "separator": None})


def test_resume_refuses_changed_inputs(tmp_path):
    _write_text(tmp_path / "a.txt", 300)
    kw = dict(shard_tokens=500, unit_bytes=700)
    assert _killed_run(tmp_path, tmp_path / "k", "journal:1", **kw).returncode == -9
    _write_text(tmp_path / "a.txt", 301)
    with pytest.raises(CorpusError, match=r"inputs changed since the first run: .*a\.txt"):
        tokenize_files(tmp_path / "a.txt", tmp_path / "k", "cl100k_base", **kw)


def test_dtype_follows_the_vocabulary(tmp_path):
    (tmp_path / "a.txt").write_text("hello world\nsecond line\n")
    assert tokenize_files(tmp_path / "a.txt", tmp_path / "g", "gpt2").dtype == "uint16"
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "c", "cl100k_base")
    assert m.dtype == "uint32" and m.load_shard(0)[0].dtype == np.uint32
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "c32", "gpt2", dtype="uint32")
    assert m.load_shard(0)[0].dtype == np.uint32
    with pytest.raises(CorpusError, match="uint16 cannot hold"):
        tokenize_files(tmp_path / "a.txt", tmp_path / "bad", "cl100k_base", dtype="uint16")


def test_separator_choices(tmp_path, cl100k):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "none", "cl100k_base", separator=None)
    ids, starts = m.load_shard(0)
    assert ids.tolist() == cl100k.encode_ordinary("one") + cl100k.encode_ordinary("two")
    assert starts.tolist() == [0, len(cl100k.encode_ordinary("one"))]
    assert _decoded(m, cl100k) == ["one", "two"]
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "id", "cl100k_base", separator=198)
    assert m.load_shard(0)[0].tolist() == [*cl100k.encode_ordinary("one"), 198, *cl100k.encode_ordinary("two"), 198]
    with pytest.raises(CorpusError, match="not a token"):
        tokenize_files(tmp_path / "a.txt", tmp_path / "x", "cl100k_base", separator="<nope>")


def test_manifest_contents(tmp_path):
    lines = _write_text(tmp_path / "a.txt", 100)
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "out", "cl100k_base", shard_tokens=400)
    on_disk = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert on_disk["tokenizer"]["name"] == "cl100k_base" and on_disk["tokenizer"]["vocab_size"] == 100277
    assert len(on_disk["tokenizer"]["sha256"]) == 64
    assert on_disk["options"]["separator"] == 100257 and on_disk["options"]["dtype"] == "uint32"
    st = os.stat(tmp_path / "a.txt")
    assert on_disk["inputs"] == [
        {"path": str(tmp_path / "a.txt"), "kind": "text", "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    ]
    assert on_disk["documents"] == len(_expected(lines, "line")) == sum(s["documents"] for s in on_disk["shards"])
    assert on_disk["tokens"] + on_disk["documents"] == sum(s["tokens"] for s in on_disk["shards"])
    for s in on_disk["shards"]:
        assert s["tokens"] <= 400
        data = (tmp_path / "out" / s["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == s["sha256"]
    assert on_disk["skipped"] == []
    assert Manifest.load(str(tmp_path / "out")) == m


def test_a_long_document_gets_a_shard_of_its_own(tmp_path, cl100k):
    docs = ["short", "long " * 200, "after"]
    (tmp_path / "a.txt").write_text("\n".join(docs) + "\n")
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "out", "cl100k_base", shard_tokens=50)
    assert [s["documents"] for s in m.shards] == [1, 1, 1]
    assert m.shards[1]["tokens"] > 50
    assert _decoded(m, cl100k) == docs


def test_verify_catches_a_corrupted_shard(tmp_path):
    _write_text(tmp_path / "a.txt", 300)
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "out", "cl100k_base", shard_tokens=800)
    report = verify(tmp_path / "out", samples=50)
    assert report.ok, report.problems
    assert report.documents_checked == 50
    path = pathlib.Path(m.shard_paths()[1])
    data = bytearray(path.read_bytes())
    data[200] ^= 0x01  # a token's id changes
    path.write_bytes(bytes(data))
    report = verify(tmp_path / "out", samples=m.documents)
    assert not report.ok
    assert any("shard_000001.npy: sha256" in p for p in report.problems)
    assert any("ids differ" in p for p in report.problems)


def test_verify_catches_changed_inputs_and_tokenizer(tmp_path):
    _write_text(tmp_path / "a.txt", 100)
    tokenize_files(tmp_path / "a.txt", tmp_path / "out", "cl100k_base")
    report = verify(tmp_path / "out", "o200k_base", samples=5)
    assert not report.ok and "differs from the one that wrote" in report.problems[0]
    (tmp_path / "a.txt").write_text((tmp_path / "a.txt").read_text().replace("Hello", "Howdy"))
    report = verify(tmp_path / "out", samples=1000)
    assert not report.ok and any("ids differ" in p for p in report.problems)


def test_hf_tokenizer_file_equals_tokenizers(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    lines = _write_text(tmp_path / "a.txt", 150)
    path = str(DATA / "vocab" / "bert" / "tokenizer.json")
    m = tokenize_files(tmp_path / "a.txt", tmp_path / "out", path, shard_tokens=500, unit_bytes=600)
    ref = tokenizers.Tokenizer.from_file(path)
    ref.no_padding()
    ref.no_truncation()
    ref.encode_special_tokens = True  # special-token text in a document is text
    want = [ref.encode(d, add_special_tokens=False).ids for d in _expected(lines, "line")]
    got = [d.tolist() for i in range(len(m.shards)) for d in m.documents_of(i)]
    assert got == want
    assert m.separator == ref.token_to_id("[SEP]")
    assert m.dtype == "uint16"
    assert verify(tmp_path / "out", samples=20).ok


def test_cli(tmp_path, capsys):
    _write_text(tmp_path / "a.txt", 100)
    (tmp_path / "b.jsonl").write_text('{"t": "x y"}\n{"t": "z"}\n')
    assert main(["tokenize-corpus", str(tmp_path / "a.txt"), "--out", str(tmp_path / "out"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["shards"] == 1 and summary["dtype"] == "uint32"
    assert main(["tokenize-corpus", "--verify", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.startswith("OK:")
    code = main(
        ["tokenize-corpus", str(tmp_path / "b.jsonl"), "--field", "t", "--out", str(tmp_path / "j"), "-e", "gpt2"]
    )
    assert code == 0 and "2 documents" in capsys.readouterr().out
    shard = pathlib.Path(tmp_path / "out" / "shard_000000.npy")
    shard.write_bytes(shard.read_bytes()[:-4] + b"\0\0\0\0")
    assert main(["tokenize-corpus", "--verify", str(tmp_path / "out")]) == 3
    assert "FAILED" in capsys.readouterr().out
    assert main(["tokenize-corpus", "--out", str(tmp_path / "x")]) == 2
    assert "give INPUTS" in capsys.readouterr().err
    assert main(["tokenize-corpus", str(tmp_path / "b.jsonl"), "--out", str(tmp_path / "y")]) == 2
    assert "--field" in capsys.readouterr().err


def test_encode_unit_is_plain_data_and_can_write_parts(tmp_path):
    """The executor contract: encode_unit takes and returns picklable plain data, and with
    parts_dir writes the ids to a file there instead of returning them."""
    import pickle

    from tokenforge.corpus import encode_unit
    from tokenforge.corpus.inputs import expand, plan
    from tokenforge.corpus.worker import part_path

    _write_text(tmp_path / "a.txt", 50)
    units = plan(expand(tmp_path / "a.txt"), "line", None, None, 256)
    assert len(units) > 2
    unit = pickle.loads(pickle.dumps(units[1]))
    held = pickle.loads(pickle.dumps(encode_unit(unit, "cl100k_base", 100257)))
    (tmp_path / "parts").mkdir()
    written = encode_unit(unit, "cl100k_base", 100257, "skip", str(tmp_path / "parts"))
    assert written.ids is None
    on_disk = np.fromfile(part_path(str(tmp_path / "parts"), unit.number), dtype=np.uint32)
    assert on_disk.tolist() == held.ids.tolist()
    assert written.doc_tokens.tolist() == held.doc_tokens.tolist()
    assert int(held.doc_tokens.sum()) + len(held.doc_tokens) == len(held.ids)
