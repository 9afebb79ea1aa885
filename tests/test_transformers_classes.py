"""`Tokenizer.from_pretrained` against transformers 5's AutoTokenizer on folders whose
tokenizer_config.json names a class that rebuilds the pipeline (formats/transformers_classes.py).

Each folder holds a tokenizer.json trained here whose own pipeline differs from what the named
class builds (a Prepend-normalizer Llama file, a byte-level file without NFC, a lowercasing
BERT file beside do_lower_case=false, a Unigram file without WhitespaceSplit), so the test
fails if the rebuild is skipped or wrong: ids and decode must equal transformers' on the corpus
samples in every language and on edge texts, and at least one text per family must differ from
HF tokenizers running the file as written."""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

import pytest

import tokenforge
from conftest import corpus_files, read_sample

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

TRAIN = [read_sample(path, 20_000) for path in corpus_files()]
SAMPLES = [read_sample(path, 4_000) for path in corpus_files()]
EDGE = [
    "",
    " ",
    " leading space",
    "  two leading",
    "trailing  ",
    "Hello World  HELLO\n\n\tx",
    "<s> after a special</s>  and <unk>",
    "Ünïcödé café ﬁ ① ｆｕｌｌ",
    "日本語 テキスト 中文",
    "a\u00a0b \u2581c \u3000d",
    "it's 1234567 $$ x",
    "emoji 👍🏽 done",
    "de\u0301composed n\u0303 A\u030a",
]


@functools.cache
def _trained(family: str) -> str:
    """A tokenizer.json (as text) of the family, trained on the samples."""
    if family == "spm_bpe":
        special = ["<unk>", "<s>", "</s>"]
        tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("\u2581"), normalizers.Replace(" ", "\u2581")])
        trainer = trainers.BpeTrainer(
            vocab_size=1200, special_tokens=special + [f"<0x{b:02X}>" for b in range(256)], show_progress=False
        )
        tok.train_from_iterator(TRAIN, trainer)
        tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse()])
        bos = tok.token_to_id("<s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", bos)]
        )
    elif family == "byte_bpe":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=1200,
            special_tokens=["<|endoftext|>", "<s>", "</s>", "<unk>", "<pad>", "<mask>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(TRAIN, trainer)
        tok.decoder = decoders.ByteLevel()
    elif family == "wordpiece":
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(
            vocab_size=1500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False
        )
        tok.train_from_iterator(TRAIN, trainer)
        tok.decoder = decoders.WordPiece()
    else:  # unigram: T5's ids (<unk> = 2) or XLM-R's (<unk> = 3)
        special = ["<pad>", "</s>", "<unk>"] if family == "unigram_t5" else ["<s>", "<pad>", "</s>", "<unk>"]
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(
            vocab_size=1200, special_tokens=special, unk_token="<unk>", show_progress=False
        )
        tok.train_from_iterator(TRAIN, trainer)
        tok.decoder = decoders.Metaspace()
    return tok.to_str()


# (class, family, config settings)
CASES = [
    ("LlamaTokenizer", "spm_bpe", {"legacy": True}),
    ("LlamaTokenizerFast", "spm_bpe", {"legacy": False}),
    ("LlamaTokenizer", "spm_bpe", {"legacy": False, "add_prefix_space": False}),
    ("CodeLlamaTokenizer", "spm_bpe", {}),
    ("GemmaTokenizer", "spm_bpe", {}),
    ("Qwen2Tokenizer", "byte_bpe", {}),
    ("GPT2Tokenizer", "byte_bpe", {"add_prefix_space": True}),
    ("RobertaTokenizer", "byte_bpe", {}),
    ("GPTNeoXTokenizerFast", "byte_bpe", {}),
    ("BertTokenizer", "wordpiece", {"do_lower_case": False}),
    ("BertTokenizerFast", "wordpiece", {"do_lower_case": True, "strip_accents": False}),
    ("T5Tokenizer", "unigram_t5", {"extra_ids": 0}),
    ("XLMRobertaTokenizer", "unigram_xlmr", {}),
    ("XLMRobertaTokenizer", "unigram_xlmr", {"add_prefix_space": False}),
]
_SPECIALS = {
    "spm_bpe": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "byte_bpe": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "wordpiece": {"unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]"},
    "unigram_t5": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "unigram_xlmr": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
}


def make_folder(folder: pathlib.Path, cls: str, family: str, settings: dict[str, Any]) -> pathlib.Path:
    folder.mkdir(parents=True)
    (folder / "tokenizer.json").write_text(_trained(family), encoding="utf-8")
    config = {"tokenizer_class": cls, **_SPECIALS[family], **settings}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}-{c[1]}-{'-'.join(map(str, c[2].values()))}")
def loaded(request, tmp_path_factory):
    cls, family, settings = request.param
    folder = make_folder(tmp_path_factory.mktemp("classes") / "model", cls, family, settings)
    return (
        family,
        transformers.AutoTokenizer.from_pretrained(str(folder)),
        tokenforge.Tokenizer.from_pretrained(folder),
        tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")),
    )


