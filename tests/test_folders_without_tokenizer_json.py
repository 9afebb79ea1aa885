"""Model folders without tokenizer.json (issue 19): Tokenizer.from_pretrained reads the class's
own files (vocab.json + merges.txt, spiece.model, sentencepiece.bpe.model, tokenizer.model) as
transformers' AutoTokenizer builds the class from them, offline; each folder is built here (a
sentencepiece model trained on the test corpus, a BPE trained with HF tokenizers) and compared
with AutoTokenizer: ids with and without special tokens, tokens, offsets, decode."""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
import pathlib
import random
import re
import unicodedata
import warnings
from typing import Any

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


def _train_spm(
    folder: pathlib.Path,
    name: str,
    model_type: str,
    ids: dict[str, int],
    keep_vocab: bool = False,
    vocab_size: int = 600,
    lines: list[str] = LINES,
    **options,
) -> None:
    prefix = folder / "m"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([line[:300] for line in lines]),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type=model_type,
        character_coverage=0.995,
        minloglevel=2,
        **ids,
        **options,
    )
    (folder / "m.model").rename(folder / name)
    if not keep_vocab:
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
    elif kind in ("camembert", "camembert-bpe", "camembert-hub"):
        model_type = "bpe" if kind == "camembert-bpe" else "unigram"
        ids = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}
        _train_spm(folder, "sentencepiece.bpe.model", model_type, ids)
        config = {"tokenizer_class": "CamembertTokenizer"}
        if kind == "camembert-hub":  # as almanach/camembert-base's
            config.update(additional_special_tokens=["<s>NOTUSED", "</s>NOTUSED", "<unk>NOTUSED"])
        _write(folder, "tokenizer_config.json", config)
        _write(folder, "config.json", {"model_type": "camembert"})
    elif kind in (
        "xlnet",
        "xlnet-lowercase",
        "xlnet-hub",
    ):  # <sep> <cls> at the end, left padding, the model's unknown id
        ids = {"unk_id": 3, "bos_id": 1, "eos_id": 2, "pad_id": 0}
        controls = ["<cls>", "<sep>", "<mask>", "<eod>", "<eop>"]
        _train_spm(folder, "spiece.model", "unigram", ids, control_symbols=controls)
        config = {"tokenizer_class": "XLNetTokenizer", "do_lower_case": False, "remove_space": True}
        config.update(keep_accents=False, padding_side="left")
        if kind == "xlnet-lowercase":  # (keep_accents: the class strips them all the same)
            config.update(do_lower_case=True, keep_accents=True, unk_id=5)
        elif kind == "xlnet-hub":  # as xlnet/xlnet-base-cased's
            config.update(additional_special_tokens=["<eop>", "<eod>"], bos_token="<s>", cls_token="<cls>")
        _write(folder, "tokenizer_config.json", config)
        _write(folder, "config.json", {"model_type": "xlnet"})
    elif kind in ("pegasus", "pegasus-defaults", "pegasus-offset", "pegasus-map"):
        _train_spm(folder, "spiece.model", "unigram", {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1})
        config = {"tokenizer_class": "PegasusTokenizer"}
        if kind == "pegasus":  # as google/pegasus-xsum's
            unks = [f"<unk_{i}>" for i in range(2, 103)]
            config.update(mask_token="<mask_2>", mask_token_sent="<mask_1>", offset=103, unk_token="<unk>")
            config.update(additional_special_tokens=["<mask_1>", *unks], model_max_length=512)
        elif kind == "pegasus-offset":  # no sentence mask, a small offset
            config.update(mask_token_sent=None, offset=6)
        elif kind == "pegasus-map":  # an older folder: the tokens in special_tokens_map.json
            specials = {"mask_token": "<mask_2>", "pad_token": "<pad>", "eos_token": "</s>", "unk_token": "<unk>"}
            _write(folder, "special_tokens_map.json", {**specials, "mask_token_sent": "<mask_1>"})
        _write(folder, "tokenizer_config.json", config)
        _write(folder, "config.json", {"model_type": "pegasus"})
    elif kind in ("mbart", "mbart50", "mbart-unigram", "mbart50-ro"):  # fairseq's sentencepiece.bpe.model
        model_type = "unigram" if kind == "mbart-unigram" else "bpe"
        ids = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}
        _train_spm(folder, "sentencepiece.bpe.model", model_type, ids)
        name = "MBart50Tokenizer" if kind.startswith("mbart50") else "MBartTokenizer"
        src = "ro_RO" if kind == "mbart50-ro" else "en_XX"
        _write(folder, "tokenizer_config.json", {"tokenizer_class": name, "src_lang": src, "tgt_lang": "de_DE"})
        _write(folder, "config.json", {"model_type": "mbart"})
    elif kind == "nllb-hub":  # as facebook/nllb-200-distilled-600M's: the codes listed, so added
        _train_spm(folder, "sentencepiece.bpe.model", "bpe", {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1})
        routing = importlib.resources.files("tokenforge").joinpath("data", "transformers_routing.json")
        codes = json.loads(routing.read_text("utf-8"))["language_codes"]["NllbTokenizer"]
        config = {"tokenizer_class": "NllbTokenizer", "src_lang": "deu_Latn", "tgt_lang": "fra_Latn"}
        _write(
            folder, "tokenizer_config.json", {**config, "additional_special_tokens": codes, "legacy_behaviour": False}
        )
        _write(folder, "config.json", {"model_type": "m2m_100"})
    elif kind in ("nllb", "nllb-unknown-src-lang"):
        # (the model's control pieces are the class's additional_special_tokens, so its language
        # codes are not added: the source language's code is a piece of the model here)
        ids = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}
        _train_spm(folder, "sentencepiece.bpe.model", "bpe", ids, user_defined_symbols=["fra_Latn"])
        src = "xx_Unknown" if kind == "nllb-unknown-src-lang" else "fra_Latn"
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "NllbTokenizer", "src_lang": src})
        _write(folder, "config.json", {"model_type": "m2m_100"})
    elif kind in ("bart", "bart-no-class"):
        _train_bpe(folder, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
        config = {"model_max_length": 1024} if kind == "bart-no-class" else {"tokenizer_class": "BartTokenizer"}
        _write(folder, "tokenizer_config.json", config)
        _write(folder, "config.json", {"model_type": "bart"})
    elif kind in ("clip", "clip-hub"):
        _train_clip_bpe(folder)
        config = {"tokenizer_class": "CLIPTokenizer"}
        if kind == "clip-hub":  # as openai/clip-vit-base-patch32's
            end = {"__type": "AddedToken", "content": "<|endoftext|>", "lstrip": False, "rstrip": False}
            start = {**end, "content": "<|startoftext|>"}
            config.update(unk_token={**end, "normalized": True}, bos_token={**start, "normalized": True})
            config.update(eos_token={**end, "normalized": True}, pad_token="<|endoftext|>", errors="replace")
            config.update(add_prefix_space=False, do_lower_case=True, model_max_length=77)
        _write(folder, "tokenizer_config.json", config)
        _write(folder, "config.json", {"model_type": "clip"})
    return folder


def _train_clip_bpe(folder: pathlib.Path) -> None:
    """vocab.json + merges.txt as CLIP's: byte-level pieces, a word's last piece ending in </w>."""
    from tokenizers import Tokenizer as HfTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    bpe = HfTokenizer(models.BPE(end_of_word_suffix="</w>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=700,
        min_frequency=2,
        special_tokens=["<|startoftext|>", "<|endoftext|>"],
        end_of_word_suffix="</w>",
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator([line.lower() for line in LINES], trainer)
    bpe.model.save(str(folder))


def _auto(folder: pathlib.Path):
    try:
        return transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except Exception as error:  # noqa: BLE001 (transformers itself cannot build the class offline)
        pytest.skip(f"transformers cannot build {folder.name} offline: {error!r}")


KINDS = ["llama", "t5", "t5-extra-ids", "albert", "xlm-roberta", "gpt2", "qwen2", "roberta"]
# (issue 19's second round)
KINDS += ["camembert", "xlnet", "pegasus", "pegasus-defaults", "mbart", "mbart-unigram", "mbart50", "nllb"]
KINDS += ["bart", "clip", "xlnet-lowercase", "pegasus-offset", "pegasus-map", "mbart50-ro"]
KINDS += ["bart-no-class", "clip-hub", "xlnet-hub", "camembert-hub", "nllb-hub"]


@pytest.mark.parametrize("kind", KINDS)
def test_folder_matches_auto_tokenizer(tmp_path, kind):
    folder = _folder(tmp_path, kind)
    _auto(folder)
    # the vocabulary, added tokens and their flags, special tokens, ids, tokens, offsets, decode
    _same_as_transformers(folder, [*TEXTS, *LINES[1:60:7]])


@pytest.mark.parametrize("kind", ["camembert", "xlnet", "pegasus", "bart", "clip"])
def test_saved_folder_matches_auto_tokenizer(tmp_path, kind):
    """The same classes' folders as transformers saves them (tokenizer.json written), the file's
    normalizer made another: the class rebuilds the file's pipeline (its normalizer too) as it
    rebuilds the sentencepiece model's or vocab.json's."""
    saved = tmp_path / "saved"
    _auto(_folder(tmp_path, kind)).save_pretrained(str(saved))
    doc = json.loads((saved / "tokenizer.json").read_text("utf-8"))
    doc["normalizer"] = {"type": "Lowercase"}
    _write(saved, "tokenizer.json", doc)
    config = json.loads((saved / "tokenizer_config.json").read_text("utf-8"))
    declared = json.loads((tmp_path / kind / "tokenizer_config.json").read_text("utf-8"))["tokenizer_class"]
    _write(saved, "tokenizer_config.json", {**config, "tokenizer_class": declared})  # (it saves RobertaTokenizer)
    _write(saved, "config.json", json.loads((tmp_path / kind / "config.json").read_text("utf-8")))
    _same_as_transformers(saved, [*TEXTS, *LINES[1:60:7]])


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
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "BigBirdTokenizer"})
    _write(folder, "config.json", {"model_type": "big_bird"})
    with pytest.raises(ValueError, match=r"spiece\.model.*BigBirdTokenizer"):
        Tokenizer.from_pretrained(folder)


def test_nllb_source_language_not_in_the_vocabulary(tmp_path):
    """NllbTokenizer with a src_lang the vocabulary lacks: transformers' template shows the
    code's text with the unknown token's id."""
    folder = _folder(tmp_path, "nllb-unknown-src-lang")
    ref = _auto(folder)
    assert ref("hi")["input_ids"][0] == ref.unk_token_id
    assert ref.backend_tokenizer.encode("hi").tokens[0] == "xx_Unknown"
    _same_as_transformers(folder, TEXTS)
    assert Tokenizer.from_pretrained(folder).encode("hi").tokens[0] == "xx_Unknown"


def test_mbart50_rebuilt_vocabulary_with_unk_twice(tmp_path):
    """A MBart50 tokenizer.json without the language codes whose fourth piece is <unk>: the class
    rebuilds the vocabulary as <s> <pad> </s> <unk>, the file's pieces from the fourth on (so
    <unk> again, the id its text looks up), the codes and <mask>; the unknown id stays 3, and
    decode skips it by its text as HF's does."""
    from test_special_tokens_transformers import CLASS_TEXTS, _unigram_nfkc

    folder = tmp_path / "mbart50"
    folder.mkdir()
    _unigram_nfkc(folder / "tokenizer.json", ("<s>", "<pad>", "</s>", "<unk>"))
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "MBart50Tokenizer"})
    ref = _auto(folder)
    assert ref.convert_ids_to_tokens(3) == ref.convert_ids_to_tokens(4) == "<unk>"
    _same_as_transformers(folder, [*CLASS_TEXTS, "日本語 ☃ unknown ✓ text"])


