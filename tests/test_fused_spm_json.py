"""The fused sentencepiece-style BPE of tokenizer.json files (pipeline/fused_spm.py, native
pipelines/spm_hf_bpe.h) against HF tokenizers 0.23.3 and the staged pipeline.

Files trained here with HF's BPE trainer behind Metaspace (pieces per word, and whole lines so
that tokens cross the "▁" between words), given every byte's "<0xAB>" token, then dressed as the
shapes the kernel runs: Llama 2's legacy Prepend + Replace normalizer, Gemma's Replace with its
Split on " ", Metaspace with prepend_scheme first / always / never, split or not (and the older
add_prefix_space); byte_fallback on and off (unk, fuse_unk), ignore_merges, added tokens,
templates and decoders. fused == staged == HF on ids, tokens, offsets and decode, on the corpus
samples in every language and on hypothesis strings. The real Llama 2 and Gemma 3 files are a
slow test (../shared)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import WHOLE_CORPUS, corpus_files, read_sample
from hf_trio import Trio
from tokenforge import Tokenizer
from tokenforge.pipeline.compile import build_kernel, kernel_of
from tokenforge.pipeline.fused_spm import fused_spm_description

tokenizers = pytest.importorskip("tokenizers")

SPACE = "\u2581"
SAMPLE_TEXTS = [read_sample(p, 30_000) for p in corpus_files()]
LINES = [line for text in SAMPLE_TEXTS for line in text.splitlines(keepends=True)]

EDGE = [
    "",
    " ",
    "  ",
    "  \n  ",
    "a",
    " a",
    "a ",
    "a  b   c    d",
    "\u2581",
    "\u2581a \u2581\u2581b",
    "x\u2581 y",
    "Hello world!  It's  a test.",
    "1234567 ١٢٣٤ 12a34",
    "日本語のテキスト、です。 Привет мир",
    "tab\there  \u3000 \u00a0nbsp\u2028x",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U0010ffff \ue000",
    "<s>hello world</s>  hello <|x|> world  <|x|>",
    "a<s> <s>\n</s>",
    " <s> a",
    "a" * 700 + " " + "日本" * 300 + " " * 300 + "x" + "1" * 50 + "\n" * 40 + "  ",
    "Ω" * 40 + " " + "ab" * 20 + " \u0301" * 30,
]

TEXT = st.text(alphabet=st.sampled_from(list("ab é日本Ω\u2581\n\t<>s/|x0")) | st.characters(codec="utf-8"), max_size=60)

_TRAINED: dict[bool, dict[str, Any]] = {}


def _trained(whole_lines: bool) -> dict[str, Any]:
    """A BPE trained behind Metaspace (per word, or whole lines: tokens then hold "▁" inside),
    with every byte's token added; as tokenizer.json."""
    if whole_lines not in _TRAINED:
        from tokenizers import models, pre_tokenizers, trainers

        tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
        tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="always", split=not whole_lines)
        trainer = trainers.BpeTrainer(
            vocab_size=900, special_tokens=["<unk>", "<s>", "</s>"], limit_alphabet=200, show_progress=False
        )
        tok.train_from_iterator([line[:300] for line in LINES[::2]], trainer)
        doc = json.loads(tok.to_str())
        vocab = doc["model"]["vocab"]
        for b in range(256):
            vocab.setdefault(f"<0x{b:02X}>", len(vocab))
        vocab.setdefault(SPACE, len(vocab))
        _TRAINED[whole_lines] = doc
    return json.loads(json.dumps(_TRAINED[whole_lines]))


DECODE_LLAMA = {
    "type": "Sequence",
    "decoders": [
        {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
    ],
}
DECODE_GEMMA = {"type": "Sequence", "decoders": DECODE_LLAMA["decoders"][:3]}
REPLACE = {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}


def _metaspace(scheme: str | None, split: bool) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "Metaspace", "replacement": SPACE, "split": split}
    if scheme is None:  # the older form
        d["add_prefix_space"] = True
    else:
        d["prepend_scheme"] = scheme
    return d