def test_ids_and_decode_equal_transformers(loaded):
    family, theirs, ours, _ = loaded
    for text in SAMPLES + EDGE:
        expected = theirs(text)["input_ids"]
        assert ours.encode(text).ids == expected, (family, text[:80])
        assert ours.encode(text, add_special_tokens=False).ids == theirs(text, add_special_tokens=False)["input_ids"]
        for skip in (False, True):
            assert ours.decode(expected, skip_special_tokens=skip) == theirs.decode(expected, skip_special_tokens=skip)


def test_the_rebuild_matters(loaded):
    """Some text differs between transformers and the file run as written: the rebuild is what
    makes the ids equal (a test that cannot pass by reading the file alone)."""
    family, theirs, _, as_written = loaded
    differs = [t for t in SAMPLES + EDGE if theirs(t)["input_ids"] != as_written.encode(t).ids]
    assert differs, f"{family}: no text tells the class's pipeline from the file's"


def test_byte_level_llama_folders_keep_their_file(tmp_path):
    """A LlamaTokenizer class over a byte-level tokenizer.json (Llama 3, DeepSeek) is loaded as
    the file says, by transformers and by tokenforge."""
    folder = make_folder(tmp_path / "m", "LlamaTokenizerFast", "byte_bpe", {})
    theirs = transformers.AutoTokenizer.from_pretrained(str(folder))
    ours = tokenforge.Tokenizer.from_pretrained(folder)
    as_written = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    for text in EDGE + SAMPLES[:3]:
        assert ours.encode(text).ids == theirs(text)["input_ids"] == as_written.encode(text).ids


# (declared tokenizer_class or None, config.json, family): AutoTokenizer's routing by config.json
ROUTES = [
    (None, {"model_type": "gemma3"}, "spm_bpe"),  # no class declared: model_type's class rebuilds
    (None, {"model_type": "bert"}, "wordpiece"),
    (None, {"model_type": "llama"}, "spm_bpe"),  # llama registers no class of its own: the file
    ("PreTrainedTokenizerFast", {"model_type": "qwen2"}, "byte_bpe"),  # a hub class transformers overrides
    ("GPT2Tokenizer", {"model_type": "mistral"}, "byte_bpe"),  # model_type registers the generic class
    ("LlamaTokenizerFast", {"model_type": "qwen3"}, "byte_bpe"),  # byte-level "LlamaTokenizer": the file
    ("GemmaTokenizer", {"model_type": "t5"}, "spm_bpe"),  # another specialised class: the declared one
    (None, {"model_type": "gemma", "tokenizer_class": "LlamaTokenizer"}, "spm_bpe"),  # config.json's class
    ("LlamaTokenizer", {"model_type": "llama"}, "spm_bpe"),
    ("GemmaTokenizer", {"model_type": "gemma"}, "spm_bpe"),
]


@pytest.mark.parametrize("declared, model_config, family", ROUTES)
def test_routing_by_config_json(tmp_path, declared, model_config, family):
    """Which class transformers builds depends on config.json too (its model_type and
    tokenizer_class, transformers' lists of model types with a wrong hub class): tokenforge
    routes the same way, so ids and decode equal AutoTokenizer's."""
    from tokenforge.formats.transformers_classes import transformers_class

    folder = make_folder(tmp_path / "m", declared or "", family, {})
    config = json.loads((folder / "tokenizer_config.json").read_text())
    if declared is None:
        del config["tokenizer_class"]
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "config.json").write_text(json.dumps(model_config), encoding="utf-8")
    theirs = transformers.AutoTokenizer.from_pretrained(str(folder))
    ours = tokenforge.Tokenizer.from_pretrained(folder)
    routed = transformers_class(config, model_config, [str(folder)], (folder / "tokenizer.json").read_text())
    assert (routed or "TokenizersBackend") == type(theirs).__name__.removesuffix("Fast")
    for text in SAMPLES + EDGE:
        expected = theirs(text)["input_ids"]
        assert ours.encode(text).ids == expected, (family, text[:80])
        for skip in (False, True):
            assert ours.decode(expected, skip_special_tokens=skip) == theirs.decode(expected, skip_special_tokens=skip)


# -- Unigram scores: transformers' classes read them as Python floats


def _serde_f64(x: float) -> float:
    """The f64 serde_json (HF's Tokenizer.from_file) reads from `repr(x)`, the text Python's json
    writes: its digits in a u64, then one multiplication or division by a power of ten (two
    roundings; src/native/models/unigram/unigram_model.h has the same)."""
    text = repr(x)
    negative = text.startswith("-")
    mantissa, _, exp = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0") or "0"
    assert len(digits) <= 19  # what a u64 holds, the case of every score here
    exponent = int(exp or 0) - len(fraction)
    f = float(int(digits))
    f = f * float(f"1e{exponent}") if exponent >= 0 else f / float(f"1e{-exponent}")
    return -f if negative else f


