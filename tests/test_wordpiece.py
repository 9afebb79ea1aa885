"""WordPiece (BERT) against HF tokenizers loading the same tokenizer.json: ids, tokens, offsets,
type ids and masks on every corpus, on pairs and batches, with truncation and padding off and
on; the normalizer and pre-tokenizer on every code point; llama.cpp's WPM mode."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import SHARED, corpus_files, read_sample
from tokenforge.normalizers import BertNormalizer

BERT_JSON = SHARED / "vocab" / "bert" / "tokenizer.json"
BERT_VOCAB = SHARED / "vocab" / "bert" / "vocab.txt"
FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask")


@pytest.fixture(scope="module")
def hf():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(BERT_JSON))
    tok.no_truncation()
    tok.no_padding()
    return tok


@pytest.fixture(scope="module")
def ours():
    tok = tokenforge.Tokenizer.from_file(BERT_JSON)
    tok.no_truncation()
    tok.no_padding()
    return tok


def same(a, b) -> None:
    for field in FIELDS:
        assert getattr(a, field) == getattr(b, field), field
    assert len(a.overflowing) == len(b.overflowing)
    for x, y in zip(a.overflowing, b.overflowing):
        same(x, y)


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpora_match_hf(path, ours, hf):
    text = read_sample(path, 60_000)
    same(ours.encode(text), hf.encode(text))
    lines = [line for line in text.split("\n") if line][:400]
    for a, b in zip(ours.encode_batch(lines), hf.encode_batch(lines)):
        same(a, b)
    pairs = list(zip(lines[::2], lines[1::2]))
    for a, b in zip(ours.encode_batch(pairs), hf.encode_batch(pairs)):
        same(a, b)
    assert ours.decode(ours.encode(lines[0]).ids) == hf.decode(hf.encode(lines[0]).ids)


def test_long_words_remembered_as_hf(ours, hf):
    """Words of 17 to 48 bytes are remembered by their bytes (one slot each, taken over by a
    new word with the same slot): thousands of distinct ones, Cyrillic, Greek, Hangul (its jamo
    after NFD) and long Latin, each met several times and in turns, give HF's rows every time."""
    import random

    rng = random.Random(3)
    alphabets = ["абвгдежзийклмнопрстуфхцчшщыэюя", "αβγδεζηθικλμνξοπρστυφχψω", "가나다라마바사아자차카타파하", "ab"]
    words = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(6, 40 if alphabet == "ab" else 16)))
        for alphabet in alphabets
        for _ in range(1500)
    ]
    text = " ".join(rng.choice(words) for _ in range(12_000))
    for part in (text[:40_000], text[40_000:80_000], text[:40_000]):
        same(ours.encode(part), hf.encode(part))


def test_file_settings_truncation_and_padding_match_hf(ours):
    """The shared tokenizer.json truncates to 128 and pads to 128, as loaded."""
    from tokenizers import Tokenizer

    theirs = Tokenizer.from_file(str(BERT_JSON))
    mine = tokenforge.Tokenizer.from_file(BERT_JSON)
    assert mine.truncation == {"max_length": 128, "stride": 0, "strategy": "longest_first", "direction": "right"}
    text = read_sample(corpus_files()[0], 3000)
    same(mine.encode(text), theirs.encode(text))
    same(mine.encode("short"), theirs.encode("short"))
    same(mine.encode(text, "a pair"), theirs.encode(text, "a pair"))


SETTINGS = [
    dict(truncation=dict(max_length=20, stride=5), padding=None),
    dict(truncation=dict(max_length=20, stride=3, direction="left"), padding=dict(direction="left")),
    dict(truncation=dict(max_length=17, strategy="only_first", stride=2), padding=dict(pad_to_multiple_of=8)),
    dict(truncation=dict(max_length=17, strategy="only_second"), padding=dict(length=30, pad_id=7, pad_type_id=2)),
    dict(truncation=dict(max_length=3), padding=None),
    dict(truncation=None, padding=dict(pad_to_multiple_of=16)),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=range(len(SETTINGS)))
