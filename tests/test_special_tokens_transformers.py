"""Named special tokens as transformers adds them, and the added-token entries HF refuses.

A model folder's tokenizer_config.json (or, in older folders, special_tokens_map.json) names
bos/eos/unk/sep/pad/cls/mask tokens, model-specific ones (image_token, ...) and
extra_special_tokens (additional_special_tokens); transformers' TokenizersBackend.__init__ adds
those tokenizer.json lacks, as special added tokens (a string) or with the flags an AddedToken
object gives. `Tokenizer.from_pretrained` must do the same: each folder below (built here, a
tokenizer.json without those tokens beside a config that names them in every form) is loaded
by both and compared on ids, tokens, offsets, decode (skipping special tokens or not),
get_vocab, the added tokens' flags, all_special_tokens and all_special_ids.

HF tokenizers 0.23.3 refuses a tokenizer.json added_tokens entry without any of its seven
fields, or with one of the wrong kind (serde derives no defaults); tokenforge refuses the same,
naming the entry and field, and loads what HF loads (an unknown extra key).
"""

from __future__ import annotations

import json
import re
import warnings

import pytest

from tokenforge import Tokenizer
from tokenforge.errors import FormatError

hf = pytest.importorskip("tokenizers")
from tokenizers import models, pre_tokenizers, processors, trainers  # noqa: E402

FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")

SENTENCES = [
    "hello world, the quick brown fox jumps over the lazy dog",
    "tokenizers split text into tokens; hello again and again",
    "special tokens mark the start and the end of a text",
] * 20


def _tokenizer_json(path) -> None:
    """A small BPE tokenizer.json with only [UNK] and <sys> added, and a post-processor that adds
    nothing (so transformers keeps it)."""
    tok = hf.Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(vocab_size=200, special_tokens=["[UNK]"]))
    tok.add_tokens([hf.AddedToken("<sys>", special=False, normalized=False)])
    tok.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B:1", special_tokens=[])
    tok.save(str(path))


def _obj(content: str, **flags: bool) -> dict:
    return {"__type": "AddedToken", "content": content, **flags}


