"""The staged pipeline's Precompiled, Nmt and ByteLevel normalizers and UnicodeScripts
pre-tokenizer, against HF tokenizers 0.23.3 on the same components: normalized strings,
pre-tokenized pieces, ids, tokens and offsets, on every corpus sample, on grapheme edge cases
(combining marks, emoji and ZWJ sequences, flags, Hangul jamo, Indic conjuncts) and on
hypothesis strings; whole T5-style tokenizer.json files through `Tokenizer.from_file`.

The character maps come from sentencepiece itself: models trained here with its nmt_nfkc,
nmt_nfkc_cf and nfkc rules, and with rules written here (a TSV of keys) that make every kind of
lookup HF's Precompiled does visible: keys of one character and of a whole cluster, longer and
shorter replacements, removals. Extended grapheme clusters (`_core.grapheme_clusters`, which
Precompiled reads) are checked against the official GraphemeBreakTest cases that the crate HF
uses ships (tests/data/unicode/grapheme_break_tests.json)."""

from __future__ import annotations

import base64
import functools
import io
import json
import pathlib
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import SHARED, corpus_files, read_sample
from test_staged import check_pre_tokenizer, hf_tokenizer, staged
from tokenforge import _core
from tokenforge.errors import FormatError

tokenizers = pytest.importorskip("tokenizers")
spm = pytest.importorskip("sentencepiece")
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

SAMPLES = [line for path in corpus_files() for line in read_sample(path, 20_000).splitlines() if line.strip()][::5]
TRAIN = [line for path in corpus_files() for line in read_sample(path, 30_000).splitlines() if line.strip()]

# Grapheme edge cases: combining marks (one, several, on CJK and Hangul), decomposed and
# precomposed letters, emoji with skin tones, ZWJ families, flags (regional indicator pairs and
# odd runs), keycaps, Hangul jamo sequences, Indic conjuncts (GB9c), prepend marks, CR LF,
# controls, variation selectors, and text that mixes them.
EDGE = [
    "e\u0301",
    "e\u0301\u0301",
    "e\u0301\u0302\u0303\u0304",
    "a\u0308b\u0323\u0307c",
    "\u00e9\u0301",
    "\ufb01\u0301",
    "\u2126\u0301 \u212b",
    "\U0001f44d\U0001f3fd",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "\u200d\U0001f308",
    "a\u200d\U0001f308",
    "\U0001f1ef\U0001f1f5\U0001f1fa\U0001f1f8\U0001f1eb",
    "1\ufe0f\u20e3#\ufe0f\u20e3",
    "\u1100\u1161\u11a8\u1100\u1161",
    "\uac00\u11a8\u1161",
    "\u1100\u1100\u1161\u1161\u11a8\u11a8",
    "\u0915\u094d\u0937\u093f",
    "\u0915\u094d\u200d\u0937",
    "\u0915\u0301\u094d\u0937",
    "\u0600\u0661\u0662 \u0610a",
    "a\r\nb\n\rc\x00d\x1ee",
    "\u4e00\u0301\u3099\u304b\u3099",
    "\u30ab\u309a\uff76\uff9e",
    "\u2460\u2461\u33a1\u3250",
    "x\u0338\u2260\u226f\u0338",
    "\u0e01\u0e33\u0e4d\u0e32 \u0ec0\u0eb2",
    "\u1f70\u0345\u1fb3 \u03ac",
    "\u0130\u0131i\u0307 \u1e9e\u00df",
    "\u00a0\u2002\u3000 \t\u200b\ufeff\u2581\ufffd",
    "\U0001d400\U0001d7ce\U0001f600\U00010000",
    "\ufdfa\ufdfb \u3300\u32ff",
]

# Characters the hypothesis strings are drawn from, beside any code point.
ALPHABET = list(
    " \t\n\r  ,.!'-_ab12٣éé日本かカ▁Ġ#<>İẞ\u0301\u0308\u0323\u0338\u3099\u200d\ufe0f\u20e3\x00\x1e\x7f\ufffd"
    "\ufb01\uac00\u1100\u1161\u11a8\u1f70\u0345\u2126\u00c5\u212b\u0915\u094d\u0937\u093f\u0600\u0e33"
    "\U0001f44d\U0001f3fd\U0001f468\U0001f469\U0001f1ef\U0001f1f5\U0001f308\u2460\u33a1\uff76\uff9e"
)
TEXT = st.text(st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(ALPHABET)), max_size=40)


