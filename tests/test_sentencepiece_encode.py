"""sentencepiece models against the sentencepiece library: Mistral's BPE (identity
normalization, dummy prefix, byte fallback) on every corpus, line by line and whole, and on
hypothesis strings; BPE and Unigram models that sentencepiece trains here with several
normalization rules and options."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import LONG_PLAIN_RUNS, SHARED, corpus_files, read_sample
from tokenforge.formats.sentencepiece_model import SentencePieceModel
from tokenforge.models.sentencepiece import SentencePieceModelEncoder

spm = pytest.importorskip("sentencepiece")
MISTRAL = str(SHARED / "vocab" / "mistral-7b-v0.1.model")


_LOADED: list = []


def _both():
    if not _LOADED:
        _LOADED.append((spm.SentencePieceProcessor(model_file=MISTRAL), SentencePieceModelEncoder.from_file(MISTRAL)))
    return _LOADED[0]


@pytest.fixture(scope="module")
def pair():
    return _both()


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpora_match_sentencepiece(path, pair):
    theirs, ours = pair
    text = read_sample(path, 40_000)
    assert ours.encode(text) == theirs.encode(text)
    lines = text.split("\n")
    assert ours.encode_batch(lines) == theirs.encode(lines)


def test_edges_match_sentencepiece(pair):
    theirs, ours = pair
    for text in ["", " ", "  hi", "a  b   c ", "\t\n x", "😀 한국어 テスト", "<s> </s> <unk>", "\u2581x", "\x00\x01"]:
        assert ours.encode(text) == theirs.encode(text), text


@settings(max_examples=300, deadline=None)
@given(st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \t\n▁aeé日本😀"))), max_size=40))
def test_random_text_matches_sentencepiece(text):
    theirs, ours = _both()
    assert ours.encode(text) == theirs.encode(text)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """BPE and Unigram models sentencepiece trains here: nmt_nfkc, identity and nfkc_cf, byte
    fallback and split_digits on and off, a user-defined symbol."""
    out = tmp_path_factory.mktemp("spm-bpe")
    text = out / "corpus.txt"
    text.write_text("".join(read_sample(p, 25_000) for p in corpus_files()), encoding="utf-8")
    models = {}
    for kind, rule, fallback, digits in [
        ("bpe", "nmt_nfkc", True, True),
        ("bpe", "nmt_nfkc", False, False),
        ("bpe", "identity", True, False),
        ("bpe", "nfkc_cf", False, True),
        ("unigram", "nmt_nfkc", True, False),
        ("unigram", "nmt_nfkc", False, True),
        ("unigram", "identity", False, False),
    ]:
        prefix = out / f"{kind}-{rule}-{fallback}-{digits}"
        spm.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(prefix),
            vocab_size=1500,
            model_type=kind,
            normalization_rule_name=rule,
            byte_fallback=fallback,
            split_digits=digits,
            user_defined_symbols=["<sep>"],
            character_coverage=0.98,
            minloglevel=2,
        )
        models[prefix.name] = str(prefix.with_suffix(".model"))
    return models


def test_trained_models_normalize_and_encode_like_sentencepiece(trained):
    probe = [read_sample(p, 6000) for p in corpus_files()] + [
        "  ＡＢＣ　ｶﾀｶﾅ  ①② ﬁ x<sep>y  ",
        "\u00c5\u212b 12345",
        # letters and "<", "=", ">" that compose with the combining mark after them, and the same
        # characters before ASCII, before a non-ASCII character, at the end
        "e\u0301 a\u030a <\u0338 =\u0338 x\u0301y Д\u0308 д\u0306 é e",
        "ab\u0301",
        "z\u0301",
        "Ωx日\u0301 <",
        "a\tb\n\nc  d \u3000 e\u00a0f",
        "\u0301start",
        "end<",
    ]
    for name, path in trained.items():
        theirs, ours = spm.SentencePieceProcessor(model_file=path), SentencePieceModelEncoder.from_file(path)
        for text in probe:
            assert ours.normalize(text) == theirs.normalize(text), name
            assert ours.encode(text) == theirs.encode(text), name


def test_corrupt_charsmap_is_refused():
    from tokenforge.normalizers.sentencepiece import SentencePieceNormalizer

    # the root leads to "a", whose leaf value sits far outside the trie
    leaf_outside = (
        (8).to_bytes(4, "little")
        + (0x60 << 10).to_bytes(4, "little")
        + (0x61 | 1 << 8 | 0x3FFFF << 10).to_bytes(4, "little")
    )
    for blob in [b"\x01", b"\x10\x00\x00\x00abc", b"\x03\x00\x00\x00abcd", leaf_outside]:
        with pytest.raises(ValueError, match="precompiled_charsmap"):
            SentencePieceNormalizer(blob).normalize("abc")


def test_unused_pieces_and_characters_only_inside_pieces_match_sentencepiece(trained, tmp_path):
    """Merges through unused pieces are split back, and a character that is no piece itself (here a
    control piece) still merges inside pieces, in an edited model, as sentencepiece does it."""
    from tokenforge.formats.sentencepiece_model import Piece, PieceType

    for name in ("bpe-nmt_nfkc-True-True", "bpe-nmt_nfkc-False-False"):
        model = SentencePieceModel.read(trained[name])
        multi = [i for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL and len(p.piece) > 1]
        singles = [i for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL and p.piece in ("e", "n")]
        for i in multi[::5]:
            model.pieces[i] = Piece(model.pieces[i].piece, model.pieces[i].score, PieceType.UNUSED)
        for i in singles:
            model.pieces[i] = Piece(model.pieces[i].piece, model.pieces[i].score, PieceType.CONTROL)
        path = tmp_path / f"{name}.model"
        model.write(path)
        theirs, ours = spm.SentencePieceProcessor(model_file=str(path)), SentencePieceModelEncoder.from_file(path)
        for text in [read_sample(p, 4000) for p in corpus_files()] + ["e n en ne nee eennn", "the sentence", "n"]:
            assert ours.encode(text) == theirs.encode(text), name


def test_long_texts_tie_as_sentencepiece_does_on_unigram_models(trained):
    """One long text: sentencepiece's float sums grow past 1e5 and are rebased many times, and the
    remembered segments come back at every magnitude of the sum before them."""
    text = "\n".join(read_sample(p, 40_000) for p in corpus_files()) * 2
    for name in ("unigram-nmt_nfkc-True-False", "unigram-identity-False-False"):
        theirs, ours = (
            spm.SentencePieceProcessor(model_file=trained[name]),
            SentencePieceModelEncoder.from_file(trained[name]),
        )
        assert ours.encode(text) == theirs.encode(text), name


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \t\nＡｶ①ﬁ▁aeé日本😀<sep>=д\u0301\u0308\u0338"))),
        max_size=40,
    )
)
def test_random_text_matches_sentencepiece_on_trained_models(trained, text):
    _same_on_trained(trained, ("unigram-nmt_nfkc-True-False", "bpe-nmt_nfkc-False-False"), text)


_TRAINED: dict = {}


def _same_on_trained(trained, names, text):
    """Normalized text and ids equal sentencepiece's on the named trained models (loaded once)."""
    for name in names:
        if name not in _TRAINED:
            _TRAINED[name] = (
                spm.SentencePieceProcessor(model_file=trained[name]),
                SentencePieceModelEncoder.from_file(trained[name]),
            )
        theirs, ours = _TRAINED[name]
        assert ours.normalize(text) == theirs.normalize(text), name
        assert ours.encode(text) == theirs.encode(text), name


