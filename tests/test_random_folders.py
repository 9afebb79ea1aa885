"""Random model folders against transformers' AutoTokenizer: each folder a tokenizer.json (a
random file of test_random_pipelines.py, or one of the real folders in ../shared/vocab/hf where
present) beside a random tokenizer_config.json: a class among those transformers maps to the
file's model family, the flags those classes read (add_bos_token, add_eos_token, legacy,
add_prefix_space, split_special_tokens), special tokens as strings or AddedToken objects (in the
vocabulary or not), added_tokens_decoder entries with random flags, model_max_length,
padding_side, truncation_side, clean_up_tokenization_spaces; sometimes a special_tokens_map.json
that disagrees with the config, a config.json naming a model type, a chat template (in the
config, in chat_template.jinja or chat_template.json). `Tokenizer.from_pretrained` and
`AutoTokenizer.from_pretrained` read the folder; both are compared on mixed texts (ids with and
without special tokens, pairs, tokens, offsets, decode with and without skipping special tokens),
on the vocabulary, the special-token attributes, the settings, and the chat template.

Compared through transformers' call, which runs without the truncation and padding tokenizer.json
sets (tokenforge's encode keeps them, as HF tokenizers' does: the comparison turns them off).
Skipped: folders transformers cannot load (or panics on), a random file HF cannot read back,
texts on which HF panics or lacks its unknown token (a model whose unknown token its vocabulary
lacks loads in both), a processor's chat_template.json (AutoTokenizer does not read it),
CodeLlama's <FILL_ME> infilling. Left out (differences not fixed): the seeds in KNOWN.

The default run builds FUZZ_EXAMPLES // 2 folders (conftest); more with
TOKENFORGE_FUZZ_EXAMPLES=2000. FOUND keeps the seeds that failed once, so they run by default."""

from __future__ import annotations

import copy
import json
import os
import pathlib
import random
import warnings
from typing import Any

import pytest

from conftest import FUZZ_EXAMPLES
from tokenforge import Tokenizer
from tokenforge.chat_template import ChatTemplateError

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")
jinja2 = pytest.importorskip("jinja2")
from test_random_pipelines import ATOMS, random_file, text_of  # noqa: E402

REAL = pathlib.Path(os.environ.get("TOKENFORGE_SHARED", pathlib.Path(__file__).resolve().parents[2] / "shared"))
REAL_FOLDERS = ["gemma3", "llama2", "llama3", "qwen3"]

# The classes transformers maps to each model family (the file's model type), "Fast" or not;
# None: no tokenizer_class at all.
CLASSES = {
    "BPE": [
        "LlamaTokenizerFast",
        "LlamaTokenizer",
        "GemmaTokenizerFast",
        "Qwen2TokenizerFast",
        "GPT2TokenizerFast",
        "RobertaTokenizerFast",
        "GPTNeoXTokenizerFast",
        "CodeLlamaTokenizerFast",
        "PreTrainedTokenizerFast",
        "TokenizersBackend",
        None,
    ],
    "WordPiece": ["BertTokenizerFast", "BertTokenizer", "PreTrainedTokenizerFast", None],
    "Unigram": [
        "T5TokenizerFast",
        "XLMRobertaTokenizerFast",
        "AlbertTokenizerFast",
        "PreTrainedTokenizerFast",
        None,
    ],
    "WordLevel": ["PreTrainedTokenizerFast", None],
}
# config.json model types (transformers' routing reads them), by family
MODEL_TYPES = {
    "BPE": ["llama", "gemma", "qwen2", "gpt2", "roberta", "gpt_neox", "mistral"],
    "WordPiece": ["bert", "distilbert"],
    "Unigram": ["t5", "xlm-roberta", "albert"],
    "WordLevel": ["bert"],
}
NAMES = ["bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"]
# token texts: in the random files' vocabulary (their trainers' special tokens) or not
TEXTS = ["<s>", "</s>", "<unk>", "[CLS]", "[SEP]", "<pad>", "[MASK]", "<bos>", "<|im_end|>", "<eot>", "hello", "é"]
FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")

TEMPLATES = [
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}",
    "{% for m in messages %}{{ m['role'] + ': ' + m['content'] | trim }} {% endfor %}{{ pad_token }}",
]
CONVERSATION = [
    {"role": "system", "content": "Be brief. <s> é"},
    {"role": "user", "content": "Hello  world!\n世界 [MASK]"},
    {"role": "assistant", "content": " ok </s>"},
]