# ------------------------------------------------------------------------ character maps


def train_model(rule: str | None = None, tsv: str | None = None, model_type: str = "unigram") -> bytes:
    """A small sentencepiece model (its bytes) with a named normalization rule or a TSV of keys."""
    out = io.BytesIO()
    options: dict[str, Any] = {"normalization_rule_name": rule} if rule else {"normalization_rule_tsv": tsv}
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TRAIN),
        model_writer=out,
        vocab_size=400,
        model_type=model_type,
        character_coverage=0.98,
        minloglevel=2,
        **options,
    )
    return out.getvalue()


def model_proto(data: bytes) -> Any:
    from sentencepiece import sentencepiece_model_pb2

    m = sentencepiece_model_pb2.ModelProto()
    m.ParseFromString(data)
    return m


def hexes(s: str) -> str:
    return " ".join(f"{ord(c):X}" for c in s)


# Keys of the probe rule: (source, replacement). Single characters mapped to others, kept, grown
# and removed; whole clusters under 6 bytes (letter + mark, emoji + modifier, jamo, flags) and
# clusters whose first character is a key too (HF takes the shortest key of a cluster, and the
# rest of the cluster goes with it).
PROBE_RULES = [
    ("e", "E"),
    ("a", "\u00e4\u00e4"),
    ("b", ""),
    ("\u0301", "'"),
    ("e\u0301", "\u00c9"),
    ("a\u0308", "AE"),
    ("\u0308", ""),
    ("\u00e9", "e\u0301x"),
    ("\ufb01", "fi"),
    ("\U0001f44d", "+1"),
    ("\U0001f44d\U0001f3fd", "+1m"),
    ("\U0001f3fd", ""),
    ("\u1100\u1161", "\uac00"),
    ("\u1100", "G"),
    ("\u11a8", ""),
    ("\U0001f1ef\U0001f1f5", "JP"),
    ("\U0001f1ef", "j"),
    ("\u200d", "+"),
    ("\u0915", "k"),
    ("\u094d", ""),
    ("\u30ab\u3099", "\u30ac"),
    ("\u3099", "\u309b"),
    ("\x1e", ""),
    ("\t", " "),
    ("\u2581", " "),
    ("1\ufe0f", "one"),
    ("\u0600", "\u0600\u0600"),
]


@pytest.fixture(scope="module")
def models_by_rule() -> dict[str, bytes]:
    tsv_text = "".join(f"{hexes(src)}\t{hexes(dst)}\n" for src, dst in PROBE_RULES)
    with tempfile.TemporaryDirectory() as tmp:
        tsv = pathlib.Path(tmp) / "probe.tsv"
        tsv.write_text(tsv_text)
        out = {rule: train_model(rule) for rule in ("nmt_nfkc", "nmt_nfkc_cf", "nfkc")}
        out["probe"] = train_model(tsv=str(tsv))
        out["identity"] = train_model("identity")
    return out


@pytest.fixture(scope="module")
def charsmaps(models_by_rule) -> dict[str, str]:
    """The base64 precompiled_charsmap of each rule (as tokenizer.json carries it)."""
    return {
        rule: base64.b64encode(model_proto(data).normalizer_spec.precompiled_charsmap).decode()
        for rule, data in models_by_rule.items()
        if rule != "identity"
    }


RULES = ["nmt_nfkc", "nmt_nfkc_cf", "nfkc", "probe"]


def precompiled(charsmap: str) -> dict[str, Any]:
    return {"type": "Precompiled", "precompiled_charsmap": charsmap}


