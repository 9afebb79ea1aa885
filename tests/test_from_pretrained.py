"""`Tokenizer.from_pretrained` on model folders and `apply_chat_template` against transformers
loading the same folder: a Llama-2-style sentencepiece BPE and a Gemma-3-style one, trained in
the test with HF tokenizers, beside the chat templates and settings kept in
tests/data/chat_templates/."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

import tokenforge
from conftest import REPO, corpus_files, read_sample

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

TEMPLATES = REPO / "tests" / "data" / "chat_templates"
TRAIN = [read_sample(path, 30_000) for path in corpus_files()]

CONVERSATIONS = [
    [{"role": "user", "content": "Hello! How are you?"}],
    [
        {"role": "system", "content": "You answer in French."},
        {"role": "user", "content": "What is a tokenizer?"},
        {"role": "assistant", "content": "Un découpeur de texte."},
        {"role": "user", "content": "Et en japonais ? 日本語で"},
    ],
]


def make_folder(folder: pathlib.Path, family: str) -> pathlib.Path:
    """A model folder: the family's template and settings, and a small BPE tokenizer.json with
    its special tokens at the ids its config gives them."""
    shutil.copytree(TEMPLATES / family, folder)
    if family == "llama2":  # as the real Llama 2 folder: transformers keeps tokenizer.json's pipeline
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        (folder / "tokenizer_config.json").write_text(json.dumps({**config, "legacy": True}), encoding="utf-8")
    special = {"llama2": ["<unk>", "<s>", "</s>"], "gemma3": ["<pad>", "<eos>", "<bos>", "<unk>"]}[family]
    if family == "gemma3":
        special += ["<mask>", "<start_of_turn>", "<end_of_turn>"]
    tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    if family == "llama2":
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    else:  # as Gemma's own tokenizer.json (and transformers' GemmaTokenizer) spell it
        tok.normalizer = normalizers.Replace(" ", "▁")
        tok.pre_tokenizer = pre_tokenizers.Split(" ", behavior="merged_with_previous")
    tok.train_from_iterator(
        TRAIN, trainers.BpeTrainer(vocab_size=1500, special_tokens=special + [f"<0x{b:02X}>" for b in range(256)])
    )
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    bos = "<s>" if family == "llama2" else "<bos>"
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A", pair=f"{bos} $A {bos}:1 $B:1", special_tokens=[(bos, tok.token_to_id(bos))]
    )
    tok.save(str(folder / "tokenizer.json"))
    return folder


@pytest.fixture(scope="module", params=["llama2", "gemma3"])
def pair(request, tmp_path_factory):
    folder = make_folder(tmp_path_factory.mktemp("models") / request.param, request.param)
    theirs = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    return tokenforge.Tokenizer.from_pretrained(folder), theirs


@pytest.mark.parametrize("generation", [False, True])
def test_chat_template_renders_and_encodes_as_transformers(pair, generation):
    ours, theirs = pair
    for conversation in CONVERSATIONS:
        kwargs = {"add_generation_prompt": generation}
        text = ours.apply_chat_template(conversation, tokenize=False, **kwargs)
        assert text == theirs.apply_chat_template(conversation, tokenize=False, **kwargs)
        expected = theirs.apply_chat_template(conversation, **kwargs)
        got = ours.apply_chat_template(conversation, **kwargs)
        assert got == {"input_ids": expected["input_ids"], "attention_mask": expected["attention_mask"]}
        assert ours.apply_chat_template(conversation, return_dict=False, **kwargs) == expected["input_ids"]
    batch = ours.apply_chat_template(CONVERSATIONS, return_dict=False)
    assert batch == theirs.apply_chat_template(CONVERSATIONS, return_dict=False)


def test_folder_settings_and_plain_encoding(pair):
    ours, theirs = pair
    assert ours.config.bos_token == theirs.bos_token and ours.config.eos_token == theirs.eos_token
    assert ours.config.model_max_length == theirs.model_max_length
    # Encoding follows transformers, which rebuilds some classes' pipelines from their own
    # defaults (LlamaTokenizer's Metaspace differs from this file's Prepend normalizer right after
    # a special token; tests/test_transformers_classes.py covers every rebuilt class).
    for text in ["A plain text, with <s> and <bos> in it.", " a leading space", *TRAIN[0].splitlines()[:20]]:
        ids = ours.encode(text).ids
        assert ids == theirs(text)["input_ids"], text
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == theirs.decode(ids, skip_special_tokens=skip), text


def test_hub_cache_folders_and_errors(tmp_path):
    folder = make_folder(tmp_path / "plain", "llama2")
    cache = tmp_path / "models--org--name"
    shutil.copytree(folder, cache / "snapshots" / "abc123")
    (cache / "refs").mkdir()
    (cache / "refs" / "main").write_text("abc123")
    text = "Hello there"
    assert tokenforge.Tokenizer.from_pretrained(cache).encode(text).ids == (
        tokenforge.Tokenizer.from_pretrained(folder).encode(text).ids
    )
    with pytest.raises(FileNotFoundError, match=r"no tokenizer\.json, tokenizer\.model or vocab\.txt"):
        tokenforge.Tokenizer.from_pretrained(tmp_path)
    plain = tokenforge.Tokenizer.from_file(folder / "tokenizer.json")
    assert plain.config is None
    with pytest.raises(ValueError, match="has no chat template"):
        plain.apply_chat_template(CONVERSATIONS[0])
    template = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"
    assert plain.apply_chat_template(CONVERSATIONS[0], chat_template=template, tokenize=False) == (
        "<user>Hello! How are you?"
    )
