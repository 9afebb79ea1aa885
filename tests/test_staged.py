"""The staged pipeline (_core.Staged, pipeline/staged.py) against HF tokenizers 0.23.3 and the
fused WordPiece pipeline: normalized strings, pre-tokenized pieces with offsets, encode ids and
offsets, and decode, on the corpus samples (ja, zh, ru among them) and hypothesis strings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED, corpus_files, read_sample
from tokenforge import Tokenizer, _core
from tokenforge.formats.bert_vocab import read_bert
from tokenforge.pipeline.staged import build_staged

tokenizers = pytest.importorskip("tokenizers")

BERT_DIR = SHARED / "vocab" / "bert"

# Lines of every corpus sample (first 20 K characters each).
SAMPLES = [line for path in corpus_files() for line in read_sample(path, 20_000).splitlines() if line.strip()][::7]

TEXT = st.text(
    st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(
            list(
                " \t\n  ,.!'-_ab12٣éé日本かカ▁Ġ#<>İẞ\u0301\u0338\u3099\x00\ufffd\ufb01\uac00\u1100\u1161\u11a8\u1f70\u0345\u2126\u00c5\u212b"
            )
        ),
    ),
    max_size=40,
)


def hf_tokenizer(normalizer=None, pre_tokenizer=None, model=None, decoder=None) -> Any:
    def seq(parts, key):
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"type": "Sequence", key: parts}

    model = model or {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": seq(normalizer, "normalizers"),
        "pre_tokenizer": seq(pre_tokenizer, "pretokenizers"),
        "post_processor": None,
        "decoder": seq(decoder, "decoders"),
        "model": model,
    }
    return tokenizers.Tokenizer.from_str(json.dumps(doc))


def staged(normalizer=None, pre_tokenizer=None, model=None, decoder=None, names=None) -> _core.Staged:
    def parts(ps):
        return [(p["type"], {k: v for k, v in p.items() if k != "type"}) for p in ps or []]

    model = dict(model or {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"})
    vocab = model.pop("vocab")
    kind = model.pop("type")
    if names is None:
        names = [""] * (max(vocab.values()) + 1)
        for t, i in vocab.items():
            names[i] = t
    return _core.Staged(
        parts(normalizer), parts(pre_tokenizer), kind, model, list(vocab.items()), parts(decoder), names, []
    )


NORMALIZERS = [
    [
        {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": True,
        }
    ],
    [
        {
            "type": "BertNormalizer",
            "clean_text": False,
            "handle_chinese_chars": False,
            "strip_accents": True,
            "lowercase": False,
        }
    ],
    [
        {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": False,
            "lowercase": True,
        }
    ],
    [{"type": "Lowercase"}],
    [{"type": "Strip", "strip_left": True, "strip_right": True}],
    [{"type": "Strip", "strip_left": False, "strip_right": True}],
    [{"type": "StripAccents"}],
    [{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}],
    [{"type": "Replace", "pattern": {"String": "é"}, "content": ""}],
    [{"type": "Replace", "pattern": {"String": "ab"}, "content": "xyz"}],
    [{"type": "Prepend", "prepend": "▁"}, {"type": "Lowercase"}],
    [{"type": "NFC"}],
    [{"type": "NFD"}],
    [{"type": "NFKC"}],
    [{"type": "NFKD"}],
    [{"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Lowercase"}],
    [{"type": "NFD"}, {"type": "Replace", "pattern": {"String": "e"}, "content": "é"}, {"type": "NFC"}],
    [
        {"type": "Lowercase"},
        {"type": "Strip", "strip_left": True, "strip_right": False},
        {"type": "Replace", "pattern": {"String": "a"}, "content": "ää"},
    ],
]

PRE_TOKENIZERS = [
    [{"type": "BertPreTokenizer"}],
    [{"type": "Whitespace"}],
    [{"type": "WhitespaceSplit"}],
    [{"type": "Punctuation", "behavior": "Isolated"}],
    [{"type": "Punctuation", "behavior": "Contiguous"}],
    [{"type": "Punctuation", "behavior": "MergedWithPrevious"}],
    [{"type": "Punctuation", "behavior": "MergedWithNext"}],
    [{"type": "Punctuation", "behavior": "Removed"}],
    [{"type": "Digits", "individual_digits": True}],
    [{"type": "Digits", "individual_digits": False}],
    [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}],
    [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True}],
    [{"type": "Metaspace", "replacement": "_", "prepend_scheme": "never", "split": False}],
    [{"type": "CharDelimiterSplit", "delimiter": "a"}],
    [{"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}],
    [{"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}],
    [{"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": False}],
    [{"type": "Split", "pattern": {"String": "ab"}, "behavior": "MergedWithNext", "invert": False}],
    [{"type": "Split", "pattern": {"String": "a"}, "behavior": "Isolated", "invert": True}],
    [{"type": "Split", "pattern": {"String": "é"}, "behavior": "Contiguous", "invert": False}],
    [{"type": "FixedLength", "length": 3}],
    [
        {"type": "WhitespaceSplit"},
        {"type": "Digits", "individual_digits": True},
        {"type": "Punctuation", "behavior": "Isolated"},
    ],
]


def check_normalizer(config, text: str) -> None:
    hf = hf_tokenizer(normalizer=config, pre_tokenizer=[{"type": "WhitespaceSplit"}])
    ours = staged(normalizer=config, pre_tokenizer=[{"type": "WhitespaceSplit"}])
    assert ours.normalize(text) == hf.normalizer.normalize_str(text)
    expected = hf.encode(text)
    got = ours.encode(text)
    assert got.offsets == expected.offsets, (config, text)


def check_pre_tokenizer(config, text: str, normalizer=None) -> None:
    hf = hf_tokenizer(normalizer=normalizer, pre_tokenizer=config)
    ours = staged(normalizer=normalizer, pre_tokenizer=config)
    if normalizer is None:
        assert ours.pre_tokenize(text) == hf.pre_tokenizer.pre_tokenize_str(text), (config, text)
    expected = hf.encode(text)
    assert ours.encode(text).offsets == expected.offsets, (config, text)


@pytest.mark.parametrize("config", NORMALIZERS, ids=lambda c: "+".join(p["type"] for p in c))
def test_normalizers_on_samples(config):
    for text in SAMPLES:
        check_normalizer(config, text)


@pytest.mark.parametrize("config", PRE_TOKENIZERS, ids=lambda c: "+".join(p["type"] for p in c))
def test_pre_tokenizers_on_samples(config):
    for text in SAMPLES:
        check_pre_tokenizer(config, text)


def test_normalizers_rewriting_in_place_then_not():
    """Lowercase (alone and in BertNormalizer), map and filter rewrite the text in place while
    each character keeps its UTF-8 length and none is removed; a character whose lowercase is
    longer, shorter or two characters (İ, ẞ, Ⱥ), or a mark StripAccents removes, hands the rest to
    the general transform: at the start, inside and at the end of ASCII, Cyrillic and Latin-1
    text, the same text and offsets as HF."""
    configs = [
        [{"type": "Lowercase"}],
        [{"type": "StripAccents"}],
        [{"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}],
        [{"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "lowercase": True}],
        [{"type": "Replace", "pattern": {"String": "x"}, "content": "yy"}, {"type": "Lowercase"}],
    ]
    for prefix in ["", "A", "aB", "ПрИ", "ÀÉ", "日"]:
        for odd in ["İ", "ẞ", "Ⱥ", "ǅ", "e\u0301", "\u0301", "ΐ", "X"]:
            for suffix in ["", "Z", "Жx", "\u00c0\u0301"]:
                text = f"{prefix}{odd}{suffix} {odd}{prefix}"
                for config in configs:
                    check_normalizer(config, text)


def test_unicode_forms_replace_only_their_segments():
    """The Unicode forms replace only the stretches the quick check does not pass (from the
    inert starter before a character that fails to the next inert one) and keep the text between:
    such stretches at the start, inside, at the end and side by side, with marks out of order,
    Hangul, compatibility characters and a leading mark, after a Replace that has already moved
    the alignments, give HF's text and offsets under each form."""
    parts = ["ab ", "й", "ё", "é", "e\u0301\u0323", "\u0323\u0301", "한", "が", "ﬁ", "日本", "Жx", "\u1100\u1161"]
    forms = ["NFC", "NFD", "NFKC", "NFKD"]
    for first in parts:
        for second in parts:
            text = f"{first}{second} a{first}.{second}"
            for form in forms:
                check_normalizer([{"type": form}], text)
                check_normalizer(
                    [{"type": "Replace", "pattern": {"String": "a"}, "content": "ää"}, {"type": form}], text
                )
                check_normalizer([{"type": form}, {"type": "StripAccents"}, {"type": "Lowercase"}], text)