@functools.lru_cache(maxsize=64)
def _pair(normalizer: str, pre_tokenizer: str) -> tuple[Any, Any]:
    n, p = json.loads(normalizer), json.loads(pre_tokenizer)
    return hf_tokenizer(normalizer=n, pre_tokenizer=p), staged(normalizer=n, pre_tokenizer=p)


def pair(normalizer=None, pre_tokenizer=None) -> tuple[Any, Any]:
    """HF's tokenizer and the staged pipeline for the stages (built once per description)."""
    return _pair(json.dumps(normalizer), json.dumps(pre_tokenizer))


def check_normalizer(config: list[dict[str, Any]], text: str) -> None:
    hf, ours = pair(config, [{"type": "WhitespaceSplit"}])
    assert ours.normalize(text) == hf.normalizer.normalize_str(text), text
    expected = hf.encode(text)
    got = ours.encode(text)
    assert got.offsets == expected.offsets, text


# ---------------------------------------------------------------------------- graphemes


def test_grapheme_clusters_conformance():
    """The official GraphemeBreakTest cases (Unicode 17.0.0, as unicode-segmentation ships them)."""
    doc = json.loads((SHARED / "unicode" / "grapheme_break_tests.json").read_text())
    assert len(doc["cases"]) > 700
    for text, clusters in doc["cases"]:
        assert _core.grapheme_clusters(text) == clusters, [hex(ord(c)) for c in text]


def test_grapheme_clusters_cover_the_text():
    for text in EDGE + SAMPLES[:200]:
        clusters = _core.grapheme_clusters(text)
        assert "".join(clusters) == text and all(clusters)


# ---------------------------------------------------------------------------- Precompiled


def marking_charsmap() -> str:
    """A map of every code point from U+0021 to U+1FFFF and of plane 14 to itself followed by
    "|". HF looks a cluster under 6 bytes up whole and keeps only its first character's
    replacement, so the output shows which short clusters HF's graphemes join."""
    cps = [c for c in range(0x21, 0x20000) if not 0xD800 <= c <= 0xDFFF] + list(range(0xE0000, 0xE1000))
    with tempfile.TemporaryDirectory() as tmp:
        tsv = pathlib.Path(tmp) / "marking.tsv"
        tsv.write_text("".join(f"{c:X}\t{c:X} 7C\n" for c in cps))
        out = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(["hello world", "abc def"] * 50),
            model_writer=out,
            vocab_size=30,
            model_type="char",
            normalization_rule_tsv=str(tsv),
            minloglevel=2,
        )
    return base64.b64encode(model_proto(out.getvalue()).normalizer_spec.precompiled_charsmap).decode()


def test_precompiled_clusters_of_every_code_point():
    """Every code point after a letter, before one and doubled, through a map that marks each
    character: the clusters HF's Precompiled reads (its unicode-segmentation tables, whatever
    their Unicode version) are the ones unicode/graphemes.h cuts."""
    hf, ours = pair([precompiled(marking_charsmap())])
    cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for at in range(0, len(cps), 20_000):
        text = " ".join("a" + chr(c) + " " + chr(c) + "a " + chr(c) + chr(c) for c in cps[at : at + 20_000])
        assert ours.normalize(text) == hf.normalizer.normalize_str(text), hex(cps[at])


@pytest.mark.parametrize("rule", RULES)
def test_precompiled_on_samples(charsmaps, rule):
    hf, ours = pair([precompiled(charsmaps[rule])], [{"type": "WhitespaceSplit"}])
    for text in SAMPLES + EDGE:
        assert ours.normalize(text) == hf.normalizer.normalize_str(text), text
        assert ours.encode(text).offsets == hf.encode(text).offsets, text


@pytest.mark.parametrize("rule", RULES)
def test_precompiled_edge_cases(charsmaps, rule):
    for text in EDGE:
        check_normalizer([precompiled(charsmaps[rule])], text)
        check_normalizer([precompiled(charsmaps[rule]), {"type": "Lowercase"}], " " + text + text)
    # every code point of the Basic Multilingual Plane and beyond, one after another and apart
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    hf = hf_tokenizer(normalizer=[precompiled(charsmaps[rule])]).normalizer
    ours = staged(normalizer=[precompiled(charsmaps[rule])])
    for at in range(0, 0x30000, 40_000):
        text = "".join(chr(cp) for cp in cps[at : at + 40_000])
        assert ours.normalize(text) == hf.normalize_str(text)
    text = "".join("a" + chr(cp) + " " for cp in cps[:0x30000:7])
    assert ours.normalize(text) == hf.normalize_str(text)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, rule=st.sampled_from(RULES), after=st.sampled_from([None, "Lowercase", "NFD"]))
