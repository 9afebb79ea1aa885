"""Added tokens with HF's flags (single_word, lstrip, rstrip, normalized) and add_tokens /
add_special_tokens, compared with HF `tokenizers` itself: the files are made by HF (BPE,
WordPiece, WordLevel, Unigram behind normalizers), loaded by tokenforge, and both encode and
decode the same texts: hand-picked edge cases and hypothesis strings over an alphabet of the
tokens' text, lookalikes and whitespace."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import AddedToken as HfAddedToken  # noqa: E402
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

import tokenforge  # noqa: E402
from tokenforge import Tokenizer  # noqa: E402

CORPUS = [
    "hello world, this is a test of added tokens",
    "new york is big; the mask hides a word",
    "Héllo wörld ÅSTRÖM café naïve",
    "hey HEY Hey you there",
] * 4

# Tokens with every flag, overlapping each other, some normalized.
TOKENS = [
    HfAddedToken("<mask>", lstrip=True, normalized=False, special=True),
    HfAddedToken("[SEP]", rstrip=True, normalized=False, special=True),
    HfAddedToken("<pad>", lstrip=True, rstrip=True, normalized=False, special=True),
    HfAddedToken("new york", single_word=True, normalized=False),
    HfAddedToken("york", normalized=False),
    HfAddedToken("Hey", normalized=True),
    HfAddedToken("cafÉ", normalized=True, single_word=True),
    HfAddedToken("ab", normalized=False, single_word=True),
    HfAddedToken("abc", normalized=True),
    HfAddedToken("<s>", normalized=True, special=True, lstrip=True),
    HfAddedToken("ÅS", normalized=True, rstrip=True),
]

ALPHABET = [
    "<mask>",
    "<mas",
    "mask>",
    "[SEP]",
    "[SE",
    "<pad>",
    "new york",
    "new",
    "york",
    "yorker",
    "Hey",
    "HEY",
    "hey",
    "cafÉ",
    "café",
    "CAFÉ",
    "ab",
    "abc",
    "ABC",
    "x",
    "<s>",
    "<S>",
    "ÅS",
    "ås",
    "Å",
    "é",
    "e\u0301",
    "_",
    "1",
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u3000",
    ",",
    ".",
]

EDGES = [
    "",
    " ",
    "<mask>",
    " <mask>",
    "a <mask>",
    "a   <mask>   b",
    "<mask><mask>",
    " <mask> <mask> ",
    "[SEP]",
    "[SEP]  x",
    "x [SEP]\n\ny",
    "<pad>",
    "  <pad>  ",
    "a<pad>b",
    "new york",
    "I love new york!",
    "new yorker",
    "anew york",
    "new york_",
    "the york is",
    "Hey HEY hey hEy",
    "cafÉ café CAFÉ xcafé café1",
    "ab abc xab abx ab_ ab,ab",
    "abcab abc",
    "<s>x <s>  <S> <s",
    "ÅS ås  ÅSx  x ÅS",
    "e\u0301 é",
    "\u00a0<mask>\u3000[SEP]\u3000x",
    "<mask>[SEP]<pad>new york",
]


def _hf_tokenizer(kind: str) -> tokenizers.Tokenizer:
    if kind == "bpe":  # byte-level BPE, no normalizer: the fused kernel
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        )
        tok.train_from_iterator(CORPUS, trainer)
    elif kind == "bpe_nfc":  # byte-level BPE behind NFC
        tok = _hf_tokenizer("bpe")
        tok.normalizer = normalizers.NFC()
    elif kind == "wordpiece":  # BERT's pipeline: the fused WordPiece kernel, or staged for normalized tokens
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        tok.train_from_iterator(
            CORPUS, trainers.WordPieceTrainer(vocab_size=200, special_tokens=["[UNK]"], show_progress=False)
        )
    elif kind == "wordlevel":  # the staged pipeline, lowercase and NFKC
        words = sorted({w for line in CORPUS for w in line.lower().split()})
        vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}
        tok = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
    elif kind == "unigram":  # Unigram behind NFKD and Metaspace
        chars = sorted({c for line in CORPUS for c in line.lower()} | set("abcdefghijklmnopqrstuvwxyz"))
        vocab = [("<unk>", 0.0), ("▁", -2.0)] + [(c, -5.0) for c in chars if c != " "]
        vocab += [("▁hello", -3.0), ("▁world", -3.0), ("▁new", -3.0), ("york", -3.5)]
        tok = tokenizers.Tokenizer(models.Unigram(vocab, unk_id=0))
        tok.normalizer = normalizers.Sequence([normalizers.NFKD(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
    else:
        raise AssertionError(kind)
    return tok


KINDS = ["bpe", "bpe_nfc", "wordpiece", "wordlevel", "unigram"]


# The kernel each file runs on: with only raw tokens ("raw") the fused kernels match the tokens
# themselves; normalized tokens behind a normalizer ("all") send the file to the staged pipeline.
KERNELS = {
    ("bpe", "raw"): "byte_level_hf_bpe",
    ("bpe", "all"): "byte_level_hf_bpe",  # no normalizer: normalized tokens match the text as it is
    ("bpe_nfc", "raw"): "byte_level_hf_bpe",
    ("bpe_nfc", "all"): "staged",
    ("wordpiece", "raw"): "wordpiece",
    ("wordpiece", "all"): "staged",
    ("wordlevel", "raw"): "staged",
    ("wordlevel", "all"): "staged",
    ("unigram", "raw"): "unigram_hf",
    ("unigram", "all"): "staged",
}


@pytest.fixture(scope="module", params=sorted(KERNELS), ids="-".join)
def pair(request, tmp_path_factory):
    kind, which = request.param
    hf = _hf_tokenizer(kind)
    hf.add_tokens(TOKENS if which == "all" else [t for t in TOKENS if not t.normalized])
    path = tmp_path_factory.mktemp("added") / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(path)
    assert ours.kernel == KERNELS[request.param]
    return hf, ours


def _check(hf, ours, text: str) -> None:
    expected, got = hf.encode(text, add_special_tokens=False), ours.encode(text, add_special_tokens=False)
    assert list(got.ids) == expected.ids, text
    assert list(got.offsets) == [tuple(o) for o in expected.offsets], text
    # HF shows an added token by the text it matched (its stripped whitespace included); tokenforge
    # by its name: compare the others, and the names where no whitespace was stripped. (HF's
    # Unigram shows an unknown piece by its text, tokenforge by the unk token: left out here.)
    size = hf.get_vocab_size(False)
    for i, (ours_t, theirs) in enumerate(zip(got.tokens, expected.tokens)):
        if ours_t != theirs and not (expected.ids[i] < size and hf.id_to_token(expected.ids[i]) == ours_t):
            assert theirs.strip() == ours_t and expected.ids[i] >= size, (text, i)
    for skip in (True, False):
        assert ours.decode(expected.ids, skip_special_tokens=skip) == hf.decode(expected.ids, skip), (text, skip)


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases(pair, text):
    hf, ours = pair
    _check(hf, ours, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(ALPHABET), max_size=14).map("".join))
def test_hypothesis_strings(pair, text):
    hf, ours = pair
    _check(hf, ours, text)


def test_flags_read_and_written(pair, tmp_path):
    hf, ours = pair
    decoder = ours.get_added_tokens_decoder()
    for i, token in hf.get_added_tokens_decoder().items():
        a = decoder[i]
        assert (a.content, a.special, a.single_word, a.lstrip, a.rstrip, a.normalized) == (
            token.content,
            token.special,
            token.single_word,
            token.lstrip,
            token.rstrip,
            token.normalized,
        )
    assert ours.get_vocab_size(True) == hf.get_vocab_size(True)
    assert ours.get_vocab_size(False) == hf.get_vocab_size(False)
    assert ours.get_vocab(False) == hf.get_vocab(False)
    assert ours.get_vocab(True) == hf.get_vocab(True)
    for i in range(hf.get_vocab_size(True)):
        assert ours.id_to_token(i) == hf.id_to_token(i)


def test_split_special_tokens(pair):
    hf, ours = pair
    hf2 = tokenizers.Tokenizer.from_str(hf.to_str())
    hf2.encode_special_tokens = True
    ours.split_special_tokens = True
    try:
        for text in EDGES:
            _check(hf2, ours, text)
    finally:
        ours.split_special_tokens = False


def test_written_file_keeps_flags(tmp_path):
    hf = _hf_tokenizer("wordpiece")
    hf.add_tokens([HfAddedToken("[X]", lstrip=True, rstrip=True, single_word=True, normalized=False)])
    path = tmp_path / "in.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(path)
    out = tmp_path / "out.json"
    ours.save(out)
    again = tokenizers.Tokenizer.from_file(str(out))
    assert again.get_added_tokens_decoder() == hf.get_added_tokens_decoder()


@pytest.mark.parametrize("kind", KINDS)
def test_add_tokens_after_load(kind, tmp_path):
    hf = _hf_tokenizer(kind)
    hf.add_special_tokens(["<s>"])
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(path)
    calls = [
        ("add_tokens", ["hello", "brandnew", HfAddedToken("<mask>", lstrip=True, special=True)]),
        ("add_special_tokens", ["[EXTRA]", "<s>", HfAddedToken("zz", single_word=True)]),
        ("add_tokens", ["brandnew", "", HfAddedToken("Hey", normalized=True, rstrip=True)]),
        ("add_tokens", [HfAddedToken("brandnew", lstrip=True)]),  # the same content, new flags
    ]
    for name, tokens in calls:
        assert getattr(ours, name)(tokens) == getattr(hf, name)(tokens), (name, tokens)
        assert ours.get_vocab(True) == hf.get_vocab(True)
        assert ours.get_vocab_size(True) == hf.get_vocab_size(True)
        for text in [*EDGES, "hello brandnew  <mask> [EXTRA]zz zz hey HEY <s>"]:
            _check(hf, ours, text)


def test_add_tokens_keeps_settings(tmp_path):
    hf = _hf_tokenizer("wordlevel")
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(path)
    ours.enable_truncation(3)
    assert ours.add_tokens([tokenforge.AddedToken("qq", 0, special=False)]) == 1
    assert ours.truncation is not None and ours.truncation["max_length"] == 3
    assert ours.token_to_id("qq") == ours.get_vocab_size(False)
    with pytest.raises(TypeError):
        ours.add_tokens("qq")


@pytest.mark.parametrize("add_prefix_space", [False, True])
def test_roberta_mask(tmp_path, add_prefix_space):
    """RoBERTa's form: byte-level BPE, <mask> with lstrip, RobertaProcessing trimming offsets (the
    space <mask> took comes off its offsets, as HF trims the text it matched)."""
    hf = _hf_tokenizer("bpe")
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    hf.add_special_tokens(["<s>", "</s>", "<pad>", HfAddedToken("<mask>", lstrip=True, special=True)])
    hf.post_processor = processors.RobertaProcessing(
        ("</s>", hf.token_to_id("</s>")), ("<s>", hf.token_to_id("<s>")), add_prefix_space=add_prefix_space
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(path)
    for text in ["<mask>", " <mask>", "a <mask> b", "a  <mask>", "hello<mask>world", "x \n<mask>  <mask>"]:
        for pair in (None, " <mask> y"):
            expected, got = hf.encode(text, pair), ours.encode(text, pair)
            assert list(got.ids) == expected.ids, text
            assert list(got.offsets) == [tuple(o) for o in expected.offsets], text
            assert ours.decode(expected.ids, False) == hf.decode(expected.ids, False)
            assert ours.decode(expected.ids) == hf.decode(expected.ids)


def test_batch_and_pairs(pair):
    hf, ours = pair
    texts = EDGES[1:]
    pairs = list(zip(texts, reversed(texts)))
    expected = hf.encode_batch(pairs)
    got = ours.encode_batch(pairs)
    for e, g in zip(expected, got):
        assert list(g.ids) == e.ids
        assert list(g.offsets) == [tuple(o) for o in e.offsets]
        assert list(g.type_ids) == e.type_ids


@pytest.mark.parametrize("kind", ["bpe", "wordpiece", "wordlevel"])
def test_rstrip_then_token_starting_with_space(kind, tmp_path):
    """An rstrip token takes the whitespace the next token starts with: HF's spans then overlap."""
    hf = _hf_tokenizer(kind)
    hf.add_tokens([HfAddedToken("[A]", rstrip=True, normalized=False), HfAddedToken(" bb", normalized=False)])
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(path)
    for text in ["[A] bb x", "[A]  bb", "x[A] bbb", "é[A] bbé ü"]:
        expected, got = hf.encode(text), ours.encode(text)
        assert list(got.ids) == expected.ids, text
        assert list(got.offsets) == [tuple(o) for o in expected.offsets], text


