"""The `tokenforge` command line (python -m tokenforge), run in a subprocess."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import tokenforge
from tokenforge.pre_tokenizers.patterns import CL100K

# The subprocess must run the same tokenforge as this test (installed, or an in-tree build).
PACKAGE_ROOT = pathlib.Path(tokenforge.__file__).resolve().parents[1]


def run(*args, stdin=None, module="tokenforge", check_ok=True):
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT), PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin.encode("utf-8") if isinstance(stdin, str) else stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    if check_ok:
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    return proc.returncode, out, err


def _ids(out: str) -> list[int]:
    return [int(x) for x in out.split()]


def test_encode_prints_ids():
    enc = tokenforge.get_encoding("cl100k_base")
    _, out, _ = run("encode", "--encoding", "cl100k_base", "hello world")
    assert _ids(out) == enc.encode("hello world") == [15339, 1917]
    assert out.strip() == " ".join(map(str, enc.encode("hello world")))


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base", "p50k_base"])
def test_encode_other_encodings(name):
    text = "héllo wörld 👋 it's 123456"
    _, out, _ = run("encode", "-e", name, text)
    assert _ids(out) == tokenforge.get_encoding(name).encode(text)


def test_encode_default_encoding_is_cl100k():
    _, out, _ = run("encode", "Ünïcode 你好")
    assert _ids(out) == tokenforge.get_encoding("cl100k_base").encode("Ünïcode 你好")


def test_encode_tokens():
    enc = tokenforge.get_encoding("cl100k_base")
    text = "hello 👋"
    _, out, _ = run("encode", "--tokens", text)
    lines = out.splitlines()
    ids = enc.encode(text)
    assert len(lines) == len(ids)
    for line, token in zip(lines, ids):
        id_text, shown = line.split("\t")
        assert int(id_text) == token
        assert shown == repr(enc.decode_single_token_bytes(token))


def test_encode_count():
    enc = tokenforge.get_encoding("o200k_base")
    text = "The quick brown fox jumps over the lazy dog. " * 10
    _, out, _ = run("encode", "-e", "o200k_base", "--count", text)
    assert out.strip() == str(len(enc.encode(text)))


def test_encode_json():
    enc = tokenforge.get_encoding("cl100k_base")
    _, out, _ = run("encode", "--json", "a b c")
    assert json.loads(out) == enc.encode("a b c")


def test_output_modes_are_exclusive():
    code, _, err = run("encode", "--json", "--count", "x", check_ok=False)
    assert code != 0
    assert "not allowed" in err or "error" in err


def test_encode_stdin():
    enc = tokenforge.get_encoding("cl100k_base")
    text = "line one\nline two 你好\n\n  trailing  \n"
    _, out, _ = run("encode", stdin=text)
    assert _ids(out) == enc.encode(text)
    _, out, _ = run("encode", "--json", stdin="")
    assert json.loads(out) == []


def test_decode_round_trip():
    enc = tokenforge.get_encoding("cl100k_base")
    text = "Round trip: héllo 👋 你好 it's"
    _, out, _ = run("encode", text)
    _, decoded, _ = run("decode", *out.split())
    assert decoded == text + "\n"
    # ids on stdin, as a JSON list or comma separated, decode without an added newline
    ids = enc.encode(text)
    _, decoded, _ = run("decode", stdin=json.dumps(ids))
    assert decoded == text
    _, decoded, _ = run("decode", stdin=",".join(map(str, ids)))
    assert decoded == text
    _, decoded, _ = run("decode", "-e", "r50k_base", *map(str, tokenforge.get_encoding("r50k_base").encode(text)))
    assert decoded == text + "\n"


def test_decode_errors():
    code, _, err = run("decode", "999999999", check_ok=False)
    assert code != 0
    assert "999999999" in err
    assert "Traceback" not in err
    code, _, err = run("decode", "abc", check_ok=False)
    assert code != 0
    assert "Traceback" not in err and err.strip()


def test_list():
    _, out, _ = run("list")
    # each name once: the encodings' names are tokenizer names too (their Tokenizer form)
    assert out.split() == list(dict.fromkeys(tokenforge.list_encoding_names() + tokenforge.list_tokenizer_names()))
    assert set(tokenforge.list_encoding_names()) < set(tokenforge.list_tokenizer_names())


@pytest.mark.parametrize(
    "args", [["--help"], ["encode", "--help"], ["decode", "--help"], ["train", "--help"], ["list", "--help"]]
)
def test_help(args):
    _, out, _ = run(*args)
    assert "usage" in out.lower()


def test_no_command_and_bad_encoding():
    code, _, err = run(check_ok=False)
    assert code != 0 and "usage" in err.lower()
    code, _, err = run("encode", "-e", "nope", "x", check_ok=False)
    assert code != 0 and "nope" in err and "Traceback" not in err


def test_special_token_text_is_an_error():
    code, out, err = run("encode", "hello <|endoftext|>", check_ok=False)
    assert code not in (0, -11, 139)
    assert out == ""
    assert "<|endoftext|>" in err
    assert "Traceback" not in err


def test_allow_special():
    enc = tokenforge.get_encoding("cl100k_base")
    text = "hello <|endoftext|><|fim_prefix|>"
    _, out, _ = run("encode", "--allow-special", text)
    assert _ids(out) == enc.encode(text, allowed_special="all")
    assert 100257 in _ids(out)
    _, out, _ = run("encode", "--allow-special", "--tokens", text)
    assert "100257\tb'<|endoftext|>'" in out.splitlines()


def test_special_as_text():
    enc = tokenforge.get_encoding("cl100k_base")
    text = "hello <|endoftext|>"
    _, out, _ = run("encode", "--special-as-text", text)
    assert _ids(out) == enc.encode(text, disallowed_special=())
    assert 100257 not in _ids(out)


def test_cli_module_entry_point():
    _, out, _ = run("encode", "hello world", module="tokenforge.cli")
    assert _ids(out) == [15339, 1917]


def test_train_writes_a_vocabulary_and_reports_compression(tmp_path):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "a.txt").write_text("the cat sat on the mat\nthe dog sat\n" * 50, encoding="utf-8")
    (data / "sub" / "b.txt").write_text("a cat and a dog\n" * 50, encoding="utf-8")
    held = tmp_path / "held.txt"
    held.write_text("the cat and the dog sat\n", encoding="utf-8")
    out = tmp_path / "my.tiktoken"
    _, stdout, _ = run(
        "train",
        "--files",
        str(data / "**" / "*.txt"),
        "--vocab-size",
        "270",
        "--out",
        str(out),
        "--held-out",
        str(held),
        "--special-token",
        "<|endoftext|>",
        "--quiet",
    )
    assert "trained 270 tokens (256 bytes + 14 merges)" in stdout
    assert "special token '<|endoftext|>': id 270" in stdout
    assert "bytes per token, training data:" in stdout and "bytes per token, held out:" in stdout
    enc = tokenforge.load_tiktoken(out, pat_str=CL100K)  # train's default pattern
    assert enc.n_vocab == 270 and enc.decode(enc.encode("the cat sat")) == "the cat sat"
    hf_out = tmp_path / "tokenizer.json"
    run(
        "train",
        "--files",
        str(data / "a.txt"),
        "--vocab-size",
        "266",
        "--out",
        str(hf_out),
        "--quiet",
        "--max-token-length",
        "3",
    )
    model = json.loads(hf_out.read_text(encoding="utf-8"))["model"]
    assert model["type"] == "BPE" and len(model["vocab"]) == 266
    assert max(len(t) for t in model["vocab"]) <= 3  # ASCII text: one character per byte


def test_train_refuses_bad_input_clearly(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9 au lait\n")
    out = tmp_path / "x.tiktoken"
    for args, message in [
        (["--files", str(bad)], "latin1.txt is not UTF-8 text: invalid byte at offset 3"),
        (["--files", str(tmp_path / "*.none")], "no file matches"),
        (["--files", str(tmp_path / "missing.txt")], "cannot read"),
    ]:
        code, _, err = run("train", *args, "--vocab-size", "300", "--out", str(out), check_ok=False)
        assert code == 2 and message in err and "Traceback" not in err
    assert not out.exists()


def test_train_writes_every_format_and_encodes_with_its_own_file(tmp_path):
    data = tmp_path / "a.txt"
    data.write_text("the kernel and the cat sat on the mat\n" * 40, encoding="utf-8")
    common = [
        "--files",
        str(data),
        "--vocab-size",
        "290",
        "--special-token",
        "<|end|>",
        "--force-token",
        " kernel",
        "--quiet",
    ]
    own = tmp_path / "t.tokenforge"
    _, stdout, _ = run("train", *common, "--out", str(own))
    assert f"wrote {own} (tokenforge)" in stdout
    enc = tokenforge.load_encoding(own)
    kernel = enc.encode_single_token(" kernel")
    _, stdout, _ = run("encode", "-e", str(own), "--allow-special", "the kernel<|end|>")
    assert _ids(stdout) == enc.encode("the kernel<|end|>", allowed_special="all") and _ids(stdout)[-2:] == [kernel, 290]
    _, stdout, _ = run("decode", "-e", str(own), *map(str, _ids(stdout)))
    assert stdout == "the kernel<|end|>\n"

    gpt2_dir = tmp_path / "gpt2"
    _, stdout, _ = run("train", *common, "--out", str(gpt2_dir), "--format", "gpt2")
    assert "(gpt2)" in stdout
    gpt2 = tokenforge.load_gpt2(gpt2_dir / "encoder.json", gpt2_dir / "vocab.bpe")
    assert enc.encode("Q") == [81] and gpt2.encode("Q") == [48]  # bytes numbered in GPT-2's order
    assert gpt2.decode(gpt2.encode("the kernel")) == "the kernel" and len(gpt2.encode(" kernel")) == 1
    run("train", *common, "--out", str(tmp_path / "m.model"))
    assert (tmp_path / "m.model").read_text().startswith("minbpe v1\n") and (tmp_path / "m.vocab").exists()
    code, _, err = run("train", *common, "--out", str(tmp_path / "x.bin"), check_ok=False)
    assert code == 2 and "cannot tell the output format" in err and "--format" in err
    code, _, err = run("encode", "-e", str(tmp_path / "none.tokenforge"), "x", check_ok=False)
    assert code == 2 and "neither a named encoding" in err


def test_train_max_memory(tmp_path):
    data = tmp_path / "a.txt"
    words = ["".join(chr(97 + i // 26**k % 26) for k in range(4)) for i in range(20000)]  # unique letters
    data.write_text("".join(f"{w} " * (i % 50 + 1) for i, w in enumerate(words)), encoding="utf-8")
    out = tmp_path / "m.tiktoken"
    _, stdout, err = run(
        "train", "--files", str(data), "--vocab-size", "300", "--out", str(out), "--quiet", "--max-memory", "1M"
    )
    assert "trained 300 tokens" in stdout
    assert err.startswith("tokenforge: warning: the chunk table outgrew max_memory") and "raise max_memory" in err
    code, _, err = run(
        "train",
        "--files",
        str(data),
        "--vocab-size",
        "300",
        "--out",
        str(out),
        "--max-memory",
        "1M",
        "--pattern",
        "none",
        check_ok=False,
    )  # each 1 MB piece of the file is one chunk
    assert code == 2 and "max_memory 1048576 is too small for this corpus" in err
    code, _, err = run(
        "train", "--files", str(data), "--vocab-size", "300", "--out", str(out), "--max-memory", "lots", check_ok=False
    )
    assert code == 2 and "'lots' is not a size such as 4096, 500M or 2G" in err


def test_wordpiece_files_and_training(tmp_path):
    from conftest import SHARED

    vocab = SHARED / "vocab" / "bert" / "vocab.txt"
    _, out, _ = run("encode", "-e", str(vocab), "Hello, [MASK] world!")
    assert _ids(out) == [101, 7592, 1010, 103, 2088, 999, 102]
    _, out, _ = run("encode", "-e", str(vocab), "--special-as-text", "[MASK]")
    assert 103 not in _ids(out)
    _, out, _ = run("encode", "-e", str(vocab), "--tokens", "Hi!")
    assert out.splitlines()[1] == "7632\thi\t0:2"
    _, out, _ = run("decode", "-e", str(vocab), "101", "7592", "999", "102")
    assert out == "hello!\n"
    data = tmp_path / "a.txt"
    data.write_text("the cat sat on the mat. the dog sat on the log.\n" * 30, encoding="utf-8")
    out_json = tmp_path / "wp.json"
    _, out, _ = run(
        "train", "--model", "wordpiece", "--files", str(data), "--vocab-size", "60", "--out", str(out_json), "--quiet"
    )
    assert "WordPiece tokens" in out and "bytes per token, training data" in out
    trained = tokenforge.Tokenizer.from_file(out_json)
    assert trained.encode("the cat", add_special_tokens=False).tokens == ["the", "cat"]
    code, _, err = run(
        "train",
        "--model",
        "wordpiece",
        "--files",
        str(data),
        "--vocab-size",
        "60",
        "--out",
        str(tmp_path / "x.tiktoken"),
        check_ok=False,
    )
    assert code == 2 and "tokenizer.json (*.json) or vocab.txt" in err


def test_sentencepiece_training(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    from conftest import CORPUS, read_sample

    data = tmp_path / "a.txt"
    data.write_text(read_sample(CORPUS / "en-linuxdoc.txt", 40_000), encoding="utf-8")
    for model in ("unigram", "spm-bpe"):
        prefix = tmp_path / model
        _, out, _ = run(
            "train",
            "--model",
            model,
            "--files",
            str(data),
            "--vocab-size",
            "600",
            "--out",
            str(prefix),
            "--split-digits",
            "--byte-fallback",
            "--spm",
            "pad_id=3",
            "--held-out",
            str(data),
            "--quiet",
        )
        assert f"trained 600 {model} pieces" in out and "bytes per token, held out" in out
        processor = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
        assert processor.get_piece_size() == 600 and processor.pad_id() == 3
        assert processor.piece_to_id("<0x41>") != processor.unk_id()
        assert {processor.id_to_piece(i) for i in processor.encode("cat 12")} >= {"1", "2"}
        assert (prefix.parent / f"{model}.vocab").read_text(encoding="utf-8").count("\n") == 600
    code, _, err = run(
        "train",
        "--model",
        "unigram",
        "--files",
        str(data),
        "--vocab-size",
        "60",
        "--out",
        str(tmp_path / "x"),
        "--spm",
        "shrinking=0.5",
        check_ok=False,
    )
    assert code == 2 and "--spm takes NAME=VALUE" in err
    code, _, err = run(
        "train",
        "--model",
        "unigram",
        "--files",
        str(data),
        "--vocab-size",
        "60",
        "--out",
        str(tmp_path / "x"),
        "--spm",
        "max_sentence_length=20",
        check_ok=False,
    )
    assert code == 2 and "a.txt:1 has 35 bytes, over max_sentence_length=20" in err


def test_version(capsys):
    from tokenforge.cli import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"tokenforge {tokenforge.__version__}"


def test_count_with_a_tokenizer_file_ignores_its_padding():
    """BERT's tokenizer.json pads and truncates to 128: --count printed 128 for any text."""
    from conftest import SHARED

    bert = str(SHARED / "vocab" / "bert" / "tokenizer.json")
    expected = tokenforge.Tokenizer.from_file(bert)
    expected.no_padding()
    expected.no_truncation()
    for text in ("hello world", "word " * 300):
        _, out, _ = run("encode", "-e", bert, "--count", text)
        assert int(out) == len(expected.encode(text).ids) != 128