def test_ids_first_without_offsets_equal_hf(tmp_path):
    """Ids computed first keep no alignments while normalizing (the normalized stretches are cut
    straight): under every normalizer above, with a WordLevel vocabulary of the normalized words
    (so that a wrong normalized text gives other ids), a file's encode(...).ids equals HF's, and
    so do its offsets (computed afterwards, with the alignments); a normalized added token
    keeps them tracked."""
    texts = [*SAMPLES[::5], "Ab cé e\u0301 日本語 が ﬁ İx", "x ab AB ab", "  lead and trail  "]
    for n, config in enumerate(NORMALIZERS):
        normalizer = config[0] if len(config) == 1 else {"type": "Sequence", "normalizers": config}
        plain = hf_tokenizer(normalizer=config, pre_tokenizer=[{"type": "WhitespaceSplit"}])
        words = sorted({w for t in texts for w in plain.normalizer.normalize_str(t).split()})[::2]
        vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}
        for added in (
            [],
            [
                {
                    "id": len(vocab),
                    "content": "ab",
                    "single_word": False,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": True,
                    "special": False,
                }
            ],
        ):
            doc = json.loads(plain.to_str())
            doc["model"] = {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
            doc["added_tokens"] = added
            path = tmp_path / f"n{n}-{len(added)}.json"
            path.write_text(json.dumps(doc), encoding="utf-8")
            hf = tokenizers.Tokenizer.from_file(str(path))
            ours = Tokenizer.from_file(path)
            for text in texts:
                expected = hf.encode(text)
                got = ours.encode(text)
                assert got.ids == expected.ids, (normalizer, text)
                assert got.offsets == expected.offsets, (normalizer, text)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, n=st.integers(0, len(NORMALIZERS) - 1))