def test_truncation_and_padding_settings_match_hf(setting, ours, hf):
    from tokenizers import Tokenizer

    theirs = Tokenizer.from_file(str(BERT_JSON))
    mine = tokenforge.Tokenizer.from_file(BERT_JSON)
    for tok in (theirs, mine):
        tok.no_truncation()
        tok.no_padding()
        if setting["truncation"]:
            tok.enable_truncation(**setting["truncation"])
        if setting["padding"] is not None:
            tok.enable_padding(**setting["padding"])
    text = read_sample(corpus_files()[0], 2000).split("\n")
    pairs = [(a, b) for a, b in zip(text[::2], text[1::2]) if a and b][:30]
    strategy = (setting["truncation"] or {}).get("strategy", "longest_first")
    if strategy != "only_second":
        for line in text[:30]:
            same(mine.encode(line), theirs.encode(line))
    for a, b in pairs:
        try:
            expected = theirs.encode(a, b)
        except BaseException as e:  # HF refuses (or panics: stride too long for what is left); so must we
            if isinstance(e, KeyboardInterrupt):
                raise
            with pytest.raises(ValueError):
                mine.encode(a, b)
            continue
        same(mine.encode(a, b), expected)
    fits = [(a, b) for a, b in pairs if len(hf.encode(a).ids) > 6 and len(hf.encode(b).ids) > 6]
    try:
        expected = theirs.encode_batch(fits)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        with pytest.raises(ValueError):
            mine.encode_batch(fits)
        return
    for x, y in zip(mine.encode_batch(fits), expected):
        same(x, y)


@pytest.mark.parametrize(
    "config",
    [
        BertNormalizer(),
        BertNormalizer(lowercase=False),
        BertNormalizer(strip_accents=False),
        BertNormalizer(strip_accents=True, lowercase=False),
        BertNormalizer(clean_text=False, handle_chinese_chars=False),
    ],
    ids=["uncased", "cased", "lower-keep-accents", "strip-only", "raw"],
)
def test_every_code_point_normalizes_and_splits_like_hf(config):
    """Each code point between two letters ("a<c>b"), in every normalizer configuration: the
    words must equal HF's normalizer + pre-tokenizer output."""
    from tokenizers import normalizers, pre_tokenizers

    hf_norm = normalizers.BertNormalizer(
        clean_text=config.clean_text,
        handle_chinese_chars=config.handle_chinese_chars,
        strip_accents=config.strip_accents,
        lowercase=config.lowercase,
    )
    hf_pre = pre_tokenizers.BertPreTokenizer()
    tok = tokenforge.Tokenizer(
        tokenforge.Tokenizer.from_file(BERT_JSON).model, config, tokenforge.pre_tokenizers.BertPreTokenizer()
    )
    cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for k in range(0, len(cps), 8192):
        text = " ".join(f"a{chr(c)}b" for c in cps[k : k + 8192])
        ours = [w for w, _ in tok.pre_tokenize(text)]
        theirs = [w for w, _ in hf_pre.pre_tokenize_str(hf_norm.normalize_str(text))]
        assert ours == theirs, f"code points from U+{cps[k]:04X}"


def test_canonical_reordering_across_characters(ours, hf):
    """NFD reorders combining marks by class across characters; with accents stripped, marks
    that are not nonspacing stay, in the reordered order (the exact path)."""
    for text in [
        "a\u08d4\u0316b",
        "x\U0001d165\U0001d16d\u0301y \U0001e000\u0301\U0001e008 z",
        "é\U0001e944\u0323 \u08d5\u0301",
    ]:
        same(ours.encode(text), hf.encode(text))
        assert [w for w, _ in ours.pre_tokenize(text)] == [
            w for w, _ in hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(text))
        ]


TEXT = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(
            list("aeiouéèÅñçöü日本語中文한국어😀👍🏽\u0301\u0308\u200b\u00a0\u3000\t\r\n\x00\x7f\ufffd.,!?'-")
        ),
    ),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(TEXT, st.one_of(st.none(), TEXT))