def _token(rng: random.Random, text: str) -> Any:
    """A config token: its text, or an AddedToken object with random flags."""
    if rng.random() < 0.6:
        return text
    flags = {f: rng.random() < 0.4 for f in FLAGS if rng.random() < 0.5}
    return {"__type": "AddedToken", "content": text, **flags}


def _map_token(rng: random.Random, text: str) -> Any:
    """A special_tokens_map.json token: its text, or an object with random flags."""
    if rng.random() < 0.6:
        return text
    return {"content": text, **{f: rng.random() < 0.4 for f in FLAGS[:4] if rng.random() < 0.5}}


def random_config(rng: random.Random, family: str, doc: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    cls = rng.choice(CLASSES[family])
    if cls is not None:
        config["tokenizer_class"] = cls
    for flag in ("add_bos_token", "add_eos_token", "legacy", "add_prefix_space", "split_special_tokens"):
        if rng.random() < 0.4:
            config[flag] = rng.random() < 0.5
    for name in NAMES:
        r = rng.random()
        if r < 0.4:
            config[name] = _token(rng, rng.choice(TEXTS))
        elif r < 0.5:
            config[name] = None
    if rng.random() < 0.3:
        config["additional_special_tokens"] = [_token(rng, rng.choice(TEXTS)) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        decoder: dict[str, Any] = {}
        size = _vocab_size(doc)
        for added in doc.get("added_tokens", []):  # the file's own entries, as saved by transformers
            if rng.random() < 0.5:
                decoder[str(added["id"])] = {f: added[f] for f in ("content", *FLAGS)}
        # New entries past the file's ids, each text once and none the file adds: entries at an id
        # the file's vocabulary has, or a text twice, are no folder transformers writes, and
        # transformers' own reading of them is not consistent (left out).
        taken = {a["content"] for a in doc.get("added_tokens", [])}
        contents = [t for t in dict.fromkeys([*TEXTS, "<new>", "<|x|>", " pad"]) if t not in taken]
        i = size
        for content in rng.sample(contents, rng.randint(0, 3)):
            i += rng.choice([0, 0, 1, 4])
            decoder[str(i)] = {"content": content, **{f: rng.random() < 0.4 for f in FLAGS}}
            i += 1
        config["added_tokens_decoder"] = decoder
    if rng.random() < 0.5:
        config["model_max_length"] = rng.choice([16, 512, 1000000000000000019884624838656])
    for name, values in (("padding_side", ["left", "right"]), ("truncation_side", ["left", "right"])):
        if rng.random() < 0.4:
            config[name] = rng.choice(values)
    if rng.random() < 0.5:
        config["clean_up_tokenization_spaces"] = rng.random() < 0.5
    if rng.random() < 0.2:
        config["chat_template"] = rng.choice(TEMPLATES)
    return config


def _vocab_size(doc: dict[str, Any]) -> int:
    vocab = doc["model"]["vocab"]
    ids = list(vocab.values()) if isinstance(vocab, dict) else range(len(vocab))
    return max([*ids, *(a["id"] for a in doc.get("added_tokens", []))], default=-1) + 1


def random_folder(seed: int, root: pathlib.Path) -> tuple[str, pathlib.Path]:
    """The folder of `seed` under `root`, and what it is (for messages)."""
    rng = random.Random(f"random-folder-{seed}")
    folder = root / f"folder-{seed}"
    folder.mkdir()
    real = seed % 8 == 7
    if real:
        name = rng.choice(REAL_FOLDERS)
        if not (REAL / "vocab" / "hf" / name / "tokenizer.json").is_file():
            pytest.skip(f"{REAL}/vocab/hf/{name}: not here")
        source = REAL / "vocab" / "hf" / name
        text = (source / "tokenizer.json").read_text(encoding="utf-8")
        (folder / "tokenizer.json").write_text(text, encoding="utf-8")
        doc = json.loads(text)
        base = json.loads((source / "tokenizer_config.json").read_text(encoding="utf-8"))
        family, kind = doc["model"]["type"], f"real {name}"
    else:
        try:
            family, doc = random_file(rng.randrange(10**6))
        except Exception as e:
            # HF tokenizers writes a trained Unigram's score it cannot read back (null for a
            # non-finite one): its from_str fails on its own to_str
            if "invalid type: null, expected f64" not in str(e):
                raise
            pytest.skip(f"random folder {seed}: HF cannot read its own file back ({e})")
        (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
        base, kind = {}, f"random {family}"
    config = random_config(rng, family, doc)
    if real and rng.random() < 0.5:  # the real config, a few of its keys changed
        config = {**base, **{k: v for k, v in config.items() if rng.random() < 0.3}}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    if rng.random() < 0.3:
        special_map = {n: _map_token(rng, rng.choice(TEXTS)) for n in NAMES if rng.random() < 0.4}
        if rng.random() < 0.3:
            special_map["additional_special_tokens"] = [rng.choice(TEXTS) for _ in range(rng.randint(0, 2))]
        (folder / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    if rng.random() < 0.2:
        model_type = rng.choice(MODEL_TYPES[family])
        (folder / "config.json").write_text(json.dumps({"model_type": model_type}), "utf-8")
    r = rng.random()
    if r < 0.1:
        (folder / "chat_template.jinja").write_text(rng.choice(TEMPLATES), encoding="utf-8")
    elif r < 0.15:
        (folder / "chat_template.json").write_text(json.dumps({"chat_template": rng.choice(TEMPLATES)}), "utf-8")
    return f"{kind} folder {seed} ({config.get('tokenizer_class')})", folder


def _texts(rng: random.Random, specials: list[str]) -> list[str]:
    atoms = ATOMS + [t for t in specials if t]
    out = []
    for _ in range(12):
        if rng.random() < 0.5:
            out.append(text_of(rng))
        else:
            out.append("".join(rng.choice(atoms) for _ in range(rng.randint(0, 20))))
    return out


# Seeds past the default count that failed once (each then fixed).
FOUND: tuple[int, ...] = (26, 42, 45, 52, 56, 70, 94, 100, 106, 112, 206, 267, 347, 484, 3062)


# Seeds whose folders still differ (not fixed in the time; strict, so a fix shows).
KNOWN: dict[int, str] = {}


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param(s, marks=pytest.mark.xfail(reason=KNOWN[s], strict=True)) if s in KNOWN else s
        for s in sorted({*range(max(FUZZ_EXAMPLES // 2, 1)), *FOUND})
    ],
)
def test_random_folder_loads_as_transformers(seed, tmp_path):
    where, folder = random_folder(seed, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = transformers.AutoTokenizer.from_pretrained(str(folder))
        except BaseException as e:  # (pyo3's PanicException is a BaseException)
            # transformers' own failures, not files to compare on: a class whose template names a
            # token the vocabulary lacks (AlbertTokenizer's [CLS]/[SEP]: TemplateProcessing gets
            # None), a panic of HF's while the class sets up its tokenizer (Qwen2Tokenizer)
            if not isinstance(e, Exception) and not type(e).__name__.endswith("PanicException"):
                raise
            pytest.skip(f"transformers cannot load {where}: {type(e).__name__}: {e}")
        ours = Tokenizer.from_pretrained(folder)
    _compare(where, ref, ours, random.Random(f"random-folder-texts-{seed}"))


def _compare(where: str, ref: Any, ours: Tokenizer, rng: random.Random) -> None:
    config = ours.config
    # settings and special tokens
    for name in ("model_max_length", "padding_side", "truncation_side", "clean_up_tokenization_spaces"):
        assert getattr(config, name) == getattr(ref, name), (where, name)
    for name in NAMES:
        assert config.special_tokens.get(name) == getattr(ref, name), (where, name)
        if getattr(ref, name) is not None:
            want = getattr(ref, name + "_id")
            got = ours.token_to_id(getattr(ref, name))
            unk = ref.unk_token_id
            assert (got if got is not None else unk) == want, (where, name)
    assert ours.all_special_tokens == ref.all_special_tokens, where
    assert ours.all_special_ids == ref.all_special_ids, where
    assert ours.get_vocab() == ref.get_vocab(), where
    backend = ref.backend_tokenizer
    assert ours.get_vocab_size() == backend.get_vocab_size(), where
    want_added = {
        i: (t.content, *(getattr(t, f) for f in FLAGS)) for i, t in backend.get_added_tokens_decoder().items()
    }
    got_added = {i: (t.content, *(getattr(t, f) for f in FLAGS)) for i, t in ours.get_added_tokens_decoder().items()}
    assert got_added == want_added, where
    texts = _texts(rng, list(ref.all_special_tokens) + [t.content for t in ours.get_added_tokens_decoder().values()])
    # transformers' call runs without the truncation and padding tokenizer.json sets (it turns
    # them off unless asked for); tokenforge's encode keeps them, as HF tokenizers' encode
    ours = copy.copy(ours)
    ours.no_truncation()
    ours.no_padding()
    if type(ref).__name__ == "CodeLlamaTokenizer":
        # its infilling format (a text with <FILL_ME> is cut there and given the prefix, suffix and
        # middle tokens): not in tokenforge
        texts = [t for t in texts if "<FILL_ME>" not in t]
    for text in texts:
        pair = rng.choice(texts) if rng.random() < 0.25 else None
        if pair == "":  # transformers' call reads an empty pair as none; encode, as HF tokenizers, as a pair
            pair = None
        here = (where, text, pair)
        for add in (True, False):
            try:
                want = ref(text, pair, add_special_tokens=add, return_offsets_mapping=True)
            except BaseException as e:  # (pyo3's PanicException is a BaseException)
                # HF fails on this text: it panics (a Strip decoder, an added-token split inside a
                # character, as test_random_pipelines.py), or its model lacks the unknown token
                lacks_unk = "Missing [UNK]" in str(e) or "not found in the vocabulary" in str(e)
                if not (type(e).__name__.endswith("PanicException") or lacks_unk):
                    raise
                # (after a panic HF's backend may hang on the next call: no more texts)
                return
            got = ours.encode(text, pair, add_special_tokens=add)
            assert list(got.ids) == want["input_ids"], (*here, add)
            assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want["offset_mapping"]], (*here, add)
            assert list(got.tokens) == want.encodings[0].tokens, (*here, add)
            assert [ours.id_to_token(i) for i in got.ids] == ref.convert_ids_to_tokens(want["input_ids"]), here
            if "token_type_ids" in want:
                assert list(got.type_ids) == want["token_type_ids"], (*here, add)
        else:
            ids = list(got.ids) if pair is None else list(ours.encode(text, pair).ids)
            _same_decode(here, ref, ours, ids)
    # the transformers-style surface (transformers_api.py): attributes, conversions, the call
    for name in ("vocab_size", "special_tokens_map", "extra_special_tokens", "extra_special_tokens_ids"):
        assert getattr(ours, name) == getattr(ref, name), (where, name)
    for name in NAMES:
        assert (getattr(ours, name), getattr(ours, name + "_id")) == (getattr(ref, name), getattr(ref, name + "_id"))
    assert len(ours) == len(ref), where
    # (the model's ids, the special ones and two past the end)
    ids = [*range(0, ref.vocab_size, max(1, ref.vocab_size // 300)), *ref.all_special_ids, len(ref), len(ref) + 1]
    for skip in (False, True):
        want_tokens = ref.convert_ids_to_tokens(ids, skip_special_tokens=skip)
        assert ours.convert_ids_to_tokens(ids, skip_special_tokens=skip) == want_tokens, where
    for kwargs in (
        {"truncation": True, "max_length": 12, "return_offsets_mapping": True},
        {"padding": "longest", "return_special_tokens_mask": True},
        {"padding": "max_length", "max_length": 40, "truncation": "only_first", "return_length": True},
    ):
        try:
            want = dict(ref(texts[:4], **kwargs))
        except Exception:  # noqa: BLE001  (no pad token, a template too long: both refuse)
            with pytest.raises((ValueError, TypeError)):
                ours(texts[:4], **kwargs)
            continue
        assert dict(ours(texts[:4], **kwargs)) == want, (where, kwargs)
    if config.chat_template is not None and not _template_of_a_processor(config):
        try:
            text = ref.apply_chat_template(CONVERSATION, tokenize=False, add_generation_prompt=True)
        except jinja2.exceptions.UndefinedError:  # (a null token the template names): tokenforge's too
            with pytest.raises(ChatTemplateError, match="is undefined"):
                ours.apply_chat_template(CONVERSATION, tokenize=False, add_generation_prompt=True)
            return
        assert ours.apply_chat_template(CONVERSATION, tokenize=False, add_generation_prompt=True) == text, where
        want_ids = ref.apply_chat_template(CONVERSATION, tokenize=True, return_dict=False)
        assert ours.apply_chat_template(CONVERSATION, return_dict=False) == want_ids, where


def _same_decode(here: Any, ref: Any, ours: Tokenizer, ids: list[int]) -> None:
    for skip in (False, True):
        try:
            want = ref.decode(ids, skip_special_tokens=skip)
        except BaseException as e:  # (HF's Strip decoder panics on short outputs)
            if not type(e).__name__.endswith("PanicException"):
                raise
            return
        assert ours.decode(ids, skip_special_tokens=skip) == want, (*here, skip)


def _template_of_a_processor(config: Any) -> bool:
    """Whether the folder's only template is a processor's chat_template.json: AutoTokenizer
    does not read it (AutoProcessor does), tokenforge does (ModelConfig.from_folder)."""
    folder = pathlib.Path(config.path)
    return (folder / "chat_template.json").is_file() and not (
        "chat_template" in config.config or (folder / "chat_template.jinja").is_file()
    )


# Cases the random folders found, each its own small folder (every one failed before its fix).


def _wordlevel_folder(tmp_path: pathlib.Path, config: dict[str, Any], **settings: Any) -> pathlib.Path:
    tok = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({"<unk>": 0, "<s>": 1, "<pad>": 2, "a": 3, "b": 4}, unk_token="<unk>")
    )
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(["<s>", "<pad>"])
    if "truncation" in settings:
        tok.enable_truncation(**settings["truncation"])
    if "padding" in settings:
        tok.enable_padding(**settings["padding"])
    tok.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def _same_folder(folder: pathlib.Path, texts: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = transformers.AutoTokenizer.from_pretrained(str(folder))
        ours = Tokenizer.from_pretrained(folder)
    rng = random.Random(0)
    _compare(str(folder), ref, ours, rng)
    ours.no_truncation()
    ours.no_padding()
    for text in texts:
        ids = ref(text)["input_ids"]
        assert list(ours.encode(text).ids) == ids, text
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), text


@pytest.mark.parametrize("split", [True, False])
def test_split_special_tokens_of_the_config(tmp_path, split):
    """The config's split_special_tokens: special tokens' text is text (transformers sets the
    backend's encode_special_tokens from it), for the chat template's ids too."""
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "split_special_tokens": split, "chat_template": "<s>a"}
    _same_folder(_wordlevel_folder(tmp_path, config), ["<s> a", "a<pad>b", "<s>"])


@pytest.mark.parametrize("config", [{}, {"padding_side": "right", "truncation_side": "right", "pad_token": "<s>"}])
def test_sides_and_pad_token_of_the_files_settings(tmp_path, config):
    """tokenizer.json's truncation and padding give truncation_side, padding_side and pad_token
    where the config does not."""
    folder = _wordlevel_folder(
        tmp_path,
        config,
        truncation={"max_length": 3, "direction": "left"},
        padding={"direction": "left", "pad_id": 2, "pad_token": "<pad>"},
    )
    _same_folder(folder, ["a b a b", "<s> a"])


SENTENCES = ["hello world, the quick brown fox"] * 5


def _byte_level_bpe(*specials: str) -> Any:
    """A byte-level BPE (GPT-2's stages) trained on SENTENCES, with these special tokens."""
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    alphabet = tokenizers.pre_tokenizers.ByteLevel.alphabet()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet, special_tokens=list(specials))
    tok.train_from_iterator(SENTENCES, trainer)
    return tok


def _metaspace_unigram(specials: list[str]) -> Any:
    """A Unigram behind Metaspace trained on SENTENCES, its unknown token "<unk>" among specials."""
    tok = tokenizers.Tokenizer(tokenizers.models.Unigram())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    trainer = tokenizers.trainers.UnigramTrainer(vocab_size=100, special_tokens=specials, unk_token="<unk>")
    tok.train_from_iterator(SENTENCES, trainer)
    return tok


@pytest.mark.parametrize("decoder", [None, "omits", "gaps"])
def test_rebuilt_class_adds_the_files_tokens_anew(tmp_path, decoder):
    """A class with its own constructor (GPT2Tokenizer) builds its backend from the vocabulary
    and merges alone: transformers adds the config's added_tokens_decoder (or, without one, the
    file's added tokens) in key order, each at the next id; a file's token the decoder leaves out
    is gone, a gap in the keys closes."""
    tok = _byte_level_bpe()
    size = tok.get_vocab_size()
    tok.add_tokens(["<a>", "<b>"])
    tok.add_special_tokens(["<|endoftext|>"])
    tok.save(str(tmp_path / "tokenizer.json"))
    config: dict[str, Any] = {"tokenizer_class": "GPT2TokenizerFast"}
    entry = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": False}
    if decoder == "omits":
        config["added_tokens_decoder"] = {str(size + 1): {**entry, "content": "<b>"}}
    elif decoder == "gaps":
        config["added_tokens_decoder"] = {
            str(size): {**entry, "content": "<a>"},
            str(size + 5): {**entry, "content": "<c>"},
            str(size + 9): {**entry, "content": "<|endoftext|>", "special": True},
        }
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["<a> hello<b> <c>x<|endoftext|>", "world<b>"])


@pytest.mark.parametrize("model", ["WordLevel", "BPE", "WordPiece"])
@pytest.mark.parametrize("clean", [True, False])
def test_clean_up_tokenization_spaces_of_the_config(tmp_path, model, clean):
    """transformers' decode cleans the text up ("a ." -> "a.", "do n't" -> "don't") as the
    config's clean_up_tokenization_spaces says, but never for a BPE model."""
    words = ["<unk>", "a", ".", "do", "n't", "'s", "!", "'", "?", ","]
    vocab = {w: i for i, w in enumerate(words)}
    if model == "BPE":
        tok = tokenizers.Tokenizer(tokenizers.models.BPE(vocab, [], unk_token="<unk>"))
    elif model == "WordPiece":  # (BERT's pipeline: tokenforge's fused WordPiece kernel)
        tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="<unk>"))
        tok.decoder = tokenizers.decoders.WordPiece(cleanup=False)
    else:
        tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = (
        tokenizers.pre_tokenizers.BertPreTokenizer()
        if model == "WordPiece"
        else tokenizers.pre_tokenizers.WhitespaceSplit()
    )
    tok.save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": clean}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["a . do n't ' s ' a ! ? , 's", "a ' a"])


@pytest.mark.parametrize(
    "config",
    [{}, {"add_bos_token": False, "add_eos_token": True}, {"bos_token": None}, {"bos_token": "<new>"}],
)
def test_code_llama_writes_its_bos_template(tmp_path, config):
    """CodeLlamaTokenizer passes its own add_bos_token (true; the config's never reaches it where
    tokenizer.json exists) to TokenizersBackend, which writes the bos template over the file's."""
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=120, special_tokens=["<unk>", "<s>", "</s>"])
    tok.train_from_iterator(SENTENCES, trainer)
    tok.post_processor = tokenizers.processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B:1", special_tokens=[("</s>", 2)]
    )
    tok.save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": "CodeLlamaTokenizerFast", **config}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", "</s><s> the", ""])


