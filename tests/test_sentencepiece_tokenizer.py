"""sentencepiece models behind the Tokenizer surface, against the sentencepiece library: ids,
tokens, offsets (its offset_mapping, in code points) and decode on Mistral's model over every
corpus and on hypothesis strings, and on models sentencepiece trains here (Unigram and BPE,
nmt_nfkc with whitespace removal, unknown runs, byte fallback, a denormalizer); bos/eos and
pairs, the special-token policy, batches, bad ids, decoding arbitrary id sequences, the CLI."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import LONG_PLAIN_RUNS, SHARED, corpus_files, read_sample
from test_cli import run
from tokenforge import DisallowedSpecialTokenError, Tokenizer
from tokenforge.models.sentencepiece import SentencePieceModelEncoder

spm = pytest.importorskip("sentencepiece")
MISTRAL = str(SHARED / "vocab" / "mistral-7b-v0.1.model")
TEXT = st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \t\n▁aeé日本😀🧿한국<s>"))), max_size=40)

_LOADED: dict = {}


def _pair(path: str = MISTRAL):
    """(sentencepiece's processor, our tokenizer) for a model, loaded once."""
    if path not in _LOADED:
        _LOADED[path] = (spm.SentencePieceProcessor(model_file=path), Tokenizer.from_file(path))
    return _LOADED[path]


def assert_like_sentencepiece(sp, tok, text: str) -> None:
    """Ids, offsets and decode equal sentencepiece's; tokens are the vocabulary's pieces, which are
    sentencepiece's own except where it shows an unknown run's text."""
    theirs = sp.encode(text, out_type="offset_mapping")
    ours = tok.encode(text, add_special_tokens=False)
    assert ours.ids == theirs["ids"], text
    assert ours.offsets == theirs["offsets"], text
    assert ours.tokens == [sp.id_to_piece(i) for i in ours.ids]
    assert all(t == p or i == sp.unk_id() for t, p, i in zip(ours.tokens, theirs["pieces"], ours.ids))
    assert ours.attention_mask == [1] * len(ours) and ours.special_tokens_mask == ours.type_ids == [0] * len(ours)
    assert tok.decode(ours.ids) == sp.decode(ours.ids), text


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_mistral_on_corpora(path):
    sp, tok = _pair()
    lines = read_sample(path, 60_000).split("\n")[:200]
    for line in lines:
        assert_like_sentencepiece(sp, tok, line)
    assert_like_sentencepiece(sp, tok, "\n".join(lines))
    assert [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)] == sp.encode(lines)