def test_encode_with_a_tiktoken_file(tmp_path):
    """OpenAI's files are recognised (their pattern); another .tiktoken names what to do."""
    from conftest import DATA

    _, out, _ = run("encode", "-e", str(DATA / "o200k_base.tiktoken"), "hello world")
    assert out.split() == [str(i) for i in tokenforge.get_encoding("o200k_base").encode("hello world")]
    own = tmp_path / "own.tiktoken"
    tokenforge.dump_tiktoken_bpe({bytes([b]): b for b in range(256)}, own)
    code, _, err = run("encode", "-e", str(own), "hi", check_ok=False)
    assert code == 2 and err.startswith("tokenforge: error:") and ".tokenforge" in err


def test_count_files_globs_stdin_and_json(tmp_path):
    enc = tokenforge.get_encoding("o200k_base")
    texts = {"a.txt": "hello world\n", "b.txt": "日本語のテキスト <|endoftext|>\n" * 3}
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    expected = {name: len(enc.encode_ordinary(text)) for name, text in texts.items()}
    _, out, _ = run("count", "-e", "o200k_base", str(tmp_path / "*.txt"))
    lines = [line.split() for line in out.splitlines()]
    assert {os.path.basename(p): int(n.replace(",", "")) for n, p in lines[:-1]} == expected
    assert lines[-1] == [f"{sum(expected.values()):,}", "total"]
    _, out, _ = run("count", "-e", "o200k_base", "--json", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))
    report = json.loads(out)
    assert [row["tokens"] for row in report["files"]] == [expected["a.txt"], expected["b.txt"]]
    assert report["total"]["tokens"] == sum(expected.values())
    assert report["total"]["bytes"] == sum(len(t.encode()) for t in texts.values())
    _, out, _ = run("count", "-e", "o200k_base", stdin=texts["b.txt"])
    assert out.split() == [str(expected["b.txt"]), "-"]
    code, _, err = run("count", str(tmp_path / "missing.txt"), check_ok=False)
    assert code == 2 and err.startswith("tokenforge: error:")