@pytest.mark.parametrize(
    "config",
    [{}, {"cls_token": "<cls>", "sep_token": "</s>"}, {"cls_token": "hello"}, {"trim_offsets": False}],
)
def test_roberta_processing_over_the_tokens_it_adds(tmp_path, config):
    """RobertaTokenizer sets RobertaProcessing after its tokens are added: a cls or sep token
    the file lacks gets the id adding gives it, and the template holds it."""
    _byte_level_bpe("</s>").save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": "RobertaTokenizerFast", **config}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", " the  fox ", ""])
    # an older folder's special_tokens_map.json names them over the config (no added_tokens_decoder)
    special_map = {"cls_token": {"content": "<c>", "lstrip": True}, "sep_token": "world"}
    (tmp_path / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", " the <c> fox ", ""])


@pytest.mark.parametrize("post", [None, "ByteLevel", "template"])
def test_albert_keeps_the_files_post_processor(tmp_path, post):
    """AlbertTokenizer sets its [CLS] $A [SEP] template before TokenizersBackend.__init__, which
    puts the file's post-processor over it where the file has one."""
    tok = _metaspace_unigram(["<pad>", "<unk>", "[CLS]", "[SEP]", "</s>"])
    if post == "ByteLevel":
        tok.post_processor = tokenizers.processors.ByteLevel(trim_offsets=False)
    elif post == "template":
        tok.post_processor = tokenizers.processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B:1", special_tokens=[("</s>", 4)]
        )
    tok.save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": "AlbertTokenizerFast"}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", "the fox"])