def test_precompiled_hypothesis(charsmaps, text, rule, after):
    config = [precompiled(charsmaps[rule])] + ([{"type": after}] if after else [])
    check_normalizer(config, text)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from([src for src, _ in PROBE_RULES] + ALPHABET), max_size=16))
def test_precompiled_probe_keys_hypothesis(charsmaps, parts):
    """Strings made of the probe rule's keys, so every lookup path is taken."""
    check_normalizer([precompiled(charsmaps["probe"])], "".join(parts))


def test_precompiled_refuses_what_hf_refuses(models_by_rule, charsmaps):
    identity = base64.b64encode(model_proto(models_by_rule["identity"]).normalizer_spec.precompiled_charsmap).decode()
    assert identity == ""  # the identity rule has no map: HF cannot load it
    for bad in ("", "not base64!", base64.b64encode(b"\x01\x02").decode()):
        with pytest.raises(BaseException, match=r"^Precompiled: "):  # HF panics (PanicException)
            hf_tokenizer(normalizer=[precompiled(bad)])
        with pytest.raises(ValueError, match="precompiled_charsmap"):
            staged(normalizer=[precompiled(bad)])
    with pytest.raises(ValueError, match="precompiled_charsmap"):
        staged(normalizer=[{"type": "Precompiled"}])
    with pytest.raises(ValueError, match="unknown option 'extra'"):
        staged(normalizer=[{**precompiled(charsmaps["nfkc"]), "extra": 1}])


# ------------------------------------------------------------------------------- Nmt


def test_nmt_on_samples_and_every_code_point():
    config = [{"type": "Nmt"}]
    for text in SAMPLES + EDGE:
        check_normalizer(config, text)
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    hf = hf_tokenizer(normalizer=config).normalizer
    ours = staged(normalizer=config)
    for at in range(0, len(cps), 100_000):
        text = "".join(chr(cp) for cp in cps[at : at + 100_000])
        assert ours.normalize(text) == hf.normalize_str(text)


@settings(max_examples=200, deadline=None)
@given(text=TEXT, before=st.sampled_from([None, "NFKC", "Lowercase"]))
def test_nmt_hypothesis(text, before):
    check_normalizer(([{"type": before}] if before else []) + [{"type": "Nmt"}], text)


# ---------------------------------------------------------------------- ByteLevel normalizer


@pytest.fixture(scope="module")
def byte_level_bpe(tmp_path_factory):
    """A BPE behind HF's ByteLevel normalizer (no pre-tokenizer, or a Split on spaces)."""
    out = []
    for pre in (None, pre_tokenizers.Split("Ġ", behavior="merged_with_next")):
        tok = tokenizers.Tokenizer(models.BPE())
        tok.normalizer = normalizers.ByteLevel()
        if pre is not None:
            tok.pre_tokenizer = pre
        tok.train_from_iterator(
            TRAIN,
            trainers.BpeTrainer(
                vocab_size=1200, special_tokens=["<s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
            ),
        )
        tok.decoder = decoders.ByteLevel()
        path = tmp_path_factory.mktemp("bl") / "byte_level_normalizer.json"
        tok.save(str(path))
        out.append((tokenforge.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))))
    return out


def same_encoding(ours, hf, text: str, unk_id: int | None = None) -> None:
    """Ids, tokens, offsets and decode equal. HF's Unigram shows an unknown piece's own text as
    its token where tokenforge shows the unknown token (`unk_id`): those tokens are left out."""
    a, b = ours.encode(text), hf.encode(text)
    assert (a.ids, a.offsets) == (b.ids, b.offsets), text
    assert [t for i, t in zip(a.ids, a.tokens) if i != unk_id] == [t for i, t in zip(b.ids, b.tokens) if i != unk_id]
    assert ours.decode(a.ids) == hf.decode(b.ids), text