def test_mistral_edges_and_byte_fallback():
    sp, tok = _pair()
    texts = [
        "",
        " ",
        "   ",
        "  hi",
        "a  b   c ",
        "\t\n x",
        "😀 한국어 テスト",
        "🧿🪬 𝔘𝔫𝔦",
        "\u2581x ▁ y",
        "\x00\x01",
        "x<s>y</s><unk>",
        "ё̈ä\u0301",
        "\ufeff\u200bzero width",
    ]
    for text in texts:
        assert_like_sentencepiece(sp, tok, text)
    emoji = tok.encode("🧿", add_special_tokens=False)  # not a piece: four byte pieces, the last spans it
    assert emoji.tokens == ["▁", "<0xF0>", "<0x9F>", "<0xA7>", "<0xBF>"]
    assert emoji.offsets == [(0, 0), (0, 0), (0, 0), (0, 0), (0, 1)]


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_mistral_on_random_text(text):
    sp, tok = _pair()
    assert_like_sentencepiece(sp, tok, text)
    # identity normalization with a dummy prefix: decoding gives the text back ("▁" reads as a space)
    assert tok.decode(tok.encode(text).ids) == text.replace("\u2581", " ")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Models sentencepiece trains here: nmt_nfkc (whitespace removed, unknown runs) Unigram and
    BPE, Unigram with byte fallback, BPE without dummy prefix or whitespace removal and without
    bos, a Unigram whose denormalizer turns "a" into "A", and Unigram and BPE models that put "▁"
    after words (treat_whitespace_as_suffix; the BPE one keeps extra whitespace)."""
    out = tmp_path_factory.mktemp("spm-tokenizer")
    corpus = out / "corpus.txt"
    corpus.write_text("".join(read_sample(p, 15_000) for p in corpus_files()), encoding="utf-8")
    (out / "denorm.tsv").write_text("61\t41\n")
    settings_by_name = {
        "unigram": dict(model_type="unigram", user_defined_symbols=["<sep>", "ﬁ"], control_symbols=["<ctl>"]),
        "bpe": dict(model_type="bpe"),
        "unigram-bytes": dict(model_type="unigram", byte_fallback=True),
        "bpe-raw": dict(
            model_type="bpe",
            add_dummy_prefix=False,
            remove_extra_whitespaces=False,
            bos_id=-1,
            normalization_rule_name="identity",
        ),
        "denorm": dict(model_type="unigram", denormalization_rule_tsv=str(out / "denorm.tsv")),
        "unigram-suffix": dict(model_type="unigram", treat_whitespace_as_suffix=True, byte_fallback=True),
        "bpe-suffix": dict(model_type="bpe", treat_whitespace_as_suffix=True, remove_extra_whitespaces=False),
    }
    models = {}
    for name, options in settings_by_name.items():
        spm.SentencePieceTrainer.train(
            input=str(corpus),
            model_prefix=str(out / name),
            vocab_size=1000,
            character_coverage=0.98,
            minloglevel=2,
            **options,
        )
        models[name] = str(out / f"{name}.model")
    return models


PROBES = [
    "  ＡＢＣ　ｶﾀｶﾅ  ①② ﬁ x<sep>y  ",
    "\u00c5\u212b 12345",
    "a\u3000\u3000b  ",
    "  ",
    "零 😀😀 x 🧿y",
    "<s>hi</s> <ctl>",
]


@pytest.mark.parametrize(
    "name", ["unigram", "bpe", "unigram-bytes", "bpe-raw", "denorm", "unigram-suffix", "bpe-suffix"]
)
def test_trained_models(trained, name):
    sp, tok = _pair(trained[name])
    for text in PROBES + [read_sample(p, 3000) for p in corpus_files()]:
        assert_like_sentencepiece(sp, tok, text)
        assert tok.normalizer.normalize_with_offsets(text) == sp.normalize(text, with_offsets=True)


def test_unknown_runs_are_one_token(trained):
    sp, tok = _pair(trained["unigram"])
    enc = tok.encode("x 😀😀 y", add_special_tokens=False)
    unk = [k for k, i in enumerate(enc.ids) if i == sp.unk_id()]
    assert len(unk) == 1 and enc.tokens[unk[0]] == "<unk>" and enc.offsets[unk[0]] == (2, 4)
    assert tok.decode(enc.ids) == sp.decode(enc.ids) and " \u2047 " in tok.decode(enc.ids)


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_trained_models_on_random_text(trained, text):
    _like_sentencepiece_with_offsets(
        trained, ("unigram", "bpe-raw", "unigram-bytes", "unigram-suffix", "bpe-suffix"), text
    )
    tok = _pair(trained["unigram-bytes"])[1]
    # with byte fallback nothing is unknown: decoding gives the normalized text, spaces back, no dummy prefix
    assert tok.decode(tok.encode(text).ids) == tok.normalizer.normalize(text).replace("\u2581", " ").removeprefix(" ")


def _id_lists(draw_from):
    return st.lists(st.sampled_from(draw_from), max_size=12)


_DECODE_IDS = sorted({0, 1, 2, *range(3, 3 + 256), 28705, 259, 15359, 1318, 28789, 3614, 28797, 30575})


@settings(max_examples=400, deadline=None)
@given(_id_lists(_DECODE_IDS))
def test_decode_any_ids_like_sentencepiece(ids):
    """Byte pieces in any order (invalid UTF-8 included), control, unknown and "▁" pieces."""
    sp, tok = _pair()
    assert tok.decode(ids) == sp.decode(ids)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_decode_any_ids_on_trained_models(trained, data):
    for name in ("unigram", "bpe-raw", "unigram-bytes", "denorm", "unigram-suffix", "bpe-suffix"):
        sp, tok = _pair(trained[name])
        special = [
            i
            for i in range(sp.get_piece_size())
            if sp.is_control(i)
            or sp.is_unknown(i)
            or sp.is_byte(i)
            or sp.id_to_piece(i) in ("\u2581", "\u2581a", "<sep>")
        ]  # "▁" pieces test the dummy prefix
        ids = data.draw(
            st.lists(st.one_of(st.sampled_from(special), st.integers(0, sp.get_piece_size() - 1)), max_size=10)
        )
        assert tok.decode(ids) == sp.decode(ids), name


def test_decode_byte_fragments():
    _, tok = _pair()
    byte = {b: 3 + b for b in range(256)}  # Mistral's <0xNN> pieces are ids 3..258
    assert tok.decode([byte[0xF0], byte[0x9F], byte[0xA7], byte[0xBF]]) == "🧿"
    assert tok.decode([byte[0xF0], byte[0x9F], byte[0xA7]]) == "\ufffd" * 3  # cut short: each byte alone
    assert tok.decode([byte[0xC0], byte[0x80], byte[0x41]]) == "\ufffd\ufffdA"  # overlong form
    assert tok.decode([byte[0xED], byte[0xA0], byte[0x80]]) == "\ufffd" * 3  # a surrogate
    assert tok.decode([1, byte[0x41], 2]) == "A"
    assert tok.decode([1, 1318, 2], skip_special_tokens=False) == "<s> x</s>"  # shown, so the space stays


def test_bad_ids_are_value_errors():
    _, tok = _pair()
    for bad in (-1, 32000, 2**40):
        with pytest.raises(ValueError, match=f"token id {bad} is not in this tokenizer's vocabulary"):
            tok.decode([1, bad])
    with pytest.raises(TypeError):
        tok.decode([1, "2"])


def test_bos_eos_and_pairs(trained):
    sp, tok = _pair()
    text = "Hello world"
    plain = sp.encode(text)
    assert tok.encode(text).ids == sp.encode(text, add_bos=True) == [1, *plain]
    enc = tok.encode(text)
    assert enc.special_tokens_mask == [1] + [0] * len(plain) and enc.offsets[0] == (0, 0)
    both = Tokenizer.from_file(MISTRAL, add_eos=True)
    assert both.encode(text).ids == sp.encode(text, add_bos=True, add_eos=True)
    both.add_bos = False
    assert both.encode(text).ids == sp.encode(text, add_eos=True)
    pair = tok.encode("a b", "c")
    assert pair.ids == [1, *sp.encode("a b"), 1, *sp.encode("c")]
    assert pair.type_ids == [0] * (1 + len(sp.encode("a b"))) + [1] * (1 + len(sp.encode("c")))
    assert pair.offsets[-1] == (0, 1)  # offsets of B are into B
    assert tok.encode("a b", "c", add_special_tokens=False).ids == sp.encode("a b") + sp.encode("c")
    no_bos = Tokenizer.from_file(trained["bpe-raw"])
    assert no_bos.bos_id is None and not no_bos.add_bos
    assert no_bos.encode("x").ids == spm.SentencePieceProcessor(model_file=trained["bpe-raw"]).encode("x")
    with pytest.raises(ValueError, match="no bos piece"):
        no_bos.add_bos = True


def test_special_token_policy():
    sp, tok = _pair()
    text = "A<s>B </s>"
    assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text)  # text, as in sentencepiece
    allowed = tok.encode(text, add_special_tokens=False, allowed_special="all")
    assert allowed.ids == [*sp.encode("A"), 1, *sp.encode("B "), 2]
    assert allowed.offsets[len(sp.encode("A"))] == (1, 4) and allowed.offsets[-1] == (6, 10)
    assert tok.encode(text, add_special_tokens=False, allowed_special={"</s>"}).ids == [*sp.encode("A<s>B "), 2]
    assert tok.encode("x<unk>", add_special_tokens=False, allowed_special="all").ids == [*sp.encode("x"), 0]
    with pytest.raises(DisallowedSpecialTokenError, match="<s>"):
        tok.encode(text, disallowed_special={"<s>"})
    with pytest.raises(DisallowedSpecialTokenError):
        tok.encode_batch(["fine", text], disallowed_special="all")
    batch = tok.encode_batch([text, "</s>"], add_special_tokens=False, allowed_special="all")
    assert [e.ids for e in batch] == [allowed.ids, [2]]
    assert [e.ids for e in tok.encode_batch([text], add_special_tokens=False)] == [sp.encode(text)]


def test_surface_truncation_padding_and_vocabulary():
    sp, tok = _pair()
    assert isinstance(tok, tokenforge.Tokenizer) and isinstance(
        tokenforge.get_tokenizer("bert-base-uncased"), Tokenizer
    )
    assert tok.get_vocab_size() == sp.get_piece_size() and tok.token_to_id("▁Hello") == sp.piece_to_id("▁Hello")
    assert tok.id_to_token(1) == "<s>" and tok.id_to_token(32000) is None
    fresh = Tokenizer.from_file(MISTRAL)
    fresh.enable_truncation(4)
    fresh.enable_padding(pad_id=2, pad_token="</s>", pad_to_multiple_of=8)
    enc = fresh.encode("one two three four five")
    assert enc.ids[:4] == [1, *sp.encode("one two three")] and enc.ids[4:] == [2] * 4
    assert enc.attention_mask == [1] * 4 + [0] * 4 and len(enc.overflowing) > 0
    assert [len(e) for e in fresh.encode_batch(["a", "b c d e f g h i j"])] == [8, 8]


def test_files(tmp_path):
    sp, _ = _pair()
    renamed = tmp_path / "tokenizer.model.v3"  # no .model suffix: recognized by its content
    shutil.copy(MISTRAL, renamed)
    tok = Tokenizer.from_file(renamed, add_bos=False)
    assert tok.encode("Hi there").ids == sp.encode("Hi there")
    tok.save(tmp_path / "copy.model")
    assert (tmp_path / "copy.model").read_bytes() == renamed.read_bytes()
    (tmp_path / "minbpe.model").write_text("minbpe v1\nregex\n0\n")
    with pytest.raises(ValueError, match="minbpe"):
        Tokenizer.from_file(tmp_path / "minbpe.model")
    with pytest.raises(TypeError, match="add_eos"):
        Tokenizer.from_file(SHARED / "vocab" / "bert" / "tokenizer.json", add_eos=True)
    tokenforge.save_tokenizer_json(tok, tmp_path / "tokenizer.json")  # HF's form: tests/test_save_convert.py
    assert json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))["model"]["type"] == "BPE"


def test_cli():
    sp, _ = _pair()
    text = "Hello <s> 🧿"
    _, out, _ = run("encode", "-e", MISTRAL, text)
    assert [int(x) for x in out.split()] == [1, *sp.encode(text)]
    _, out, _ = run("encode", "-e", MISTRAL, "--allow-special", "x<s>")
    assert [int(x) for x in out.split()] == [1, *sp.encode("x"), 1]
    _, out, _ = run("encode", "-e", MISTRAL, "--tokens", "Hi")
    assert out.splitlines() == ["1\t<s>\t0:0", f"{sp.piece_to_id('▁Hi')}\t▁Hi\t0:2"]
    _, out, _ = run("decode", "-e", MISTRAL, *map(str, sp.encode(text)))
    assert out == text + "\n"


@settings(max_examples=100, deadline=None)
@given(LONG_PLAIN_RUNS)
def test_trained_models_on_long_plain_runs(trained, text):
    _like_sentencepiece_with_offsets(trained, ("unigram", "unigram-bytes", "bpe"), text)


def _like_sentencepiece_with_offsets(trained, names, text):
    for name in names:
        sp, tok = _pair(trained[name])
        assert_like_sentencepiece(sp, tok, text)
        assert tok.normalizer.normalize_with_offsets(text) == sp.normalize(text, with_offsets=True)


@pytest.fixture(scope="module")
def ascii_unigram(tmp_path_factory):
    """A Unigram model sentencepiece trains on ASCII text alone: every Cyrillic, Greek, CJK or
    Hangul character is unknown, each a segment of its own, so unknown runs cross many segments."""
    out = tmp_path_factory.mktemp("spm-ascii")
    corpus = out / "corpus.txt"
    sample = "".join(read_sample(p, 20_000) for p in corpus_files()[:2]) or LOREM
    corpus.write_text("".join(c for c in sample if c < "\x80") + LOREM, encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(out / "m"), model_type="unigram", vocab_size=800, minloglevel=2
    )
    return str(out / "m.model")


LOREM = "\n".join(
    f"line {i}: the quick brown fox jumps over the lazy dog, {i * 7} times; see `man {i}`." for i in range(400)
)
FOREIGN = st.text(st.sampled_from(list("абвгд ежзΩλμ 日本語の テキスト 한국어 x yz.,\n\t ")), max_size=60)


def test_unknown_scripts_in_runs_of_one_character_segments(ascii_unigram):
    sp, tok = _pair(ascii_unigram)
    enc = SentencePieceModelEncoder.from_file(ascii_unigram)
    for text in [
        "Команда chage змінює кількість днів",
        "x日本語のテキストy 한국어 z",
        "ab Ωλμ cd абв",
        "日 本",
        "абв",
    ] + [read_sample(p, 3000) for p in corpus_files()]:
        assert_like_sentencepiece(sp, tok, text)
        assert enc.encode(text) == sp.encode(text), text


@settings(max_examples=150, deadline=None)
@given(FOREIGN)
def test_unknown_scripts_on_random_text(ascii_unigram, text):
    sp, tok = _pair(ascii_unigram)
    assert_like_sentencepiece(sp, tok, text)


# Texts that start with ASCII (blanks collapsed, tabs and newlines read as spaces) and go on
# outside it, across the eight-byte blocks the cut and the offsets read ASCII in: offsets up to
# the first non-ASCII byte are taken as they are, those after it counted.
ASCII_THEN_MORE = st.builds(
    lambda head, tail: head + tail,
    st.text(st.sampled_from(list("ab cd.,:;-_()[]{}01\t\n  xyzQ")), max_size=40),
    st.text(st.sampled_from(list("абв日本語한국 éü😀 x  \t.")), max_size=20),
)


@settings(max_examples=150, deadline=None)
@given(ASCII_THEN_MORE)
def test_offsets_after_an_ascii_start(trained, ascii_unigram, text):
    _like_sentencepiece_with_offsets(trained, ("unigram", "unigram-bytes", "bpe"), text)
    sp, tok = _pair(ascii_unigram)
    assert_like_sentencepiece(sp, tok, text)


def test_runs_of_unknown_characters_are_one_segment(trained, ascii_unigram):
    """A run of characters that no piece has (each an unknown node alone) is one segment of the
    cut: at the text's ends, between ASCII (control characters no piece has either), next to a
    character outside the Basic Multilingual Plane or a known one, of 2- and 3-byte characters
    mixed, with and without byte fallback; and runs so long that sentencepiece's float sums are
    rebased inside them."""
    texts = [
        "한국어",
        "한",
        "x한국어",
        "한국어x",
        " 한국어 ",
        "\x07한국\x07어\x07",
        "한😀국😀",
        "😀한국😀",
        "абв한국어где",
        "ab Ωλμ한국 cd",
        "日本語한국어日本",
        "a 한 b 국 c 어",
        "한국어" * 5000,
        "the quick brown fox " * 400 + "한국어" * 3000 + " tail",
        ("x " + "한국어" * 700) * 10,
    ]
    for model in (ascii_unigram, trained["unigram"], trained["unigram-bytes"]):
        sp, tok = _pair(model)
        enc = SentencePieceModelEncoder.from_file(model)
        for text in texts:
            assert_like_sentencepiece(sp, tok, text)
            assert enc.encode(text) == sp.encode(text), text[:40]


def test_offsets_of_mixed_character_lengths_at_every_alignment(trained):
    """The normalizer numbers the characters of eight bytes at a time: 1- to 4-byte characters
    starting at each byte of a block give sentencepiece's offsets."""
    sp, tok = _pair(trained["unigram"])
    for k in range(9):
        for tail in ("д日😀é x", "😀😀한ab", "éééé日", "x\u0301日本 語"):
            assert_like_sentencepiece(sp, tok, "a" * k + tail * 3)
            assert_like_sentencepiece(sp, tok, "д" * k + tail + "a" * k)


