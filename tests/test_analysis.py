"""tokenforge.analysis and `tokenforge analyze`: each analysis against direct counts with the
encodings themselves, the effects the lecture describes where they are facts of the
vocabularies (o200k spends fewer tokens on Japanese than cl100k; cl100k cuts numbers into runs
of three digits; GPT-2 spends more of a Python file on indentation than cl100k), and the plots
as real PNG and SVG files."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

import tokenforge
from conftest import CORPUS, read_sample
from tokenforge import analysis
from tokenforge.analysis.formats import render_formats

pytest.importorskip("yaml")

MAN = {p.stem: read_sample(p, 20_000) for p in sorted((CORPUS / "man").glob("*.txt"))}
CODE = read_sample(next(CORPUS.glob("code*")), 60_000)


def enc(name: str) -> tokenforge.Encoding:
    return tokenforge.get_encoding(name)


def test_language_cost():
    table = analysis.language_cost([enc("cl100k_base"), enc("o200k_base")], MAN, reference="de")
    rows = {(r["tokenizer"], r["language"]): r for r in table.rows}
    assert len(rows) == 2 * len(MAN)
    for (name, lang), row in rows.items():
        assert row["tokens"] == len(enc(name).encode_ordinary(MAN[lang]))
        assert row["bytes_per_token"] == pytest.approx(len(MAN[lang].encode()) / row["tokens"])
    assert rows[("cl100k_base", "de")]["vs_reference"] == 1.0
    assert rows[("o200k_base", "ja")]["tokens"] < rows[("cl100k_base", "ja")]["tokens"]
    with pytest.raises(ValueError, match="reference"):
        analysis.language_cost([enc("gpt2")], MAN, reference="xx")


def test_number_splits():
    table = analysis.number_splits({"cl100k": enc("cl100k_base"), "gpt2": enc("gpt2")}, max_digits=5, sample=9000)
    rows = {(r["tokenizer"], r["digits"]): r for r in table.rows}
    for digits in (1, 2, 3):
        assert rows[("cl100k", digits)]["one_token"] == 1.0
    assert rows[("cl100k", 4)]["two_tokens"] == 1.0 and rows[("cl100k", 4)]["top_shapes"] == "3+1 (100%)"
    assert rows[("cl100k", 1)]["numbers"] == 10 and rows[("cl100k", 3)]["numbers"] == 900
    assert rows[("gpt2", 4)]["one_token"] > 0  # GPT-2 learned many 4-digit numbers whole...
    assert rows[("gpt2", 4)]["one_token"] < 1  # ...but not all of them
    numbers = [str(n) for n in range(1000, 10000)]
    mean = sum(len(enc("gpt2").encode_ordinary(n)) for n in numbers) / len(numbers)
    assert rows[("gpt2", 4)]["mean_tokens"] == pytest.approx(mean)


def test_whitespace_cost():
    table = analysis.whitespace_cost([enc("gpt2"), enc("cl100k_base")], CODE)
    gpt2, cl100k = table.rows
    assert gpt2["tokens"] == len(enc("gpt2").encode_ordinary(CODE))
    blank = sum(1 for t in enc("gpt2").encode_ordinary(CODE) if not enc("gpt2").decode_single_token_bytes(t).strip())
    assert gpt2["whitespace_tokens"] == blank
    assert gpt2["indentation_share"] > cl100k["indentation_share"] > 0


def test_format_cost():
    records = [{"id": i, "name": f"item {i}", "tags": ["a", "b"][: i % 3], "price": i * 0.5} for i in range(40)]
    texts = render_formats(records)
    assert json.loads(texts["json"]) == records == json.loads(texts["json-compact"])
    table = analysis.format_cost([enc("o200k_base")], records)
    counts = {r["format"]: r["tokens"] for r in table.rows}
    assert counts == {fmt: len(enc("o200k_base").encode_ordinary(t)) for fmt, t in texts.items()}
    assert counts["json"] > counts["json-compact"]
    assert min(r["vs_fewest"] for r in table.rows) == 1.0
    with pytest.raises(ValueError):
        analysis.format_cost([enc("gpt2")], [])


def test_glitch_audit():
    o200k = enc("o200k_base")
    corpus = list(MAN.values())
    table = analysis.glitch_audit(o200k, corpus, rare=0, limit=0)
    unreachable = {r["id"] for r in table.rows if r["kind"] == "unreachable"}
    assert unreachable  # o200k holds tokens its own pre-tokenizer never produces (" I'", "\n//")
    assert o200k.encode_single_token(" I'") in unreachable
    for i in unreachable:
        assert o200k.encode_ordinary(o200k.decode_single_token_bytes(i).decode()) != [i]
    rng = random.Random(3)
    for i in rng.sample(range(199998), 3000):
        try:
            text = o200k.decode_single_token_bytes(i).decode()
        except (KeyError, UnicodeDecodeError):
            continue
        assert (o200k.encode_ordinary(text) != [i]) == (i in unreachable)
    seen = set()
    for text in corpus:
        seen.update(o200k.encode_ordinary(text))
    absent = {r["id"] for r in table.rows if r["kind"] == "absent"}
    assert absent and not absent & seen
    assert any("reference corpus" in n for n in table.notes)
    kinds = [r["kind"] for r in table.rows]
    assert kinds == sorted(kinds, key=lambda k: k != "unreachable")  # unreachable ranked first


def test_vocabulary_report():
    gpt2 = enc("gpt2")
    table = analysis.vocabulary_report(gpt2)
    lengths = {int(r["key"]): r["count"] for r in table.rows if r["section"] == "length"}
    assert sum(lengths.values()) == 50256
    fragments = 0
    for i in range(50256):
        try:
            gpt2.decode_single_token_bytes(i).decode()
        except UnicodeDecodeError:
            fragments += 1
    assert [r["count"] for r in table.rows if r["section"] == "bytes"] == [fragments]
    assert {"key": "<|endoftext|>", "count": 50256, "section": "special"} in table.rows
    scripts = {r["key"] for r in table.rows if r["section"] == "script"}
    assert {"Latin", "Cyrillic", "(digits)"} <= scripts
    bert = analysis.vocabulary_report(tokenforge.get_tokenizer("bert-base-uncased"), name="bert")
    assert bert.title == "Vocabulary: bert" and any(r["key"] == "[CLS]" for r in bert.rows)


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_plots(tmp_path, suffix):
    pytest.importorskip("matplotlib")
    table = analysis.language_cost([enc("cl100k_base"), enc("o200k_base")], MAN)
    path = tmp_path / f"langs.{suffix}"
    table.save_plot(path)
    head = path.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if suffix == "png" else b"<svg" in path.read_bytes()[:2000]
    vocab = analysis.vocabulary_report(enc("gpt2"))
    vocab.save_plot(tmp_path / f"vocab.{suffix}")
    for table in (
        analysis.number_splits([enc("gpt2")], max_digits=2),
        analysis.whitespace_cost([enc("gpt2")], CODE[:2000]),
        analysis.format_cost([enc("gpt2")], [{"a": 1}]),
        analysis.glitch_audit(enc("o200k_base"), list(MAN.values())[:1], limit=50),
    ):
        table.save_plot(tmp_path / f"other.{suffix}")  # every analysis draws its chart
        assert (tmp_path / f"other.{suffix}").stat().st_size > 1000
    with pytest.raises(ValueError, match="png"):
        table.save_plot(tmp_path / "x.pdf")


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tokenforge", "analyze", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        input=stdin,
    )


def test_analyze_command_line(tmp_path):
    man = sorted(str(p) for p in (CORPUS / "man").glob("*.txt"))[:3]
    out = _cli("languages", "-e", "gpt2", "-e", "cl100k_base", *man, "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert len(rows) == 6 and {r["tokenizer"] for r in rows} == {"gpt2", "cl100k_base"}
    out = _cli("numbers", "--max-digits", "3", "--csv")
    assert out.returncode == 0 and out.stdout.startswith("tokenizer,digits,")
    out = _cli("whitespace", "-e", "gpt2", "-e", "cl100k_base", "-", stdin="def f():\n        return 1\n")
    assert out.returncode == 0 and "indentation_share" in out.stdout
    records = tmp_path / "r.jsonl"
    records.write_text('{"a": 1}\n{"a": 2, "b": "x"}\n', encoding="utf-8")
    out = _cli("formats", str(records), "--plot", str(tmp_path / "f.svg"))
    assert out.returncode == 0 and (tmp_path / "f.svg").exists()
    out = _cli("glitch", "-e", "gpt2", man[0], "--limit", "5", "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["rows"]) == 5
    out = _cli("vocabulary", "-e", "bert-base-uncased")
    assert out.returncode == 0 and "[CLS]" in out.stdout
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{nope", encoding="utf-8")
    for args, says in (
        (["languages"], "needs FILES"),
        (["numbers", man[0]], "unrecognized arguments"),
        (["numbers", "--max-digits", "0"], "--max-digits"),
        (["formats", str(bad_json)], "not JSON"),
        (["glitch", str(tmp_path / "missing.txt")], "missing.txt"),
        (["vocabulary", "--plot", str(tmp_path / "x.pdf")], ".png or .svg"),
        (["nothing"], "invalid choice"),
    ):
        proc = _cli(*args)
        assert proc.returncode == 2 and says in proc.stderr, (args, proc.stderr)
