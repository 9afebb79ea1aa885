"""Ids first on the fused byte-level BPE, sentencepiece-style BPE and Unigram kernels of
tokenizer.json files (pipelines/byte_level_hf_bpe.h's, spm_hf_bpe.h's and unigram_hf.h's
encode_ids, python/py_pipeline.h's LazyRows): `encode` computes one text's ids only, and the
encoding builds its rows (offsets, tokens, word ids, masks, the accessors) when one is first
read. Every field, read in any order, from any thread, after the tokenizer is gone, equals the
eager encoding's (`_encode_eager`, every row at once); pairs, truncation and padding stay eager
and equal too."""

from __future__ import annotations

import gc
import itertools
import json
import random
import threading
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import test_fused_spm_json as spm
import test_fused_unigram_json as unigram
import tokenforge
from hf_trio import Trio
from test_fused_hf_bpe import EDGE, LINES, SAMPLE_TEXTS, TEXT, trained_doc

pytest.importorskip("tokenizers")

# Each field an encoding shows, read by name (a method: called on a few arguments).
FIELDS: dict[str, Any] = {
    "ids": lambda e: e.ids,
    "tokens": lambda e: e.tokens,
    "offsets": lambda e: [tuple(o) for o in e.offsets],
    "word_ids": lambda e: e.word_ids,
    "type_ids": lambda e: e.type_ids,
    "special_tokens_mask": lambda e: e.special_tokens_mask,
    "attention_mask": lambda e: e.attention_mask,
    "sequence_ids": lambda e: e.sequence_ids,
    "len": len,
    "n_sequences": lambda e: e.n_sequences,
    "overflowing": lambda e: [o.ids for o in e.overflowing],
    "accessors": lambda e: [
        (
            e.token_to_chars(i),
            e.token_to_word(i),
            e.token_to_sequence(i),
            e.char_to_token(i),
            e.char_to_word(i),
            e.word_to_tokens(i),
            e.word_to_chars(i),
        )
        for i in (0, 1, 2, 5, len(e) // 2, max(len(e) - 1, 0), len(e) + 3)
    ],
}


def fields(e: Any, order: list[str]) -> dict[str, Any]:
    return {name: FIELDS[name](e) for name in order}


_TRIOS: dict[tuple[str, bool], Trio] = {}


def trio(tmp_path_factory: Any, shape: str, template: bool) -> Trio:
    if (shape, template) not in _TRIOS:
        doc = trained_doc(shape, add_prefix_space=template, ignore_merges=not template, template=template)
        _TRIOS[shape, template] = Trio(doc, tmp_path_factory.mktemp("lazy") / "tokenizer.json")
    return _TRIOS[shape, template]


SHAPES = [("gpt2", False), ("llama3", False), ("llama3", True), ("qwen2", True), ("o200k", False), ("custom", False)]
TEXTS = [
    *EDGE,
    *LINES[:40],
    *(t[:3000] for t in SAMPLE_TEXTS),
    *(unicodedata.normalize("NFD", t[:3000]) for t in SAMPLE_TEXTS),
]


def is_lazy(e: Any) -> bool:
    return "ids first" in repr(e)


@pytest.mark.parametrize(("shape", "template"), SHAPES)
def test_lazy_rows_equal_eager_rows(tmp_path_factory, shape, template):
    fused = trio(tmp_path_factory, shape, template).fused
    order = list(FIELDS)
    rng = random.Random(7)
    for add in (True, False):
        for text in TEXTS:
            eager = fused._encode_eager(text, None, add)
            assert not is_lazy(eager)
            want = fields(eager, order)
            got_lazy = fused.encode(text, None, add)
            # (NFC: a text the quick check cannot pass has its ids from its NFC form, its rows
            # from the staged pipeline when read)
            assert is_lazy(got_lazy), text
            rng.shuffle(order)
            assert fields(got_lazy, order) == want, text


@pytest.mark.parametrize(("shape", "template"), [("llama3", True), ("gpt2", False)])
def test_rows_read_first_in_every_order(tmp_path_factory, shape, template):
    """Every order of a few fields, each on a fresh encoding: whichever comes first builds the rows."""
    fused = trio(tmp_path_factory, shape, template).fused
    text = "日本語 hello<|endoftext|> world  \n" + LINES[3] + "hello world" + " xyz"
    want = fields(fused._encode_eager(text), list(FIELDS))
    for order in itertools.permutations(["ids", "tokens", "offsets", "word_ids", "accessors"]):
        e = fused.encode(text)
        assert fields(e, [*order, *FIELDS]) == {**want}, order


@pytest.mark.parametrize(("shape", "template"), [("qwen2", True), ("llama3", False)])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_lazy_rows_equal_eager_on_any_text(tmp_path_factory, shape, template, text):
    fused = trio(tmp_path_factory, shape, template).fused
    assert fields(fused.encode(text), ["tokens", *FIELDS]) == fields(fused._encode_eager(text), list(FIELDS))


def test_threads_read_one_encoding(tmp_path_factory):
    """Threads read fields of the same lazy encodings at once: one build, every reader the same."""
    fused = trio(tmp_path_factory, "llama3", False).fused
    texts = [SAMPLE_TEXTS[i % len(SAMPLE_TEXTS)][: 8000 + 300 * i] for i in range(6)]
    wants = [fields(fused._encode_eager(t), list(FIELDS)) for t in texts]
    for _ in range(3):
        encodings = [fused.encode(t) for t in texts]
        barrier = threading.Barrier(8)
        results: list[Any] = [None] * 8
        errors: list[BaseException] = []

        def read(k: int) -> None:
            try:
                order = list(FIELDS)
                random.Random(k).shuffle(order)
                barrier.wait()
                results[k] = [fields(e, order) for e in encodings]
            except BaseException as exc:  # noqa: BLE001 (reported below)
                errors.append(exc)

        threads = [threading.Thread(target=read, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        for got in results:
            assert got == wants


def test_rows_outlive_the_tokenizer(tmp_path):
    """The encoding keeps the pipeline and the call's added-token matcher alive for its rows."""
    doc = trained_doc("llama3", add_prefix_space=False, ignore_merges=True, template=True)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc))
    tok = tokenforge.Tokenizer.from_file(str(path))
    assert tok.kernel == "byte_level_hf_bpe"
    text = "hello world<|endoftext|> héllo <|fim|>日本語 xyz"
    want = fields(tok._native._encode_eager(text, allowed_special={"<|fim|>"}), list(FIELDS))
    lazy = tok.encode(text, allowed_special={"<|fim|>"})  # a matcher of this call only
    batch = tok.encode_batch([text, text], allowed_special={"<|fim|>"})
    assert is_lazy(lazy) and all(is_lazy(e) for e in batch)
    del tok
    gc.collect()
    assert fields(lazy, list(FIELDS)) == want
    assert [fields(e, list(FIELDS)) for e in batch] == [want, want]


def test_batches_are_lazy_and_equal_eager(tmp_path_factory):
    fused = trio(tmp_path_factory, "llama3", True).fused  # (no NFC: every text comes ids first)
    texts = [*EDGE, *LINES[:100]]
    default = fused.encode_batch  # (texts, pairs, add_special, added, threads)
    added = trio(tmp_path_factory, "llama3", True).staged._kernel.default_added
    for add in (True, False):
        batch = default(texts, None, add, added, 2)
        assert all(is_lazy(e) for e in batch)
        assert [fields(e, list(FIELDS)) for e in batch] == [
            fields(fused._encode_eager(t, None, add), list(FIELDS)) for t in texts
        ]
    # A pair among the texts: that input is eager, the others stay lazy.
    mixed = default(texts[:5], [None, "a pair", None, None, "x"], True, added, 2)
    assert [is_lazy(e) for e in mixed] == [True, False, True, True, False]
    assert [fields(e, list(FIELDS)) for e in mixed] == [
        fields(fused._encode_eager(t, p), list(FIELDS))
        for t, p in zip(texts[:5], [None, "a pair", None, None, "x"], strict=True)
    ]


def test_pairs_truncation_and_padding_stay_eager(tmp_path):
    doc = trained_doc("llama3", add_prefix_space=False, ignore_merges=False, template=True)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc))
    tok = tokenforge.Tokenizer.from_file(str(path))
    text, pair = "one two three four five six seven " + LINES[5] + "hello world", "a second <|fim|> text"
    assert is_lazy(tok.encode(text)) and not is_lazy(tok.encode(text, pair))
    assert fields(tok.encode(text, pair), list(FIELDS)) == fields(tok._native._encode_eager(text, pair), list(FIELDS))
    tok.enable_truncation(max_length=5, stride=1)
    e = tok.encode(text)
    assert not is_lazy(e) and len(e) == 5 and e.overflowing
    tok.no_truncation()
    tok.enable_padding(length=200)
    e = tok.encode(text)
    assert not is_lazy(e) and len(e) == 200
    assert [len(x) for x in tok.encode_batch([text, "x"])] == [200, 200]
    tok.no_padding()
    assert is_lazy(tok.encode(text))


