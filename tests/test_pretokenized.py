"""Pre-tokenized input (HF tokenizers' `is_pretokenized=True`): `encode(words, ...,
is_pretokenized=True)` and `encode_batch(..., is_pretokenized=True)` against HF tokenizers on
tokenizer.json files built here (byte-level BPE with and without add_prefix_space, the latter with
RoBERTa's trim_offsets, and with ByteLevel's trim_offsets; a Metaspace Unigram; BERT's WordPiece; a sentencepiece-style BPE with
byte_fallback), each on its fused kernel and on the staged pipeline: ids, tokens, offsets (in each
word's characters), word ids (the word's index), sequence ids, type ids, masks and overflowing
parts, for pairs, truncation with stride, padding, empty words and word lists, words with spaces
inside, non-ASCII and added-token text inside words. The kernels without an HF counterpart
(tiktoken's byte-level BPE, a sentencepiece .model) are checked against their own per-word
encodes. transformers' `is_split_into_words=True` is in test_transformers_api.py."""

from __future__ import annotations

import base64
import dataclasses
import json
import pathlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from conftest import DATA, SHARED
from tokenforge import Tokenizer, get_encoding
from tokenforge.formats import read_tokenizer_file
from tokenforge.formats.tiktoken_file import read_tokens
from tokenforge.pre_tokenizers.patterns import TEKKEN

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

SENTENCES = [
    "hello world, the quick brown fox jumps over the lazy dog",
    "Don't stop: it's 12.5 degrees! Isn't it?",
    "naïve café résumé — 東京 and Zürich",
    "the lazy dog sleeps; the fox runs away quickly",
] * 4

WORDS: list[list[str]] = [
    ["hello", "world", ",", "the", "quick", "brown", "fox"],
    ["Don't", "stop", ":", "it's", "12.5", "degrees", "!"],
    [],
    ["", "a", ""],
    [""],
    ["naïve", "café", "résumé", "—", "東京", "Zürich", "😀x"],
    ["two words", " lead", "trail ", "  ", "in  side"],
    ["x"],
    ["the", "lazy", "dog"] * 8,
    ["<s>", "a</s>b", "[MASK]", "x<pad>"],
]
PAIR_WORDS: list[list[str]] = [["a", "pair"], [], ["fox"], ["", "é", "東京 dog"], ["the dog ran"] * 3]


def _bpe(add_prefix_space: bool, trim: bool = False) -> Any:
    """A byte-level BPE (GPT-2's stages) with a bos/eos template; with add_prefix_space,
    RoBERTa's post-processor (trim_offsets); with trim, ByteLevel's post-processor trimming
    offsets."""
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tok.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=400, initial_alphabet=alphabet, special_tokens=["<s>", "</s>", "<pad>"])
    tok.train_from_iterator(SENTENCES, trainer)
    if trim:
        tok.post_processor = processors.ByteLevel(trim_offsets=True, add_prefix_space=add_prefix_space)
    elif add_prefix_space:
        tok.post_processor = processors.RobertaProcessing(("</s>", 1), ("<s>", 0), trim_offsets=True)
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1", special_tokens=[("<s>", 0), ("</s>", 1)]
        )
    return tok


def _unigram() -> Any:
    """A Metaspace Unigram (T5-like: "$A </s>")."""
    tok = tokenizers.Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=150, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>")
    tok.train_from_iterator(SENTENCES, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", 1)]
    )
    return tok


def _bert() -> Any:
    tok = tokenizers.BertWordPieceTokenizer(lowercase=True)
    tok.train_from_iterator(SENTENCES, vocab_size=200, min_frequency=1)
    return tok