# Characters of 3 bytes: CJK and Hangul that no normalizer key starts with, next to 3-byte ones
# that are keys (fullwidth letters, halfwidth katakana, circled digits, the ideographic space)
# or start a user-defined symbol ("ﬁ", whose lead byte 0xEF the fullwidth forms share).
THREE_BYTES = list("日本語中文한국어テスト") + list("ＡＢｶﾀ①②\u3000ﬁ")
RUNS_OF_THREE = st.text(st.sampled_from(THREE_BYTES + list("дé😀 x.\t")), max_size=50)


def test_runs_of_three_byte_characters(trained, ascii_unigram):
    """The normalizer and the cut read runs of 3-byte characters without decode_utf8's length
    tests: runs at the text's ends and of every length, broken by 3-byte characters that are
    normalizer keys or start a user-defined symbol, by 2- and 4-byte characters and ASCII."""
    texts = []
    for k in range(1, 7):
        run = "日本語한국어"[:k]
        texts += [run, "x" + run, run + "x", run + "ｶ", "Ａ" + run, run + "ﬁ" + run, run + "д", run + "😀" + run]
    texts += [
        "中文ＡＢＣ中文",
        "テストｶﾀｶﾅテスト",
        "①②③日本①",
        "日本\u3000語\u3000\u3000한",
        "ﬁ日ﬁ本ﬁ",
        "日本語" * 300 + "ｶ" + "한국어" * 300,
    ]
    for name in ("unigram", "unigram-bytes", "unigram-suffix", "denorm"):
        sp, tok = _pair(trained[name])
        enc = SentencePieceModelEncoder.from_file(trained[name])
        for text in texts:
            assert_like_sentencepiece(sp, tok, text)
            assert tok.normalizer.normalize_with_offsets(text) == sp.normalize(text, with_offsets=True), text
            assert enc.encode(text) == sp.encode(text), text[:40]
    sp, tok = _pair(ascii_unigram)
    for text in texts:
        assert_like_sentencepiece(sp, tok, text)


