"""The sentencepiece Unigram Tokenizer's one pass over a text (normalizer, cut and model:
SpmUnigramModel::encode_normalizing, SpmNormalizer::normalize_cut, PieceAdjacency::cut_on with
a check), against the sentencepiece library: ids where the pass reads the input as it is and
where it hands a character to the normalizer (a character the map changes, a blank after a
blank, a user-defined symbol, a letter that a combining mark after it changes, characters of
four bytes) at every position of runs of every length, at the text's ends, with scripts mixed
inside a segment, unknown characters and byte fallback; ids first (the one pass without
offsets) and the eager rows' ids and offsets (the one pass writing the alignment as it goes)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files, read_sample
from tokenforge import Tokenizer

spm = pytest.importorskip("sentencepiece")

# Runs the pass reads as they are: ASCII, two-byte (Cyrillic, Greek), three-byte (CJK, kana,
# Hangul) and mixed.
RUNS = ["the quick brown fox", "привет мир", "日本語のテキスト", "한국어 텍스트", "aбв日x γδ한"]
# What the normalizer changes or the pass hands over: full-width letters and space, a ligature
# (a user-defined symbol in one model), a combining acute after a letter (composed by NFKC),
# tabs and newlines (blanks), blanks after blanks, the Angstrom sign, a circled digit, four-byte
# characters, a user-defined symbol, half-width katakana (composed with its voicing mark, or
# alone), full-width punctuation (a key no longer key goes on from: replaced from a table).
ODD = [
    *("Ａ", "\u3000", "ﬁ", "e\u0301", "\t", "\n", "  ", " \n\t ", "\u212b", "①", "😀", "<sep>", "ｶﾞ", "ｶ", "й"),
    *("и\u0306", "，", "（）", "\u3000 ", "Ａ\u3000"),
]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Unigram models sentencepiece trains here on every corpus (nmt_nfkc, extra whitespace
    removed): with user-defined symbols, with byte fallback, without whitespace removal or dummy
    prefix, and one trained on ASCII alone (every other character unknown)."""
    out = tmp_path_factory.mktemp("spm-fused")
    corpus = out / "corpus.txt"
    corpus.write_text("".join(read_sample(p, 12_000) for p in corpus_files()), encoding="utf-8")
    ascii_corpus = out / "ascii.txt"
    ascii_corpus.write_text(
        "".join(c for c in corpus.read_text(encoding="utf-8") if c < "\x80")
        + "\n".join(f"line {i}: the quick brown fox, {i * 7} times." for i in range(300)),
        encoding="utf-8",
    )
    settings_by_name = {
        "user": (corpus, dict(user_defined_symbols=["<sep>", "ﬁ", "日本"])),
        "bytes": (corpus, dict(byte_fallback=True)),
        "kept": (corpus, dict(remove_extra_whitespaces=False, add_dummy_prefix=False)),
        "ascii": (ascii_corpus, dict(byte_fallback=False)),
    }
    paths = {}
    for name, (text, options) in settings_by_name.items():
        spm.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(out / name),
            model_type="unigram",
            vocab_size=900,
            character_coverage=0.98,
            minloglevel=2,
            **options,
        )
        paths[name] = (
            spm.SentencePieceProcessor(model_file=str(out / f"{name}.model")),
            Tokenizer.from_file(str(out / f"{name}.model")),
        )
    return paths


def _check(pair, text: str) -> None:
    """Ids first (the one pass without offsets) and the eager rows' ids and offsets (the one pass
    with the normalizer's alignment) equal sentencepiece's."""
    sp, tok = pair
    got = tok.encode(text, add_special_tokens=False)
    assert "ids first" in repr(got)
    assert got.ids == sp.encode(text), repr(text)
    eager = tok._native._encode_eager(text, None, False, allowed_special=set(), disallowed_special=set())
    assert eager.ids == got.ids, repr(text)
    assert [tuple(o) for o in eager.offsets] == sp.encode(text, out_type="offset_mapping")["offsets"], repr(text)


@pytest.mark.parametrize("name", ["user", "bytes", "kept", "ascii"])
def test_odd_characters_at_every_position_of_every_run(models, name):
    pair = models[name]
    for run in RUNS:
        for odd in ODD:
            for k in range(len(run) + 1):
                _check(pair, run[:k] + odd + run[k:])
                _check(pair, run[:k] + odd + odd + run[k:])
            _check(pair, odd + run)
            _check(pair, run + odd)
            _check(pair, odd)


@pytest.mark.parametrize("name", ["user", "bytes", "kept", "ascii"])
def test_runs_of_every_length_between_odd_characters(models, name):
    pair = models[name]
    for run in RUNS:
        for length in range(len(run) + 1):
            for odd in ("Ａ", "\n", "  ", "😀", "e\u0301", "<sep>"):
                _check(pair, odd + run[:length] + odd + run[-length:] + odd)
                _check(pair, run[:length] + odd + run[:length])


@pytest.mark.parametrize("name", ["user", "bytes", "kept", "ascii"])
def test_corpora(models, name):
    pair = models[name]
    for path in corpus_files():
        text = read_sample(path, 6000)
        _check(pair, text)
        for line in text.split("\n")[:40]:
            _check(pair, line)


TEXT = st.text(
    st.one_of(
        st.sampled_from(list("aeéz ЖжиЙй日本語한국ｶﾞ\u0301\u0306\u3099\u3000\t\nＡ①ﬁ\u212b😀.,<>sep")),
        st.characters(codec="utf-8"),
    ),
    max_size=50,
)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_random_text(models, text):
    for pair in models.values():
        _check(pair, text)