def test_nfc_texts_come_ids_first_without_normalized_tokens(tmp_path_factory):
    """A file with NFC: a text NFC changes has its ids from its NFC form, computed here a stretch
    between added tokens at a time. A file with a normalized added token (matched in the NFC
    text) runs on the staged pipeline."""
    t = trio(tmp_path_factory, "qwen2", True)
    assert is_lazy(t.fused.encode("cafe plain"))
    for text in ("cafe\u0301 e\u0301", "e\u0301<|endoftext|>a\u030a", "\u0301<|endoftext|>\u0301x"):
        assert is_lazy(t.fused.encode(text))
        t.check(text)
    doc = trained_doc("qwen2", add_prefix_space=True, ignore_merges=False, template=True)
    top = max(a["id"] for a in doc["added_tokens"]) + len(doc["model"]["vocab"])
    doc["added_tokens"].append(
        {"id": top, "content": "caf\u00e9", "single_word": False, "lstrip": False, "rstrip": False}
        | {"normalized": True, "special": False}
    )
    normalized = Trio(doc, tmp_path_factory.mktemp("lazy") / "tokenizer.json")
    assert t.kernel.name == "byte_level_hf_bpe" and normalized.kernel.name == "staged"
    for text in ("cafe\u0301 e\u0301", "x caf\u00e9 cafe\u0301"):
        normalized.check(text)
    assert normalized.hf.token_to_id("caf\u00e9") in normalized.fused.encode("cafe\u0301").ids