@settings(max_examples=150, deadline=None)
@given(RUNS_OF_THREE)
def test_runs_of_three_byte_characters_on_random_text(trained, ascii_unigram, text):
    _like_sentencepiece_with_offsets(trained, ("unigram", "unigram-bytes", "denorm"), text)
    sp, tok = _pair(ascii_unigram)
    assert_like_sentencepiece(sp, tok, text)


# Characters the trained Unigram models mostly cut apart from their neighbours (CJK, kana and
# CJK punctuation, each a piece of its own): runs of one-character segments, which the model
# takes in a loop of their own. Between them: ASCII letters and punctuation (segments of one
# character or more), a control character no piece has (a one-character unknown: byte fallback
# where the model has it), Cyrillic, the user-defined symbol "ﬁ", Hangul (lone unknowns), and
# a character outside the Basic Multilingual Plane.
ONE_CHARACTER_SEGMENTS = list("日本語中文的是在のはテスト。、「」（）・")
ONE_CHARACTER_BREAKS = ["a", "(", " ", "\x07", "\x07\x07", "д", "ﬁ", "한", "😀", "ab", "x\x07"]


def test_runs_of_one_character_segments_of_every_length(trained, ascii_unigram):
    """Runs of one-character segments of every length up to past two batches of the model's
    look-ahead, at the text's ends and broken by each of ONE_CHARACTER_BREAKS, in texts of each
    alone and all joined; and texts of such runs long enough for sentencepiece's float sums to be
    rebased inside them (where the model leaves its loop for sentencepiece's own search)."""
    texts = []
    for k in range(1, 40):
        run = "".join(ONE_CHARACTER_SEGMENTS[(i * 7) % len(ONE_CHARACTER_SEGMENTS)] for i in range(k))
        texts.append(run)
        for brk in ONE_CHARACTER_BREAKS:
            texts += [brk + run, run + brk, run + brk + run[::-1], brk + run + brk]
    long = "".join(ONE_CHARACTER_SEGMENTS) * 1500
    texts += [long, long + "\x07" + long[:9000] + "ﬁ" + long[:3000], ("。日\x07本、" * 3000) + "a"]
    for name in ("unigram", "unigram-bytes", "unigram-suffix", "denorm"):
        sp, tok = _pair(trained[name])
        enc = SentencePieceModelEncoder.from_file(trained[name])
        for text in texts:
            assert_like_sentencepiece(sp, tok, text)
            assert enc.encode(text) == sp.encode(text), text[:40]
        joined = "".join(texts[:400])
        assert_like_sentencepiece(sp, tok, joined)
    sp, tok = _pair(ascii_unigram)
    for text in texts[:200]:
        assert_like_sentencepiece(sp, tok, text)