def test_camembert_from_a_bpe_sentencepiece_model_is_refused(tmp_path):
    """CamembertTokenizer takes the sentencepiece model's own type: a BPE model's pieces come as a
    {piece: id} map, which its Unigram cannot take (transformers' TypeError); refused by name."""
    folder = _folder(tmp_path, "camembert-bpe")
    with pytest.raises(TypeError):
        transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    with pytest.raises(ValueError, match=r"sentencepiece\.bpe\.model.*CamembertTokenizer"):
        Tokenizer.from_pretrained(folder)


@pytest.mark.parametrize("kind", ["roberta", "clip"])
def test_roberta_processing_parts_as_transformers(tmp_path, kind):
    """RobertaTokenizer and CLIPTokenizer set RobertaProcessing: with special tokens, a pair's
    overflowing parts are all of type id 0 (a template would leave the second text's at 1)."""
    folder = _folder(tmp_path, kind)
    ref = _auto(folder).backend_tokenizer
    ours = Tokenizer.from_pretrained(folder)
    for t in (ref, ours):
        t.enable_truncation(max_length=10, stride=1)
    text, pair = LINES[1], LINES[2]
    for add in (True, False):
        want, got = ref.encode(text, pair, add_special_tokens=add), ours.encode(text, pair, add)
        assert want.overflowing, "the texts must be long enough to overflow"
        assert list(got.type_ids) == want.type_ids, add
        assert [list(o.type_ids) for o in got.overflowing] == [o.type_ids for o in want.overflowing], add
        assert [list(o.ids) for o in got.overflowing] == [o.ids for o in want.overflowing], add


# --- Python classes over the sentencepiece library (no tokenizers backend) -------------------

PYTHON_CLASS_TEXTS = [
    *TEXTS,
    "Übermäßig große Straße, ça va? ¿Qué tal? Привет, мир! Γειά σου",
    "日本語のテキスト、中文文本。 한국어 텍스트 — ☃ ✓ 🎉 unknown",
    "punctuation!!! ... ?? (brackets) [x] {y} <z> a,b;c:d 'q' \"dq\" -- @#$%^&*",
    "tabs\tand\nnewlines\r\n  \u3000wide\u00a0nbsp  ",
    "   ",
    "\u2581already\u2581escaped \u2581",
    "<s> </s> <pad> <unk> __fr__ __en__ inline</s>specials<s>",
    "x" * 300,
]


def _m2m100_folder(tmp_path: pathlib.Path, config: dict, missing: str | None = None) -> pathlib.Path:
    """As facebook/m2m100_418M's: sentencepiece.bpe.model (BPE), vocab.json in fairseq's order
    (<s> <pad> </s> <unk>, then the pieces in an order of their own, not the model's), made-up
    words at the end; `missing`: a piece vocab.json leaves out."""
    folder = tmp_path / "m2m100"
    folder.mkdir()
    ids = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}
    _train_spm(folder, "sentencepiece.bpe.model", "bpe", ids, keep_vocab=True)
    pieces = [line.split("\t")[0] for line in (folder / "m.vocab").read_text("utf-8").splitlines()][3:]
    pieces = sorted(pieces, key=lambda p: (len(p) % 3, p))  # (not the model's order)
    if missing is not None:
        pieces.remove(missing)
    words = [f"madeupword{i:04d}" for i in range(8)]
    _write(folder, "vocab.json", {p: i for i, p in enumerate(["<s>", "<pad>", "</s>", "<unk>", *pieces, *words])})
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "M2M100Tokenizer", **config})
    _write(folder, "config.json", {"model_type": "m2m_100"})
    return folder


def _same_as_python_class(folder: pathlib.Path, texts: list[str], targets: bool = True, past: int = 8) -> None:
    """AutoTokenizer's Python class (no backend_tokenizer, no offsets) and from_pretrained: the
    special tokens, ids with and without special tokens (a pair's too), the tokens of those ids,
    tokenize (unknown pieces by their text), decode with and without special tokens and
    clean-up, text_target's labels."""
    ref = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    assert not ref.is_fast
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_pretrained(folder)
    assert ours.all_special_tokens == ref.all_special_tokens
    assert ours.all_special_ids == ref.all_special_ids
    assert (ours.model_max_length, ours.padding_side) == (ref.model_max_length, ref.padding_side)
    for name in ("bos", "eos", "unk", "sep", "pad", "cls", "mask"):
        assert getattr(ours, f"{name}_token") == getattr(ref, f"{name}_token"), name
        assert getattr(ours, f"{name}_token_id") == getattr(ref, f"{name}_token_id"), name
    for text in texts:
        for add in (False, True):
            want = ref(text, add_special_tokens=add)["input_ids"]
            got = ours.encode(text, add_special_tokens=add).ids
            assert got == want, (text, add)
            assert [ours.id_to_token(i) for i in got] == ref.convert_ids_to_tokens(want), (text, add)
            assert ours.tokenize(text, add_special_tokens=add) == ref.tokenize(text, add_special_tokens=add), (
                text,
                add,
            )
            assert (
                ours(text, texts[0], add_special_tokens=add)["input_ids"]
                == ref(text, texts[0], add_special_tokens=add)["input_ids"]
            ), (text, add)
            for skip in (False, True):
                assert ours.decode(got, skip_special_tokens=skip) == ref.decode(want, skip_special_tokens=skip), (
                    text,
                    skip,
                )
                for clean in (False, True):
                    assert ours.decode(got, skip, clean_up_tokenization_spaces=clean) == ref.decode(
                        want, skip_special_tokens=skip, clean_up_tokenization_spaces=clean
                    ), (text, skip, clean)
        if targets:
            want_call = ref(text, text_target=texts[1])
            got_call = ours(text, text_target=texts[1])
            assert got_call["input_ids"] == want_call["input_ids"] and got_call["labels"] == want_call["labels"], text
    # ids with no special token among them (the decodes' one-run path), some ending with a space
    rng = random.Random(5)
    specials = set(ref.all_special_ids)
    plain = [i for i in range(len(ref.get_vocab())) if i not in specials]
    space = [i for i in (ref.convert_tokens_to_ids(t) for t in ("\u2581", " ")) if i in plain]
    for _ in range(60):
        ids = [rng.choice(plain) for _ in range(rng.randint(1, 8))] + space[: rng.randint(0, 1)]
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), ids
    every = list(range(len(ref.get_vocab()) + past))  # (`past` ids past the vocabulary: M2M100's codes)
    for skip in (False, True):
        assert ours.decode(every, skip_special_tokens=skip) == ref.decode(every, skip_special_tokens=skip)
        assert ours.batch_decode([every[:50], every[50:]], skip_special_tokens=skip) == ref.batch_decode(
            [every[:50], every[50:]], skip_special_tokens=skip
        )


@pytest.mark.parametrize(
    "config",
    [
        {"src_lang": "en", "tgt_lang": "fr"},
        {"src_lang": "de", "tgt_lang": "ja", "language_codes": "wmt21"},
        {"tgt_lang": "zu", "clean_up_tokenization_spaces": True},
    ],
    ids=["en-fr", "wmt21", "default-src-clean-up"],
)
def test_m2m100_folder_matches_python_class(tmp_path, config):
    """M2M100Tokenizer (sentencepiece.bpe.model + vocab.json): the model's pieces through
    vocab.json's ids, characters the model lacks as the unknown id, __src__ $A </s>, text_target
    with tgt_lang's code, decode between special tokens as sentencepiece's decode_pieces."""
    folder = _m2m100_folder(tmp_path, config)
    _same_as_python_class(folder, [*PYTHON_CLASS_TEXTS, *LINES[1:60:7]])
    ours = Tokenizer.from_pretrained(folder)
    # (the pipeline's offsets, into the text; transformers' Python class has none)
    offsets = ours.encode("hello world", add_special_tokens=False).offsets
    assert offsets[0][0] == 0 and offsets[-1][1] == len("hello world")


def test_m2m100_load_builds_the_pipeline_twice(tmp_path, monkeypatch):
    """The class's template and text_target's template go into one rebuild of the native
    pipeline after the first (the tokens the class adds need the first one's vocabulary)."""
    folder = _m2m100_folder(tmp_path, {"src_lang": "en", "tgt_lang": "fr"})
    built = []
    from_spec = Tokenizer.from_spec.__func__

    def counting(cls, *args, **kwargs):
        built.append(args)
        return from_spec(cls, *args, **kwargs)

    monkeypatch.setattr(Tokenizer, "from_spec", classmethod(counting))
    tok = Tokenizer.from_pretrained(folder)
    assert len(built) == 2
    assert tok("hello", text_target="bonjour")["labels"][0] == tok.token_to_id("__fr__")