def test_random_text_matches_hf(text, pair):

    hf, ours = _pair_of_tokenizers()
    same(ours.encode(text, pair), hf.encode(text, pair))
    assert ours.decode(ours.encode(text).ids) == hf.decode(hf.encode(text).ids)


_CACHE: dict = {}


def _pair_of_tokenizers():
    if not _CACHE:
        from tokenizers import Tokenizer

        hf = Tokenizer.from_file(str(BERT_JSON))
        ours = tokenforge.Tokenizer.from_file(BERT_JSON)
        hf.enable_truncation(40, stride=4)
        ours.enable_truncation(40, stride=4)
        for tok in (hf, ours):
            tok.enable_padding(pad_to_multiple_of=8)
        _CACHE["pair"] = (hf, ours)
    return _CACHE["pair"]


def test_special_tokens_in_text(ours, hf):
    text = "[CLS] hello [MASK] world[SEP][UNK]x [mask]"
    same(ours.encode(text), hf.encode(text))
    assert ours.encode(text).ids[1] == 101  # matched as the special id, as HF does
    ours.split_special_tokens = True  # or as plain text
    assert 101 not in ours.encode(text).ids[1:-1]
    ours.split_special_tokens = False
    assert ours.decode(ours.encode(text).ids) == hf.decode(hf.encode(text).ids)
    # the explicit policy every surface offers: allowed set, disallowed set, the rest as text
    only_mask = ours.encode(text, allowed_special={"[MASK]"}).ids
    assert 103 in only_mask and 101 not in only_mask[1:-1] and 102 not in only_mask[1:-1]
    with pytest.raises(tokenforge.DisallowedSpecialTokenError, match=r"\[SEP\]"):
        ours.encode(text, allowed_special={"[MASK]"}, disallowed_special={"[SEP]"})
    with pytest.raises(tokenforge.DisallowedSpecialTokenError):
        ours.encode_batch(["fine", "also [CLS]"], allowed_special=(), disallowed_special="all")
    assert [e.ids for e in ours.encode_batch([text], allowed_special={"[MASK]"})] == [only_mask]
    assert ours.decode(ours.encode(text).ids, skip_special_tokens=False) == hf.decode(
        hf.encode(text).ids, skip_special_tokens=False
    )


def test_vocab_txt_gives_the_same_tokenizer(ours, tmp_path):
    from_txt = tokenforge.Tokenizer.from_file(BERT_VOCAB)  # tokenizer_config.json beside it: uncased
    text = read_sample(corpus_files()[3], 20000)
    same(from_txt.encode(text, "pair"), ours.encode(text, "pair"))
    cased = tokenforge.Tokenizer.bert_from_vocab_txt(str(BERT_VOCAB), do_lower_case=False)
    assert cased.encode("Hello").ids != ours.encode("Hello").ids


def test_save_and_reload(ours, hf, tmp_path):
    from tokenizers import Tokenizer

    path = tmp_path / "tokenizer.json"
    ours.enable_truncation(64, stride=8, strategy="only_first")
    ours.enable_padding(length=80, pad_id=0)
    try:
        ours.save(path)
    finally:
        ours.no_truncation()
        ours.no_padding()
    theirs = Tokenizer.from_file(str(path))
    back = tokenforge.Tokenizer.from_file(path)
    text = read_sample(corpus_files()[5], 3000)
    same(back.encode(text, "pair"), theirs.encode(text, "pair"))
    assert back.truncation["strategy"] == "only_first" and back.padding["length"] == 80
    ours.save_vocab_txt(tmp_path / "vocab.txt")
    assert (tmp_path / "vocab.txt").read_text(encoding="utf-8") == BERT_VOCAB.read_text(encoding="utf-8")


def test_wpm_worked_example():
    """llama.cpp's llm_tokenizer_wpm on the BERT vocabulary in its GGUF form."""
    wpm = tokenforge.Tokenizer.from_file(BERT_VOCAB, wpm=True)
    enc = wpm.encode("ÅWhat is LoRA?")
    assert enc.tokens == ["[CLS]", "▁aw", "hat", "▁is", "▁lo", "ra", "▁?", "[SEP]"]
    assert enc.ids == [101, 22091, 12707, 2003, 8840, 2527, 1029, 102]
    assert [w for w, _ in wpm.pre_tokenize("ÅWhat is LoRA?")] == ["awhat", "is", "lora", "?"]
    # llama.cpp's detokenize: "▁" a space (the first kept), then its clean_spaces (" ?" -> "?")
    assert wpm.decode(enc.ids) == " awhat is lora?"
    assert wpm.decode(enc.ids, skip_special_tokens=False) == "[CLS] awhat is lora?[SEP]"