# Words whose characters are of 2 and 3 bytes: pieces alone and starts of longer pieces
# (Cyrillic, Greek, CJK, kana), in no piece (Hangul, Armenian, Georgian), "▁" typed in the
# text, Latin-1 letters the normalizer keeps, next to ASCII, spaces and a 4-byte character.
SEARCHED_WORDS = [
    "при",
    "вет",
    "Ωμέ",
    "日本語",
    "の は",
    "テスト",
    "한국",
    "Աբ",
    "ႠႡ",
    "▁x",
    "éàü",
    "д😀日",
    "a日b",
    "ж.",
]


def test_segments_searched_afresh_with_two_and_three_byte_characters(trained):
    """The Unigram model's lattice over a segment it has not seen (read from the character table
    for the first character at each start): segments of every length of 2- and 3-byte
    characters, on fresh tokenizers (every segment new) and then warm, with and without byte
    fallback and with whitespace as a suffix."""
    texts = []
    for word in SEARCHED_WORDS:
        for k in range(1, 9):
            run = (word * k)[: k * 2]
            texts += [run, " " + run, run + " x", "a" + run + "b", run + "😀" + run]
    _fresh_then_remembered(trained, ("unigram", "unigram-bytes", "unigram-suffix", "denorm"), texts)


def _fresh_then_remembered(trained, names: tuple[str, ...], texts: list[str]) -> None:
    """Each text through fresh Tokenizer and SentencePieceModelEncoder of each model, then
    again (remembered), against sentencepiece."""
    for name in names:
        sp = spm.SentencePieceProcessor(model_file=trained[name])
        tok = Tokenizer.from_file(trained[name])
        enc = SentencePieceModelEncoder.from_file(trained[name])
        for _ in range(2):  # each text new, then remembered
            for text in texts:
                assert_like_sentencepiece(sp, tok, text)
                assert enc.encode(text) == sp.encode(text), text[:40]