def test_normalizers_hypothesis(text, n):
    check_normalizer(NORMALIZERS[n], text)


@settings(max_examples=400, deadline=None)
@given(text=TEXT, n=st.integers(0, len(PRE_TOKENIZERS) - 1), m=st.sampled_from([None, 0, 3, 7, 10]))
def test_pre_tokenizers_hypothesis(text, n, m):
    check_pre_tokenizer(PRE_TOKENIZERS[n], text, None if m is None else NORMALIZERS[m])


def test_char_classes_every_code_point():
    """Whitespace (regex \\w, \\s), Digits (is_numeric), BERT's punctuation, StripAccents and
    Lowercase on every code point, as in HF."""
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    for config in (
        [{"type": "Whitespace"}],
        [{"type": "Digits", "individual_digits": True}],
        [{"type": "BertPreTokenizer"}],
    ):
        hf = hf_tokenizer(pre_tokenizer=config).pre_tokenizer
        ours = staged(pre_tokenizer=config)
        for at in range(0, len(cps), 50_000):
            text = "".join("a" + chr(cp) + " " for cp in cps[at : at + 50_000])
            assert ours.pre_tokenize(text) == hf.pre_tokenize_str(text), config
    for config in ([{"type": "StripAccents"}], [{"type": "Lowercase"}]):
        hf_norm = hf_tokenizer(normalizer=config).normalizer
        ours = staged(normalizer=config)
        for at in range(0, len(cps), 50_000):
            text = "".join(chr(cp) for cp in cps[at : at + 50_000])
            assert ours.normalize(text) == hf_norm.normalize_str(text), config


WORDPIECE_VOCAB = {"[UNK]": 0, "hello": 1, "world": 2, "##s": 3, "h": 4, "##ello": 5, ",": 6, "!": 7, "a": 8, "##b": 9}
WORDLEVEL_VOCAB = {"<unk>": 0, "hello": 1, "world": 2, ",": 3, "!": 4, "▁hello": 5, "a": 6}