@settings(max_examples=200, deadline=None)
@given(LONG_PLAIN_RUNS)
def test_long_plain_runs_normalize_and_encode_like_sentencepiece(trained, text):
    _same_on_trained(
        trained, ("unigram-nmt_nfkc-True-False", "bpe-nfkc_cf-False-True", "unigram-identity-False-False"), text
    )


def test_every_character_normalizes_like_sentencepiece_before_marks_and_at_the_end(trained):
    """Each character of the Basic Multilingual Plane before combining marks (which keys of the
    map go on with), before itself, before ASCII, and at the end of the text."""
    texts = [
        f"{c}\u0301{c}\u3099{c}{c}a{c}\u0308 {c}"
        for c in map(chr, range(0x80, 0x10000))
        if not 0xD800 <= ord(c) < 0xE000
    ]
    for name in ("unigram-nmt_nfkc-True-False", "bpe-nfkc_cf-False-True"):
        theirs, ours = (
            spm.SentencePieceProcessor(model_file=trained[name]),
            SentencePieceModelEncoder.from_file(trained[name]),
        )
        assert [ours.normalize(t) for t in texts] == theirs.normalize(texts), name


def test_unused_pieces_match_sentencepiece_on_unigram_models(trained, tmp_path):
    """Unused pieces are left out of the Unigram lattice (its trie holds none of them): edited
    models with every fifth longer piece unused, as sentencepiece encodes them."""
    from tokenforge.formats.sentencepiece_model import Piece, PieceType

    for name in ("unigram-nmt_nfkc-True-False", "unigram-identity-False-False"):
        model = SentencePieceModel.read(trained[name])
        multi = [i for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL and len(p.piece) > 1]
        for i in multi[::5]:
            model.pieces[i] = Piece(model.pieces[i].piece, model.pieces[i].score, PieceType.UNUSED)
        path = tmp_path / f"{name}.model"
        model.write(path)
        theirs, ours = spm.SentencePieceProcessor(model_file=str(path)), SentencePieceModelEncoder.from_file(path)
        unused = " ".join(model.pieces[i].piece.replace("\u2581", " ") for i in multi[::5][:200])
        for text in [read_sample(p, 4000) for p in corpus_files()] + [unused, unused.replace(" ", "")]:
            assert ours.encode(text) == theirs.encode(text), name