def test_m2m100_without_tgt_lang(tmp_path):
    """No tgt_lang: text is encoded (src_lang en), text_target is transformers' KeyError."""
    folder = _m2m100_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    assert ours("hello")["input_ids"] == ref("hello")["input_ids"]
    for tok in (ref, ours):
        with pytest.raises(KeyError):
            tok("hello", text_target="bonjour")


def test_m2m100_refusals(tmp_path):
    """A src_lang that is not a code (transformers' KeyError), an unknown language_codes, a
    vocab.json without the unknown token (transformers' KeyError)."""
    from tokenforge.errors import FormatError

    folder = _m2m100_folder(tmp_path, {"src_lang": "xx"})
    with pytest.raises(KeyError):
        transformers.AutoTokenizer.from_pretrained(str(folder))
    with pytest.raises(ValueError, match="'xx' is not one of M2M100Tokenizer's language codes"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "M2M100Tokenizer", "language_codes": "nope"})
    with pytest.raises(FormatError, match="language_codes must be 'm2m100' or 'wmt21'"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "M2M100Tokenizer", "unk_token": "<nope>"})
    with pytest.raises(FormatError, match="unknown token '<nope>' is not in it"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "M2M100Tokenizer", "sp_model_kwargs": {"alpha": 0.1}})
    with pytest.raises(FormatError, match="sp_model_kwargs"):
        Tokenizer.from_pretrained(folder)
    (tmp_path / "saved").mkdir()
    tok = Tokenizer.from_pretrained(_m2m100_folder(tmp_path / "saved", {"src_lang": "en"}))
    with pytest.raises(ValueError, match=r"has no tokenizer\.json form"):
        tok.save(str(tmp_path / "tokenizer.json"))
    assert not (tmp_path / "tokenizer.json").exists()


def test_m2m100_piece_vocab_json_lacks(tmp_path):
    """A piece of the model that vocab.json lacks: the class gives it the unknown id (its
    pipeline is sentencepiece's own, each piece then given vocab.json's id of its text)."""
    folder = _m2m100_folder(tmp_path, {"src_lang": "en", "tgt_lang": "fr"}, missing="\u2581the")
    _same_as_python_class(folder, [*PYTHON_CLASS_TEXTS, *LINES[1:40:7]])
    ours = Tokenizer.from_pretrained(folder)
    assert ours.token_to_id("<unk>") in ours.encode("the the", add_special_tokens=False).ids


MARIAN_CODES = [">>fra<<", ">>deu<<", ">>zh_Hant<<"]
MARIAN_TEXTS = [
    *PYTHON_CLASS_TEXTS,
    ">>fra<< Hello world",
    ">>deu<<Guten Tag",
    ">>xx<< a code vocab.json lacks",
    ">>fra<<",
    ">>fra<<   ",
    ">><<",
    ">>> not a code",
    ">>fra no end",
    " >>fra<< after a space",
    "in the middle >>fra<< stays text",
    "</s>>>deu<< after a special token",
    ">>zh_Hant<<日本語 </s> >>fra<<<unk>x",
    "<<fra>> reversed",
]


def _marian_folder(tmp_path: pathlib.Path, config: dict, missing: str = "\u2581the") -> pathlib.Path:
    """As Helsinki-NLP/opus-mt-*'s: source.spm and target.spm (two Unigram models, their own
    pieces), vocab.json in an order of its own (</s> <unk>, language codes, both models' pieces,
    <pad> last) without `missing`, a piece of the source model (the class gives it the unknown id)."""
    folder = tmp_path / "marian"
    folder.mkdir()
    ids = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}
    _train_spm(folder, "source.spm", "unigram", ids, keep_vocab=True)
    source = [line.split("\t")[0] for line in (folder / "m.vocab").read_text("utf-8").splitlines()][3:]
    (folder / "m.vocab").unlink()
    upper = [line.upper() for line in LINES]  # (pieces of its own: ones source.spm lacks)
    _train_spm(folder, "target.spm", "unigram", ids, keep_vocab=True, vocab_size=400, lines=upper)
    target = [line.split("\t")[0] for line in (folder / "m.vocab").read_text("utf-8").splitlines()][3:]
    assert missing in source and len(set(target) - set(source)) > 100
    pieces = sorted({*source, *target} - {missing}, key=lambda p: (len(p) % 3, p))
    tokens = ["</s>", "<unk>", *MARIAN_CODES, *pieces, "<pad>"]
    _write(folder, "vocab.json", {t: i for i, t in enumerate(tokens)})
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "MarianTokenizer", **config})
    _write(folder, "config.json", {"model_type": "marian"})
    return folder


@pytest.mark.parametrize(
    "config",
    [{}, {"source_lang": "en", "target_lang": "de"}, {"clean_up_tokenization_spaces": True, "model_max_length": 64}],
    ids=["default", "langs", "clean-up"],
)
def test_marian_folder_matches_python_class(tmp_path, config):
    """MarianTokenizer (source.spm, target.spm, vocab.json): source.spm's pieces through
    vocab.json's ids (a piece vocab.json lacks as the unknown id), each text's leading >>xx<<
    one token (between special tokens too), $A </s>, text_target through target.spm, decode as
    the class's convert_tokens_to_string (pieces target.spm has and source.spm lacks written as
    they are)."""
    folder = _marian_folder(tmp_path, config)
    _same_as_python_class(folder, [*MARIAN_TEXTS, *LINES[1:60:7]], past=0)
    ours = Tokenizer.from_pretrained(folder)
    ref = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    # the piece vocab.json lacks: the unknown id, as the class's
    assert ours.encode(" the", add_special_tokens=False).ids == ref(" the", add_special_tokens=False)["input_ids"]
    assert ours.token_to_id("<unk>") in ours.encode("the the", add_special_tokens=False).ids
    # offsets into the text (the class has none): the code, then the text after it
    enc = ours.encode(">>fra<< hello", add_special_tokens=False)
    assert enc.ids[0] == ours.token_to_id(">>fra<<") and enc.offsets[0] == (0, 7)
    assert enc.offsets[-1][1] == len(">>fra<< hello")
    for batch in (MARIAN_TEXTS, LINES[:40]):
        assert ours(batch)["input_ids"] == ref(batch)["input_ids"]
        want = ref(batch, text_target=batch[::-1])
        got = ours(batch, text_target=batch[::-1])
        assert got["labels"] == want["labels"]
    # special_tokens_mask: the class's marks the text's special ids too, but <unk>'s
    for add in (False, True):
        kw = {"return_special_tokens_mask": True, "add_special_tokens": add, "padding": True}
        batch = ["a </s> b <unk> c <pad>", "hello", "<pad><pad>"]
        assert ours(batch, **kw)["special_tokens_mask"] == ref(batch, **kw)["special_tokens_mask"]
    assert ours.get_vocab() == ref.get_vocab() and len(ours) == len(ref) == ours.vocab_size
    assert ours.supported_language_codes == ref.supported_language_codes == MARIAN_CODES
    # text_target alone, and after tokens are added (the target tokenizer made again)
    assert ours(text_target="hello world")["input_ids"] == ref(text_target="hello world")["input_ids"]
    for tok in (ours, ref):
        tok.add_tokens(["newword"])
    text = "a newword >>fra<< b"
    assert ours(text, text_target=text)["labels"] == ref(text, text_target=text)["labels"]
    assert ours.encode(text).ids == ref(text)["input_ids"]


def test_marian_random_mixes_match_python_class(tmp_path):
    """Short random mixes of letters, whitespace, characters the models lack or their charsmap
    rewrites, U+2581, the special tokens and pieces of language codes (">>", "<<", codes
    vocab.json has and lacks): the same ids as MarianTokenizer, with and without the template,
    for the text and for text_target, the same decode of them and the same tokenize."""
    folder = _marian_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    alphabet = [*"ab cdE.,!?'-_ \t\n", "\x00", "\u200b", "\u00a0", "\u3000", "\u2581", "\u00e9", "e\u0301"]
    alphabet += ["\u65e5", "\uff21", "\U0001f389", "\r\n", "</s>", "<unk>", "<pad>", ">>", "<<", ">>fra<<", ">>xx<<"]
    alphabet += ["the", " the", "THE", "\u00dc"]
    rng = random.Random(7)
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        for add in (False, True):
            want = ref(text, add_special_tokens=add)["input_ids"]
            got = ours.encode(text, add_special_tokens=add).ids
            assert got == want, (text, add)
            assert ours.decode(got, skip_special_tokens=False) == ref.decode(want), text
        assert ours(text_target=text)["input_ids"] == ref(text_target=text)["input_ids"], text
        assert ours.tokenize(text) == ref.tokenize(text), text


def _same_vocab_and_mask(folder: pathlib.Path, batch: list[str], padding: bool = True) -> tuple[Any, Tokenizer]:
    """get_vocab, len() and a batch's special_tokens_mask as the Python class's; (theirs, ours)."""
    ref = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    ours = Tokenizer.from_pretrained(folder)
    assert ours.get_vocab() == ref.get_vocab() and len(ours) == len(ref)
    kw = {"return_special_tokens_mask": True, "padding": padding}
    assert ours(batch, **kw)["special_tokens_mask"] == ref(batch, **kw)["special_tokens_mask"]
    return ref, ours