@pytest.mark.parametrize(
    "text, bert_words, wpm_words",
    [
        # Accents: BERT decomposes and drops the marks; WPM keeps NFD's first code point only,
        # which is the same here but not for characters whose base is not first.
        ("Crème Brûlée", ["creme", "brulee"], ["creme", "brulee"]),
        # Symbols: BERT isolates ASCII symbols and Unicode punctuation only; WPM isolates ASCII
        # symbols and punctuation too, but non-ASCII symbols (©, €) stay inside the word.
        ("a©b 5€ x+y", ["a©b", "5€", "x", "+", "y"], ["a©b", "5€", "x", "+", "y"]),
        # Compatibility characters: ligatures and ﬁ stay; full-width letters stay whole in both.
        ("ﬁne", ["ﬁne"], ["ﬁne"]),
        # Lowercase: BERT lowercases fully (İ -> i + combining dot, then stripped); WPM maps İ to
        # its NFD base I, lowercased to i.
        ("İyi", ["iyi"], ["iyi"]),
        # Hangul: BERT decomposes syllables to jamo (NFD); WPM keeps only the first jamo.
        ("한", ["\u1112\u1161\u11ab"], ["\u1112"]),
        # Marks that NFD does not produce: BERT drops nonspacing marks (Mn) everywhere; WPM drops
        # every mark (Mn, Mc, Me: a Devanagari vowel sign, an enclosing mark) with NUL, U+FFFD
        # and control characters, so a word around one is joined.
        ("a\u0301b", ["ab"], ["ab"]),
        ("a\u093eb \u0489x", ["a\u093eb", "\u0489x"], ["ab", "x"]),
    ],
)
def test_wpm_differs_from_bert_as_documented(ours, text, bert_words, wpm_words):
    wpm = tokenforge.Tokenizer.from_file(BERT_VOCAB, wpm=True)
    assert [w for w, _ in ours.pre_tokenize(text)] == bert_words
    assert [w for w, _ in wpm.pre_tokenize(text)] == wpm_words


def test_unmatched_and_long_words_are_unknown(ours, hf, tmp_path):
    for text in ["\u1f600x", "a" * 101, "a" * 100, "ǅ" * 3 + " ok"]:
        same(ours.encode(text), hf.encode(text))
    from tokenizers import Tokenizer

    doc = json.loads(BERT_JSON.read_text(encoding="utf-8"))
    doc["model"]["max_input_chars_per_word"] = 0  # HF: every word is then [UNK]
    path = tmp_path / "zero.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    for text in ["hello , world", "日本"]:
        same(tokenforge.Tokenizer.from_file(path).encode(text), Tokenizer.from_file(str(path)).encode(text))
    wpm = tokenforge.Tokenizer.from_file(BERT_VOCAB, wpm=True)
    assert wpm.encode("a" * 300, add_special_tokens=False).tokens[0] == "▁aaa"  # WPM has no word length limit