def test_empty_and_long_texts(tmp_path_factory):
    fused = trio(tmp_path_factory, "gpt2", False).fused
    long = "".join(SAMPLE_TEXTS) * 3 + "日本語" * 5000 + " " * 3000
    for text in ["", " ", "a", "\n", long]:
        e = fused.encode(text)
        assert fields(e, ["len", "ids", *FIELDS]) == fields(fused._encode_eager(text), list(FIELDS))


def test_rows_keep_the_vocabulary_of_their_encode(tmp_path):
    """Tokens added after an encode do not reach the rows it builds later: they describe the ids
    it returned (the tokenizer as it was), on this thread and on another."""
    doc = trained_doc("llama3", add_prefix_space=False, ignore_merges=True, template=True)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc))
    tok = tokenforge.Tokenizer.from_file(str(path))
    text = "hello world<|endoftext|> héllo wor 日本語 world"
    want = fields(tok._native._encode_eager(text), list(FIELDS))
    lazy, other = tok.encode(text), tok.encode(text)
    assert is_lazy(lazy) and is_lazy(other)
    tok.add_tokens(["llo wor", "日本"])
    tok.add_special_tokens(["world"])
    assert tok.encode(text).ids != want["ids"]  # the change does reach new encodes
    assert fields(lazy, list(FIELDS)) == want
    seen: list[Any] = []
    worker = threading.Thread(target=lambda: seen.append(fields(other, list(FIELDS))))
    worker.start()
    worker.join()
    assert seen == [want]