def _spm_backend_folder(tmp_path: pathlib.Path, kind: str, config: dict) -> pathlib.Path:
    """As microsoft/speecht5_tts' (spm_char.model, a CHAR model, <mask> and <ctc_blank> added
    after it) or google/bert_for_seq_generation_L-24_bbc_encoder's (spiece.model, a Unigram)."""
    folder = tmp_path / kind
    folder.mkdir()
    ids = {"unk_id": 3, "bos_id": 0, "eos_id": 2, "pad_id": 1}
    if kind == "speecht5":
        _train_spm(folder, "spm_char.model", "char", ids, vocab_size=90)
        size = spm.SentencePieceProcessor(model_file=str(folder / "spm_char.model")).get_piece_size()
        flags = {"lstrip": True, "normalized": True, "rstrip": False, "single_word": False, "special": True}
        added = {str(size): {"content": "<mask>", **flags}, str(size + 1): {"content": "<ctc_blank>", **flags}}
        config = {"tokenizer_class": "SpeechT5Tokenizer", "added_tokens_decoder": added, **config}
    elif kind == "bartpho":  # a BPE model and a reduced fairseq dictionary of its pieces
        _train_spm(folder, "sentencepiece.bpe.model", "bpe", ids, keep_vocab=True)
        pieces = [line.split("\t")[0] for line in (folder / "m.vocab").read_text("utf-8").splitlines()][4:]
        kept = [p for k, p in enumerate(pieces) if k % 5]  # (every fifth piece left out: <unk> then)
        (folder / "dict.txt").write_text("".join(f"{p} {1000 - k}\n" for k, p in enumerate(kept)), "utf-8")
        config = {"tokenizer_class": "BartphoTokenizer", **config}
    else:
        _train_spm(folder, "spiece.model", "unigram", ids)
        config = {"tokenizer_class": "BertGenerationTokenizer", **config}
    _write(folder, "tokenizer_config.json", config)
    return folder


@pytest.mark.parametrize(
    "kind, config",
    [
        ("speecht5", {}),
        ("speecht5", {"clean_up_tokenization_spaces": True}),
        ("bert_generation", {}),
        ("bartpho", {}),
    ],
    ids=["speecht5", "speecht5-clean-up", "bert-generation", "bartpho"],
)
def test_spm_backend_folder_matches_python_class(tmp_path, kind, config):
    """The classes on transformers' SentencePieceBackend (Python over the sentencepiece library):
    the model's pieces with their own ids, a run of unknown characters as <unk>, SpeechT5's
    $A </s> (BertGeneration: no template), the added tokens after the model, decode as the
    class's convert_tokens_to_string (the tokens joined: <unk>, <s> shown as their text)."""
    folder = _spm_backend_folder(tmp_path, kind, config)
    _same_as_python_class(folder, [*PYTHON_CLASS_TEXTS, "a <mask> b<ctc_blank>", *LINES[1:60:7]], past=0)
    _same_vocab_and_mask(folder, ["a </s> b <unk> c", "hello", "\u65e5\u672c"])
    if kind == "speecht5":  # the CHAR model itself, as sentencepiece encodes with it
        from tokenforge.formats.sentencepiece_model import SentencePieceModel

        plain = Tokenizer(SentencePieceModel.read(folder / "spm_char.model"))
        sp = spm.SentencePieceProcessor(model_file=str(folder / "spm_char.model"))
        texts = [*PYTHON_CLASS_TEXTS, *LINES[:200]]
        assert [plain.encode(t, add_special_tokens=False).ids for t in texts] == sp.encode(texts)


def _plbart_folder(tmp_path: pathlib.Path, config: dict) -> pathlib.Path:
    """As uclanlp/plbart-python-en_XX's: sentencepiece.bpe.model (BPE: <unk> <s> </s> first)."""
    folder = tmp_path / "plbart"
    folder.mkdir()
    _train_spm(folder, "sentencepiece.bpe.model", "bpe", {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1})
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "PLBartTokenizer", **config})
    return folder


@pytest.mark.parametrize(
    "config",
    [
        {"src_lang": "python", "tgt_lang": "en_XX"},
        {"src_lang": "__java__", "clean_up_tokenization_spaces": False},
        "saved-v4",
        "saved-v5",
    ],
    ids=["python-en", "java-no-clean-up", "saved-v4", "saved-v5"],
)
def test_plbart_folder_matches_python_class(tmp_path, config):
    """PLBartTokenizer (a Python class over sentencepiece): fairseq's ids (<s> <pad> </s> <unk>,
    each piece at its id + 1), the language codes and <mask> (lstrip) after the model, all
    matched in text as special tokens; "$A </s> __src_lang__" (no code without a src_lang),
    text_target with tgt_lang's code; decode cleaned up as the folder says, whatever the call
    asks (the class's decode passes its own setting). The configs transformers 4 and 5 save
    (the first with every reserved token in added_tokens_decoder, the codes listed again)."""
    codes = ["__java__", "__python__", "__en_XX__"]
    if config == "saved-v5":
        config = {"extra_special_tokens": codes, "sp_model_kwargs": {}, "src_lang": "__java__", "tgt_lang": "python"}
    elif config == "saved-v4":
        flags = {"normalized": False, "rstrip": False, "single_word": False, "special": True}
        decoder = {str(i): {"content": t, "lstrip": False, **flags} for i, t in enumerate(("<s>", "<pad>", "</s>"))}
        decoder["3"] = {"content": "<unk>", "lstrip": False, **flags}
        decoder.update({str(601 + i): {"content": c, "lstrip": False, **flags} for i, c in enumerate(codes)})
        decoder["604"] = {"content": "<mask>", "lstrip": True, **flags}
        config = {"added_tokens_decoder": decoder, "additional_special_tokens": codes, "language_codes": "base"}
        config |= {"src_lang": "en_XX", "tgt_lang": "python", "model_max_length": 1024}
    folder = _plbart_folder(tmp_path, config)
    assert config.get("added_tokens_decoder", {}).get("601", {"content": "__java__"})["content"] == "__java__"
    assert len(spm.SentencePieceProcessor(model_file=str(folder / "sentencepiece.bpe.model"))) == 600
    texts = [*PYTHON_CLASS_TEXTS, "a <mask> b", "__java__ x</s>y __python__", "a<mask>b  <mask>", *LINES[1:60:7]]
    _same_as_python_class(folder, texts, past=0)
    batch = ["a </s> b <unk> c", "def f(x): return x", "\u65e5\u672c <mask>"]
    ref, ours = _same_vocab_and_mask(folder, batch)
    assert ours(batch, text_target=batch[::-1])["labels"] == ref(batch, text_target=batch[::-1])["labels"]


def test_plbart_refusals(tmp_path):
    """The "multi" language codes (its mask token shares <unk>'s id) and a src_lang that is none
    of the codes are refused naming the config's key; a tgt_lang that is none of them (KeyError,
    as transformers) when text_target is encoded."""
    from tokenforge.errors import FormatError

    folder = _plbart_folder(tmp_path, {"language_codes": "multi"})
    with pytest.raises(FormatError, match="language_codes: PLBartTokenizer with language_codes 'multi'"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "PLBartTokenizer", "src_lang": "cobol"})
    with pytest.raises(FormatError, match="src_lang: 'cobol' is not one of PLBartTokenizer's language codes"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "PLBartTokenizer", "tgt_lang": "cobol"})
    ours = Tokenizer.from_pretrained(folder)
    assert ours("x")["input_ids"][-1] == ours.eos_token_id
    with pytest.raises(KeyError, match="'cobol' is not one of PLBartTokenizer's language codes"):
        ours("x", text_target="y")


def _gpt_sw3_folder(tmp_path: pathlib.Path, name: str, config: dict, **options) -> pathlib.Path:
    """As AI-Sweden-Models/gpt-sw3-126m's: spiece.model (<pad> <unk> <s> <|endoftext|> first)."""
    folder = tmp_path / name
    folder.mkdir()
    model_type = options.pop("model_type", "bpe")
    ids = {"pad_id": 0, "unk_id": 1, "bos_id": 2, "eos_id": 3}
    _train_spm(folder, "spiece.model", model_type, ids, eos_piece="<|endoftext|>", **options)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "GPTSw3Tokenizer", **config})
    return folder


# GPTSw3Tokenizer's preprocess_text, in Python (its non-printing characters, its whitespace)
_SW3_REMOVED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\xa0\xad\u200b]")
_SW3_SPACES = str.maketrans(dict.fromkeys("\u2002\u2003\u2005\u2008\u2009\u200a\u202f\u3000\ufffc", " "))
GPT_SW3_TEXTS = [
    "a\u00a0b\u2003c\x07d\u00ade\u200bf\ufffcg\x84h\u2005i",
    "e\u0301 A\u030a \u1100\u1161 x\t\ny\x0c\r\nz",
    "<s>hi<|endoftext|><|endoftext|> x <pad> y<unk>",
    " lead  spaces  \u3000\u3000x\u202f",
    "\x00\x1f\x7f\x9f",
]


@pytest.mark.parametrize(
    "name, options",
    [
        ("gpt-sw3", {}),
        (
            "gpt-sw3-raw",
            {
                "byte_fallback": True,
                "normalization_rule_name": "identity",
                "add_dummy_prefix": False,
                "remove_extra_whitespaces": False,
            },
        ),
        ("gpt-sw3-7b", {"model_type": "unigram"}),
    ],
)
def test_gpt_sw3_folder_matches_python_class(tmp_path, name, options):
    """GPTSw3Tokenizer (a Python class over sentencepiece): each text between special tokens
    rewritten as its preprocess_text does (non-printing characters removed, its whitespace
    characters spaces, NFC) natively before sentencepiece, the model's own ids, no template,
    decode as its convert_tokens_to_string (a space before the text before a special token that
    does not follow another); with "gpt-sw3-7b" in the folder's name, <unk> pads and
    <|endoftext|> is the bos token, as the class reads name_or_path."""
    folder = _gpt_sw3_folder(tmp_path, name, {}, **options)
    texts = [*PYTHON_CLASS_TEXTS, *GPT_SW3_TEXTS, *LINES[1:60:7]]
    _same_as_python_class(folder, texts, past=0)
    ours = Tokenizer.from_pretrained(folder)
    assert (ours.pad_token, ours.bos_token) == (("<unk>", "<|endoftext|>") if name.endswith("7b") else ("<pad>", "<s>"))
    if name == "gpt-sw3-raw":  # offsets: each token's span of the input, rewritten, is its text
        for text in [*GPT_SW3_TEXTS, *PYTHON_CLASS_TEXTS]:
            encoding = ours.encode(text, add_special_tokens=False)
            assert encoding.offsets == sorted(encoding.offsets)
            for token, (start, end) in zip(encoding.tokens, encoding.offsets):
                if token.startswith("<0x") or token in ("<s>", "<|endoftext|>", "<pad>", "<unk>"):
                    continue
                span = unicodedata.normalize("NFC", _SW3_REMOVED.sub("", text[start:end]).translate(_SW3_SPACES))
                assert span.replace(" ", "\u2581") == token, (text, token, text[start:end])