def test_bad_input_is_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="unknown vocabulary format"):
        tokenforge.Tokenizer.from_file(tmp_path / "vocab.bin")
    no_unk = tmp_path / "nounk" / "vocab.txt"
    no_unk.parent.mkdir()
    no_unk.write_text("[CLS]\n[SEP]\nhello\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"no unknown token '\[UNK\]'"):
        tokenforge.Tokenizer.from_file(no_unk)
    dup = tmp_path / "dup" / "vocab.txt"
    dup.parent.mkdir()
    dup.write_text("[UNK]\n[CLS]\n[SEP]\nhello\nhello\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 5: token 'hello' already on line 4"):
        tokenforge.Tokenizer.from_file(dup)
    doc = json.loads(BERT_JSON.read_text(encoding="utf-8"))
    doc["model"]["vocab"]["extra"] = 5  # an id given twice
    bad = tmp_path / "tokenizer.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"tokenizer.json: model.vocab: id 5 is given to both '\[unused4\]' and 'extra'"
    ):
        tokenforge.Tokenizer.from_file(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"not a tokenizer\.json"):
        tokenforge.Tokenizer.from_file(bad)
    tok = tokenforge.Tokenizer.from_file(BERT_JSON)
    with pytest.raises(TypeError, match="expected str, got bytes"):
        tok.encode(b"bytes")
    with pytest.raises(TypeError, match="expected str, got int"):
        tok.encode("text", 5)
    with pytest.raises(ValueError, match="not in this tokenizer's vocabulary"):
        tok.decode([101, 10**9])
    tok.enable_truncation(1)
    with pytest.raises(ValueError, match="leaves no room for the 2 special tokens"):
        tok.encode("hello world")


def test_gguf_bert_tokenizer(tmp_path):
    """A GGUF file written with the gguf package from the BERT vocabulary, as llama.cpp's converter
    stores it (WPM form; CLS as BOS), loads as the WPM tokenizer."""
    gguf = pytest.importorskip("gguf")
    from tokenforge.models.wordpiece import to_wpm_vocab

    tokens = to_wpm_vocab(BERT_VOCAB.read_text(encoding="utf-8").splitlines())
    path = tmp_path / "bert.gguf"
    writer = gguf.GGUFWriter(str(path), "bert")
    writer.add_tokenizer_model("bert")
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t.startswith("[") and t.endswith("]") else 1 for t in tokens])
    writer.add_unk_token_id(100)
    writer.add_bos_token_id(101)
    writer.add_sep_token_id(102)
    writer.add_pad_token_id(0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tok = tokenforge.Tokenizer.from_file(path)
    assert tok.encode("ÅWhat is LoRA?").ids == [101, 22091, 12707, 2003, 8840, 2527, 1029, 102]
    text = read_sample(corpus_files()[0], 5000)
    assert tok.encode(text).ids == tokenforge.Tokenizer.from_file(BERT_VOCAB, wpm=True).encode(text).ids

    other = tmp_path / "llama.gguf"
    writer = gguf.GGUFWriter(str(other), "bogus")
    writer.add_tokenizer_model("bogus")
    writer.add_token_list(["<unk>", "a"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ValueError, match="tokenizer model 'bogus' is not supported yet"):
        tokenforge.Tokenizer.from_file(other)
    (tmp_path / "junk.gguf").write_bytes(b"not a gguf file at all")
    with pytest.raises(ValueError, match="not a readable GGUF file"):
        tokenforge.Tokenizer.from_file(tmp_path / "junk.gguf")


def test_named_bert_tokenizer_ships_inside_the_package(ours):
    tok = tokenforge.get_tokenizer("bert-base-uncased")
    text = read_sample(corpus_files()[2], 20000)
    same(tok.encode(text, "pair"), ours.encode(text, "pair"))
    assert "bert-base-uncased" in tokenforge.list_tokenizer_names()
    with pytest.raises(ValueError, match="Unknown tokenizer"):
        tokenforge.get_tokenizer("bert-large")


@settings(max_examples=200, deadline=None)
@given(
    ids=st.lists(
        st.one_of(
            st.integers(0, 30521),  # anything in BERT's vocabulary, [CLS]/[SEP]/[PAD] included
            st.sampled_from([1012, 1029, 999, 1010, 1005, 1050, 1056, 1049, 1055, 2079, 2025, 2310, 2128]),
        ),
        max_size=40,
    ),
    skip=st.booleans(),
)
def test_native_decoder_equals_hf_on_any_ids(ids, skip, ours, hf):
    """The native WordPiece decoder (prefix, cleanup rules in order, special tokens skipped)
    reads any id sequence as HF's does; the ids lean on punctuation and contraction pieces."""
    assert ours.decode(ids, skip_special_tokens=skip) == hf.decode(ids, skip_special_tokens=skip)