def _pair(trained, name: str):
    """sentencepiece's processor and tokenforge's encoder of the trained model `name`."""
    return spm.SentencePieceProcessor(model_file=trained[name]), SentencePieceModelEncoder.from_file(trained[name])


def _runs(units: list[str], longest: int, around) -> list[str]:
    """Runs of each unit's characters, of every length below `longest`, each in every text
    around(run) gives."""
    return [text for unit in units for length in range(1, longest) for text in around((unit * length)[:length])]


def _encode_alike(theirs, ours, texts: list[str], name: str) -> str:
    """Asserts each text, then all of them joined by spaces, encode as sentencepiece encodes
    them; returns the joined text."""
    for text in texts:
        assert ours.encode(text) == theirs.encode(text), (name, text)
    together = " ".join(texts)
    assert ours.encode(together) == theirs.encode(together), name
    return together


# Characters no trained model has (Hangul, 3 bytes; Armenian, 2 bytes; Georgian, 3 bytes): lone
# unknowns, which the Unigram model takes in runs.
_UNKNOWN_RUNS = ["한", "국어", "Աբգ", "ႠႡ", "한Ա", "Ա한"]


def _with_symbols(tmp_path, name: str, symbols: list[str], **options: Any) -> tuple[Any, Any]:
    """sentencepiece's and tokenforge's encoders of a Unigram model trained on the sample corpora
    with these user-defined symbols (nmt_nfkc)."""
    text = tmp_path / "corpus.txt"
    text.write_text("".join(read_sample(p, 20_000) for p in corpus_files()), encoding="utf-8")
    prefix = tmp_path / name
    spm.SentencePieceTrainer.train(
        input=str(text),
        model_prefix=str(prefix),
        vocab_size=800,
        model_type="unigram",
        normalization_rule_name="nmt_nfkc",
        user_defined_symbols=symbols,
        character_coverage=0.98,
        minloglevel=2,
        **options,
    )
    path = str(prefix.with_suffix(".model"))
    return spm.SentencePieceProcessor(model_file=path), SentencePieceModelEncoder.from_file(path)


def test_unknown_runs_of_every_length_match_sentencepiece_on_unigram_models(trained):
    """Runs of lone unknown characters of every length, of 2 and 3 bytes and both mixed, alone,
    at the text's ends, between known characters and spaces, and after a long text (sums past
    the magnitude where the run's sums are tested one by one), with and without byte fallback."""
    long = "\n".join(read_sample(p, 20_000) for p in corpus_files())
    texts = _runs(_UNKNOWN_RUNS, 25, lambda r: [r, f"a{r}", f"{r}a", f"x {r} y", f"日{r}本", f"{r}😀{r}", f"é{r}."])
    for name in ("unigram-nmt_nfkc-True-False", "unigram-nmt_nfkc-False-True", "unigram-identity-False-False"):
        theirs, ours = _pair(trained, name)
        together = _encode_alike(theirs, ours, texts, name)
        after_long = long + together + long[:5000] + together
        assert ours.encode(after_long) == theirs.encode(after_long), name