@pytest.mark.parametrize("cls", ["T5TokenizerFast", "XLMRobertaTokenizerFast", "BertTokenizerFast"])
def test_class_templates_over_the_tokens_they_add(tmp_path, cls):
    """T5's, XLM-R's and BERT's constructors set their template after their tokens are added:
    a template token the file lacks gets the id adding gives it."""
    if cls == "BertTokenizerFast":
        words = ["[UNK]", "hello", "world", "the", "fox", "##s", ",", "h", "e", "l", "o", "w", "r", "d"]
        tok = tokenizers.Tokenizer(tokenizers.models.WordPiece({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    else:
        tok = _metaspace_unigram(["<pad>", "<unk>"])
    tok.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": cls}), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", "the fox", ""])


def test_qwen2_resets_the_flags_of_its_special_tokens(tmp_path):
    """Qwen2Tokenizer ends by adding AddedToken(t, special=True) for each of its special tokens:
    the flags a config's AddedToken object gives them go back to the defaults."""
    _byte_level_bpe("<|x|>").save(str(tmp_path / "tokenizer.json"))
    obj = {"__type": "AddedToken", "single_word": True, "lstrip": True, "rstrip": True, "normalized": True}
    config = {
        "tokenizer_class": "Qwen2TokenizerFast",
        "unk_token": {**obj, "content": "<eot>", "special": False},
        "eos_token": {**obj, "content": "<|x|>"},
        "additional_special_tokens": [{**obj, "content": "<e>"}, "hello"],
    }
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello <eot> world<|x|> <e>x", " <e> "])


@pytest.mark.parametrize("kind", ["WordLevel", "WordPiece", "BPE", "Unigram"])
def test_a_missing_unknown_token_fails_only_on_texts_that_need_it(tmp_path, kind):
    """A model whose unknown token its vocabulary lacks loads, as in HF tokenizers: a text of
    known words encodes, one that needs the unknown token raises (HF's error there)."""
    vocab = {"a": 0, "b": 1, "ab": 2}
    if kind == "BPE":
        model: Any = tokenizers.models.BPE(vocab, [("a", "b")], unk_token="<unk>")
    elif kind == "WordLevel":
        model = tokenizers.models.WordLevel(vocab, unk_token="<unk>")
    elif kind == "WordPiece":
        model = tokenizers.models.WordPiece(vocab, unk_token="<unk>")
    else:
        model = tokenizers.models.Unigram([("a", -1.0), ("b", -1.0), ("ab", -0.5)], unk_id=None)
    tok = tokenizers.Tokenizer(model)
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.save(str(tmp_path / "tokenizer.json"))
    ours = Tokenizer.from_file(tmp_path / "tokenizer.json")
    for text in ["ab a", "", "b  ab"]:
        assert list(ours.encode(text).ids) == tok.encode(text).ids, text
    for text in ["abc a", "c", "a é"]:
        with pytest.raises(Exception, match=r"[Mm]issing|not found"):
            tok.encode(text)
        with pytest.raises((ValueError, RuntimeError), match=r"[Mm]issing|not found"):
            ours.encode(text)


@pytest.mark.parametrize("words", [["<unk>", "a", "b", "ab"], ["a", "b", "ab"]])
def test_bert_tokenizer_over_a_word_level_file(tmp_path, words):
    """BertTokenizer (a config.json of model type bert) over a WordLevel file: transformers builds
    its WordPiece over the file's vocabulary (its unknown token "[UNK]", which the vocabulary may
    lack: only a text that needs it fails) and adds the config's added tokens anew."""
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(["<s>", "</s>"])
    tok.save(str(tmp_path / "tokenizer.json"))
    n = len(words)
    entry = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    config = {"added_tokens_decoder": {str(n + 1): {**entry, "content": "</s>"}}, "unk_token": "<unk>"}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}), encoding="utf-8")
    _same_folder(tmp_path, ["ab a", "a </s> b", ""])