def test_byte_level_normalizer_on_samples(byte_level_bpe):
    config = [{"type": "ByteLevel"}]
    for text in SAMPLES + EDGE:
        check_normalizer(config, text)
        for ours, hf in byte_level_bpe:
            same_encoding(ours, hf, text)


@settings(max_examples=200, deadline=None)
@given(text=TEXT)
def test_byte_level_normalizer_hypothesis(byte_level_bpe, text):
    check_normalizer([{"type": "ByteLevel"}], text)
    check_normalizer([{"type": "NFD"}, {"type": "ByteLevel"}, {"type": "Lowercase"}], text)
    for ours, hf in byte_level_bpe:
        same_encoding(ours, hf, text)


def _one_char_replace(pattern: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"String": pattern}, "content": content}


# ByteLevel then Replace steps of one character, which the native Sequence folds into ByteLevel's
# byte table: ByT5's (every byte whose GPT-2 character is another written as chr(byte)); steps
# writing several characters, none, or one a later step replaces again; a step of two characters,
# a regex step and another normalizer, after which the steps are not folded.
BYTE_LEVEL_FOLDS = [
    [
        {"type": "ByteLevel"},
        *(_one_char_replace(chr(0x100 + k), chr(b)) for k, b in enumerate([*range(0x21), *range(0x7F, 0xA1), 0xAD])),
    ],
    [{"type": "ByteLevel"}, _one_char_replace("\u0120", "_ "), _one_char_replace("_", "")],
    [{"type": "ByteLevel"}, _one_char_replace("\u00c3", ""), _one_char_replace("a", "\u00e9\u00e9")],
    [{"type": "ByteLevel"}, _one_char_replace("\u00a9", "x"), _one_char_replace("x", "yz"), _one_char_replace("z", "")],
    [{"type": "ByteLevel"}, _one_char_replace("\u0120", "\u2581"), _one_char_replace("\u2581", " ")],
    [{"type": "ByteLevel"}, _one_char_replace("ab", "X"), _one_char_replace("\u0120", "-")],
    [
        {"type": "ByteLevel"},
        {"type": "Replace", "pattern": {"Regex": "\u0120"}, "content": "+"},
        _one_char_replace("+", "\u0120\u0120"),
    ],
    [{"type": "ByteLevel"}, {"type": "Lowercase"}, _one_char_replace("\u00e3", "Q")],
]


@pytest.mark.parametrize("config", BYTE_LEVEL_FOLDS, ids=lambda c: f"{len(c)}-steps-{c[1].get('type')}")
def test_byte_level_folds_one_character_replaces(config):
    """ByteLevel followed by Replace steps of one character (folded into its byte table) gives HF's
    normalized text and offsets: every byte whose GPT-2 character is another, ASCII, Latin-1,
    CJK, emoji, and the steps' own outputs."""
    texts = [
        *SAMPLES,
        *EDGE,
        "".join(map(chr, range(0x100))),
        "a b\tc\n\u00e9\u00a9 \u00c3x \u0120\u2581 \u65e5\u672c\U0001f389 ab",
        "",
        "plain",
    ]
    for text in texts:
        check_normalizer(config, text)