def _phobert_folder(tmp_path: pathlib.Path, config: dict, kind: str = "phobert") -> pathlib.Path:
    """As vinai/phobert-base's: vocab.txt ("token count" lines, "@@" after a piece that does not
    end a word) and bpe.codes ("a b count" merges, "</w>" ending a word), from a BPE trained here
    with end_of_word_suffix "</w>"; every seventh token left out of vocab.txt (<unk> then), an
    early merge listed again last (its rank is its last place's) and a line of three symbols.
    kind "ctrl": as Salesforce/ctrl's, vocab.json (the same tokens, <unk> first) and
    merges.txt ("a b" lines after a #version line)."""
    from tokenizers import Tokenizer as HfTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    folder = tmp_path / kind
    folder.mkdir()
    hf = HfTokenizer(models.BPE(end_of_word_suffix="</w>"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.train_from_iterator(LINES, trainers.BpeTrainer(vocab_size=700, end_of_word_suffix="</w>", show_progress=False))
    model = json.loads(hf.to_str())["model"]
    tokens = [t[:-4] if t.endswith("</w>") else t + "@@" for t, _ in sorted(model["vocab"].items(), key=lambda e: e[1])]
    kept = [t for k, t in enumerate(tokens) if k % 7]
    merges = [m.split(" ") if isinstance(m, str) else m for m in model["merges"]]
    if kind == "ctrl":
        _write(folder, "vocab.json", {t: i for i, t in enumerate(["<unk>", *kept])})
        lines = ["#version: 0.2", *(f"{a} {b}" for a, b in merges), " ".join(merges[3]), "a b c"]
        (folder / "merges.txt").write_text("\n".join(lines) + "\n", "utf-8")
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "CTRLTokenizer", **config})
        _write(folder, "config.json", {"model_type": "ctrl"})
        return folder
    (folder / "vocab.txt").write_text("".join(f"{t} {900 - k}\n" for k, t in enumerate(kept)), "utf-8")
    lines = [f"{a} {b} {5000 - k}" for k, (a, b) in enumerate(merges)] + [f"{' '.join(merges[3])} 7", "a b c 3"]
    (folder / "bpe.codes").write_text("\n".join(lines) + "\n", "utf-8")
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "PhobertTokenizer", **config})
    _write(folder, "config.json", {"model_type": "roberta"})
    return folder


@pytest.mark.parametrize(
    "kind, config",
    [("phobert", {}), ("phobert", {"clean_up_tokenization_spaces": True}), ("ctrl", {})],
    ids=["phobert", "phobert-clean-up", "ctrl"],
)
def test_fast_bpe_folder_matches_python_class(tmp_path, kind, config):
    """PhobertTokenizer (a Python class over fastBPE's files): the words (Python's \\S+\\n?) cut
    by bpe.codes' merges, pieces named with "@@" and looked up in vocab.txt (<unk> for a name it
    lacks: a word's newline, a piece left out), <s> <pad> </s> <unk> first and <mask> after;
    "<s> $A </s>" (a pair "<s> $A </s> </s> $B </s>"); decode as its convert_tokens_to_string.
    CTRLTokenizer the same over vocab.json and merges.txt, without a template. Offsets cover
    each piece's characters; save refuses (HF's BPE cannot name "@@" pieces)."""
    folder = _phobert_folder(tmp_path, config, kind)
    texts = [*PYTHON_CLASS_TEXTS, "multi\nline  text\n\n x", "a\u00a0b\u2028c\x1cd\ne\r\nf <mask>x", *LINES[1:200:3]]
    _same_as_python_class(folder, texts, past=0)
    _, ours = _same_vocab_and_mask(folder, ["a </s> b <unk> c", "Xin chào thế giới", "<mask> x"], kind != "ctrl")
    encoding = ours.encode("Hello world, multi\nline", add_special_tokens=False)
    spans = ["Hello world, multi\nline"[a:b] for a, b in encoding.offsets]
    known = [(t.removesuffix("@@"), span) for t, span in zip(encoding.tokens, spans) if t != "<unk>"]
    assert len(known) > 5 and all(token == span for token, span in known), known
    with pytest.raises(ValueError, match=r"FastBPE model has no tokenizer\.json form"):
        ours.save(str(tmp_path / "out.json"))
    assert not (tmp_path / "out.json").exists()


def test_gpt_sw3_random_mixes_match_python_class(tmp_path):
    """Random mixes of letters, the characters GPT-SW3's preprocess_text removes or makes spaces,
    combining marks and Hangul jamo (NFC composes them), special tokens: the same ids, decode
    and tokenize as GPTSw3Tokenizer, on a byte-fallback model that keeps every space."""
    import random

    options = {"normalization_rule_name": "identity", "add_dummy_prefix": False, "remove_extra_whitespaces": False}
    folder = _gpt_sw3_folder(tmp_path, "gpt-sw3", {}, byte_fallback=True, **options)
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    alphabet = [*"ab cdE.,!?'-_ \t\n", "\x00", "\x07", "\x1c", "\x7f", "\x84", "\x85", "\xa0", "\xad", "\u200b"]
    alphabet += ["\u2002", "\u2003", "\u2005", "\u2008", "\u3000", "\ufffc", "\u0301", "\u0308", "\u030a", "e", "A"]
    alphabet += [
        "\u1100",
        "\u1161",
        "\u11a8",
        "\u00e9",
        "\U0001f389",
        "<s>",
        "<|endoftext|>",
        "<pad>",
        "\r\n",
        "\u0915",
    ]
    alphabet += ["\u093c", "\u2126", "\uac00"]
    rng = random.Random(7)
    for _ in range(600):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        ids = ref(text)["input_ids"]
        assert ours.encode(text).ids == ids, text
        assert ours.decode(ids, False) == ref.decode(ids), text
        assert ours.tokenize(text) == ref.tokenize(text), text


@pytest.mark.parametrize("kind", ["phobert", "ctrl"])
def test_fast_bpe_random_mixes_match_python_class(tmp_path, kind):
    """Random mixes of words, Python's and Unicode's whitespace (U+001C, which only Python's re
    splits at), special tokens, "@@" and "</w>" written in the text: the same ids, decode and
    tokenize as PhobertTokenizer and CTRLTokenizer."""
    import random

    folder = _phobert_folder(tmp_path, {}, kind)
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    words = " ".join(LINES[:50]).split()
    alphabet = [*"ab cdE.,!?'-_ \t\n", "\x1c", "\x85", "\xa0", "\u2028", "\u3000", "\r\n", "<s>", "</s>", "<mask>"]
    alphabet += ["<unk>", "\u00e9", "\u65e5", "\U0001f389", "@@", "</w>"]
    rng = random.Random(11)
    for _ in range(400):
        text = "".join(
            rng.choice(words) if rng.random() < 0.5 else rng.choice(alphabet) for _ in range(rng.randint(0, 10))
        )
        ids = ref(text)["input_ids"]
        assert ours.encode(text).ids == ids, text
        assert ours.tokenize(text) == ref.tokenize(text), text
        for skip in (False, True):
            assert ours.decode(ids, skip) == ref.decode(ids, skip_special_tokens=skip), (text, skip)


def test_phobert_refusals(tmp_path):
    """A vocab.txt line without a count, and a folder whose unknown token vocab.txt's ids lack,
    are FormatErrors naming the file."""
    from tokenforge.errors import FormatError

    folder = _phobert_folder(tmp_path, {})
    good = (folder / "vocab.txt").read_text("utf-8")
    (folder / "vocab.txt").write_text(good + "lonely\n", "utf-8")
    with pytest.raises(FormatError, match=r"vocab\.txt: line \d+: PhobertTokenizer: expected '<token> <count>'"):
        Tokenizer.from_pretrained(folder)
    (folder / "vocab.txt").write_bytes(b"\xff\xfe x 1\n")
    with pytest.raises(FormatError, match=r"vocab\.txt: PhobertTokenizer reads its vocabulary and merges"):
        Tokenizer.from_pretrained(folder)


def test_spm_backend_refusals(tmp_path):
    """What the classes do in Python of their own is refused naming the config's key: SpeechT5's
    normalize (its English number normalizer), legacy false (the <unk> prefix of a text that
    starts with a space), sp_model_kwargs (sampling); a CHAR model with a longer piece names it."""
    from tokenforge.errors import FormatError

    folder = _spm_backend_folder(tmp_path, "speecht5", {"normalize": True})
    with pytest.raises(FormatError, match="normalize"):
        Tokenizer.from_pretrained(folder)
    for key, value in (("legacy", False), ("sp_model_kwargs", {"enable_sampling": True})):
        _write(folder, "tokenizer_config.json", {"tokenizer_class": "SpeechT5Tokenizer", key: value})
        with pytest.raises(FormatError, match=key):
            Tokenizer.from_pretrained(folder)
    from tokenforge.formats.sentencepiece_model import PieceType, SentencePieceModel

    model = SentencePieceModel.read(folder / "spm_char.model")
    model.pieces[5] = dataclasses.replace(model.pieces[5], piece="ab", type=PieceType.NORMAL)
    with pytest.raises(FormatError, match="'ab': a CHAR model's pieces are single characters"):
        model.validate()