def _flipping_scores() -> tuple[float, float, float]:
    """Scores (y, x1, x2) for the pieces "▁ab", "▁a", "b" such that "ab" is one token under one
    reading of y's text and two under the other: y's nearest double N and serde's reading S differ
    (a unit in the last place), x1 + x2 is exactly the larger of the two, and x1, x2 read the same
    both ways. Where a sum ties "▁ab", Viterbi keeps "▁ab" (found first); where "▁ab" is lower,
    the pair wins. Found by a deterministic search over y = -i/7 and x2 = -2**-k."""
    for i in range(1, 10_000):
        y = -i / 7
        serde = _serde_f64(y)
        if serde == y:
            continue
        target = max(serde, y)
        for k in range(0, 8):
            x2 = -(2.0**-k)
            x1 = target - x2
            if x1 < 0 and x1 + x2 == target and _serde_f64(x1) == x1 and _serde_f64(x2) == x2:
                return y, x1, x2
    raise AssertionError("no flipping score found")


@pytest.mark.parametrize(
    "cls, specials, unk_id",
    [
        ("XLMRobertaTokenizer", ["<s>", "<pad>", "</s>", "<unk>"], 3),
        ("T5Tokenizer", ["<pad>", "</s>", "<unk>"], 2),
        # Unigram classes whose pipeline is not rebuilt here: their scores are nearest doubles too
        ("DebertaV2Tokenizer", ["[PAD]", "[CLS]", "[SEP]", "[UNK]"], 3),
        ("XLNetTokenizer", ["<unk>", "<s>", "</s>", "<cls>", "<sep>", "<pad>", "<mask>"], 0),
    ],
)
def test_unigram_scores_are_nearest_doubles(tmp_path, cls, specials, unk_id):
    """transformers' XLMRobertaTokenizer and T5Tokenizer rebuild Unigram(vocab=...) from the
    json-parsed file (nearest doubles), where Tokenizer.from_file reads the scores as serde_json
    does: a score whose two readings differ flips "ab" between one token and two. from_pretrained
    gives transformers' ids, from_file HF tokenizers' (a CI failure: XLM-R id 141 against 328).
    The other Unigram classes (DeBERTa-v2, XLNet, ...) keep their file's pipeline here, but their
    model's scores are the nearest doubles as well."""
    y, x1, x2 = _flipping_scores()
    assert _serde_f64(y) != y
    vocab = [[t, 0.0] for t in specials]
    vocab += [["\u2581ab", y], ["\u2581a", x1], ["b", x2], ["\u2581", -100.0], ["a", -100.0], ["c", -50.0]]
    doc = json.loads(tokenizers.Tokenizer(models.Unigram([tuple(v) for v in vocab], unk_id, False)).to_str())
    doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    folder = tmp_path / cls
    folder.mkdir()
    (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": cls}), encoding="utf-8")
    ab = vocab.index(["\u2581ab", y])
    ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    hf_file = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    rebuilt = cls in ("XLMRobertaTokenizer", "T5Tokenizer")  # else only the model's scores follow the class
    texts = ["ab", "ab ab c", " abab ", "cab ab"] if rebuilt else ["ab", "ab ab c", "cab ab"]
    want_file = [hf_file.encode(t, add_special_tokens=False).ids for t in texts]
    want_class = [ref(t, add_special_tokens=False)["input_ids"] for t in texts]
    assert want_file[0] != want_class[0] and ab in want_file[0] + want_class[0]  # the score flips "ab"
    ours = tokenforge.Tokenizer.from_pretrained(folder)
    assert [ours.encode(t, add_special_tokens=False).ids for t in texts] == want_class
    if not rebuilt:
        return
    for t in texts:
        got, want = ours.encode(t), ref(t)["input_ids"]
        assert got.ids == want, t
        for skip in (False, True):
            assert ours.decode(got.ids, skip_special_tokens=skip) == ref.decode(want, skip_special_tokens=skip), t
    from_file = tokenforge.Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert [from_file.encode(t, add_special_tokens=False).ids for t in texts] == want_file
    # saved, the file holds the scores' text again, which HF reads its own way
    ours.save(str(tmp_path / "saved.json"))
    saved = tokenforge.Tokenizer.from_file(str(tmp_path / "saved.json"))
    theirs = tokenizers.Tokenizer.from_file(str(tmp_path / "saved.json"))
    for t in texts:
        assert saved.encode(t).ids == theirs.encode(t).ids, t


def test_nearest_scores_is_not_a_file_option(tmp_path):
    """The option the class rebuild sets is tokenforge's own: a file that says it is refused
    (HF ignores the key, so taking it would give other ids than HF)."""
    doc = json.loads(tokenizers.Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0)], 0, False)).to_str())
    doc["model"]["nearest_scores"] = True
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(tokenforge.errors.FormatError, match="nearest_scores"):
        tokenforge.Tokenizer.from_file(str(path))