def test_segments_past_the_remembered_length_after_remembered_ones(trained):
    """Segments longer than the model remembers (256 bytes: long words of letters that join
    inside pieces, a long run of digits) right after short ones, whose paths it remembers or
    reads from its tables, and before them, fresh and warm: each gets its own path."""
    long_words = ["internationalization" * 20, "abcabcabcabcdefg" * 20, "0123456789" * 40, "x" * 300]
    texts = []
    for word in long_words:
        texts += [f"the {word} of", f"a {word}", f"{word} the", f"of the {word} and the {word[:300]} end"]
    _fresh_then_remembered(trained, ("unigram", "unigram-bytes", "unigram-suffix"), texts)


def test_unigram_segments_with_spaces_of_every_length(trained, tmp_path):
    """Segments the Unigram model searches afresh with their spaces read as "▁" (three bytes in
    its lattice for each one of the text): words of every length after runs of one to four
    spaces, spaces at the text's ends, unknowns next to them; ids, offsets and decode as
    sentencepiece's, on a fresh tokenizer (every segment new) and a warm one, with extra
    whitespace removed and kept."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(read_sample(p, 15_000) for p in corpus_files()), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(tmp_path / "spaces"),
        model_type="unigram",
        vocab_size=1000,
        character_coverage=0.98,
        remove_extra_whitespaces=False,
        minloglevel=2,
    )
    words = ["a", "of", "the", "them", "there", "thereby", "internal", "interface", "the😀", "x한국y", "日本語"]
    texts = []
    for spaces in range(1, 5):
        gap = " " * spaces
        texts += [gap.join(words), gap + gap.join(words) + gap, gap.join(w + gap for w in words[::-1])]
        texts += [gap + w for w in words] + [w + gap for w in words]
    for path in (trained["unigram"], trained["unigram-bytes"], str(tmp_path / "spaces.model")):
        sp = spm.SentencePieceProcessor(model_file=path)
        tok = Tokenizer.from_file(path)
        for _ in range(2):  # each text new, then remembered
            for text in texts:
                assert_like_sentencepiece(sp, tok, text)


def _fields(e) -> tuple:
    return (
        e.ids,
        e.tokens,
        [tuple(o) for o in e.offsets],
        e.word_ids,
        e.special_tokens_mask,
        [e.char_to_token(i) for i in (0, 1, 5, 40)],
    )


@pytest.mark.parametrize(
    "name", ["unigram", "bpe", "unigram-bytes", "bpe-raw", "denorm", "unigram-suffix", "bpe-suffix"]
)
def test_ids_first_rows_equal_eager_rows(trained, name):
    """`encode` gives one text's ids first (offsets, tokens and words are built when first read):
    every field equals the eager encoding's, with and without bos/eos and allowed special text."""
    tok = Tokenizer.from_file(trained[name])
    texts = [*PROBES, "", " ", "<s>a</s><sep>b", *(read_sample(p, 3000) for p in corpus_files())]
    for text in texts:
        for add in (True, False):
            for allowed in (set(), "all"):
                got = tok.encode(text, add_special_tokens=add, allowed_special=allowed)
                assert "ids first" in repr(got), text
                eager = tok._native._encode_eager(text, None, add, allowed_special=allowed, disallowed_special=set())
                assert _fields(got) == _fields(eager), (text, add, allowed)