def test_marian_refusals(tmp_path):
    """separate_vocabs (target_vocab.json's ids for text_target and decode) and sp_model_kwargs
    (sampling) are refused naming the config; a folder without target.spm names the file; an
    unknown token vocab.json lacks names it."""
    from tokenforge.errors import FormatError

    folder = _marian_folder(tmp_path, {"separate_vocabs": True})
    with pytest.raises(FormatError, match="MarianTokenizer with separate_vocabs"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "MarianTokenizer", "sp_model_kwargs": {"alpha": 0.1}})
    with pytest.raises(FormatError, match="sp_model_kwargs"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "MarianTokenizer", "unk_token": "<nope>"})
    with pytest.raises(FormatError, match="'<nope>' is not in it"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "MarianTokenizer"})
    vocab = json.loads((folder / "vocab.json").read_text("utf-8"))
    _write(folder, "vocab.json", {**vocab, "<far>": 2**31})
    with pytest.raises(FormatError, match="id 2147483648 is far past its"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "vocab.json", {**vocab, "<neg>": -1})
    with pytest.raises(FormatError, match=r"vocab\.json: not a vocabulary"):
        Tokenizer.from_pretrained(folder)
    (folder / "vocab.json").write_text('{"</s>": 0, ', "utf-8")
    with pytest.raises(FormatError, match=r"vocab\.json: MarianTokenizer reads its vocabulary from this file"):
        Tokenizer.from_pretrained(folder)
    _write(folder, "vocab.json", vocab)
    source = (folder / "source.spm").read_bytes()
    (folder / "source.spm").write_bytes(source[: len(source) // 2])
    with pytest.raises(FormatError, match=r"source\.spm: MarianTokenizer reads a sentencepiece model"):
        Tokenizer.from_pretrained(folder)
    (folder / "source.spm").write_bytes(source)
    (folder / "target.spm").unlink()
    with pytest.raises(FormatError, match=r"target\.spm: MarianTokenizer reads this file"):
        Tokenizer.from_pretrained(folder)


def _siglip_folder(tmp_path: pathlib.Path, config: dict) -> pathlib.Path:
    """As google/siglip-base-patch16-224's: spiece.model (Unigram: <pad> </s> <unk> first)."""
    folder = tmp_path / "siglip"
    folder.mkdir()
    _train_spm(folder, "spiece.model", "unigram", {"pad_id": 0, "eos_id": 1, "unk_id": 2, "bos_id": -1})
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "SiglipTokenizer", **config})
    _write(folder, "config.json", {"model_type": "siglip"})
    return folder


def _siglip_says(text: str, ours: Tokenizer) -> bool:
    """Not the case of SiglipTokenizer's its pipeline does not say: a character the model does
    not know right after a special token (past the spaces and punctuation the class removes
    there). The class encodes that text after "<unk>" and drops the pieces "<unk>" alone has;
    the unknown character joins the unknown pieces before it (the model's own "<unk>" text,
    here '>'), and goes with them."""
    unknown = ours.token_to_id("<unk>")
    for match in re.finditer(r"</s>|<unk>", text):
        rest = re.sub(r"^(?:(?!</s>|<unk>)[\s!-/:-@\[-`{-~\u2581])*", "", text[match.end() :])
        if not rest or rest.startswith(("</s>", "<unk>")):
            continue
        ids = ours.encode(rest, add_special_tokens=False, allowed_special=()).ids
        if [i for i in ids if ours.id_to_token(i) != "\u2581"][:1] == [unknown]:
            return False
    return True


@pytest.mark.parametrize(
    "config",
    [{}, {"do_lower_case": False}, {"clean_up_tokenization_spaces": True, "model_max_length": 64}],
    ids=["default", "cased", "clean-up"],
)
def test_siglip_folder_matches_python_class(tmp_path, config):
    """SiglipTokenizer (spiece.model): lowercased, Python's string.punctuation removed,
    whitespace runs one space, stripped, only the first text (before any special token)
    starting a word, the model's charsmap and Unigram; "$A </s>"; decode with a space before a
    special token that follows text."""
    folder = _siglip_folder(tmp_path, config)
    texts = [
        *PYTHON_CLASS_TEXTS,
        "a</s>b",
        "a </s>  \t b</s> c <unk>d",
        "!!! x",
        "``quoted'' start",
        ".getOptional() and .getMandatory().",
        "\u2581a \u2581 b",
        "UPPER lower MiXeD ÀÉÎ",
        "ends with its eos</s>",
        "</s>",
        "two </s></s>",
        # (characters the model's charsmap removes or makes spaces: the spaces around them then
        # collapse, and trailing ones go, as sentencepiece's remove_extra_whitespaces says)
        "\n\x1a",
        "a \x1a b",
        "x \x1a",
        " \x1a a",
        "a \u200b b",
        "\u200b",
        "a \ufeff",
        "a \x7f",
        "a\u00a0 b\u0085c",
        "x</s>\x1a y \x1a",
        # (the spaces and punctuation after a special token go, as the class removes them; a
        # special token right after them is one)
        "a</s>!b",
        "a</s> , ! b</s>''x",
        "a</s>\u2581b",
        "a <unk>-- \u2581 c",
        "</s></s>!?",
        "x</s>.</s>.y",
        "x</s>!<unk>y",
        *LINES[1:60:7],
    ]
    ours = Tokenizer.from_pretrained(folder)
    said = [t for t in texts if _siglip_says(t, ours)]
    assert len(said) > len(texts) - 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the class warns of a text that ends with its eos)
        _same_as_python_class(folder, said, past=0)
    ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    # (tokenize: a special token is its own text, not with what its strip took; an unknown
    # piece its text)
    for text in said:
        assert ours.tokenize(text) == ref.tokenize(text), text
    # (truncation keeps room for the eos; a cut that ends with it gets none: one token fewer)
    for text in ("a b c d e f g h", "a b c</s> d e f", "x </s>", "</s> </s> </s> </s>"):
        for length in (2, 3, 4, 5):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = ref(text, truncation=True, max_length=length)["input_ids"]
            assert ours(text, truncation=True, max_length=length)["input_ids"] == want, (text, length)
            got = ours(text, "y z w</s>", truncation=True, max_length=length + 3)["input_ids"]
            assert got == ref(text, "y z w</s>", truncation=True, max_length=length + 3)["input_ids"], (text, length)


def test_siglip_random_mixes_match_python_class(tmp_path):
    """Short random mixes of letters, punctuation, Python's and Unicode's whitespace, characters
    the charsmap removes or rewrites (controls, zero-width and full-width ones, U+2581) and
    unknown ones, without special tokens: the same ids as SiglipTokenizer."""
    import random

    folder = _siglip_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    alphabet = [*"ab cdE.,!?'-_ \t\n", "\x1a", "\x00", "\x7f", "\u200b", "\ufeff", "\u00a0", "\u3000", "\u2581"]
    alphabet += ["\u00e9", "e\u0301", "\u65e5", "\uff21", "\u2028", "\x85", "\U0001f389", "\u00ad", "\u2003", "\r\n"]
    rng = random.Random(3)
    for _ in range(600):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert ours.encode(text).ids == ref(text)["input_ids"], text


def test_siglip_random_mixes_with_special_tokens(tmp_path):
    """Random mixes of letters, punctuation, spaces, U+2581, characters the model does not know
    and the special tokens: the same ids as SiglipTokenizer (the spaces and punctuation after a
    special token go, up to the next one), but where _siglip_says a text is not said."""
    import random

    folder = _siglip_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    alphabet = [*"ab cdE.,!?'-_<>/ \t\n", "\x1a", "\u200b", "\u00a0", "\u3000", "\u2581", "\u00e9", "e\u0301"]
    alphabet += ["\u65e5", "\uff21", "\U0001f389", "</s>", "<unk>", "</s>", "<unk>"]
    rng = random.Random(5)
    checked = 0
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        if not _siglip_says(text, ours):
            continue
        checked += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert ours.encode(text).ids == ref(text)["input_ids"], text
            assert ours.tokenize(text) == ref.tokenize(text), text
    assert checked > 1200


def test_siglip_differences_left(tmp_path):
    """The case the pipeline does not say (docs/usage.md): an unknown character right after a
    special token, which the class drops with the pieces of its "<unk>" prefix. (A text already
    ending with </s> gets no second one, as the class.)"""
    folder = _siglip_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    with pytest.warns(UserWarning):
        assert ref("x</s>")["input_ids"] == ours.encode("x</s>").ids
    assert ours.encode("x</s>").ids[-2:] != [1, 1] and ours.encode("x</s>", "y</s>").ids.count(1) == 2
    assert not _siglip_says("a</s>\U0001f389b", ours)
    assert ref.tokenize("a</s>\U0001f389b")[-1:] == ["b"]
    assert ours.encode("a</s>\U0001f389b", add_special_tokens=False).tokens[-2:] == ["\U0001f389", "b"]
    # (punctuation there, a difference before the strip took it, is said)
    assert _siglip_says("a</s>!b", ours) and ref.tokenize("a</s>!b")[-1:] == ["b"]
    assert ours.encode("a</s>!b", add_special_tokens=False).tokens[-2:] == ["</s>!", "b"]


@pytest.mark.parametrize("kind", ["clip", "clip-hub"])
def test_clip_decode_stream_as_transformers_decode(tmp_path, kind):
    """CLIPTokenizer's decode_stream: after each id, the text the stream has given so far is
    transformers' CLIP decode of the ids so far (each </w> a space, the text stripped) wherever
    the step gives text; at the end, all of it. (decode_stream steps Tokenizer.decode, which
    drops the </w> as the option strip_word_suffix says.)"""
    import random

    folder = _folder(tmp_path, kind)
    ref = _auto(folder)
    ours = Tokenizer.from_pretrained(folder)
    rng = random.Random(19)
    size = ours.get_vocab_size()
    runs = [ours.encode(text).ids for text in [*TEXTS, *LINES[1:40:5]]]
    runs += [[rng.randrange(size) for _ in range(rng.randrange(1, 14))] for _ in range(60)]
    for ids in runs:
        for skip in (False, True):
            stream, shown = ours.decode_stream(skip_special_tokens=skip), ""
            for k, i in enumerate(ids):
                chunk = stream.step(i)
                if chunk is not None:
                    shown += chunk
                    assert shown == ref.decode(ids[: k + 1], skip_special_tokens=skip), (ids[: k + 1], skip)
                    assert "</w>" not in chunk
            whole = ref.decode(ids, skip_special_tokens=skip)
            assert whole.endswith("\ufffd") or shown == whole, (ids, skip)


