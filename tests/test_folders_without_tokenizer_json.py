"""Model folders without tokenizer.json (issue 19): Tokenizer.from_pretrained reads the class's
own files (vocab.json + merges.txt, spiece.model, sentencepiece.bpe.model, tokenizer.model) as
transformers' AutoTokenizer builds the class from them, offline; each folder is built here (a
sentencepiece model trained on the test corpus, a BPE trained with HF tokenizers) and compared
with AutoTokenizer: ids with and without special tokens, tokens, offsets, decode."""

from __future__ import annotations

import json
import pathlib

import pytest

from conftest import CORPUS
from test_special_tokens_transformers import _same_as_transformers
from tokenforge import Tokenizer

spm = pytest.importorskip("sentencepiece")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

LINES = [
    line
    for path in sorted(CORPUS.glob("*.txt"))
    for line in path.read_text("utf-8", errors="replace").splitlines()[:400]
    if line.strip()
]
TEXTS = [
    "Hello world, this is a test.",
    "  leading spaces and   runs   of spaces ",
    "def main():\n    return 42\n",
    "naïve café — ünïcödé 日本語 text",
    "``quoted'' ÀÉ Ünïcode",
    "",
    "a",
    " x",
    "The kernel's memory (mm) subsystem handles 4096-byte pages.",
]


def _write(folder: pathlib.Path, name: str, doc: dict) -> None:
    (folder / name).write_text(json.dumps(doc), "utf-8")


def _train_spm(folder: pathlib.Path, name: str, model_type: str, ids: dict[str, int], **options) -> None:
    prefix = folder / "m"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([line[:300] for line in LINES]),
        model_prefix=str(prefix),
        vocab_size=600,
        model_type=model_type,
        character_coverage=0.995,
        minloglevel=2,
        **ids,
        **options,
    )
    (folder / "m.model").rename(folder / name)
    (folder / "m.vocab").unlink()


def _train_bpe(folder: pathlib.Path, specials: list[str]) -> None:
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(LINES, vocab_size=700, min_frequency=2, special_tokens=specials, show_progress=False)
    bpe.save_model(str(folder))


def _folder(tmp_path: pathlib.Path, kind: str) -> pathlib.Path:
    folder = tmp_path / kind
    folder.mkdir()
    if kind == "llama":
        _train_spm(
            folder, "tokenizer.model", "bpe", {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}, byte_fallback=True
        )
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "LlamaTokenizer", "legacy": False})
        _write(folder, "config.json", {"model_type": "llama"})
    elif kind == "t5":
        _train_spm(folder, "spiece.model", "unigram", {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1})
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "T5Tokenizer", "extra_ids": 0})
        _write(folder, "config.json", {"model_type": "t5"})
    elif kind == "t5-extra-ids":  # the default 100 extra ids, appended in reverse, special
        _train_spm(folder, "spiece.model", "unigram", {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1})
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "T5Tokenizer"})
    elif kind == "albert":
        ids = {"pad_id": 0, "unk_id": 1, "bos_id": -1, "eos_id": -1}
        _train_spm(folder, "spiece.model", "unigram", ids, control_symbols=["[CLS]", "[SEP]", "[MASK]"])
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "AlbertTokenizer"})
        _write(folder, "config.json", {"model_type": "albert"})
    elif kind == "xlm-roberta":
        _train_spm(folder, "sentencepiece.bpe.model", "unigram", {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1})
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "XLMRobertaTokenizer"})
        _write(folder, "config.json", {"model_type": "xlm-roberta"})
    elif kind == "gpt2":
        _train_bpe(folder, ["<|endoftext|>"])
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "GPT2Tokenizer"})
        _write(folder, "config.json", {"model_type": "gpt2"})
    elif kind == "qwen2":
        _train_bpe(folder, ["<|endoftext|>"])
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "Qwen2Tokenizer"})
        _write(folder, "config.json", {"model_type": "qwen2"})
    elif kind == "roberta":
        _train_bpe(folder, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "RobertaTokenizer"})
        _write(folder, "config.json", {"model_type": "roberta"})
    return folder


def _auto(folder: pathlib.Path):
    try:
        return transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except Exception as error:  # noqa: BLE001 (transformers itself cannot build the class offline)
        pytest.skip(f"transformers cannot build {folder.name} offline: {error!r}")


@pytest.mark.parametrize("kind", ["llama", "t5", "t5-extra-ids", "albert", "xlm-roberta", "gpt2", "qwen2", "roberta"])
def test_folder_matches_auto_tokenizer(tmp_path, kind):
    folder = _folder(tmp_path, kind)
    _auto(folder)
    # the vocabulary, added tokens and their flags, special tokens, ids, tokens, offsets, decode
    _same_as_transformers(folder, [*TEXTS, *LINES[1:60:7]])


def test_bert_folder_with_vocab_json_beside_reads_vocab_txt(tmp_path):
    """A BertTokenizer folder whose vocab.json + merges.txt sit beside its vocab.txt: the class
    reads vocab.txt, and so does from_pretrained."""
    folder = _folder(tmp_path, "gpt2")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted({w.lower() for w in " ".join(LINES).split()})[:300]]
    (folder / "vocab.txt").write_text("\n".join(dict.fromkeys(words)) + "\n", "utf-8")
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "BertTokenizer"})
    _write(folder, "config.json", {"model_type": "bert"})
    _auto(folder)
    _same_as_transformers(folder, TEXTS)


def test_folder_class_not_rebuilt_is_refused(tmp_path):
    folder = _folder(tmp_path, "t5")
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "SiglipTokenizer"})
    _write(folder, "config.json", {"model_type": "siglip"})
    with pytest.raises(ValueError, match=r"spiece\.model.*SiglipTokenizer"):
        Tokenizer.from_pretrained(folder)
