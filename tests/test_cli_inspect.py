"""`tokenforge inspect FILE` (python -m tokenforge, in a subprocess) on every kind of tokenizer
tokenforge loads, its figures checked against the reference libraries that read the same files
(tiktoken, HF tokenizers, sentencepiece, mistral-common); --token's merge trees against the
ranks or merges that define them; bad arguments and unreadable files exit 2 with the fix."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import subprocess
import sys

import pytest

import tokenforge
from conftest import DATA, SHARED
from tokenforge.formats.tiktoken_file import read_tokens
from tokenforge.pre_tokenizers.patterns import TEKKEN

PACKAGE_ROOT = pathlib.Path(tokenforge.__file__).resolve().parents[1]
BERT = SHARED / "vocab" / "bert"
SPM = SHARED / "vocab" / "mistral-7b-v0.1.model"


def run(*args, ok=True):
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT), PYTHONIOENCODING="utf-8")
    env.pop("TOKENFORGE_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tokenforge", "inspect", *map(str, args)],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert "Traceback" not in err, err
    if ok:
        assert proc.returncode == 0, err
    return proc.returncode, out, err


def inspect_json(*args):
    _, out, _ = run(*args, "--json")
    return json.loads(out)


@pytest.fixture(scope="module")
def tekken_file(tmp_path_factory):
    tokens = read_tokens(DATA / "o200k_base.tiktoken", 3000)
    tokens = [bytes([b]) for b in range(256)] + [t for t in tokens if len(t) > 1]
    doc = {
        "config": {
            "pattern": TEKKEN,
            "num_vocab_tokens": len(tokens),
            "default_vocab_size": 100 + len(tokens),
            "default_num_special_tokens": 100,
            "version": "v7",
        },
        "vocab": [
            {"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": None} for r, t in enumerate(tokens)
        ],
        "special_tokens": [
            {"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]"])
        ],
    }
    path = tmp_path_factory.mktemp("inspect") / "small-tekken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_named_encoding_against_tiktoken(reference):
    info = inspect_json("cl100k_base", "--longest", "5")
    ref = reference("cl100k_base")
    assert info["vocab_size"] == ref.n_vocab
    assert info["pre_tokenizer"]["pattern"] == ref._pat_str
    assert info["pre_tokenizer"]["name"] == "cl100k"
    assert {s["token"]: s["id"] for s in info["special_tokens"]} == ref._special_tokens
    assert info["model"]["type"] == "BPE"
    lengths = sorted((len(ref.decode_single_token_bytes(i)) for i in range(100256)), reverse=True)[:5]
    assert [t["bytes"] for t in info["longest_tokens"]] == lengths
    for t in info["longest_tokens"]:
        assert len(ref.decode_single_token_bytes(t["id"])) == t["bytes"]


def _leaves(node) -> bytes:
    if isinstance(node, str):
        return node.encode("utf-8")
    return _leaves(node["left"]) + _leaves(node["right"])


def _check_rank_tree(node, ref):
    if isinstance(node, str):
        return
    token = node["token"].encode("utf-8")
    assert ref.encode_single_token(token) == node["rank"]
    # the last merge joins two tokens of lower rank
    for side in ("left", "right"):
        part = node[side]
        part_bytes = _leaves(part)
        assert ref.encode_single_token(part_bytes) < node["rank"]
        _check_rank_tree(part, ref)
    assert _leaves(node) == token


def test_token_merges_against_tiktoken_ranks(reference):
    ref = reference("cl100k_base")
    world = ref.encode_single_token(b" world")
    long_word = next(
        t for t in (ref.decode_single_token_bytes(i) for i in range(60000, 100000)) if len(t) > 9 and t.isascii()
    ).decode()
    info = inspect_json("cl100k_base", "--token", str(world), "--token", long_word, "--token", "<|endoftext|>")
    first, second, special = info["tokens"]
    assert first["id"] == world and first["bytes"] == b" world".hex(" ")
    _check_rank_tree(first["merges"], ref)
    assert second["id"] == ref.encode_single_token(long_word.encode())
    _check_rank_tree(second["merges"], ref)
    assert special["special"] and special["id"] == 100257 and special["merges"] is None
    _, out, _ = run("cl100k_base", "--token", " world")
    assert "' world' = " in out and "rank" in out


def test_tokenizer_json_and_folder_against_hf():
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(BERT / "tokenizer.json"))
    for target in (BERT / "tokenizer.json", BERT):
        info = inspect_json(target)
        assert info["vocab_size"] == ref.get_vocab_size()
        assert info["model"]["type"] == "WordPiece"
        added = {i: t.content for i, t in ref.get_added_tokens_decoder().items()}
        assert {s["id"]: s["token"] for s in info["special_tokens"]} == added
        assert info["add_bos"] and info["add_eos"]  # [CLS] $A [SEP]
        assert info["normalizer"] is not None
    info = inspect_json(BERT / "vocab.txt")
    assert info["vocab_size"] == ref.get_vocab_size()


def test_byte_level_tokenizer_json_merges(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<|end|>"]
    )
    tok.train_from_iterator(["the cat sat on the mat, the dog sat on the log"] * 50, trainer)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    info = inspect_json(path, "--token", "Ġthe")
    assert info["vocab_size"] == tok.get_vocab_size()
    node = info["tokens"][0]
    assert node["id"] == tok.token_to_id("Ġthe") and node["bytes"] == b" the".hex(" ")
    merges = json.loads(path.read_text())["model"]["merges"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]

    def check(n):
        if isinstance(n, str):
            return n
        left, right = check(n["left"]), check(n["right"])
        assert merges[n["merge"]] == (left, right)
        return left + right

    assert check(node["merges"]) == "Ġthe"


def test_sentencepiece_model_against_sentencepiece():
    spm = pytest.importorskip("sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(SPM))
    info = inspect_json(SPM)
    assert info["vocab_size"] == ref.get_piece_size()
    assert info["model"]["type"] == "sentencepiece BPE"
    assert info["add_bos"] is True and info["add_eos"] is False
    control = {s["id"] for s in info["special_tokens"] if s["control"]}
    assert control == {i for i in range(ref.get_piece_size()) if ref.is_control(i)}
    # a BPE piece's merges: each part a piece that scores higher (merges earlier) than what it makes
    info = inspect_json(SPM, "--token", "\u2581world", "--longest", "0")

    def check(node) -> str:
        if isinstance(node, str):
            return node
        text = check(node["left"]) + check(node["right"])
        assert text == node["token"]
        for side in ("left", "right"):
            part = node[side] if isinstance(node[side], str) else node[side]["token"]
            if len(part) > 1:
                assert ref.get_score(ref.piece_to_id(part)) > ref.get_score(ref.piece_to_id(text))
        return text

    assert check(info["tokens"][0]["merges"]) == "\u2581world"


def test_tekken_against_mistral_common(tekken_file):
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    ref = tekken.Tekkenizer.from_file(str(tekken_file))
    info = inspect_json(tekken_file, "--token", " the")
    assert info["kernel"] == "tekken"
    assert info["model"]["version"] == "v7" and info["model"]["num_special_tokens"] == 100
    assert info["vocab_size"] == ref.n_words
    assert info["pre_tokenizer"]["name"] == "tekken"
    assert [s["token"] for s in info["special_tokens"]] == [ref.id_to_piece(i) for i in range(100)]
    assert info["add_bos"] is True and info["add_eos"] is False
    (token,) = info["tokens"]
    assert [token["id"]] == ref.encode(" the", bos=False, eos=False)
    assert _leaves(token["merges"]) == b" the"


def test_gguf(tmp_path):
    """A GGUF file (llama.cpp's WPM form of the BERT vocabulary), against llama.cpp's own
    reading of its metadata through the gguf package."""
    gguf = pytest.importorskip("gguf")
    from tokenforge.models.wordpiece import to_wpm_vocab

    tokens = to_wpm_vocab((BERT / "vocab.txt").read_text(encoding="utf-8").splitlines())
    path = tmp_path / "bert.gguf"
    writer = gguf.GGUFWriter(str(path), "bert")
    writer.add_tokenizer_model("bert")
    writer.add_token_list(tokens)
    writer.add_unk_token_id(tokens.index("[UNK]"))
    writer.add_bos_token_id(tokens.index("[CLS]"))
    writer.add_sep_token_id(tokens.index("[SEP]"))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    reader = gguf.GGUFReader(str(path))
    info = inspect_json(path)
    assert info["vocab_size"] == len(reader.fields["tokenizer.ggml.tokens"].data)
    assert info["model"]["type"] == "WordPiece"


def test_text_output_and_help(tekken_file):
    _, out, _ = run(tekken_file)
    assert "kernel:         tekken" in out and "'<s>'" in out and "longest tokens:" in out
    _, out, _ = run("--help")
    for word in ("tekken.json", "GGUF", "--token", "--json", "model folder"):
        assert word in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["no-such-file.json"], "no such file"),
        (["cl100k_bas"], "did you mean 'cl100k_base'"),
        (["cl100k_base", "--token", "999999999"], "not in the vocabulary"),
        (["cl100k_base", "--token", "no such token text at all"], "give a token id"),
        (["cl100k_base", "--longest", "-1"], "--longest"),
        (["cl100k_base", "--longest", "many"], "invalid int value"),
        ([], "the following arguments are required"),
    ],
)
def test_errors_name_the_fix(args, says):
    code, _, err = run(*args, ok=False)
    assert code == 2
    assert err.startswith("tokenforge: error:") or "error:" in err
    assert says in err


def test_unreadable_and_corrupt_files(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(empty, ok=False)
    assert code == 2 and "no tokenizer.json" in err
    broken = tmp_path / "broken-tekken.json"
    broken.write_text('{"config": {"version": "v13"}, "vocab": []}', encoding="utf-8")
    code, _, err = run(broken, ok=False)
    assert code == 2 and "config.pattern" in err
    junk = tmp_path / "tokenizer.json"
    junk.write_bytes(b"\xff\xfe not json")
    code, _, err = run(junk, ok=False)
    assert code == 2 and "tokenizer.json" in err
    junk_model = tmp_path / "junk.model"
    junk_model.write_bytes(b"\x0a\xff\xff\xff\xff\x0f garbage")
    code, _, err = run(junk_model, ok=False)
    assert code == 2 and "junk.model" in err
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 20)
    code, _, err = run(truncated, ok=False)
    assert code == 2 and "cut.gguf" in err
    if os.geteuid() != 0:  # root reads every file
        locked = tmp_path / "locked.json"
        locked.write_text("{}")
        locked.chmod(0)
        code, _, err = run(locked, ok=False)
        assert code == 2 and "permission" in err