def test_named_tokens_of_one_content_compared_with_defaults(tmp_path):
    """transformers queues a named token unless an equal one is queued: AddedToken objects are
    equal by content and flags, a flag left out being its default (normalized = not special), so
    a mask token without flags is the pad token given normalized=True, and only that one is added."""
    _metaspace_unigram(["<pad>", "<unk>"]).save(str(tmp_path / "tokenizer.json"))
    config = {
        "pad_token": {"__type": "AddedToken", "content": "<x>", "normalized": True, "special": False},
        "mask_token": {"__type": "AddedToken", "content": "<x>", "single_word": False},
        "cls_token": {"__type": "AddedToken", "content": "<y>", "normalized": False},
        "sep_token": {"__type": "AddedToken", "content": "<y>", "lstrip": True},
    }
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello <x> world<y> ", " <y>x"])


@pytest.mark.parametrize(
    "adds",
    [
        [[(True, False)]],
        [[(True, False), (False, True)]],
        [[(True, False)], [(False, True)]],
        [[(False, True)], [(True, False)]],
        [[(False, False)]],
    ],
)
def test_a_token_once_added_normalized_keeps_its_normalized_name(tmp_path, adds):
    """HF names a token added normalized by its normalized text (id_to_token, decode) and keeps
    that name when it is added again not normalized, though it is then matched as it is; the
    encoding's tokens show the text matched. (normalized, special) of each add, by call."""
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "<unk>": 1, "▁a": 2}, unk_token="<unk>"))
    tok.normalizer = tokenizers.normalizers.Prepend("▁")
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split("<", "isolated")
    tok.save(str(tmp_path / "tokenizer.json"))
    ours = Tokenizer.from_file(tmp_path / "tokenizer.json")
    for call in adds:
        tokens = [tokenizers.AddedToken("<x>", normalized=n, special=s) for n, s in call]
        tok.add_tokens(tokens)
        ours.add_tokens(tokens)
    for text in ["<x>a", "a<x>a", "", "<x>"]:
        want, got = tok.encode(text), ours.encode(text)
        assert (list(got.ids), list(got.tokens), [tuple(o) for o in got.offsets]) == (
            want.ids,
            want.tokens,
            want.offsets,
        ), text
    assert ours.id_to_token(3) == tok.id_to_token(3)
    assert ours.get_vocab() == tok.get_vocab()
    for skip in (False, True):
        assert ours.decode([3, 0, 3], skip_special_tokens=skip) == tok.decode([3, 0, 3], skip_special_tokens=skip)