def _wav2vec2_folder(
    tmp_path: pathlib.Path, config: dict, vocab_of: str = "upper", saved: bool = False
) -> pathlib.Path:
    """As facebook/wav2vec2-base-960h's (vocab_of "upper": <pad> <s> </s> <unk>, "|", upper-case
    letters and the apostrophe) or a fine-tuned XLS-R's ("lower": the corpus' 60 most common
    characters but the space, "[UNK]" and "[PAD]" last); "nested": MMS' one vocabulary per
    language. saved: the folder transformers' save_pretrained writes of it (added_tokens_decoder)."""
    folder = tmp_path / f"wav2vec2-{vocab_of}-{saved}"
    folder.mkdir()
    if vocab_of == "upper":
        chars = ["<pad>", "<s>", "</s>", "<unk>", "|", *"ETAONIHSRDLUMWCFGYPBVK'XJQZ"]
    else:
        counts: dict[str, int] = {}
        for line in LINES[:400]:
            for c in line.lower():
                counts[c] = counts.get(c, 0) + 1
        common = sorted((c for c in counts if c != " "), key=lambda c: -counts[c])[:60]
        chars = ["|", *common, "[UNK]", "[PAD]"]
        config = {"unk_token": "[UNK]", "pad_token": "[PAD]", **config}
    vocab = {c: i for i, c in enumerate(chars)}
    if vocab_of == "nested":
        vocab = {"eng": vocab, "deu": {c: i for i, c in enumerate(reversed(chars))}}
    _write(folder, "vocab.json", vocab)
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "Wav2Vec2CTCTokenizer", **config})
    _write(folder, "config.json", {"model_type": "wav2vec2"})
    if saved:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            transformers.AutoTokenizer.from_pretrained(str(folder)).save_pretrained(str(tmp_path / "saved"))
        return tmp_path / "saved"
    return folder


# Python's str.split() splits at \x1c-\x1f, which HF's WhitespaceSplit (Rust's whitespace) keeps
_PYTHON_ONLY_SPACE = re.compile("[\x1c-\x1f]")

WAV2VEC2_TEXTS = [
    *PYTHON_CLASS_TEXTS,
    "HELLO WORLD",
    "HELLO  WORLD   AGAIN",
    "A <unk> B<unk>C <s>D</s> <pad>E",
    " <s>  ",
    "A|B || C",
    "AAA  BB\tB",
    "[UNK] [PAD]x[PAD] y",
    "Z [UNK] Z <unk>",
    "\u3000<s>\u00a0X\u2028</s>\n",
    # (the class strips around its tokens with str.lstrip and str.rstrip: \x1c-\x1f too)
    "A\x1c<s>\x1fB \x1d\x1e</s>\x1c C\x1f",
]


@pytest.mark.parametrize(
    ("config", "vocab_of", "saved"),
    [
        ({}, "upper", False),
        ({}, "upper", True),
        ({"clean_up_tokenization_spaces": True}, "lower", False),
        ({"replace_word_delimiter_char": "_", "word_delimiter_token": "|"}, "lower", True),
        ({"target_lang": "deu"}, "nested", False),
    ],
    ids=["960h", "960h-saved", "xlsr-clean-up", "xlsr-replace-saved", "mms-deu"],
)
def test_wav2vec2_folder_matches_python_class(tmp_path, config, vocab_of, saved):
    """Wav2Vec2CTCTokenizer (vocab.json alone): each character a token (the unknown token where
    the vocabulary lacks it), each space the word delimiter, the vocabulary's longer tokens
    matched whole with the spaces around them stripped; decode as CTC (repeats grouped, the pad
    token dropped, the delimiter replaced, stripped), with and without special tokens."""
    folder = _wav2vec2_folder(tmp_path, config, vocab_of, saved)
    texts = [*WAV2VEC2_TEXTS, *LINES[1:80:7]]
    texts += [t.upper() for t in texts[:20]]
    _same_as_python_class(folder, texts)
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    # CTC outputs: every id, repeated and interleaved with the pad (blank) and the delimiter
    rng = __import__("random").Random(7)
    size = len(ref.get_vocab())
    for _ in range(200):
        ids = [rng.choice([rng.randrange(size), ref.pad_token_id, ref.word_delimiter_token_id]) for _ in range(30)]
        ids = [i for i in ids for _ in range(rng.randint(1, 3))]
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), ids
    assert ours.batch_decode([ids, ids[:5]]) == ref.batch_decode([ids, ids[:5]])
    # NumPy's integers, and an id past the vocabulary (the unknown token's text, as the class)
    import numpy as np

    far = [*ids[:10], size + 5, *ids[10:]]
    for skip in (False, True):
        assert ours.decode(np.array(ids), skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip)
        assert ours.decode(far, skip_special_tokens=skip) == ref.decode(far, skip_special_tokens=skip)


def test_wav2vec2_differences_and_refusals(tmp_path):
    """\\x1c-\\x1f around a longer token: the class strips them (Python's whitespace), as the
    folder's pipeline does, while its saved tokenizer.json keeps them (HF's whitespace), in HF and
    here. Refused with the reason: do_lower_case (the class upper-cases the text), a nested
    vocabulary without target_lang, an unknown token the vocabulary lacks, vocab.json alone for
    another class."""
    folder = _wav2vec2_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    assert ref("A\x1c<s>B")["input_ids"] == [7, 1, 24] == ours.encode("A\x1c<s>B").ids
    ours.save(str(tmp_path / "saved.json"))
    saved = tokenizers.Tokenizer.from_file(str(tmp_path / "saved.json"))
    assert (
        saved.encode("A\x1c<s>B").ids
        == [7, 3, 1, 24]
        == Tokenizer.from_file(tmp_path / "saved.json").encode("A\x1c<s>B").ids
    )
    for config, vocab_of, match in [
        ({"do_lower_case": True}, "upper", "do_lower_case upper-cases"),
        ({}, "nested", "set target_lang"),
        ({"target_lang": "fra"}, "nested", "'fra' is not one of"),
        ({"unk_token": "<oov>"}, "upper", "needs its unknown token '<oov>'"),
    ]:
        where = tmp_path / f"refused-{len(match)}"
        where.mkdir()
        with pytest.raises(ValueError, match=match):
            Tokenizer.from_pretrained(_wav2vec2_folder(where, config, vocab_of))
    other = tmp_path / "other"
    other.mkdir()
    _write(other, "vocab.json", {"a": 0, "b": 1})
    _write(other, "tokenizer_config.json", {"tokenizer_class": "GPT2Tokenizer"})
    with pytest.raises(ValueError, match=r"vocab\.json: transformers builds GPT2Tokenizer from this file alone"):
        Tokenizer.from_pretrained(other)


ESM_TOKENS = ["<cls>", "<pad>", "<eos>", "<unk>", *"LAGVSERTIDPKQNFYMHWCXBUZO.-", "<null_1>", "<mask>"]


def _esm_folder(tmp_path: pathlib.Path, config: dict, tokens: list[str] = ESM_TOKENS) -> pathlib.Path:
    """As facebook/esm2_t6_8M_UR50D's: vocab.txt, one token a line (the amino acids, specials)."""
    folder = tmp_path / f"esm-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "vocab.txt").write_text("\n".join(tokens), "utf-8")
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "EsmTokenizer", "model_max_length": 1024, **config})
    _write(folder, "config.json", {"model_type": "esm"})
    return folder


ESM_TEXTS = [
    *PYTHON_CLASS_TEXTS,
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDLLR",
    "M K T <mask> A",
    "MKT<mask>AYZ.-<null_1>",
    "MKxTA  \n<cls><eos>X",
    "<null_1>X<null_ <mask",
    "mkta MKTA",
    "AA<pad>BB <unk>",
]


@pytest.mark.parametrize(
    ("config", "tokens"),
    [
        ({}, ESM_TOKENS),
        ({"clean_up_tokenization_spaces": True}, ESM_TOKENS),
        ({}, [*ESM_TOKENS[:4], "AB", "A", "ABC", "B", "C", "<mask>"]),
    ],
    ids=["esm2", "clean-up", "overlapping"],
)
def test_esm_folder_matches_python_class(tmp_path, config, tokens):
    """EsmTokenizer (vocab.txt alone): every vocabulary token matched anywhere in the text
    (longest first), the rest split at whitespace, a word that is no token the unknown token;
    "<cls> $A <eos>" (a pair: "<cls> $A <eos> $B <eos>"); decode joins the tokens with spaces."""
    folder = _esm_folder(tmp_path, config, tokens)
    texts = [t for t in [*ESM_TEXTS, *LINES[1:80:7]] if not _PYTHON_ONLY_SPACE.search(t)]
    texts += [t.upper() for t in texts]
    _same_as_python_class(folder, texts, targets=False, past=0)


def test_esm_and_wav2vec2_random_mixes_tokenize_as_python_class(tmp_path):
    """Random mixes of vocabulary tokens, letters and words neither has, the special tokens and
    whitespace (Unicode's too): tokenize as EsmTokenizer's and Wav2Vec2CTCTokenizer's (a word or
    character the vocabulary lacks by its text, each special token by its own text), and the
    same ids."""
    rng = random.Random(13)
    esm = _esm_folder(tmp_path, {})
    wav2vec2 = _wav2vec2_folder(tmp_path, {}, "lower")
    alphabet = [*"LAGVX.-ab z?", "Hello", "ŋ", "日", "\U0001f389", " ", "  ", "\t", "\n", "\u3000", "\xa0"]
    alphabet += ["<cls>", "<eos>", "<unk>", "<mask>", "[UNK]", "[PAD]", "<s>", "|", "é"]
    for folder in (esm, wav2vec2):
        ref = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        ours = Tokenizer.from_pretrained(folder)
        for _ in range(300):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
            if folder == esm and _PYTHON_ONLY_SPACE.search(text):
                continue
            assert ours.encode(text, add_special_tokens=False).ids == ref(text, add_special_tokens=False)["input_ids"]
            assert ours.tokenize(text) == ref.tokenize(text), (folder.name, text)