def test_encode_and_count_read_model_folders(tmp_path):
    """-e takes a model folder as Tokenizer.from_pretrained reads it: a tokenizer.json beside its
    config (whose truncation is left off for the text's own tokens), and a ByT5 folder of
    tokenizer_config.json alone; a folder that is no model folder, or one that cannot load, is
    an error that says so."""
    bert = tmp_path / "bert"
    bert.mkdir()
    tokenforge.get_tokenizer("bert-base-uncased").save(str(bert / "tokenizer.json"))
    (bert / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 4}), "utf-8")
    byt5 = tmp_path / "byt5"
    byt5.mkdir()
    (byt5 / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "ByT5Tokenizer"}), "utf-8")
    text = "Héllo wörld, a longer text than four tokens"
    for folder in (bert, byt5):
        want = tokenforge.Tokenizer.from_pretrained(folder)
        want.no_truncation()
        _, out, _ = run("encode", "-e", str(folder), text)
        assert _ids(out) == want.encode(text).ids
        assert len(_ids(out)) > 4
        _, out, _ = run("encode", "-e", str(folder), "--count", text)
        assert out.strip() == str(len(want.encode(text).ids))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "GPT2Tokenizer"}), "utf-8")
    code, _, err = run("encode", "-e", str(broken), "x", check_ok=False)
    assert code != 0 and "no model folder (as a model folder:" in err and "Traceback" not in err