@pytest.mark.parametrize("case", spm.CASES)
def test_sentencepiece_style_files_are_ids_first(tmp_path_factory, case):
    """Llama 2, Gemma and Metaspace shapes (byte fallback or unk, ignore_merges, added tokens, a
    template): ids first on every text, and every field equals the eager encoding's."""
    fused = spm.trio(tmp_path_factory, case).fused
    order = list(FIELDS)
    rng = random.Random(11)
    for add in (True, False):
        for text in [*spm.EDGE, *spm.LINES[:60], "<|x|>a  <|x|>", *(t[:2000] for t in spm.SAMPLE_TEXTS)]:
            eager = fused._encode_eager(text, None, add)
            got = fused.encode(text, None, add)
            assert is_lazy(got), text
            rng.shuffle(order)
            assert fields(got, order) == fields(eager, list(FIELDS)), text


@pytest.mark.parametrize("case", unigram.CASES)
def test_unigram_files_are_ids_first(tmp_path_factory, case):
    """T5-style Unigram files (normalizers run or skipped by their probes, unknown pieces that
    show their text, byte fallback, split or not): ids first, every field the eager one's."""
    fused = unigram.trio(tmp_path_factory, case).fused
    order = list(FIELDS)
    rng = random.Random(13)
    for add in (True, False):
        for text in [*unigram.EDGE, *unigram.LINES[:60], *(t[:2000] for t in unigram.SAMPLE_TEXTS)]:
            eager = fused._encode_eager(text, None, add)
            got = fused.encode(text, None, add)
            assert is_lazy(got), text
            rng.shuffle(order)
            assert fields(got, order) == fields(eager, list(FIELDS)), text


def test_masks_come_from_the_template_without_rows(tmp_path):
    """type_ids, special_tokens_mask, attention_mask and n_sequences of an ids-first encoding
    are read from the template, not from rows built for them: type ids other than 0, two special
    tokens before the text and two after, none without add_special; each equals HF's and the
    eager encoding's. With skip_present_special
    (transformers' _add_eos_if_not_present), a text that ends with the first token after it
    loses that token's type id as it loses the token."""
    from tokenizers import processors

    doc = trained_doc("llama3", add_prefix_space=False, ignore_merges=True, template=False)
    ids = {t["content"]: t["id"] for t in doc["added_tokens"]}
    eot, fim = ids["<|endoftext|>"], ids["<|fim|>"]
    post = processors.TemplateProcessing(
        single="<|endoftext|>:1 <|fim|>:2 $A:3 <|fim|>:4 <|endoftext|>:0",
        pair="<|endoftext|> $A <|fim|> $B:1",
        special_tokens=[("<|endoftext|>", eot), ("<|fim|>", fim)],
    )
    doc["post_processor"] = json.loads(post.__getstate__())
    t = Trio(doc, tmp_path / "tokenizer.json")
    masks = ["type_ids", "special_tokens_mask", "attention_mask", "n_sequences"]
    for add in (True, False):
        for text in ["", "a", "hello world<|fim|> x", *LINES[:20]]:
            got = t.fused.encode(text, None, add)
            read = fields(got, masks)
            assert is_lazy(got), text
            assert read == fields(t.fused._encode_eager(text, None, add), masks), text
            h = t.hf.encode(text, add_special_tokens=add)
            assert [read["type_ids"], read["special_tokens_mask"], read["attention_mask"]] == [
                h.type_ids,
                h.special_tokens_mask,
                h.attention_mask,
            ], text
            if add:
                assert read["type_ids"][:2] == [1, 2] and read["type_ids"][-2:] == [4, 0], text
    t.fused.set_template(
        [(False, 0, 5, [eot]), (True, 0, 6, []), (False, 0, 7, [fim]), (False, 0, 8, [eot])],
        [(True, 0, 0, []), (True, 1, 1, [])],
        skip_present_special=True,
    )
    for text in ["a<|fim|>", "a<|fim|><|endoftext|>", "a", "<|fim|>"]:
        got = t.fused.encode(text)
        read = fields(got, masks)
        assert is_lazy(got) and read == fields(t.fused._encode_eager(text), masks), text
    assert fields(t.fused.encode("a<|fim|>"), ["ids", "type_ids"])["type_ids"][-3:] == [6, 6, 8]