# Characters the models of this file have no piece of (lone unknowns), of 3 bytes (Hangul; CJK
# for the ASCII-trained model) and of 2 bytes (Armenian), and what may follow a run of them.
_LONE3 = ["한", "국", "어", "ㄱ"]
_AFTER_RUN = ["", "x", " ", "日", "本語", "Ա", "😀", "\u0301", "é", "ﬁ", "。", "\x07", "한Ա한"]


def test_three_byte_unknown_runs_after_ascii_of_every_length(trained, ascii_unigram):
    """The cut takes a run of three-byte lone unknowns that starts after ASCII in one step: runs of
    every length from 1 to 20, after ASCII (a letter, a space, a control character no piece has,
    the text's start), followed by the text's end, ASCII, a known or unknown character of 2, 3
    or 4 bytes, a combining mark, a character the normalizer rewrites, more runs; CJK inside
    the run (a known character for the trained models, a lone unknown for the ASCII one)."""
    texts = []
    for length in range(1, 21):
        run = "".join(_LONE3[k % len(_LONE3)] for k in range(length))
        for before in ("", "a", "x ", "\x07", "ab\n"):
            for after in _AFTER_RUN:
                texts.append(before + run + after)
        texts.append("a" + run[: length // 2] + "日" + run[length // 2 :] + " z")
        texts.append(" ".join([run] * 3))
    for model in (ascii_unigram, trained["unigram"], trained["unigram-bytes"], trained["unigram-suffix"]):
        sp, tok = _pair(model)
        enc = SentencePieceModelEncoder.from_file(model)
        for text in texts:
            assert_like_sentencepiece(sp, tok, text)
            assert enc.encode(text) == sp.encode(text), text
        together = "\n".join(texts)
        assert_like_sentencepiece(sp, tok, together)