def test_esm_refusals(tmp_path):
    """A token listed twice (the class gives it two ids), no unknown token, no eos token (the
    class refuses pairs then): ValueError naming vocab.txt (and the line)."""
    with pytest.raises(ValueError, match=r"vocab\.txt: line 6: 'L' is listed twice \(line 5 too\)"):
        Tokenizer.from_pretrained(_esm_folder(tmp_path, {}, [*ESM_TOKENS[:5], "L"]))
    with pytest.raises(ValueError, match=r"vocab\.txt: EsmTokenizer needs its unknown token '<unk>'"):
        Tokenizer.from_pretrained(_esm_folder(tmp_path, {}, ["<cls>", "A"]))
    with pytest.raises(ValueError, match=r"vocab\.txt: EsmTokenizer puts its cls and eos tokens \('<cls>', None\)"):
        Tokenizer.from_pretrained(_esm_folder(tmp_path, {"eos_token": None}))


def _byt5_folder(
    tmp_path: pathlib.Path, config: dict, special_tokens_map: dict | None = None, saved: bool = False
) -> pathlib.Path:
    """As google/byt5-small's: tokenizer_config.json (ByT5Tokenizer, its extra_ids) and a config.json
    of model_type t5, no vocabulary file; special_tokens_map.json where given. saved: the folder
    transformers' save_pretrained writes of it (added_tokens_decoder)."""
    folder = tmp_path / f"byt5-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    _write(folder, "tokenizer_config.json", {"tokenizer_class": "ByT5Tokenizer", **config})
    _write(folder, "config.json", {"model_type": "t5"})
    if special_tokens_map is not None:
        _write(folder, "special_tokens_map.json", special_tokens_map)
    if saved:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            transformers.AutoTokenizer.from_pretrained(str(folder)).save_pretrained(str(folder) + "-saved")
        return pathlib.Path(str(folder) + "-saved")
    return folder


BYT5_TEXTS = [
    *PYTHON_CLASS_TEXTS,
    "a </s> b",
    "a</s>b  <pad>\t<unk>c",
    "x<extra_id_0> y<extra_id_124><extra_id_125> <extra_id_1>",
    # (every byte whose GPT-2 character is another: controls, space, DEL, C1 controls, NBSP, SHY)
    "".join(map(chr, [*range(0x21), 0x7F, *range(0x80, 0xA1), 0xAD])),
    "\u0100 \u0120 \u0121 \u0143 \u00ff\u00fe",
    "ends with its eos</s>",
    "\U0001f389\U0001f468\u200d\U0001f469",
    # (the class strips around pad, eos and unk with str.lstrip and str.rstrip: \x1c-\x1f too)
    "a\x1c</s>\x1db \x1e<pad>\x1f\x1c<unk> \x1c",
]


@pytest.mark.parametrize(
    ("config", "special_tokens_map", "saved"),
    [
        ({}, None, False),
        ({}, None, True),
        ({"extra_ids": 125, "additional_special_tokens": [f"<extra_id_{i}>" for i in range(125)]}, None, False),
        ({"extra_ids": 3}, {"additional_special_tokens": ["<extra_id_0>", "<extra_id_1>", "<extra_id_2>"]}, False),
        ({"extra_ids": 0, "clean_up_tokenization_spaces": True}, None, False),
        ({"eos_token": "<eos>", "pad_token": "[PAD]", "extra_ids": 2}, None, True),
        # (the config's list is extra_special_tokens in transformers 5: no extra ids are made beside it)
        ({"extra_ids": 3, "additional_special_tokens": ["<extra_id_0>", "<x>"]}, None, False),
    ],
    ids=[
        "default",
        "default-saved",
        "byt5-small",
        "special-tokens-map",
        "no-extra-ids-clean-up",
        "renamed-saved",
        "config-list-only",
    ],
)
def test_byt5_folder_matches_python_class(tmp_path, config, special_tokens_map, saved):
    """ByT5Tokenizer (tokenizer_config.json alone): each UTF-8 byte a token (chr(byte), id byte +
    3), pad, eos and unk at 0, 1, 2 matched with the spaces around them stripped, the extra ids
    after the bytes; "$A </s>" (no second one after a text ending with it); decode as the class
    (the bytes and the added tokens' text read as UTF-8, invalid bytes dropped)."""
    folder = _byt5_folder(tmp_path, config, special_tokens_map, saved)
    texts = [*BYT5_TEXTS, *LINES[1:60:7]]
    _same_as_python_class(folder, texts, past=0)
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    assert ours.get_vocab() == ref.get_vocab()
    # ids that are no whole character: a lone lead or continuation byte, a character cut by a
    # special token (joined where the token is skipped), every id in a shuffled order
    rng = __import__("random").Random(5)
    size = len(ref)
    runs = [[0xE6 + 3, 0x97 + 3, 1, 0xA5 + 3, 0x41 + 3], [0xE6 + 3, size - 1, 0x97 + 3, 0xA5 + 3], [0x80 + 3]]
    runs += [rng.sample(range(size), 40) for _ in range(50)]
    for ids in runs:
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), (ids, skip)
    with pytest.raises(ValueError, match=f"token id {size} "):
        ours.decode([size])


def test_byt5_folder_ignores_a_tokenizer_json(tmp_path):
    """ByT5Tokenizer reads no vocabulary file: transformers builds it from the config alone even
    beside a tokenizer.json (here one whose "a" and "b" trade ids), and so does from_pretrained."""
    folder = _byt5_folder(tmp_path, {})
    Tokenizer.from_pretrained(folder).save(str(folder / "tokenizer.json"))
    doc = json.loads((folder / "tokenizer.json").read_text("utf-8"))
    vocab = doc["model"]["vocab"]
    vocab["a"], vocab["b"] = vocab["b"], vocab["a"]
    _write(folder, "tokenizer.json", doc)
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    assert ref("ab")["input_ids"] == [100, 101, 1] == ours.encode("ab").ids
    _same_as_python_class(folder, BYT5_TEXTS, past=0)


def test_byt5_differences_and_refusals(tmp_path):
    """\\x1c-\\x1f around pad, eos and unk: the class strips them (Python's whitespace), as the
    folder's pipeline does. Refused as transformers refuses: extra ids that the
    additional_special_tokens list does not hold; refused naming the file: pad, eos and unk
    tokens of one character (a byte's token) or the same text."""
    ref_folder = _byt5_folder(tmp_path, {})
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(ref_folder)), Tokenizer.from_pretrained(ref_folder)
    assert ref("a\x1c</s>b")["input_ids"] == [100, 1, 101, 1] == ours.encode("a\x1c</s>b").ids
    mismatch = _byt5_folder(tmp_path, {"extra_ids": 3}, {"additional_special_tokens": ["<extra_id_0>", "<x>"]})
    with pytest.raises(ValueError, match="extra_ids"):
        transformers.AutoTokenizer.from_pretrained(str(mismatch))
    with pytest.raises(ValueError, match="3 extra ids, but additional_special_tokens lists 1"):
        Tokenizer.from_pretrained(mismatch)
    for config, match in [({"unk_token": "?"}, r"'\?'"), ({"pad_token": "</s>"}, "'</s>', '</s>'")]:
        with pytest.raises(
            ValueError, match=r"tokenizer_config\.json: ByT5Tokenizer's pad, eos and unk tokens .*" + match
        ):
            Tokenizer.from_pretrained(_byt5_folder(tmp_path, config))


@pytest.mark.parametrize(
    "kind",
    [
        *("m2m100", "siglip", "wav2vec2", "esm", "byt5", "marian"),
        *("phobert", "ctrl", "speecht5", "bert_generation", "bartpho", "plbart", "gpt_sw3"),
    ],
)
def test_python_classes_cut_pairs_as_transformers(tmp_path, kind):
    """transformers' Python classes cut a pair by longest_first their own way (truncate_sequences:
    the longer text first, then both, the first keeping an odd total's extra token), not as HF
    tokenizers does; only_first and only_second as HF, but at a max_length of the special tokens
    alone (only the named text cut). Every total from nothing cut to both cut, from either side:
    the classes tokenforge runs as pipelines of its own and those it runs over their files
    (SentencePieceBackend classes, PhoBERT, CTRL)."""
    make = {
        "m2m100": lambda: _m2m100_folder(tmp_path, {"src_lang": "en", "tgt_lang": "fr"}),
        "siglip": lambda: _siglip_folder(tmp_path, {}),
        "wav2vec2": lambda: _wav2vec2_folder(tmp_path, {}),
        "esm": lambda: _esm_folder(tmp_path, {}),
        "byt5": lambda: _byt5_folder(tmp_path, {}),
        "marian": lambda: _marian_folder(tmp_path, {}),
        "phobert": lambda: _phobert_folder(tmp_path, {}),
        "ctrl": lambda: _phobert_folder(tmp_path, {}, "ctrl"),
        "speecht5": lambda: _spm_backend_folder(tmp_path, "speecht5", {}),
        "bert_generation": lambda: _spm_backend_folder(tmp_path, "bert_generation", {}),
        "bartpho": lambda: _spm_backend_folder(tmp_path, "bartpho", {}),
        "plbart": lambda: _plbart_folder(tmp_path, {"src_lang": "python", "tgt_lang": "en_XX"}),
        "gpt_sw3": lambda: _gpt_sw3_folder(tmp_path, "gpt-sw3", {}),
    }
    folder = make[kind]()
    ref, ours = transformers.AutoTokenizer.from_pretrained(str(folder)), Tokenizer.from_pretrained(folder)
    pairs = [("THE KERNEL MEMORY", "PAGES"), ("MKTAYIAKQR", "MKTAYIAKQRQIS"), ("A B C D", "E F G H")]
    pairs += [(a.lower(), b.lower()) for a, b in pairs]
    for text, pair, side in [(a, b, side) for a, b in pairs for side in ("right", "left")]:
        ref.truncation_side = ours.truncation_side = side
        full = len(ref(text, pair)["input_ids"])
        for length in range(max(full - 12, 4), full + 1):
            for strategy in ("longest_first", "only_first", "only_second"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = ref(text, pair, truncation=strategy, max_length=length)["input_ids"]
                if len(want) > length:
                    # (a text too short for the cut: transformers logs an error and empties it,
                    # tokenforge raises, as HF tokenizers)
                    with pytest.raises(ValueError, match="too short to fit max_length"):
                        ours(text, pair, truncation=strategy, max_length=length)
                    continue
                got = ours(text, pair, truncation=strategy, max_length=length)["input_ids"]
                assert got == want, (text, pair, strategy, length, side)
