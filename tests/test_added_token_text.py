"""The token text and offsets of added tokens matched with lstrip / rstrip, as HF tokenizers
0.23.3 shows them: HF's AddedVocabulary makes each match a token whose value is the text it
covers (tokenizer/added_vocabulary.rs, split_with_indices: the slice, the whitespace lstrip and
rstrip took in included), so Encoding.tokens holds e.g. "  <mask> " rather than "<mask>", and
its offsets span that text (a ByteLevel post-processor with trim_offsets then trims the
whitespace off the offsets, not off the token). Checked on every kernel that runs
tokenizer.json files (fused byte_level_hf_bpe, fused spm_hf_bpe, fused wordpiece, fused
unigram_hf, staged), on
pairs, truncated parts and batches, against HF on the same file.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import Tokenizer

hf = pytest.importorskip("tokenizers")

ADDED = [
    {"content": "<mask>", "lstrip": True, "rstrip": True, "special": True, "normalized": False},
    {"content": "<l>", "lstrip": True, "rstrip": False, "special": False, "normalized": False},
    {"content": "<r>", "lstrip": False, "rstrip": True, "special": True, "normalized": False},
    {"content": "<plain>", "lstrip": False, "rstrip": False, "special": True, "normalized": False},
    {"content": "word", "lstrip": True, "rstrip": True, "special": False, "normalized": True},
    # (an lstrip span starting where an rstrip match before it ended: "world " for " world")
    {"content": "\n", "lstrip": True, "rstrip": True, "special": False, "normalized": False},
    {"content": " world", "lstrip": True, "rstrip": True, "special": True, "normalized": False},
]

TEXTS = [
    "hello  <mask>  world",
    "a\t<mask>\nb",
    "<mask>",
    "   <mask>   ",
    "x <l> y <r>  z <plain> w",
    "x<l>y<r>z",
    "a word b  word\tc",
    "<mask><mask> <mask>  <l><r> <r>",
    "日本 <mask> 語 <l>\u3000<r>\u00a0x",
    "",
    "a  \n  world x",
    "Hello  \n  world worldhello",
]


def _byte_level(hf_tok, prefix: bool = False):
    from tokenizers import decoders, pre_tokenizers

    hf_tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix)
    hf_tok.decoder = decoders.ByteLevel()


def _files(tmp_path) -> dict[str, tuple[str, str]]:
    """name -> (tokenizer.json path, the kernel tokenforge should run it on)."""
    from tokenizers import Tokenizer as HfTokenizer
    from tokenizers import models, normalizers, pre_tokenizers, processors, trainers

    corpus = [t for t in TEXTS if t] * 20 + ["the quick brown fox jumps over the lazy dog"] * 20
    out = {}

    def train(name, tok, trainer, kernel, added=ADDED):
        tok.train_from_iterator(corpus, trainer)
        doc = json.loads(tok.to_str())
        vocab = tok.get_vocab()
        ids, next_id = [], max(vocab.values()) + 1
        for a in added:  # (the vocabulary's id, else the next one: as HF numbers them)
            ids.append(vocab.get(a["content"], next_id))
            next_id += a["content"] not in vocab
        doc["added_tokens"] = [{"id": i, "single_word": False, **a} for i, a in zip(ids, added, strict=True)]
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        out[name] = (str(path), kernel)

    bl = HfTokenizer(models.BPE())
    _byte_level(bl)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    train("byte_level", bl, trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet), "byte_level_hf_bpe")

    trimmed = HfTokenizer(models.BPE())
    _byte_level(trimmed)
    trimmed.post_processor = processors.ByteLevel(trim_offsets=True)
    train(
        "byte_level_trim", trimmed, trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet), "byte_level_hf_bpe"
    )
    trimmed.normalizer = normalizers.Lowercase()  # (a normalizer the fused kernel does not run)
    train("byte_level_trim_staged", trimmed, trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet), "staged")

    spm = HfTokenizer(models.BPE(byte_fallback=True, unk_token="<unk>"))
    spm.pre_tokenizer = pre_tokenizers.Metaspace()
    from tokenizers import decoders

    spm.decoder = decoders.Metaspace()
    train(
        "metaspace",
        spm,
        trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>"] + [f"<0x{b:02X}>" for b in range(256)]),
        "spm_hf_bpe",
    )

    wp = HfTokenizer(models.WordPiece(unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.decoder = decoders.WordPiece()  # (without a decoder the file runs staged: HF joins tokens with spaces)
    raw = [{**a, "normalized": False} for a in ADDED]  # (a normalized token behind BERT's normalizer runs staged)
    train("wordpiece", wp, trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"]), "wordpiece", raw)
    train("wordpiece_norm", wp, trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"]), "staged")

    unigram = HfTokenizer(models.Unigram())
    unigram.pre_tokenizer = pre_tokenizers.Metaspace()
    unigram.decoder = decoders.Metaspace()
    unigram_trainer = trainers.UnigramTrainer(vocab_size=60, special_tokens=["<unk>"], unk_token="<unk>")
    train("unigram", unigram, unigram_trainer, "unigram_hf", raw)
    unigram_staged = HfTokenizer(models.Unigram())
    unigram_staged.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    train("unigram_staged", unigram_staged, unigram_trainer, "staged", raw)

    staged = HfTokenizer(models.BPE())
    staged.normalizer = normalizers.NFKC()
    staged.pre_tokenizer = pre_tokenizers.Whitespace()
    train("staged", staged, trainers.BpeTrainer(vocab_size=300), "staged")
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("added_text"))


NAMES = [
    "byte_level",
    "byte_level_trim",
    "byte_level_trim_staged",
    "metaspace",
    "wordpiece",
    "wordpiece_norm",
    "unigram",
    "unigram_staged",
    "staged",
]


def _check(ours, theirs, text, pair=None) -> None:
    a, b = ours.encode(text, pair), theirs.encode(text, pair)
    assert a.ids == b.ids, (text, pair)
    assert a.tokens == b.tokens, (text, pair)
    assert a.offsets == b.offsets, (text, pair)
    assert a.word_ids == b.word_ids, (text, pair)


@pytest.mark.parametrize("name", NAMES)
def test_added_token_text_and_offsets(files, name):
    path, kernel = files[name]
    ours, theirs = Tokenizer.from_file(path), hf.Tokenizer.from_file(path)
    assert ours.kernel == kernel
    for text in TEXTS:
        _check(ours, theirs, text)
    _check(ours, theirs, TEXTS[0], TEXTS[4])
    _check(ours, theirs, TEXTS[1], TEXTS[7])
    got = ours.encode_batch(TEXTS)
    want = theirs.encode_batch(TEXTS)
    assert [e.tokens for e in got] == [e.tokens for e in want]


@pytest.mark.parametrize("name", NAMES)
def test_truncated_parts_and_padding(files, name):
    path, _ = files[name]
    ours, theirs = Tokenizer.from_file(path), hf.Tokenizer.from_file(path)
    for tok in (ours, theirs):
        tok.enable_truncation(6, stride=1)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")
    for text, pair in ((TEXTS[7], None), (TEXTS[0], TEXTS[7]), (TEXTS[8], TEXTS[4])):
        a, b = ours.encode(text, pair), theirs.encode(text, pair)
        assert a.tokens == b.tokens
        assert [o.tokens for o in a.overflowing] == [o.tokens for o in b.overflowing]
        assert [o.offsets for o in a.overflowing] == [o.offsets for o in b.overflowing]


PIECES = st.sampled_from(["<mask>", "<l>", "<r>", "<plain>", "word", " ", "  ", "\t", "\n", "a", "é", "日", "\u3000"])


@settings(max_examples=80, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_any_mix(files, text):
    for name in NAMES:
        path, _ = files[name]
        _check(_cached(path), _cached_hf(path), text)


_CACHE: dict = {}


def _cached(path):
    return _CACHE.setdefault(("ours", path), Tokenizer.from_file(path))


def _cached_hf(path):
    return _CACHE.setdefault(("hf", path), hf.Tokenizer.from_file(path))