def _spm_bpe(path: pathlib.Path) -> Any:
    """A sentencepiece-style BPE (Llama 2's stages: Prepend and Replace, byte_fallback, a bos
    template): trained here, its 256 byte tokens added to the vocabulary."""
    tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<s>", "</s>"])
    tok.train_from_iterator(SENTENCES, trainer)
    doc = json.loads(tok.to_str())
    vocab = doc["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    doc["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [
            {"SpecialToken": {"id": "<s>", "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": "<s>", "type_id": 1}},
            {"Sequence": {"id": "B", "type_id": 1}},
        ],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return tokenizers.Tokenizer.from_file(str(path))


BUILT = ["bpe", "bpe_prefix_space", "bpe_trim", "unigram", "bert", "spm_bpe"]


@pytest.fixture(
    scope="module",
    params=[(name, staged) for name in BUILT for staged in (False, True)],
    ids=lambda p: p[0] + ("-staged" if p[1] else ""),
)
def pair_of(request, tmp_path_factory):
    """(name, HF's tokenizer, tokenforge's) of a file built here, on its own kernel or staged."""
    name, staged = request.param
    path = tmp_path_factory.mktemp("pretokenized") / f"{name}.json"
    if name == "spm_bpe":
        hf = _spm_bpe(path)
    else:
        hf = {
            "bpe": lambda: _bpe(False),
            "bpe_prefix_space": lambda: _bpe(True),
            "bpe_trim": lambda: _bpe(False, trim=True),
            "unigram": _unigram,
            "bert": _bert,
        }[name]()
        hf.save(str(path))
        hf = tokenizers.Tokenizer.from_file(str(path))
    spec = read_tokenizer_file(path)
    ours = Tokenizer.from_spec(dataclasses.replace(spec, kernel="staged") if staged else spec)
    if staged:
        assert ours.kernel == "staged"
    return name, hf, ours


def _rows(e: Any) -> tuple[Any, ...]:
    return (
        list(e.ids),
        list(e.tokens),
        [tuple(o) for o in e.offsets],
        list(e.word_ids),
        list(e.sequence_ids),
        list(e.type_ids),
        list(e.special_tokens_mask),
        list(e.attention_mask),
    )


def _same(got: Any, want: Any, where: Any) -> None:
    assert _rows(got) == _rows(want), where
    assert len(got.overflowing) == len(want.overflowing), where
    for g, w in zip(got.overflowing, want.overflowing):
        assert _rows(g) == _rows(w), where
    assert got.n_sequences == want.n_sequences, where
    for word in range(4):
        for seq in range(2 if got.n_sequences > 1 else 1):
            assert got.word_to_tokens(word, seq) == want.word_to_tokens(word, seq), (where, word, seq)
            assert got.word_to_chars(word, seq) == want.word_to_chars(word, seq), (where, word, seq)
            assert got.char_to_token(word, seq) == want.char_to_token(word, seq), (where, word, seq)
            assert got.char_to_word(word, seq) == want.char_to_word(word, seq), (where, word, seq)
    for token in range(len(want.ids)):
        assert got.token_to_chars(token) == want.token_to_chars(token), (where, token)
        assert got.token_to_word(token) == want.token_to_word(token), (where, token)


def _settings(hf: Any, ours: Any, truncation: dict[str, Any] | None, padding: dict[str, Any] | None) -> None:
    for tok in (hf, ours):
        if truncation:
            tok.enable_truncation(**truncation)
        else:
            tok.no_truncation()
        if padding:
            tok.enable_padding(**padding)
        else:
            tok.no_padding()


_ERROR, _PANIC = object(), object()


def _hf(call: Any) -> Any:
    """HF's result, or _ERROR (its truncation errors are plain Exceptions; tokenforge's are
    ValueErrors), or _PANIC (HF panics where a pair's stride exceeds what truncation leaves it)."""
    try:
        return call()
    except Exception:  # noqa: BLE001
        return _ERROR
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        return _PANIC


SETTINGS = [
    (None, None),
    ({"max_length": 7, "stride": 2}, None),
    ({"max_length": 9, "stride": 1, "strategy": "only_first"}, None),
    ({"max_length": 6, "direction": "left"}, None),
    (None, {"pad_id": 2, "pad_token": "<pad>", "length": 24}),
    ({"max_length": 8, "stride": 3}, {"pad_id": 2, "pad_token": "<pad>", "direction": "left", "pad_to_multiple_of": 5}),
]


@pytest.mark.parametrize("truncation,padding", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_encode_as_hf(pair_of, truncation, padding):
    name, hf, ours = pair_of
    _settings(hf, ours, truncation, padding)
    try:
        for add in (True, False):
            for words in WORDS:
                for pair in (None, *PAIR_WORDS):
                    where = (name, words, pair, add, truncation, padding)
                    want = _hf(lambda: hf.encode(words, pair, is_pretokenized=True, add_special_tokens=add))
                    if want is _PANIC:
                        continue
                    if want is _ERROR:
                        with pytest.raises(ValueError):
                            ours.encode(words, pair, add, is_pretokenized=True)
                        continue
                    _same(ours.encode(words, pair, add, is_pretokenized=True), want, where)
                    tupled = ours.encode(tuple(words), None if pair is None else tuple(pair), add, is_pretokenized=True)
                    assert _rows(tupled) == _rows(ours.encode(words, pair, add, is_pretokenized=True)), where
    finally:
        _settings(hf, ours, None, None)


@pytest.mark.parametrize("truncation,padding", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_encode_batch_as_hf(pair_of, truncation, padding):
    name, hf, ours = pair_of
    _settings(hf, ours, truncation, padding)
    try:
        inputs: list[Any] = [*WORDS, *[(w, p) for w, p in zip(WORDS, PAIR_WORDS)], (["x"], [])]
        for batch in (WORDS, inputs, inputs[::-1], []):
            for add in (True, False):
                want = _hf(lambda: hf.encode_batch(batch, is_pretokenized=True, add_special_tokens=add))
                if want is _PANIC:
                    continue
                if want is _ERROR:
                    with pytest.raises(ValueError):
                        ours.encode_batch(batch, add, is_pretokenized=True)
                    continue
                for threads in (1, 3):
                    got = ours.encode_batch(batch, add, num_threads=threads, is_pretokenized=True)
                    assert len(got) == len(want)
                    for i, (g, w) in enumerate(zip(got, want)):
                        _same(g, w, (name, i, add, threads, truncation, padding))
    finally:
        _settings(hf, ours, None, None)


def test_longer_words_and_many_of_them(pair_of):
    """Every length of a word up to 40 characters, and a long sequence of words."""
    name, hf, ours = pair_of
    text = " ".join(SENTENCES)
    words = [text[i : i + n] for n in range(41) for i in (0, 7, 31)]
    _same(ours.encode(words, is_pretokenized=True), hf.encode(words, is_pretokenized=True), name)
    many = text.split() * 20
    _same(ours.encode(many, many[:50], is_pretokenized=True), hf.encode(many, many[:50], is_pretokenized=True), name)


def test_errors_as_hf(pair_of):
    _, hf, ours = pair_of
    for bad in ("hello", ["a", 5], 5, None, iter(["a"])):
        with pytest.raises(TypeError):
            hf.encode(bad, is_pretokenized=True)
        with pytest.raises(TypeError):
            ours.encode(bad, is_pretokenized=True)
    with pytest.raises(TypeError):
        ours.encode(["a"], "b", is_pretokenized=True)
    for bad_batch in (["ab"], [["a"], "ab"], [["a"], (["a"], "b")], [5], "ab"):
        with pytest.raises(TypeError):
            hf.encode_batch(bad_batch, is_pretokenized=True)
        with pytest.raises(TypeError):
            ours.encode_batch(bad_batch, is_pretokenized=True)
    with pytest.raises(TypeError, match="is_pretokenized must be True or False"):
        ours.encode(["a"], is_pretokenized=1)
    with pytest.raises(TypeError, match="is_pretokenized must be True or False"):
        ours.encode_batch([["a"]], is_pretokenized="yes")


def test_threads_share_a_tokenizer(pair_of):
    name, _, ours = pair_of
    jobs = [(w, p) for w in WORDS for p in (None, *PAIR_WORDS)] * 4
    want = [_rows(ours.encode(w, p, is_pretokenized=True)) for w, p in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda job: _rows(ours.encode(job[0], job[1], is_pretokenized=True)), jobs))
    assert got == want, name


# -- the kernels without a tokenizer.json: each word as a text of its own ------------------------


def _per_word(tok: Tokenizer, words: list[str]) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    word_ids: list[int] = []
    for w, word in enumerate(words):
        e = tok.encode(word, add_special_tokens=False)
        ids += e.ids
        offsets += [tuple(o) for o in e.offsets]
        word_ids += [w] * len(e.ids)
    return ids, offsets, word_ids


def _tekken(folder: pathlib.Path) -> Tokenizer:
    """A tekken.json of cl100k's first 20,000 ranks (single bytes first, as tekken's rule; see
    test_tekken.py) behind 16 special tokens, with bos."""
    tokens = read_tokens(DATA / "cl100k_base.tiktoken", 20000)
    tokens = [bytes([b]) for b in range(256)] + [t for t in tokens if len(t) > 1]
    doc = {
        "config": {
            "pattern": TEKKEN,
            "num_vocab_tokens": len(tokens),
            "default_vocab_size": 16 + len(tokens),
            "default_num_special_tokens": 16,
            "version": "v3",
        },
        "vocab": [
            {"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": None} for r, t in enumerate(tokens)
        ],
        "special_tokens": [
            {"rank": i, "token_str": t, "is_control": True} for i, t in enumerate(["<unk>", "<s>", "</s>"])
        ],
    }
    path = folder / "tekken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return Tokenizer.from_file(path)


def _kernels() -> list[Any]:
    out = [pytest.param(lambda _: Tokenizer(get_encoding("cl100k_base")), id="byte_level_bpe")]
    out.append(pytest.param(_tekken, id="tekken"))
    model = SHARED / "vocab" / "mistral-7b-v0.1.model"
    out.append(
        pytest.param(
            lambda _: Tokenizer.from_file(model, add_bos=True, add_eos=True),
            id="sentencepiece",
            marks=pytest.mark.skipif(not model.is_file(), reason=f"{model}: not here"),
        )
    )
    return out


@pytest.mark.parametrize("make", _kernels())
def test_other_kernels_encode_each_word(make, tmp_path):
    tok = make(tmp_path)
    for words in WORDS:
        e = tok.encode(words, is_pretokenized=True)
        n_special = len(tok.encode("x").ids) - len(tok.encode("x", add_special_tokens=False).ids)
        inner = [i for i, special in zip(e.ids, e.special_tokens_mask) if not special]
        ids, offsets, word_ids = _per_word(tok, words)
        assert inner == ids, words
        assert [tuple(o) for o, s in zip(e.offsets, e.special_tokens_mask) if not s] == offsets, words
        assert [w for w, s in zip(e.word_ids, e.special_tokens_mask) if not s] == word_ids, words
        assert len(e.ids) - len(inner) == n_special, words
        batch = tok.encode_batch([words, (words, ["a", "b"])], is_pretokenized=True)
        assert batch[0].ids == e.ids
        assert batch[1].ids == tok.encode(words, ["a", "b"], is_pretokenized=True).ids