# shape -> (normalizer, pre_tokenizer, decoder, prepend, split)
SHAPES: dict[str, tuple[Any, Any, Any, int, bool]] = {
    "llama2": (
        {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": SPACE}, REPLACE]},
        None,
        DECODE_LLAMA,
        3,
        False,
    ),
    "gemma": (
        REPLACE,
        {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
        DECODE_GEMMA,
        0,
        False,
    ),
    "gemma_bare": (REPLACE, None, DECODE_GEMMA, 0, False),
    "meta_first": (
        None,
        _metaspace("first", True),
        {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "first", "split": True},
        1,
        True,
    ),
    "meta_first_whole": (None, _metaspace("first", False), DECODE_LLAMA, 1, False),
    "meta_always": (None, _metaspace("always", True), DECODE_GEMMA, 2, True),
    "meta_always_whole": (None, _metaspace("always", False), DECODE_GEMMA, 2, False),
    "meta_never": (None, _metaspace("never", True), DECODE_GEMMA, 0, True),
    "meta_legacy": (None, _metaspace(None, True), DECODE_GEMMA, 2, True),
}

# (shape, whole-line vocabulary, byte_fallback, ignore_merges)
CASES = [
    ("llama2", False, True, False),
    ("llama2", True, True, False),
    ("llama2", True, False, False),
    ("gemma", True, True, False),
    ("gemma", False, True, True),
    ("gemma_bare", True, False, True),
    ("meta_first", False, True, False),
    ("meta_first_whole", True, True, False),
    ("meta_always", False, False, False),
    ("meta_always_whole", True, True, True),
    ("meta_never", False, True, False),
    ("meta_legacy", True, True, False),
]


def spm_doc(shape: str, whole_lines: bool, byte_fallback: bool, ignore_merges: bool) -> dict[str, Any]:
    doc = _trained(whole_lines)
    normalizer, pre_tokenizer, decoder, _, _ = SHAPES[shape]
    doc["normalizer"], doc["pre_tokenizer"], doc["decoder"] = normalizer, pre_tokenizer, decoder
    doc["model"]["byte_fallback"] = byte_fallback
    doc["model"]["ignore_merges"] = ignore_merges
    doc["model"]["fuse_unk"] = not ignore_merges
    vocab = doc["model"]["vocab"]
    extra = {
        "content": "<|x|>",
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": False,
        "id": len(vocab),
    }
    doc["added_tokens"] = [*doc["added_tokens"], extra]
    if shape.startswith("llama") or shape.startswith("meta_first"):
        single = [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]
        pair = [*single, {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}]
        doc["post_processor"] = {
            "type": "TemplateProcessing",
            "single": single,
            "pair": pair,
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
        }
    return doc


_TRIOS: dict[tuple, Trio] = {}


def trio(tmp_path_factory, case: tuple) -> Trio:
    if case not in _TRIOS:
        _TRIOS[case] = Trio(spm_doc(*case), tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
    return _TRIOS[case]


@pytest.mark.parametrize("case", CASES)
def test_files_choose_the_fused_kernel(tmp_path_factory, case):
    t = trio(tmp_path_factory, case)
    assert kernel_of(t.spec) == "spm_hf_bpe" and t.kernel.name == "spm_hf_bpe"
    d = fused_spm_description(t.spec)
    assert d is not None and (d["prepend"], d["split"]) == SHAPES[case[0]][3:]


@pytest.mark.parametrize("case", CASES)
def test_fused_equals_hf_on_samples(tmp_path_factory, case):
    t = trio(tmp_path_factory, case)
    for text in EDGE:
        t.check(text)
    for line in LINES[::5]:
        t.check(line)
    for text in SAMPLE_TEXTS:
        t.check(text[:4000])
    t.check(EDGE[7], EDGE[12])
    t.check(LINES[1], "<s> x")


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, case, text, pair):
    trio(tmp_path_factory, case).check(text, pair)


def test_whole_stretches_are_cut_only_where_no_merge_crosses(tmp_path_factory):
    t = trio(tmp_path_factory, ("llama2", True, True, False))
    vocab = t.spec.model["vocab"]
    crossing = [tok for tok in vocab if SPACE in tok[1:]]
    assert crossing  # whole-line training made tokens across words
    text = " ".join(LINES[3].split()) or "a b c"
    segments = [bytes(s).decode() for s, _ in t.fused.segments(text)]
    assert "".join(segments) == SPACE + text.replace(" ", SPACE)
    for left, right in zip(segments, segments[1:]):
        last = left[-1]
        assert not any(last + SPACE in tok for tok in vocab), (left, right)


def test_batches_equal_single_encodes(tmp_path_factory):
    t = trio(tmp_path_factory, ("llama2", False, True, False))
    texts = [*EDGE, *LINES[:200]]
    batch = t.fused.encode_batch(texts, None, True, t.staged._kernel.default_added, 2)
    assert [e.ids for e in batch] == [t.fused.encode(x).ids for x in texts]
    assert [e.offsets for e in batch] == [t.fused.encode(x).offsets for x in texts]


def test_hooks_are_the_staged_pipelines(tmp_path_factory):
    t = trio(tmp_path_factory, ("gemma", True, True, False))
    staged = t.staged._native
    for text in EDGE[:12]:
        assert t.fused.pre_tokenize(text) == staged.pre_tokenize(text)
        assert t.fused.normalize(text) == staged.normalize(text)


def test_other_shapes_are_left_to_the_staged_pipeline(tmp_path_factory):
    spec = trio(tmp_path_factory, ("llama2", False, True, False)).spec
    model = dict(spec.model)
    replace = dataclasses.replace

    def staged(**changes: Any) -> bool:
        s = replace(spec, **changes)
        return fused_spm_description(s) is None and kernel_of(s) == "staged"

    assert staged(model={**model, "dropout": 0.1})
    assert staged(model={**model, "continuing_subword_prefix": "##"})
    assert staged(model={**model, "end_of_word_suffix": "</w>"})
    vocab = {k: v for k, v in model["vocab"].items() if k != SPACE}
    assert staged(model={**model, "vocab": vocab})
    assert staged(normalizer={"type": "Lowercase"})
    assert staged(normalizer={"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "_"}, REPLACE]})
    assert staged(normalizer={**REPLACE, "content": "_"})
    assert staged(normalizer={"type": "Replace", "pattern": {"Regex": " "}, "content": SPACE})
    assert staged(pre_tokenizer={"type": "Whitespace"})
    assert staged(pre_tokenizer={"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": True})
    assert staged(normalizer=None, pre_tokenizer={**_metaspace("first", True), "replacement": "_"})
    assert staged(normalizer=None, pre_tokenizer={**_metaspace("first", True), "prepend_scheme": "sometimes"})
    assert staged(normalizer=REPLACE, pre_tokenizer=_metaspace("first", True))
    assert staged(normalizer=None, pre_tokenizer=None)
    with pytest.raises(ValueError):
        build_kernel(replace(spec, kernel="spm_hf_bpe", normalizer={"type": "Lowercase"}))


def test_forcing_either_kernel_gives_the_same_rows(tmp_path_factory):
    t = trio(tmp_path_factory, ("meta_always", False, False, False))
    fused = Tokenizer.from_spec(dataclasses.replace(t.spec, kernel="spm_hf_bpe"))
    staged = Tokenizer.from_spec(dataclasses.replace(t.spec, kernel="staged"))
    assert fused.kernel == "spm_hf_bpe" and staged.kernel == "staged"
    for text in LINES[:100]:
        a, b = fused.encode(text), staged.encode(text)
        assert a.ids == b.ids and a.offsets == b.offsets
    assert fused.decode(fused.encode(LINES[0]).ids) == staged.decode(staged.encode(LINES[0]).ids)


# -- the real files ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama2", "gemma3"])
def test_real_files_fused_equals_hf(tmp_path, name):
    if WHOLE_CORPUS is None:
        pytest.skip("../shared is not at hand")
    path = WHOLE_CORPUS.parent / "vocab" / "hf" / name / "tokenizer.json"
    t = Trio(json.loads(path.read_text()), tmp_path / "tokenizer.json")
    assert t.kernel.name == "spm_hf_bpe"
    for text in EDGE:
        t.check(text)
    for p in corpus_files(whole=True):
        text = read_sample(p, 300_000)
        t.check(text)
        for line in text.splitlines()[:1500]:
            t.check(line)


def test_without_unk_or_byte_fallback_characters_are_dropped_as_hf(tmp_path_factory):
    # No unk token and no byte fallback: HF drops unknown characters and its offsets run on over
    # the whole piece, so the fused pass does not cut whole stretches.
    for shape in ("llama2", "meta_always_whole", "meta_first"):
        doc = spm_doc(shape, True, False, False)
        doc["model"]["unk_token"] = None
        doc["added_tokens"] = [a for a in doc["added_tokens"] if a["content"] != "<unk>"]
        t = Trio(doc, tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
        assert t.kernel.name == "spm_hf_bpe"
        for text in [*EDGE, *LINES[:300:7]]:
            t.check(text)


def test_merges_of_byte_tokens_keep_stretches_whole(tmp_path_factory):
    # A merge of byte-fallback tokens, and one of a byte token with "▁": symbols that are no
    # character of the text merge, so no cut is safe; the pass must still be HF's.
    vocab = {"<unk>": 0, SPACE: 1, "a": 2, "b": 3, SPACE + "a": 4, "ab": 5}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    merges = [[SPACE, "a"], ["a", "b"], ["<0xE6>", "<0x97>"], ["<0x97>", SPACE], ["<0xA5>", SPACE + "a"]]
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": SHAPES["llama2"][0],
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": DECODE_LLAMA,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },
    }
    t = Trio(doc, tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
    assert t.kernel.name == "spm_hf_bpe"
    for text in ["日 a", "日a ab", "ab 日日 a 日本 ab", "a\u2581\u2581 ab日", *EDGE]:
        t.check(text)


@pytest.mark.parametrize("case", [("llama2", True, True, False), ("gemma", False, True, False)])
def test_new_segments_merge_part_by_part_as_hf(tmp_path_factory, case):
    # A segment new to a thread is cut where no token holds the characters on both sides and its
    # parts come from the thread's tables or are merged apart: fresh kernels that meet the same
    # parts in either order (known part in a new segment, new part in a known one) are HF's.
    doc = spm_doc(*case)
    words = ["return", "self", "data", "the", "of", "日本", "Привет", "x1", "__init__", "👍🏽"]
    glue = ["(", ")", ".", ",", ":", "\n", "\t", "  ", "'", '"', "[", "]", "=", "-", "\u00a0"]
    texts = [f"{g}{w}{h}{v}" for w in words for g in glue for h in glue[::3] for v in words[::4]]
    for order in (texts, texts[::-1]):
        t = Trio(doc, tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
        for text in order:
            t.check(text)
        t.check(" ".join(order))


@pytest.mark.parametrize("case", [("llama2", True, True, False), ("gemma", False, True, False)])
def test_new_segments_with_parts_of_every_length_as_hf(tmp_path_factory, case):
    # merge_cut finds each part's table key once (short: 2 to 15 bytes, medium: 16 to 31, none
    # beyond) and looks it up, merges and remembers the part under it: parts of every length
    # from 1 to 40 bytes, new and then known, first, inside and last in their segment, in fresh
    # kernels, are HF's.
    doc = spm_doc(*case)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
    glue = ["(", ")", "\n", "\u00a0", "日"]
    for order in (1, -1):
        t = Trio(doc, tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
        for n in range(1, 41)[::order]:
            word = letters[:n]
            for g in glue:
                for text in [g + word, word + g, g + word + g + word[::-1] + g, f"x {g}{word}{g}{word}"]:
                    t.check(text)
                    t.check(text + text)


@pytest.mark.parametrize("firsts", [4, 8, 12])
def test_added_tokens_of_several_first_bytes_as_hf(tmp_path_factory, firsts):
    # The added-token search skips to the next byte that starts some token, 16 bytes at a time
    # where they start with at most 8 distinct bytes (Gemma's: "<", "\n", "\t", "[", "▁"); a token
    # at every offset of a 16-byte block, next to its first byte alone, is found as HF finds it.
    doc = spm_doc("gemma", True, True, False)
    contents = ["<tok>", "\n\n\n", "\t\t", SPACE * 3, "[x]", "日本語", "é!", "}}", "~~", "#!", "%%", "@a"][:firsts]
    size = max([len(doc["model"]["vocab"]) - 1, *(a["id"] for a in doc["added_tokens"])]) + 1  # the next id
    doc["added_tokens"] = [
        *doc["added_tokens"],
        *(
            {
                "content": c,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": k % 2 == 0,
                "id": size + k,
            }
            for k, c in enumerate(contents)
        ),
    ]
    t = Trio(doc, tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
    assert t.kernel.name == "spm_hf_bpe"
    for c in contents:
        for pad in range(0, 34, 3):
            t.check("ab " * (pad // 3) + "x" * (pad % 3) + c + " y" + c[0] + "z " + c + c)
    t.check("".join(contents) * 5 + "<" + "\n" + SPACE + "[")
    t.check(" ".join(contents) * 7)


@pytest.mark.parametrize(
    "case", [("llama2", False, True, False), ("gemma", True, True, False), ("meta_always", False, False, False)]
)
def test_new_words_of_every_length_merge_as_hf(tmp_path_factory, case):
    # A new segment whose characters are all tokens is merged from them by
    # HfBpeModel::merge_plain (a scan over a list of at most 128 symbols, the spm kernel's own pair
    # cache); a longer one, or one with a character that is no token (byte fallback or unk), by
    # the model's queue or its own scan. Fresh kernels meet words of every length from 1 to 140
    # characters, alone and between others, in scripts with and without a token per character,
    # and a character beyond the BMP that is a token and merges.
    doc = spm_doc(*case)
    vocab, merges = doc["model"]["vocab"], doc["model"]["merges"]
    for token in ["👍", "👍👍", SPACE + "👍"]:
        vocab.setdefault(token, len(vocab))
    pairs = [["👍", "👍"], [SPACE, "👍"]]
    merges.extend(pairs if merges and isinstance(merges[0], list) else [" ".join(p) for p in pairs])
    for added in doc["added_tokens"]:
        if added["content"] == "<|x|>":  # still the next id after the vocabulary
            added["id"] = len(vocab)
    t = Trio(doc, tmp_path_factory.mktemp("fused_spm") / "tokenizer.json")
    alphabets = ["abcdefghij", "the", "Привет", "日本語のテキスト", "👍", "ab👍é\u0301x", "a\u0378\x01b", SPACE + "a"]
    for alphabet in alphabets:
        for n in range(1, 141):
            word = (alphabet * (n // len(alphabet) + 1))[:n]
            t.check(word)
            t.check(f"{word} {word[::-1]}x\n{word}")