@pytest.mark.parametrize("cls", ["BertTokenizer", "XLMRobertaTokenizerFast"])
def test_a_class_template_drops_the_files_byte_level_trimming(tmp_path, cls):
    """BertTokenizer and XLMRobertaTokenizer set their template over the file's post-processor
    whole: a ByteLevel step's offset trimming in the file's goes with it (an lstrip token keeps
    its spaces, an unknown piece its trailing "Ġ")."""
    if cls == "BertTokenizer":
        words = ["[UNK]", "a", "b", "hello"]
        model = tokenizers.models.WordPiece({w: i for i, w in enumerate(words)}, unk_token="[UNK]")
        tok = tokenizers.Tokenizer(model)
        tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
        tok.add_special_tokens(["[CLS]", "[SEP]"])
        tok.add_tokens([tokenizers.AddedToken("<s>", lstrip=True, normalized=False)])
        template = tokenizers.processors.TemplateProcessing(
            single="$A [SEP]", pair="$A [SEP] $B:1", special_tokens=[("[SEP]", 5)]
        )
        tok.post_processor = tokenizers.processors.Sequence(
            [tokenizers.processors.ByteLevel(trim_offsets=True), template]
        )
    else:
        tok = _metaspace_unigram(["<pad>", "<unk>", "<s>", "</s>"])
        tok.post_processor = tokenizers.processors.ByteLevel(trim_offsets=True)
    tok.save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": cls, "bos_token": "<new>"}  # (XLM-R's template waits for its id)
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), "utf-8")
    _same_folder(tmp_path, ["a\r\n<s>", "hello  <s> b", " <s>", "hello İĠ world\xa0Ġ "])