# Patterns that are one set of characters (matched without Oniguruma: pre_tokenizers/regex.cpp's
# CharRuns), each alone, with + and with {n,}; and near misses Oniguruma runs (negated classes,
# \s, lazy and possessive quantifiers, \xHH above ASCII, "--", anchors, intersections).
CHAR_SET_PATTERNS = [
    "[!-/:-@\\[-`{-~]",
    "[\\t-\\r\\x1c- \\x{85}\\x{a0}\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+",
    " {2,}",
    " +",
    "a",
    "\u2581+",
    "[-a]",
    "[a-]{3,}",
    "[\\]\\\\\\-]+",
    "[\u00e9\u65e5-\u672c\U0001f389]{2,}",
    "[\\x{1F300}-\\x{1FAFF}]+",
    "\\t",
    "[0-9]{3,}",
    "[^a ]+",
    "\\s+",
    " +?",
    " ++",
    "[\\xa0 ]+",
    "[--/]+",
    "[a-c-x]+",
    " +\\z",
    "\\A +",
    "[a-z&&[^aeiou]]+",
    "[[:punct:]]",
    "x{2}",
    " {0,}",
]
CHAR_SET_TEXTS = [
    "a  b   c    d \t\n\r\x0b\x0c e\x1c\x1d\x1e\x1f f\x85\xa0\u1680\u2000\u200a\u3000 g",
    "punctuation!!! ... ?? (brackets) [x] {y} <z> a,b;c:d 'q' \"dq\" -- @#$%^&*\\ ]]\\\\--",
    "aaa-a--aa-- -a a- --- aaaa abcx-d",
    "\u2581\u2581a \u2581 b\u2581",
    "\u00e9\u00e9 \u65e5\u672c\u672c \U0001f389\U0001f389 \U0001f44d\U0001f3fd e\u0301",
    "1 12 123 1234 12345 x99999",
    "",
    " ",
    "  ",
]


@pytest.mark.parametrize("pattern", CHAR_SET_PATTERNS)
def test_char_set_patterns_match_as_hf(pattern):
    """A Replace normalizer and a Split pre-tokenizer (each behaviour) with a pattern that is a set
    of characters, or a near miss: HF's normalized text, pieces and offsets."""
    replace = [{"type": "Replace", "pattern": {"Regex": pattern}, "content": "<>"}]
    for text in [*CHAR_SET_TEXTS, *EDGE, *SAMPLES[:60]]:
        check_normalizer(replace, text)
        for behavior in ("Isolated", "Removed", "MergedWithNext", "Contiguous"):
            split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}
            check_pre_tokenizer([split], text)


# --------------------------------------------------------------------------- UnicodeScripts

MIXED = [
    "どこで生れ。Yes",
    "  leading spaces then 日本語 and русский текст",
    "abcабв中文かなカナー한국어 ελληνικά עברית العربية हिन्दी ไทย 123 !?",
    "   ",
    " ",
    "a b",
    "ー",
    "\u30fcカ",
    "x\u0301y\u0301 日\u0301",
    "\U0001f600 emoji \U0001f600\U0001f600 ok",
    "mixed123numbers456",
]


def check_scripts(text: str, normalizer=None) -> None:
    hf, ours = pair(normalizer, [{"type": "UnicodeScripts"}])
    if normalizer is None:
        assert ours.pre_tokenize(text) == hf.pre_tokenizer.pre_tokenize_str(text), text
    assert ours.encode(text).offsets == hf.encode(text).offsets, text


def test_unicode_scripts_on_samples():
    for text in SAMPLES + EDGE + MIXED:
        check_scripts(text)
        check_scripts(text, [{"type": "NFKC"}])


def test_unicode_scripts_every_code_point():
    """HF's script table, code point by code point: in order (a piece ends where the script
    changes), and each between two Latin letters and two Han ones."""
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    hf = hf_tokenizer(pre_tokenizer=[{"type": "UnicodeScripts"}]).pre_tokenizer
    ours = staged(pre_tokenizer=[{"type": "UnicodeScripts"}])
    for at in range(0, len(cps), 100_000):
        text = "".join(chr(cp) for cp in cps[at : at + 100_000])
        assert ours.pre_tokenize(text) == hf.pre_tokenize_str(text)
    for at in range(0, len(cps), 30_000):
        text = "".join("a" + chr(cp) + "a\u4e00" + chr(cp) + "\u4e00" for cp in cps[at : at + 30_000])
        assert ours.pre_tokenize(text) == hf.pre_tokenize_str(text)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        TEXT,
        st.lists(
            st.sampled_from(["ab", " ", "日本", "かな", "カナ", "ー", "абв", "١٢", "12", "!", "\u0301", "한"])
        ).map("".join),
    )
)
def test_unicode_scripts_hypothesis(text):
    check_scripts(text)