# Two-byte characters: Cyrillic and Greek (in the trained models), Latin-1 letters, combining
# marks, Armenian (in no model: lone unknowns).
_TWO_BYTE = ["при", "вет", "Ωμέ", "éàü", "д\u0301", "Աբ", "жԱ", "Ωж", "\u0308\u0301"]


def test_two_byte_runs_of_every_length_match_sentencepiece(trained):
    """Runs of two-byte characters of every length (the cut reads them from its tables alone),
    after ASCII, a space, a three- or four-byte character and the text's start, before the same
    and the text's end, on the Unigram and BPE models."""
    texts = _runs(_TWO_BYTE, 20, lambda r: [r, f"a{r}", f"{r}a", f"x {r} y", f"日{r}本", f"{r}😀{r}", f"{r}한{r}."])
    for name in ("unigram-nmt_nfkc-True-False", "unigram-identity-False-False", "bpe-nmt_nfkc-True-True"):
        _encode_alike(*_pair(trained, name), texts, name)


# Three-byte characters (the cut reads a run of them from its tables alone): CJK ideographs and
# kana that the trained models have (alone and in pieces), punctuation, Hangul and Georgian (in
# no model: lone unknowns) mixed with known ones, and "▁" typed in the text.
_THREE_BYTE = [
    "日本語",
    "的是在",
    "のはる",
    "テスト",
    "。、「",
    "한국",
    "日한",
    "한日",
    "ႠႡ日",
    "日▁本",
    "ー中文",
    "▁の",
]


def test_three_byte_runs_of_every_length_match_sentencepiece(trained):
    """Runs of three-byte characters of every length, after ASCII, a space, a two- or four-byte
    character and the text's start, before the same and the text's end, on the Unigram models
    (with and without byte fallback) and a BPE model; and after a long text, where the sums near
    sentencepiece's rebasing."""
    long = "\n".join(read_sample(p, 20_000) for p in corpus_files())
    texts = _runs(
        _THREE_BYTE, 25, lambda r: [r, f"a{r}", f"{r}a", f"x {r} y", f"ж{r}ж", f"{r}😀{r}", f"é{r}.", f"{r}д{r}"]
    )
    for name in ("unigram-nmt_nfkc-True-False", "unigram-identity-False-False", "bpe-nmt_nfkc-True-True"):
        theirs, ours = _pair(trained, name)
        together = _encode_alike(theirs, ours, texts, name)
        after_long = long + together + long[:5000] + together
        assert ours.encode(after_long) == theirs.encode(after_long), name


def test_segments_right_below_the_rebasing_match_sentencepiece(trained):
    """Words after a run of unknown characters whose scores bring sentencepiece's sum to just
    short of its rebasing (1e5 in magnitude), a character further each time, and past it: a
    remembered segment is taken as it is only where no sum inside it can reach the rebasing,
    and one-character segments and unknown runs rebase as sentencepiece does."""
    words = " ".join(read_sample(p, 400) for p in corpus_files())
    for name in ("unigram-nmt_nfkc-True-False", "unigram-identity-False-False"):
        theirs, ours = _pair(trained, name)
        unknown = min(theirs.get_score(i) for i in range(theirs.get_piece_size())) - 10
        steps = int(1e5 / -unknown)
        for run in range(steps - 60, steps + 3):
            for text in ("한" * run + " " + words, "한" * run + words + "한" * run + words):
                assert ours.encode(text) == theirs.encode(text), (name, run)


def test_user_defined_symbols_starting_with_three_byte_characters_match_sentencepiece(tmp_path):
    """User-defined symbols that start with a CJK ideograph, one of three-byte characters the
    model has apart ("本日語"), one going on with a fullwidth letter that the map replaces
    elsewhere ("本Ａ"): the cut keeps each whole inside runs of three-byte characters, and a
    character next to one is cut from it only where no piece joins them."""
    theirs, ours = _with_symbols(tmp_path, "cjk-symbols", ["本日語", "本Ａ"], byte_fallback=True)
    texts = []
    for word in ["本日語", "本日", "日語", "本Ａ", "本本Ａ", "本日語本Ａ", "本 Ａ", "本Ｂ", "本日語語", "한本Ａ한"]:
        for left in ["", "日本", "の", " ", "a", "ж", "한"]:
            texts += [f"{left}{word}", f"{left}{word} 中文", f"{left}{word}Ａ", f"{left}{word}日本"]
    assert [ours.normalize(t) for t in texts] == theirs.normalize(texts)
    _encode_alike(theirs, ours, texts, "cjk-symbols")