def _added(i: int, content: str, special: bool = True) -> dict:
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False} | {
        "normalized": not special,
        "special": special,
    }


@pytest.mark.parametrize(
    "added",
    [
        [_added(500, "<x>"), _added(12, "<y>", False), _added(3, "d")],  # far above; a vocabulary token
        [_added(9, "<x>"), _added(8, "<y>")],  # listed out of order
        [_added(8, "<x>"), _added(12, "<y>"), _added(12, "<y>")],  # a gap, and a token listed twice
        [_added(8, "<x>"), _added(9, "<y>")],  # already as HF numbers them: no warning
    ],
)
@pytest.mark.parametrize("model", ["WordLevel", "BPE"])
def test_added_token_ids_renumbered_as_hf(tmp_path, added, model):
    """HF ignores an added token's "id" when it loads a file: tokens beyond the vocabulary take the
    next ids in the order listed. Ids, tokens, decode and the vocabulary must follow, with a
    warning where the file's ids differ."""
    import json
    import warnings

    vocab = {c: i for i, c in enumerate("abcdefgh")}
    kind = models.WordLevel(vocab, unk_token="a") if model == "WordLevel" else models.BPE(vocab, [], unk_token="a")
    hf = tokenizers.Tokenizer(kind)
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    doc = json.loads(hf.to_str())
    doc["added_tokens"] = added
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    hf = tokenizers.Tokenizer.from_file(str(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = Tokenizer.from_file(path)
    renumbered = [a["content"] for a in added if hf.token_to_id(a["content"]) != a["id"]]
    assert [str(w.message).split("'")[1] for w in caught] == list(dict.fromkeys(renumbered))
    for text in ["a <x> b <y> c d", "<y><x>d<x>", "h <y>"]:
        want = hf.encode(text)
        got = ours.encode(text)
        assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), text
        assert ours.decode(got.ids) == hf.decode(want.ids)
        assert ours.decode(got.ids, skip_special_tokens=False) == hf.decode(want.ids, skip_special_tokens=False)
    assert ours.get_vocab(with_added_tokens=True) == hf.get_vocab(with_added_tokens=True)
    assert ours.get_vocab_size(with_added_tokens=True) == hf.get_vocab_size(with_added_tokens=True)