# ------------------------------------------------------------------- whole T5-style files


def t5_files(model_path: pathlib.Path, tmp: pathlib.Path) -> list[str]:
    """The tokenizer.json transformers' T5Converter writes for the model, and the same with the
    older pre-tokenizer (WhitespaceSplit then Metaspace) of the hub's T5 files."""
    from transformers.convert_slow_tokenizer import T5Converter

    proto = model_proto(model_path.read_bytes())
    pieces = [p.piece for p in proto.pieces]

    class Original:  # what the converter reads of a slow T5 tokenizer
        vocab_file = str(model_path)
        _extra_ids = 5
        legacy = True
        add_prefix_space = True

        def convert_tokens_to_ids(self, token: str) -> int:
            return pieces.index(token)

    converted = T5Converter(Original()).converted()
    paths = [str(tmp / "t5.json")]
    converted.save(paths[0])
    doc = json.loads(pathlib.Path(paths[0]).read_text())
    doc["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        ],
    }
    paths.append(str(tmp / "t5_whitespace_split.json"))
    pathlib.Path(paths[1]).write_text(json.dumps(doc))
    return paths


@pytest.fixture(scope="module")
def t5_tokenizers(models_by_rule, tmp_path_factory):
    out = []
    for rule in ("nmt_nfkc", "probe"):
        tmp = tmp_path_factory.mktemp("t5")
        model_path = tmp / "spiece.model"
        model_path.write_bytes(models_by_rule[rule])
        for path in t5_files(model_path, tmp):
            doc = json.loads(pathlib.Path(path).read_text())
            assert "Precompiled" in json.dumps(doc["normalizer"])
            out.append(
                (tokenforge.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path), doc["model"]["unk_id"])
            )
    return out


def test_t5_style_files_on_samples(t5_tokenizers):
    for ours, hf, unk_id in t5_tokenizers:
        for text in SAMPLES + EDGE + MIXED:
            same_encoding(ours, hf, text, unk_id)


@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_t5_style_files_hypothesis(t5_tokenizers, text):
    for ours, hf, unk_id in t5_tokenizers:
        same_encoding(ours, hf, text, unk_id)


def test_files_name_what_they_get_wrong(charsmaps, tmp_path):
    """Through the tokenizer.json reader: an unknown option, or a charsmap that is not base64,
    is an error naming the component and the option."""
    vocab = [["<unk>", 0.0], ["a", -1.0], ["▁", -2.0]]
    good = {
        "normalizer": {"type": "Sequence", "normalizers": [precompiled(charsmaps["nfkc"]), {"type": "Nmt"}]},
        "pre_tokenizer": {"type": "UnicodeScripts"},
    }
    bad = [
        (
            {"normalizer": {**precompiled(charsmaps["nfkc"]), "extra": 1}},
            "normalizer Precompiled: unknown option 'extra'",
        ),
        ({"normalizer": precompiled("@@@@")}, "normalizer Precompiled: option 'precompiled_charsmap' is not base64"),
        ({"normalizer": {"type": "Nmt", "x": 1}}, "normalizer Nmt: unknown option 'x'"),
        ({"normalizer": {"type": "ByteLevel", "x": 1}}, "normalizer ByteLevel: unknown option 'x'"),
        ({"pre_tokenizer": {"type": "UnicodeScripts", "x": 2}}, "pre-tokenizer UnicodeScripts: unknown option 'x'"),
    ]
    for change, message in [(good, None), *bad]:
        doc = {"version": "1.0", "added_tokens": [], "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}
        doc.update({**good, **change})
        path = tmp_path / "tokenizer.json"
        path.write_text(json.dumps(doc))
        if message is None:
            hf = tokenizers.Tokenizer.from_file(str(path))
            same_encoding(tokenforge.Tokenizer.from_file(path), hf, "a\u00e9\u65e5 a\u0301\t\u30a2", 0)
        else:
            with pytest.raises(FormatError, match=message.replace("(", r"\(")):
                tokenforge.Tokenizer.from_file(path)