@pytest.mark.parametrize("cls", ["T5TokenizerFast", "XLMRobertaTokenizerFast", "BertTokenizerFast"])
def test_class_templates_over_the_files_added_tokens(tmp_path, cls):
    """A class that adds the file's added tokens anew (at ids of their own) sets its template once
    they are added: a template token that is one of the file's added tokens takes its new id,
    and the file's post-processor (naming the old ids) never runs."""
    if cls == "BertTokenizerFast":
        words = ["[UNK]", "hello", "world", "the", "fox", "h", "e", "l", "o", "w", "r", "d"]
        tok = tokenizers.Tokenizer(tokenizers.models.WordPiece({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    else:
        tok = _metaspace_unigram(["<pad>", "<unk>"])
    tok.add_tokens(["<a>"])
    tok.add_special_tokens(["<e>"])
    n = tok.get_vocab_size()
    tok.post_processor = tokenizers.processors.TemplateProcessing(
        single="$A <e>", pair="$A <e> $B:1", special_tokens=[("<e>", n - 1)]
    )
    tok.save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": cls, "bos_token": "<a>", "cls_token": "<a>", "sep_token": "<e>", "eos_token": "<e>"}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", "the <e> fox<a>", ""])


@pytest.mark.parametrize("cls", ["GemmaTokenizerFast", "CodeLlamaTokenizerFast", "BertTokenizerFast"])
def test_a_null_unknown_token_is_none_to_the_class_model(tmp_path, cls):
    """GemmaTokenizer, CodeLlamaTokenizer and BertTokenizer build their model with
    unk_token=str(unk_token): a config's null unknown token is "None", a token of the
    vocabulary here (an unknown character becomes it)."""
    if cls == "BertTokenizerFast":
        words = ["None", "hello", "world", "the", "fox", "h", "e", "l", "o", "w", "r", "d"]
        tok = tokenizers.Tokenizer(tokenizers.models.WordPiece({w: i for i, w in enumerate(words)}, unk_token="None"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    else:
        tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
        trainer = tokenizers.trainers.BpeTrainer(vocab_size=120, special_tokens=["<unk>", "<s>", "</s>", "None"])
        tok.train_from_iterator(SENTENCES, trainer)
    tok.save(str(tmp_path / "tokenizer.json"))
    config = {"tokenizer_class": cls, "unk_token": None}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _same_folder(tmp_path, ["hello world", "the ﬁ fox", "ﬁ"])