@settings(max_examples=200, deadline=None)
@given(
    text=st.one_of(
        TEXT, st.lists(st.sampled_from(["hello", "worlds", "ab", "abb", "h", ",", " ", "!", "é"])).map("".join)
    )
)
def test_models_hypothesis(text):
    for model, pre in (
        (
            {
                "type": "WordPiece",
                "vocab": WORDPIECE_VOCAB,
                "unk_token": "[UNK]",
                "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 4,
            },
            [{"type": "BertPreTokenizer"}],
        ),
        (
            {"type": "WordLevel", "vocab": WORDLEVEL_VOCAB, "unk_token": "<unk>"},
            [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}],
        ),
    ):
        hf = hf_tokenizer(pre_tokenizer=pre, model=model)
        ours = staged(pre_tokenizer=pre, model=model)
        expected = hf.encode(text)
        got = ours.encode(text)
        assert (got.ids, got.offsets) == (expected.ids, expected.offsets)


DECODERS = [
    [{"type": "WordPiece", "prefix": "##", "cleanup": True}],
    [{"type": "WordPiece", "prefix": "##", "cleanup": False}],
    [{"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}],
    [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}],
    [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True}],
    [{"type": "ByteFallback"}, {"type": "Fuse"}],
    [{"type": "Strip", "content": " ", "start": 1, "stop": 2}],
    [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
    ],
    [{"type": "BPEDecoder", "suffix": "</w>"}],
    [{"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}],
]
DECODER_TOKENS = [
    "hello",
    "##s",
    "▁hel",
    "lo▁",
    "Ġhello",
    "ĠÃ©",
    "Ã",
    "<0xE6>",
    "<0x97>",
    "<0xA5>",
    "<0xFF>",
    "<0x+F>",
    "<pad>",
    "|",
    " a ",
    "world</w>",
    "a</w>b",
    " .",
    " 's",
    "do not",
    "日本",
    "▁",
]


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.integers(0, len(DECODER_TOKENS) - 1), max_size=12), n=st.integers(0, len(DECODERS) - 1))
def test_decoders_hypothesis(ids, n):
    vocab = {t: i for i, t in enumerate(DECODER_TOKENS)}
    model = {"type": "WordLevel", "vocab": vocab, "unk_token": "<pad>"}
    hf = hf_tokenizer(model=model, decoder=DECODERS[n])
    ours = staged(model=model, decoder=DECODERS[n])
    assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False)


def test_unknown_types_and_options_are_errors():
    with pytest.raises(ValueError, match="Nope"):
        staged(normalizer=[{"type": "Nope"}])
    with pytest.raises(ValueError, match="lowercas"):
        staged(normalizer=[{"type": "BertNormalizer", "lowercas": True}])
    with pytest.raises(ValueError, match="NFX"):
        staged(normalizer=[{"type": "NFX"}])
    with pytest.raises(ValueError, match="behavior"):
        staged(pre_tokenizer=[{"type": "Punctuation", "behavior": "Sideways"}])


# --- the BERT fixture: staged vs fused vs HF's tokenizer.json ---------------------------------


@pytest.fixture(scope="module")
def bert():
    spec = read_bert(BERT_DIR / "vocab.txt")
    fused = Tokenizer.from_spec(spec)
    ours = build_staged(spec)
    matcher = _core.SpecialMatcher([(t.content.encode(), t.id) for t in spec.added_tokens])
    ours.set_policy(matcher, lambda *a: matcher)
    hf = tokenizers.Tokenizer.from_file(str(BERT_DIR / "tokenizer.json"))
    hf.no_truncation()
    hf.no_padding()
    return fused, ours, hf


def _triple(e) -> tuple:
    return list(e.ids), [tuple(o) for o in e.offsets], list(e.type_ids)


def test_bert_staged_matches_fused_and_hf(bert):
    fused, ours, hf = bert
    for text in [*SAMPLES, "[CLS] a [SEP] b [MASK]x"]:
        got = _triple(ours.encode(text))
        assert got == _triple(fused.encode(text)), text
        assert got == _triple(hf.encode(text)), text
    pair = ours.encode(SAMPLES[0], SAMPLES[1])
    assert _triple(pair) == _triple(hf.encode(SAMPLES[0], SAMPLES[1]))
    ids = hf.encode(SAMPLES[2]).ids
    assert ours.decode(ids) == hf.decode(ids)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_bert_staged_matches_fused_hypothesis(bert, text):
    fused, ours, hf = bert
    got = _triple(ours.encode(text))
    assert got == _triple(fused.encode(text))
    assert got == _triple(hf.encode(text))