# name -> (tokenizer_config.json, special_tokens_map.json or None)
FOLDERS = {
    "strings": (
        {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "[UNK]", "pad_token": "<pad>", "mask_token": "<mask>"},
        None,
    ),
    "objects": (
        {
            "bos_token": _obj("<s>", lstrip=True, normalized=True, rstrip=False, single_word=False),
            "eos_token": _obj("</s>", special=True, rstrip=True),
            "cls_token": _obj("<cls>", special=False, normalized=False),
            "sep_token": _obj("<sep>"),
        },
        None,
    ),
    "extra_tokens": (
        {
            "eos_token": "</s>",
            "additional_special_tokens": [
                "<extra_0>",
                _obj("<extra_1>", special=False, rstrip=True),
                _obj("<extra_2>", special=True),
                "</s>",
                "<extra_0>",
            ],
        },
        None,
    ),
    "vocab_text": (
        # names whose text the model's vocabulary holds: they keep its id and become special
        {"bos_token": "hello", "eos_token": "world", "pad_token": "<sys>", "sep_token": "<new>"},
        None,
    ),
    "same_text": (
        {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>", "unk_token": None},
        None,
    ),
    "model_specific": (
        {
            "bos_token": "<s>",
            "image_token": "<image>",
            "video_token": _obj("<video>", special=True, lstrip=True),
            "extra_special_tokens": {"audio_token": "<audio>", "image_token": "<img2>"},
        },
        None,
    ),
    "decoder_names_one": (
        {
            "added_tokens_decoder": {
                "205": {"content": "<sys>", "special": False, "normalized": False},
                "300": {"content": "<tool>", "special": False},
            },
            "cls_token": "<tool>",
            "bos_token": "<s>",
        },
        {"bos_token": "<ignored>"},  # a config with added_tokens_decoder: the map is not read
    ),
    "decoder_keys_any_int": (
        # keys outside u32: transformers reads each with int() and only sorts by it; "05" and "5"
        # are one key, the later entry kept
        {
            "added_tokens_decoder": {
                "4294967296": {"content": "<big>", "special": True},
                "-1": {"content": "<neg>", "special": False},
                "5": {"content": "<five>", "special": True},
                " 7": {"content": "<seven>", "special": False, "lstrip": True},
                "05": {"content": "<five_again>", "special": False},
                "99999999999999999999999": {"content": "<huge>", "special": True, "rstrip": True},
            },
            "eos_token": "<five>",
        },
        None,
    ),
    "legacy_map": (
        {"bos_token": "<s>", "additional_special_tokens": ["<a>"]},
        {
            "bos_token": {"content": "<bos>", "lstrip": False, "normalized": True, "rstrip": False, "special": False},
            "eos_token": "</s>",
            "mask_token": {"content": "<mask>", "lstrip": True, "normalized": False, "rstrip": False},
            "extra_special_tokens": ["<b>", {"content": "<c>", "rstrip": True}, "<a>"],
        },
    ),
    "legacy_map_same_objects": (
        # the map's objects are merged as AddedTokens compare: flags resolved ("normalized" left
        # out is false for these special tokens), so <c> twice is one, <e> with lstrip is another
        {"eos_token": "</s>", "additional_special_tokens": ["<c>"]},
        {
            "extra_special_tokens": [
                {"content": "<c>", "normalized": False},
                {"content": "<c>"},
                {"content": "<d>", "rstrip": False},
                {"content": "<d>", "normalized": True},
                {"content": "<e>"},
                {"content": "<e>", "lstrip": True},
                "<c>",
            ]
        },
    ),
    "legacy_map_additional": (
        {"eos_token": "</s>"},
        {"additional_special_tokens": ["<a>", "<b>"], "pad_token": "<pad>"},
    ),
}

TEXTS = [
    "<s>hello world</s> the <pad> fox<mask> jumps",
    "<cls> a <sep>b<|endoftext|>c [UNK] <sys> over<tool>",
    "<extra_0> x <extra_1>  y<extra_2> <image><video> <audio><img2> <bos> <a><b> <c> end",
    "<big> <neg><five> <seven>  <five_again><huge> x <c> <d>  <e> <e>",
    "  <s>  </s>  hello  world  <new> ",
]


def _folder(tmp_path, name: str, folders=FOLDERS):
    config, special_map, *rest = folders[name]
    folder = tmp_path / name
    folder.mkdir()
    _tokenizer_json(folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", **config}), encoding="utf-8"
    )
    if special_map is not None:
        (folder / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    if rest:
        added = rest[0](folder) if callable(rest[0]) else rest[0]
        (folder / "added_tokens.json").write_text(json.dumps(added), encoding="utf-8")
    return folder


def _flags(token) -> tuple:
    return (token.content, *(getattr(token, f) for f in FLAGS))


def _same_as_transformers(folder, texts=TEXTS) -> None:
    """AutoTokenizer and from_pretrained on `folder`: the added tokens with their flags, the
    vocabulary, the special-token lists, and ids, tokens, offsets and decode of `texts`."""
    transformers = pytest.importorskip("transformers")
    ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_pretrained(folder)
    backend = ref.backend_tokenizer
    want_decoder = {i: _flags(t) for i, t in backend.get_added_tokens_decoder().items()}
    assert {i: _flags(t) for i, t in ours.get_added_tokens_decoder().items()} == want_decoder
    assert ours.get_vocab() == ref.get_vocab()
    assert ours.get_vocab_size() == backend.get_vocab_size()
    assert ours.all_special_tokens == ref.all_special_tokens
    assert ours.all_special_ids == ref.all_special_ids
    assert list(ours.config.extra_special_tokens) == [str(t) for t in ref._extra_special_tokens]
    for text in texts:
        for add in (False, True):
            want = backend.encode(text, add_special_tokens=add)
            got = ours.encode(text, add_special_tokens=add)
            assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), (text, add)
            assert got.ids == ref(text, add_special_tokens=add)["input_ids"], (text, add)
            for skip in (False, True):
                assert ours.decode(got.ids, skip_special_tokens=skip) == ref.decode(want.ids, skip_special_tokens=skip)
    every = list(range(backend.get_vocab_size()))
    for skip in (False, True):
        assert ours.decode(every, skip_special_tokens=skip) == ref.decode(every, skip_special_tokens=skip)


@pytest.mark.parametrize("name", sorted(FOLDERS))
def test_named_special_tokens_as_transformers(tmp_path, name):
    _same_as_transformers(_folder(tmp_path, name))


def _sys_id(folder) -> int:
    """The id tokenizer.json gives its added token <sys>."""
    doc = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    return next(a["id"] for a in doc["added_tokens"] if a["content"] == "<sys>")


# name -> (tokenizer_config.json, special_tokens_map.json or None, added_tokens.json or a
# function of the folder giving it)
LEGACY_FOLDERS = {
    "added_json": (
        # the file's order is not the order of addition: transformers sorts by the listed index
        {"bos_token": "<s>", "eos_token": "</s>", "additional_special_tokens": ["<x>"]},
        None,
        {"<new1>": 205, "<s>": 206, "hello": 300, "<x>": 150, "<late>": 7, "<neg>": -4, "<big>": 2**40},
    ),
    "added_json_map": (
        # special_tokens_map.json's tokens count as special; a model-specific token (<img>) does
        # not (normalized stays true), yet it is made special when added
        {"image_token": "<img>", "bos_token": {"__type": "AddedToken", "content": "<obj>", "special": True}},
        {"mask_token": {"content": "<mask>", "lstrip": True}, "extra_special_tokens": ["<e1>"], "eos_token": "</s>"},
        {"<mask>": 400, "<img>": 401, "<e1>": 402, "<obj>": 403, "</s>": 404, "<plain>": 405},
    ),
    "added_json_additional_in_map": (
        # the map's additional_special_tokens is not yet extra_special_tokens when the file is read
        {"eos_token": "</s>"},
        {"additional_special_tokens": ["<a>"]},
        {"<a>": 300, "</s>": 301},
    ),
    "added_json_same_index_as_file": (
        # an index tokenizer.json's own added token has: the file's entry replaces it
        {"eos_token": "</s>"},
        None,
        lambda folder: {"<gone>": _sys_id(folder), "<kept>": _sys_id(folder) + 1},
    ),
    "added_json_with_decoder": (
        # a config with added_tokens_decoder: added_tokens.json is not read
        {"added_tokens_decoder": {"301": {"content": "<d>", "special": True}}, "eos_token": "</s>"},
        None,
        {"<ignored>": 5},
    ),
}

LEGACY_TEXTS = [
    *TEXTS,
    "<new1> x<s>y <late><neg><big> hello <x> <img> <mask> <e1><obj> <plain> <a> <gone><kept> <d><ignored>",
    " <img>  <plain>  <new1> ",
]


@pytest.mark.parametrize("name", sorted(LEGACY_FOLDERS))
def test_legacy_added_tokens_json(tmp_path, name):
    """A folder's legacy added_tokens.json, read as transformers reads it when the config has no
    added_tokens_decoder: each entry AddedToken(text, normalized = not special), special where
    the config or special_tokens_map.json names the text, added in the order of the listed
    indices (the indices themselves are never ids), tokenizer.json's own entries replacing one
    of the same index."""
    _same_as_transformers(_folder(tmp_path, name, LEGACY_FOLDERS), LEGACY_TEXTS)


def test_legacy_added_tokens_json_of_the_wrong_kind(tmp_path):
    transformers = pytest.importorskip("transformers")
    for added in (["<a>"], {"<a>": "5"}):
        folder = tmp_path / f"bad{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        _tokenizer_json(folder / "tokenizer.json")
        (folder / "tokenizer_config.json").write_text(json.dumps({"eos_token": "</s>"}), encoding="utf-8")
        (folder / "added_tokens.json").write_text(json.dumps(added), encoding="utf-8")
        with pytest.raises(Exception):  # noqa: B017  (AttributeError or TypeError inside transformers)
            transformers.AutoTokenizer.from_pretrained(str(folder))
        with pytest.raises(FormatError, match=re.escape("added_tokens.json")):
            Tokenizer.from_pretrained(folder)


# Tokenizer classes whose constructor defaults name special tokens (chat_template._CLASS_DEFAULTS),
# with the model their files have.
CLASSES = [
    ("BertTokenizer", "bpe"),
    ("RobertaTokenizer", "bpe"),
    ("GPT2Tokenizer", "bpe"),
    ("GPTNeoXTokenizer", "bpe"),
    ("CLIPTokenizer", "bpe"),
    ("CohereTokenizer", "bpe"),
    ("LlamaTokenizer", "bpe"),
    ("Qwen2Tokenizer", "bpe"),
    ("XLMRobertaTokenizer", "unigram"),
    ("DebertaV2Tokenizer", "unigram"),
    # classes that wrap a named token in an AddedToken with flags of their own
    ("MPNetTokenizer", "wordpiece"),
    ("WhisperTokenizer", "bpe"),
    ("XLNetTokenizer", "unigram"),
    ("MBartTokenizer", "unigram"),
    ("NllbTokenizer", "bpe"),
    ("CamembertTokenizer", "unigram"),
    ("CodeLlamaTokenizer", "bpe"),
    ("BigBirdTokenizer", "unigram"),
    ("BarthezTokenizer", "unigram"),
    ("MarkupLMTokenizer", "bpe"),
    ("LayoutXLMTokenizer", "unigram"),
    ("BlenderbotTokenizer", "bpe"),
    ("AlbertTokenizer", "unigram"),
    # classes with plain string defaults
    ("FunnelTokenizer", "wordpiece"),
    ("RemBertTokenizer", "unigram"),
    ("FNetTokenizer", "unigram"),
    ("UdopTokenizer", "unigram"),
    ("HerbertTokenizer", "bpe"),
    ("ReformerTokenizer", "bpe"),
    ("NougatTokenizer", "bpe"),
    ("LayoutLMv3Tokenizer", "bpe"),
    ("LEDTokenizer", "bpe"),
    ("XGLMTokenizer", "unigram"),
    # classes that make extra special tokens
    ("T5Tokenizer", "unigram"),
    ("LasrTokenizer", "unigram"),
    ("VideoPrismTokenizer", "unigram"),
    ("PegasusTokenizer", "unigram"),
]

# The named tokens as strings the config gives (the wrapping classes wrap them too).
# (unk_token and sep_token stay: Unigram classes look the one up in the vocabulary, ALBERT's
# post-processor the other.)
GIVEN = {"bos_token": "<b>", "eos_token": "<e>", "mask_token": "<m>"}


def _class_folder(tmp_path, cls: str, model: str, config: dict, special_map=None):
    folder = tmp_path / cls
    folder.mkdir()
    if model == "bpe":
        _tokenizer_json(folder / "tokenizer.json")
    elif model == "wordpiece":
        tok = hf.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.train_from_iterator(SENTENCES, trainers.WordPieceTrainer(vocab_size=150, special_tokens=["[UNK]"]))
        tok.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B:1", special_tokens=[])
        tok.save(str(folder / "tokenizer.json"))
    else:
        tok = hf.Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        # ALBERT's post-processor needs [CLS] and [SEP], Pegasus' model <unk> scored 0 past id 0
        specials = ["<pad>", "<unk>", "[CLS]", "[SEP]"]
        trainer = trainers.UnigramTrainer(vocab_size=120, special_tokens=specials, unk_token="<unk>")
        tok.train_from_iterator(SENTENCES, trainer)
        tok.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B:1", special_tokens=[])
        doc = json.loads(tok.to_str())
        doc["model"]["vocab"] = [[p, 0.0 if p in specials else score] for p, score in doc["model"]["vocab"]]
        (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    if cls == "MarkupLMTokenizer":
        config = {"tags_dict": {}, **config}  # a required argument of the class
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": cls, **config}), encoding="utf-8")
    if special_map is not None:
        (folder / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    return folder


def _same_special_tokens(folder) -> None:
    transformers = pytest.importorskip("transformers")
    ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_pretrained(folder)
    want_decoder = {i: _flags(t) for i, t in ref.backend_tokenizer.get_added_tokens_decoder().items()}
    assert {i: _flags(t) for i, t in ours.get_added_tokens_decoder().items()} == want_decoder
    assert ours.all_special_tokens == ref.all_special_tokens
    assert ours.all_special_ids == ref.all_special_ids
    assert list(ours.config.extra_special_tokens) == [str(t) for t in ref._extra_special_tokens]
    assert ours.config.padding_side == ref.padding_side


@pytest.mark.parametrize("given", [False, True], ids=["defaults", "given"])
@pytest.mark.parametrize("cls, model", CLASSES)
def test_class_default_special_tokens(tmp_path, cls, model, given):
    """A config that names only its class (or that and named tokens as strings): transformers
    adds the special tokens the class's constructor names (where the file lacks them), with the
    flags the class wraps them in, and the extra special tokens it makes; from_pretrained does
    the same."""
    _same_special_tokens(_class_folder(tmp_path, cls, model, GIVEN if given else {}))


@pytest.mark.parametrize(
    "cls, config, special_map",
    [
        ("T5Tokenizer", {"extra_ids": 3}, None),
        ("T5Tokenizer", {"extra_ids": 0}, None),
        ("T5Tokenizer", {"additional_special_tokens": ["<x>"]}, None),  # the 100 are not added
        ("T5Tokenizer", {"extra_special_tokens": []}, None),
        ("T5Tokenizer", {"extra_special_tokens": {"image_token": "<img>"}}, None),  # a dict: they are
        ("T5Tokenizer", {"extra_ids": 2}, {"additional_special_tokens": ["<a>", "<b>"]}),
        ("T5Tokenizer", {"extra_ids": 2}, {"additional_special_tokens": ["<extra_id_7>", "<extra_id_9>"]}),
        ("PegasusTokenizer", {"offset": 5}, None),
        ("PegasusTokenizer", {"offset": 4, "mask_token_sent": None}, None),
        ("PegasusTokenizer", {"offset": 4, "mask_token_sent": "<ms>"}, {"additional_special_tokens": ["<ms>"]}),
        ("PegasusTokenizer", {"offset": 4}, {"additional_special_tokens": ["<q>"]}),
        ("PegasusTokenizer", {"additional_special_tokens": ["<x>"]}, None),
        ("CodeLlamaTokenizer", {"fill_token": None, "prefix_token": "<p>"}, {"additional_special_tokens": ["<a>"]}),
        (
            "CodeLlamaTokenizer",
            {"image_token": "<img>", "middle_token": {"__type": "AddedToken", "content": "<mid>", "lstrip": True}},
            None,
        ),
        ("CamembertTokenizer", {}, {"additional_special_tokens": ["<a>"]}),
        ("NllbTokenizer", {}, {"additional_special_tokens": ["<a>", "fra_Latn"]}),
        ("NllbTokenizer", {"extra_special_tokens": []}, {"additional_special_tokens": ["<a>"]}),
        ("NllbTokenizer", {"additional_special_tokens": ["<x>"]}, None),
        ("NllbTokenizer", {"src_lang": "fra_Latn"}, {"additional_special_tokens": ["<a>", "fra_Latn"]}),
        ("NllbTokenizer", {"extra_special_tokens": [], "src_lang": "</s>"}, {"additional_special_tokens": ["<a>"]}),
        ("NllbTokenizer", {"additional_special_tokens": ["<x>"], "src_lang": "<x>"}, None),
        ("XGLMTokenizer", {}, {"additional_special_tokens": ["<madeupword3>", "<a>"]}),
        ("XGLMTokenizer", {"additional_special_tokens": ["<x>"]}, None),
        ("MBartTokenizer", {}, {"additional_special_tokens": ["<a>", "de_DE", "<b>"]}),
        ("MBartTokenizer", {"additional_special_tokens": ["<x>", "de_DE"]}, None),
        ("MPNetTokenizer", {"mask_token": {"__type": "AddedToken", "content": "<mm>", "rstrip": True}}, None),
        ("WhisperTokenizer", {"bos_token": "<b>"}, {"eos_token": {"content": "<e>"}}),
    ],
)
def test_class_extra_special_tokens(tmp_path, cls, config, special_map):
    """T5's extra_ids and Pegasus' offset and mask_token_sent as the classes read them, with the
    lists a config or special_tokens_map.json gives; a class's flags do not touch an AddedToken
    object or a map's token."""
    kinds = {
        "MPNetTokenizer": "wordpiece",
        "WhisperTokenizer": "bpe",
        "CodeLlamaTokenizer": "bpe",
        "NllbTokenizer": "bpe",
    }
    model = kinds.get(cls, "unigram")
    _same_special_tokens(_class_folder(tmp_path, cls, model, config, special_map))


def test_t5_extra_ids_of_another_count(tmp_path):
    """A map's additional_special_tokens with <extra_id_ tokens of another count than extra_ids:
    transformers' ValueError, a FormatError naming extra_ids here."""
    transformers = pytest.importorskip("transformers")
    folder = _class_folder(
        tmp_path, "T5Tokenizer", "unigram", {"extra_ids": 3}, {"additional_special_tokens": ["<extra_id_0>"]}
    )
    with pytest.raises(ValueError):
        transformers.AutoTokenizer.from_pretrained(str(folder))
    with pytest.raises(FormatError, match="extra_ids"):
        Tokenizer.from_pretrained(folder)


@pytest.mark.parametrize(
    "config, field",
    [
        ({"bos_token": _obj("<s>", lstrip=1)}, "bos_token.lstrip"),
        ({"bos_token": _obj("<s>", special="yes")}, "bos_token.special"),
        ({"additional_special_tokens": [_obj("<a>", normalized=None)]}, r"extra_special_tokens[0].normalized"),
        ({"added_tokens_decoder": {"7": {"content": "<a>", "rstrip": "no"}}}, "added_tokens_decoder['7'].rstrip"),
    ],
)
def test_config_token_flags_of_the_wrong_kind(tmp_path, config, field):
    _refused_by_both(tmp_path, config, field)


def _refused_by_both(tmp_path, config, field, special_map=None):
    """transformers' AddedToken(**object) refuses a flag that is not a bool (TypeError); from_pretrained
    raises FormatError naming the field."""
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "model"
    folder.mkdir()
    _tokenizer_json(folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", **config}), encoding="utf-8"
    )
    if special_map is not None:
        (folder / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    with pytest.raises(Exception):  # noqa: B017  (pyo3's TypeError)
        transformers.AutoTokenizer.from_pretrained(str(folder))
    with pytest.raises(FormatError, match=re.escape(field)):
        Tokenizer.from_pretrained(folder)


def test_special_tokens_map_list_object_saying_special(tmp_path):
    """special_tokens_map.json's extra_special_tokens objects become AddedToken(**object,
    special=True): one that says "special" itself is a TypeError in transformers."""
    special_map = {"extra_special_tokens": ["<a>", {"content": "<b>", "special": True}]}
    _refused_by_both(tmp_path, {}, "extra_special_tokens[1].special", special_map)


ENTRY = {"id": 0, "content": "<x>", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
ENTRY["special"] = True
BAD_VALUES = [None, 1, 1.0, "true", [], {}]


def _doc(entries) -> dict:
    vocab = {"a": 0, "b": 1, "[UNK]": 2}
    model = {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": entries, "normalizer": None}
    doc.update(pre_tokenizer=None, post_processor=None, decoder=None, model=model)
    return doc


def _both(tmp_path, doc):
    """(HF's error or None, tokenforge's error or None) loading `doc`."""
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    errors = []
    for load in (lambda: hf.Tokenizer.from_file(str(path)), lambda: Tokenizer.from_file(str(path))):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                load()
            errors.append(None)
        except Exception as e:  # noqa: BLE001  (either library's error, compared below)
            errors.append(e)
    return errors


@pytest.mark.parametrize("field", list(ENTRY))
def test_added_token_missing_a_field(tmp_path, field):
    entry = {k: v for k, v in ENTRY.items() if k != field}
    theirs, ours = _both(tmp_path, _doc([dict(ENTRY, content="<y>"), entry]))
    assert theirs is not None and f"missing field `{field}`" in str(theirs)
    assert isinstance(ours, FormatError), ours
    assert f"added_tokens[1].{field}" in str(ours)


@pytest.mark.parametrize("field", list(ENTRY))
@pytest.mark.parametrize("value", [*BAD_VALUES, True, 3, "text"], ids=repr)
def test_added_token_field_of_each_kind(tmp_path, field, value):
    """Every field with every JSON kind: tokenforge refuses exactly what HF refuses, naming the field."""
    theirs, ours = _both(tmp_path, _doc([dict(ENTRY, **{field: value})]))
    if theirs is None:
        assert ours is None, ours
    else:
        assert isinstance(ours, FormatError), (theirs, ours)
        assert f"added_tokens[0].{field}" in str(ours)


@pytest.mark.parametrize("added", ["absent", None, {}, "text"], ids=repr)
def test_added_tokens_list_itself(tmp_path, added):
    doc = _doc([])
    if added == "absent":
        del doc["added_tokens"]
    else:
        doc["added_tokens"] = added
    theirs, ours = _both(tmp_path, doc)
    assert (theirs is None) == (ours is None), (theirs, ours)
    if ours is not None:
        assert isinstance(ours, FormatError) and "added_tokens" in str(ours)


def test_added_token_unknown_key_is_accepted(tmp_path):
    doc = _doc([dict(ENTRY, extra=1, id=5)])
    theirs, ours = _both(tmp_path, doc)
    assert theirs is None and ours is None


# -- a byte-level BPE vocabulary with an id gap, on the fused kernel


def _byte_level_gap_file(tmp_path, added: list[dict], nfc: bool = False) -> str:
    """A byte-level BPE whose vocabulary (the 256 byte characters, then merged tokens) skips an
    id: HF's next added id (the vocabulary's count) is then the last merged token's id, which the
    first new added token takes (hiding that token's text for decode, not for encode)."""
    from tokenizers import decoders, normalizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    merges = [("h", "e"), ("l", "l"), ("he", "ll"), ("Ġ", "w"), ("o", "r"), ("l", "d"), ("Ġw", "or"), ("Ġwor", "ld")]
    next_id = len(vocab) + 1  # the gap
    for a, b in merges:
        vocab[a + b] = next_id
        next_id += 1
    tok = hf.Tokenizer(models.BPE(vocab, merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    if nfc:
        tok.normalizer = normalizers.NFC()
    doc = json.loads(tok.to_str())
    doc["added_tokens"] = added
    path = tmp_path / "gap.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _added(i: int, content: str, special: bool, **flags: bool) -> dict:
    entry = {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False}
    return {**entry, "normalized": not special, "special": special, **flags}


GAP_TEXTS = ["hello world", "hello<x>world <x> hello", " world  <x>  world", "héllo wörld", ""]


@pytest.mark.parametrize("special", [True, False])
@pytest.mark.parametrize("nfc", [False, True])
def test_hidden_vocabulary_token_on_the_fused_kernel(tmp_path, special, nfc):
    """An added token that takes a vocabulary token's id: HF's encodings still show the model's
    token where the model makes it; the fused byte-level kernel runs such a file (without NFC)."""
    path = _byte_level_gap_file(tmp_path, [_added(0, "<x>", special, rstrip=not special)], nfc)
    ref = hf.Tokenizer.from_file(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_file(path)
    assert ours.kernel == ("staged" if nfc else "byte_level_hf_bpe")
    assert ours.token_to_id("<x>") == ref.token_to_id("<x>") == ref.token_to_id("Ġworld")
    for text in GAP_TEXTS:
        for add in (False, True):
            want, got = ref.encode(text, add_special_tokens=add), ours.encode(text, add_special_tokens=add)
            assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), text
            for skip in (False, True):
                assert ours.decode(got.ids, skip_special_tokens=skip) == ref.decode(want.ids, skip), text
    got = ours.encode_batch(GAP_TEXTS)
    want = ref.encode_batch(GAP_TEXTS)
    assert [e.tokens for e in got] == [e.tokens for e in want]
    assert ours.get_vocab() == ref.get_vocab()


def test_hidden_vocabulary_token_on_the_fused_spm_kernel(tmp_path):
    """The same on the sentencepiece-style BPE kernel: a Metaspace BPE trained here, its last
    token moved one id up (an id gap), so the added token takes that token's id."""
    from tokenizers import decoders

    tok = hf.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(vocab_size=120, special_tokens=["<unk>"]))
    doc = json.loads(tok.to_str())
    vocab = doc["model"]["vocab"]
    last = max(vocab, key=vocab.get)
    vocab[last] += 1
    doc["added_tokens"] = [_added(0, "<x>", True), _added(0, "<y>", False, lstrip=True)]
    path = tmp_path / "gap.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ref = hf.Tokenizer.from_file(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_file(str(path))
    assert ours.kernel == "spm_hf_bpe"
    assert ref.token_to_id("<x>") == vocab[last]
    word = last.replace("▁", " ")
    texts = [f"{word}<x>{word} <y>{word}", f"the{word}  <y> <x>", *SENTENCES[:3]]
    for text in texts:
        want, got = ref.encode(text), ours.encode(text)
        assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), text
        for skip in (False, True):
            assert ours.decode(got.ids, skip_special_tokens=skip) == ref.decode(want.ids, skip), text
    assert ours.get_vocab() == ref.get_vocab()


# -- classes whose constructor sets a post-processor after adding its tokens (MBart's, MBart50's
# and NLLB's language codes from src_lang, Splinter's question token, mLUKE's template), LUKE's
# entity tokens, MBart50's rebuilt vocabulary; the folders' tokenizer.json pipelines differ from
# the classes' (an NFKC normalizer, a plain template), which transformers replaces.

CLASS_TEXTS = [
    "hello world, the quick brown fox.",
    "  tokens  split\u00a0text ``quoted'' into <ent> [QUESTION] en_XX ro_RO </s> <mask> x",
    "Ünïcödé ﬁ text ½ and  double   spaces",
    "",
    " ",
]


def _byte_level_bpe(path, specials=("<s>", "<pad>", "</s>", "<unk>")) -> None:
    tok = hf.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    tok.train_from_iterator(
        SENTENCES, trainers.BpeTrainer(vocab_size=320, special_tokens=list(specials), initial_alphabet=alphabet)
    )
    tok.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B:1", special_tokens=[])
    tok.save(str(path))


def _unigram_nfkc(path, specials=("<s>", "<pad>", "</s>", "<unk>")) -> None:
    from tokenizers import normalizers

    tok = hf.Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=120, special_tokens=list(specials), unk_token="<unk>")
    tok.train_from_iterator(SENTENCES, trainer)
    tok.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B:1", special_tokens=[])
    tok.save(str(path))


def _spm_bpe(path) -> None:
    tok = hf.Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.BpeTrainer(vocab_size=150, special_tokens=["<s>", "<pad>", "</s>", "<unk>"])
    tok.train_from_iterator(SENTENCES, trainer)
    tok.post_processor = processors.TemplateProcessing(single="$A", pair="$A $B:1", special_tokens=[])
    tok.save(str(path))


def _wordpiece(path) -> None:
    tok = hf.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    specials = ["[UNK]", "[PAD]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(SENTENCES, trainers.WordPieceTrainer(vocab_size=150, special_tokens=specials))
    tok.save(str(path))


def _unigram_with_codes(path) -> None:
    """A MBart50 file as converted from its sentencepiece model: the language codes in the
    vocabulary (the class keeps it)."""
    codes = json.loads(
        __import__("importlib.resources")
        .resources.files("tokenforge")
        .joinpath("data", "transformers_routing.json")
        .read_text("utf-8")
    )["language_codes"]["MBart50Tokenizer"]
    _unigram_nfkc(path, ("<s>", "<pad>", "</s>", "<unk>", *codes, "<mask>"))


LATE_KINDS = {
    "MBartTokenizer": _unigram_nfkc,
    # a file without the codes, whose fourth piece is not special: MBart50 rebuilds the
    # vocabulary from that piece on (with <unk> there, the rebuilt vocabulary would hold it twice,
    # and HF's decode skips the unknown id by its text, which tokenforge does not)
    "MBart50Tokenizer": lambda path: _unigram_nfkc(path, ("<s>", "<pad>", "<unk>")),
    "MBart50TokenizerFast": _unigram_with_codes,
    "NllbTokenizer": _spm_bpe,
    "LukeTokenizer": _byte_level_bpe,
    "MLukeTokenizer": _unigram_nfkc,
    "SplinterTokenizer": _wordpiece,
}

LATE_CASES = [
    ("MBartTokenizer", {}),
    ("MBartTokenizer", {"src_lang": "ro_RO", "tgt_lang": "de_DE"}),
    ("MBartTokenizer", {"src_lang": "xx_YY"}),  # not a code: the unknown token's id
    ("MBart50Tokenizer", {}),
    ("MBart50Tokenizer", {"src_lang": "fr_XX"}),
    ("MBart50TokenizerFast", {"src_lang": "ro_RO"}),
    # a config's list: the codes are listed after it but not added
    ("MBart50Tokenizer", {"extra_special_tokens": ["<x>", "de_DE"]}),
    ("MBart50TokenizerFast", {"additional_special_tokens": ["<x>"]}),
    ("NllbTokenizer", {}),
    ("NllbTokenizer", {"src_lang": "fra_Latn"}),
    ("NllbTokenizer", {"src_lang": "fra_Latn", "legacy_behaviour": True}),
    ("LukeTokenizer", {}),
    ("LukeTokenizer", {"add_prefix_space": True, "additional_special_tokens": ["<x>", "<ent2>"]}),
    ("LukeTokenizer", {"entity_token_1": "<e1>"}),
    ("MLukeTokenizer", {}),
    ("MLukeTokenizer", {"entity_token_2": "<e2>", "additional_special_tokens": ["[PAD]"]}),
    # a string under the argument's own name names the token, the class keeps its default
    ("MLukeTokenizer", {"entity_1_token": "<a>", "entity_token_2": "<e2>", "entity_2_token": "<zz>"}),
    ("LukeTokenizer", {"entity_1_token": "<a>", "entity_2_token": _obj("<o>", special=True)}),
    ("SplinterTokenizer", {}),
    ("SplinterTokenizer", {"padding_side": "left", "do_lower_case": False}),
    # the config's string is added, but the class names its own [QUESTION] (the unknown id here)
    ("SplinterTokenizer", {"question_token": "[Q]"}),
]


@pytest.mark.parametrize("cls, config", LATE_CASES, ids=lambda v: str(v) if isinstance(v, str) else None)
def test_class_post_processor_and_pipeline(tmp_path, cls, config):
    """Each class's own pipeline and post-processor (built after its tokens are added), its
    special tokens and ids, as AutoTokenizer builds them for a folder that declares the class."""
    folder = tmp_path / "model"
    folder.mkdir()
    LATE_KINDS[cls](folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": cls, **config}), encoding="utf-8")
    _same_as_transformers(folder, CLASS_TEXTS)


# -- the class whose defaults apply is the one AutoTokenizer builds (its routing), not the declared one

ROUTED = [
    # (declared tokenizer_class or None, config.json model_type or None, the file)
    ("LlamaTokenizerFast", None, _byte_level_bpe),  # byte-level "Llama": TokenizersBackend, no <s>
    ("LlamaTokenizer", "phi3", _spm_bpe),  # a model type whose hub class transformers overrides
    ("BertTokenizer", "hyperclovax_vision_v2", _byte_level_bpe),  # ... with GPT2Tokenizer
    (None, "bert", _wordpiece),  # no class declared: the model type's
    (None, "xlm-roberta", _unigram_nfkc),
    ("BertTokenizerFast", "gpt2", _wordpiece),  # the declared class wins for other model types
    ("PreTrainedTokenizerFast", "bert", _wordpiece),
]


@pytest.mark.parametrize("declared, model_type, make", ROUTED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_class_defaults_follow_autotokenizer_routing(tmp_path, declared, model_type, make):
    folder = tmp_path / "model"
    folder.mkdir()
    make(folder / "tokenizer.json")
    config = {} if declared is None else {"tokenizer_class": declared}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    if model_type is not None:
        (folder / "config.json").write_text(json.dumps({"model_type": model_type}), encoding="utf-8")
    _same_as_transformers(folder, CLASS_TEXTS)
    _same_special_tokens(folder)


@pytest.mark.parametrize("cls", ["SiglipTokenizer", "M2M100Tokenizer"])
def test_sentencepiece_only_classes(tmp_path, cls):
    """SiglipTokenizer (a SentencePieceBackend) and M2M100Tokenizer (a PreTrainedTokenizer)
    build only from a sentencepiece model (and M2M100 a vocab.json), which HF tokenizers cannot
    write: transformers cannot load a folder of tokenizer.json alone that declares them. Compared
    with transformers only where a real model folder is at hand; here, from_pretrained loads
    such a folder's file as written."""
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "model"
    folder.mkdir()
    _unigram_nfkc(folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": cls}), encoding="utf-8")
    with pytest.raises(Exception):  # noqa: B017  (sentencepiece's ValueError, or a TypeError)
        transformers.AutoTokenizer.from_pretrained(str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_pretrained(folder)
    ref = hf.Tokenizer.from_file(str(folder / "tokenizer.json"))
    for text in CLASS_TEXTS:
        assert ours.encode(text).ids == ref.encode(text).ids