# Two-byte letters with single ASCII bytes between them (the normalizer takes these in one loop):
# letters that start keys of the map (и before U+0306, е and і before U+0308, Ω), the marks
# themselves, spaces single and double, commas, tabs and newlines, Latin-1, and neighbours of
# three and four bytes.
_TWO_BYTE_TEXT = [
    "при вет",
    "и\u0306",
    "е\u0308",
    "і\u0308ї",
    "й и",
    "д, е",
    "а  б",
    "в\tг",
    "ж\nз",
    "Ω Ωι",
    "é,è",
    "и",
    "и日",
    "иa",
    "і.",
    "\u0306и",
]


def _normalize_alike(trained, texts: list[str]) -> None:
    """Each text, and all of them joined, normalized and encoded alike by sentencepiece and
    tokenforge under three normalization rules (Unigram and BPE models)."""
    for name in ("unigram-nmt_nfkc-True-False", "bpe-nfkc_cf-False-True", "unigram-identity-False-False"):
        theirs, ours = _pair(trained, name)
        assert [ours.normalize(t) for t in texts] == theirs.normalize(texts), name
        together = _encode_alike(theirs, ours, texts, name)
        assert ours.normalize(together) == theirs.normalize(together), name


def test_two_byte_text_with_ascii_between_normalizes_like_sentencepiece(trained):
    """Runs of every length of two-byte letters and the single ASCII bytes between them, alone,
    after and before ASCII, spaces and other characters, and at the text's ends."""
    texts = _runs(
        _TWO_BYTE_TEXT, 20, lambda r: [r, f"a{r}", f"{r}a", f" {r}  ", f"日{r}\u0301", f"{r}😀{r}", f"{r}\u0308"]
    )
    _normalize_alike(trained, texts)


# Three-byte text the normalizer takes in one loop where no key goes on from a character: kana
# that start keys with the voicing marks (か + U+3099 is が), the marks themselves, combined and
# halfwidth forms (keys of the map), ideographs, Hangul, the ideographic space; and ASCII
# between them (spaces single and double, commas, tabs, a user-defined symbol).
_THREE_BYTE_TEXT = [
    "かきく",
    "か\u3099",
    "は\u309a",
    "カ\u3099キ",
    "\u3099か",
    "ｶﾞｷ",
    "が日本",
    "テ\u3000ス",
    "한\u3099",
    "ウ\u3099ー",
    "한국 어",
    "日,本",
    "本\tか",
    "日  本",
    "か \u3099",
    "日 ж",
    "テ 😀",
    "日 <sep>本",
]


def test_three_byte_text_with_voicing_marks_normalizes_like_sentencepiece(trained):
    """Runs of every length of kana with and without voicing marks after them, alone, after and
    before ASCII, spaces and two- and four-byte characters, and at the text's ends."""
    texts = _runs(
        _THREE_BYTE_TEXT, 20, lambda r: [r, f"a{r}", f"{r}a", f" {r}  ", f"ж{r}\u0301", f"{r}😀{r}", f"{r}\u3099"]
    )
    _normalize_alike(trained, texts)


def test_user_defined_symbol_starting_with_a_two_byte_letter_matches_sentencepiece(tmp_path):
    """A user-defined symbol that starts with a Cyrillic letter and goes on with a character the
    map replaces ("жＡ": the fullwidth letter stays inside the symbol): the normalizer's run of
    two-byte letters stops before each "ж", wherever it stands in a word."""
    theirs, ours = _with_symbols(tmp_path, "cyrillic-symbol", ["жＡ"])
    texts = []
    for word in ["жＡ", "пжＡ", "жＡр", "пажＡро", "жжＡ", "жＡжＡ", "ж Ａ", "жＢ"]:
        for left in ["", "при", "и\u0306", " ", "a"]:
            texts += [f"{left}{word}", f"{left}{word} вет", f"{left}{word}Ａ"]
    assert [ours.normalize(t) for t in texts] == theirs.normalize(texts)
    for t in texts:
        assert ours.encode(t) == theirs.encode(t), t