@pytest.mark.parametrize("wpm", [False, True], ids=["bert", "wpm"])
def test_wordpiece_is_ids_first(tmp_path, wpm):
    """BERT's WordPiece (and llama.cpp's WPM over the same vocabulary): ids first on every text,
    every field the eager encoding's: accents, CJK, marks the exact rules reorder (U+302E after
    U+0301), a word past max_chars ([UNK]), special tokens in the text, with and without
    [CLS]/[SEP]."""
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    if wpm:
        vocab = sorted(bert.get_vocab().items(), key=lambda kv: kv[1])
        (tmp_path / "vocab.txt").write_text("".join(token + "\n" for token, _ in vocab), encoding="utf-8")
        bert = tokenforge.Tokenizer.from_file(tmp_path / "vocab.txt", wpm=True)
    bert.no_truncation()
    bert.no_padding()
    native = bert._native
    texts = [*EDGE, *LINES[:40], *(t[:2000] for t in SAMPLE_TEXTS)]
    texts += ["Héllo wörld naïve CAFÉ", "日本語の文章 中文 한국어", "[MASK] is [SEP] here[UNK]x", "x" * 150 + " y"]
    texts += ["a\u0301\u302e b\u302e\u0301 \u1b44x", "\ufb01 \u216b \u33ff", "tab\tnew\nline  ", "unaffable unaffable!"]
    order = list(FIELDS)
    rng = random.Random(17)
    for add in (True, False):
        for text in texts:
            eager = native._encode_eager(text, None, add)
            got = native.encode(text, None, add)
            assert is_lazy(got), text
            rng.shuffle(order)
            assert fields(got, order) == fields(eager, list(FIELDS)), text


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "gpt2"])
def test_tiktoken_encodings_are_ids_first(name):
    """A tiktoken encoding as a Tokenizer (pipelines/byte_level_bpe.h: Encoding's own ids):
    ids first on every text, special tokens allowed or read as text, every field the eager
    encoding's; with a template too."""
    tok = tokenforge.get_tokenizer(name)
    native = tok._native
    texts = [*EDGE, *LINES[:40], "a<|endoftext|>b <|endoftext|>", *(t[:3000] for t in SAMPLE_TEXTS)]
    order = list(FIELDS)
    rng = random.Random(17)
    for allowed in ("all", ()):
        for text in texts:
            eager = native._encode_eager(text, None, True, allowed_special=allowed, disallowed_special=())
            got = native.encode(text, None, True, allowed_special=allowed, disallowed_special=())
            assert is_lazy(got) and not is_lazy(eager), text
            rng.shuffle(order)
            assert fields(got, order) == fields(eager, list(FIELDS)), text
            assert got.ids == tok.encoding.encode(text, allowed_special=allowed, disallowed_special=()), text
    eot = tok.encoding.eot_token
    native.set_template([(False, 0, 0, [eot]), (True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])])
    for text in ["", "hello world", *LINES[:10]]:
        got = native.encode(text, None, True)
        assert is_lazy(got) and fields(got, order) == fields(native._encode_eager(text, None, True), order), text
        assert got.ids[0] == eot and got.ids[1:] == tok.encoding.encode_ordinary(text), text
