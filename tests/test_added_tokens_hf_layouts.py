"""Every added-token layout HF tokenizers 0.23.3 loads, loaded as HF loads it.

HF's deserializer ignores an added token's listed "id" (it only warns) and adds the list in one
add_tokens call (tokenizer/serialization.rs, tokenizer/added_vocabulary.rs): a content takes
the id it already has (as an added token, else in the model's vocabulary) or the next id from
the model's size; a content listed again replaces its earlier entry (the last flags hold, but
its special text stays special for decode and split_special_tokens); a token whose id another
content took replaces that one (the other content keeps the id in token_to_id and get_vocab);
an empty content is skipped. Each layout below (a duplicate or collision shape) is loaded on
each model type (BPE, WordPiece, WordLevel, Unigram), on the fused kernels and the staged one,
and compared with HF on everything a loaded file shows: ids, tokens, offsets (with and without
special tokens, with split_special_tokens), decode (skipping special tokens or not),
get_vocab, get_vocab_size, id_to_token, token_to_id, get_added_tokens_decoder, and the
added_tokens that save() writes (which HF reloads to the same ids).
"""

from __future__ import annotations

import json
import re
import shutil
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenforge import Tokenizer

hf = pytest.importorskip("tokenizers")

FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")


def _entry(i: int, content: str, special: bool = False, **flags: bool) -> dict:
    out = {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False}
    out["normalized"] = not special
    out["special"] = special
    out.update(flags)
    return out


# Layouts: name -> entries built from (n, v, vi, w): n the first id past the vocabulary, v a
# vocabulary token and vi its id, w another vocabulary token and its id. Each is a shape HF loads;
# tokenforge once refused most of them.
LAYOUTS = {
    "special_then_plain": lambda n, v, vi, w: [_entry(n, "<x>", True), _entry(n, "<x>", lstrip=True)],
    "plain_then_special": lambda n, v, vi, w: [_entry(n, "<x>"), _entry(n, "<x>", True, rstrip=True)],
    "same_twice": lambda n, v, vi, w: [_entry(n, "<x>", True), _entry(n, "<x>", True), _entry(n + 1, "<y>")],
    "normalized_differs": lambda n, v, vi, w: [_entry(n, "<x>", normalized=False), _entry(n, "<x>", normalized=True)],
    "single_word_differs": lambda n, v, vi, w: [_entry(n, "<x>", True), _entry(n, "<x>", True, single_word=True)],
    "three_listings": lambda n, v, vi, w: [
        _entry(n, "<x>", True),
        _entry(n + 1, "<y>"),
        _entry(n, "<x>", lstrip=True, rstrip=True),
    ],
    "two_contents_one_id": lambda n, v, vi, w: [_entry(n, "<x>", True), _entry(n, "<y>")],
    "one_content_two_ids": lambda n, v, vi, w: [_entry(n, "<x>", True), _entry(n + 1, "<x>", True)],
    "vocab_token_other_id": lambda n, v, vi, w: [_entry(n + 5, v, True), _entry(n, "<x>")],
    "vocab_token_at_another_tokens_id": lambda n, v, vi, w: [_entry(w[1], v, True, rstrip=True)],
    "new_content_at_vocab_id": lambda n, v, vi, w: [_entry(w[1], "<x>", True)],
    "vocab_token_special_then_plain": lambda n, v, vi, w: [_entry(vi, v, True), _entry(vi, v)],
    # a special token matched by its normalized form: named and decoded by it, so decode keeps it
    "special_normalized_changed": lambda n, v, vi, w: [_entry(n, "<X>", True, normalized=True), _entry(n + 1, "<y>")],
    "empty_content": lambda n, v, vi, w: [_entry(n, "", True), _entry(n, "<x>", True)],
    "far_id": lambda n, v, vi, w: [_entry(2**31, "<x>", True), _entry(7, "<y>")],
    "out_of_order": lambda n, v, vi, w: [_entry(n + 3, "<y>", True), _entry(n, "<x>", lstrip=True)],
}

CORPUS = ["hello world", "the quick brown fox", "low lower lowest", "hello there world"] * 10
TEXTS = [
    "hello <x> world",
    "hello  <x>  <y>  world",
    "<x><y>hello<x>",
    "a<x>b <y>c",
    "hello world lower",
    "  <x>",
    "",
]


def _build(kind: str):
    """A small HF tokenizer of `kind` (trained by HF itself) and the kernel tokenforge runs it on."""
    from tokenizers import Tokenizer as HfTokenizer
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

    if kind == "byte_level_bpe":
        tok = HfTokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        return tok, trainer, "byte_level_hf_bpe"
    if kind == "metaspace_bpe":
        tok = HfTokenizer(models.BPE(byte_fallback=True, fuse_unk=True, unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.BpeTrainer(vocab_size=60, special_tokens=["<unk>"])
        return tok, trainer, "spm_hf_bpe"
    if kind == "staged_bpe":
        tok = HfTokenizer(models.BPE(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.normalizer = normalizers.Lowercase()
        return tok, trainers.BpeTrainer(vocab_size=60, special_tokens=["[UNK]"]), "staged"
    if kind == "wordpiece":
        tok = HfTokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer()
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
        return tok, trainer, "wordpiece"
    if kind == "wordlevel":
        tok = HfTokenizer(models.WordLevel(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        return tok, trainers.WordLevelTrainer(special_tokens=["[UNK]"]), "staged"
    if kind == "unigram":
        tok = HfTokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=40, special_tokens=["<unk>"], unk_token="<unk>")
        return tok, trainer, "unigram_hf"
    if kind == "staged_unigram":
        tok = HfTokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        trainer = trainers.UnigramTrainer(vocab_size=40, special_tokens=["<unk>"], unk_token="<unk>")
        return tok, trainer, "staged"
    raise AssertionError(kind)


KINDS = ["byte_level_bpe", "metaspace_bpe", "staged_bpe", "wordpiece", "wordlevel", "unigram", "staged_unigram"]


def _file(tmp_path, kind: str, layout: str) -> tuple[str, str, str]:
    """The file of `layout` over a tokenizer of `kind`: its path, kernel and vocabulary token."""
    tok, trainer, kernel = _build(kind)
    tok.train_from_iterator(CORPUS, trainer)
    doc = json.loads(tok.to_str())
    vocab = tok.get_vocab(with_added_tokens=False)
    n = max(vocab.values()) + 1
    by_id = {i: t for t, i in vocab.items()}
    # the longest whole word of the vocabulary (a word-start token, not a continuation)
    word = min((t for t in vocab if t.lstrip("Ġ▁").isalpha() and not t.startswith("##")), key=lambda t: (-len(t), t))
    other = min(i for i in by_id if by_id[i] != word and by_id[i] not in ("<unk>", "[UNK]"))
    doc["added_tokens"] = LAYOUTS[layout](n, word, vocab[word], (by_id[other], other))
    path = tmp_path / f"{kind}-{layout}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path), kernel, word.lstrip("Ġ▁")


def _load(path: str) -> Tokenizer:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Tokenizer.from_file(path)


def _flags(token) -> tuple:
    return (token.content, *(getattr(token, f) for f in FLAGS))


def _compare(ours: Tokenizer, ref, texts: list[str], what: str) -> None:
    for text in texts:
        for add in (False, True):
            want = ref.encode(text, add_special_tokens=add)
            got = ours.encode(text, add_special_tokens=add)
            assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), (what, text, add)
            for skip in (True, False):
                assert ours.decode(got.ids, skip_special_tokens=skip) == ref.decode(want.ids, skip), (what, text, skip)
    size = ref.get_vocab_size(with_added_tokens=True)
    ids = list(range(size + 3))
    for skip in (True, False):
        present = [i for i in ids if ref.id_to_token(i) is not None]
        assert ours.decode(present, skip_special_tokens=skip) == ref.decode(present, skip), (what, skip)
        # every id up to the top one, gaps included: HF skips an id no token has
        every = list(range(max(ref.get_vocab(True).values()) + 1))
        assert ours.decode(every, skip_special_tokens=skip) == ref.decode(every, skip), (what, skip)
    for with_added in (True, False):
        assert ours.get_vocab(with_added) == ref.get_vocab(with_added), (what, with_added)
        assert ours.get_vocab_size(with_added) == ref.get_vocab_size(with_added), (what, with_added)
    assert [ours.id_to_token(i) for i in ids] == [ref.id_to_token(i) for i in ids], what
    contents = ["<x>", "<y>", "", *ref.get_vocab(True)]
    assert [ours.token_to_id(c) for c in contents] == [ref.token_to_id(c) for c in contents], what
    got_decoder = {i: _flags(t) for i, t in ours.get_added_tokens_decoder().items()}
    want_decoder = {i: _flags(t) for i, t in ref.get_added_tokens_decoder().items()}
    assert got_decoder == want_decoder, what


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("kind", KINDS)
def test_layout_loads_as_hf(tmp_path, kind, layout):
    path, kernel, word = _file(tmp_path, kind, layout)
    ref = hf.Tokenizer.from_file(path)
    ours = _load(path)
    # added tokens matched by their normalized form behind a normalizer run staged (compile.py)
    staged = ours.spec.normalizer is not None and any(a.normalized for a in ours.added_tokens)
    assert ours.kernel == ("staged" if staged else kernel)
    texts = [*TEXTS, f"{word} <x> {word}", f"<x>{word}<y> {word}"]
    _compare(ours, ref, texts, f"{kind}/{layout}")
    # split_special_tokens: HF's encode_special_tokens leaves every special text as text
    ours.split_special_tokens = True
    ref.encode_special_tokens = True
    for text in texts:
        want, got = ref.encode(text), ours.encode(text)
        assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), (kind, layout, text)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("kind", ["byte_level_bpe", "wordpiece", "unigram", "wordlevel"])
def test_save_writes_what_hf_writes(tmp_path, kind, layout):
    path, _, _ = _file(tmp_path, kind, layout)
    ref = hf.Tokenizer.from_file(path)
    ours = _load(path)
    out = tmp_path / "saved.json"
    ours.save(out)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["added_tokens"] == json.loads(ref.to_str())["added_tokens"]
    again = hf.Tokenizer.from_file(str(out))
    for text in TEXTS:
        assert again.encode(text).ids == ref.encode(text).ids, text


def _gap_file(tmp_path, model: str, added: list[dict]) -> str:
    """A WordLevel, BPE or WordPiece vocabulary with an id gap below its size: HF's next added id
    (the vocabulary's count) is a vocabulary token's id."""
    from tokenizers import models, pre_tokenizers

    vocab = {"a": 0, "b": 1, "c": 3, "d": 4, "[UNK]": 5}
    kinds = {"WordLevel": models.WordLevel, "WordPiece": models.WordPiece}
    kind = kinds[model](vocab, unk_token="[UNK]") if model in kinds else models.BPE(vocab, [], unk_token="[UNK]")
    tok = hf.Tokenizer(kind)
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    doc = json.loads(tok.to_str())
    doc["added_tokens"] = added
    path = tmp_path / f"gap-{model}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


GAP_LAYOUTS = {
    "new_takes_vocab_id": [_entry(9, "<x>")],
    "new_then_vocab_token": [_entry(9, "<x>"), _entry(4, "d", True)],
    "new_vocab_new": [_entry(9, "<x>"), _entry(4, "d", True), _entry(4, "<x>", lstrip=True)],
    "special_new_then_plain": [_entry(9, "<x>", True), _entry(6, "<y>"), _entry(9, "<x>", rstrip=True)],
}


@pytest.mark.parametrize("layout", sorted(GAP_LAYOUTS))
@pytest.mark.parametrize("model", ["WordLevel", "BPE", "WordPiece"])
def test_vocabulary_with_an_id_gap(tmp_path, model, layout):
    path = _gap_file(tmp_path, model, GAP_LAYOUTS[layout])
    ref = hf.Tokenizer.from_file(path)
    ours = _load(path)
    texts = ["a <x> b d <y> c", "d<x>d", "a  <x>  d", "<y>"]
    _compare(ours, ref, texts, f"{model}/{layout}")
    out = tmp_path / "saved.json"
    ours.save(out)
    assert json.loads(out.read_text(encoding="utf-8"))["added_tokens"] == json.loads(ref.to_str())["added_tokens"]
    again = hf.Tokenizer.from_file(str(out))
    for text in texts:
        assert again.encode(text).ids == ref.encode(text).ids, text


def test_listed_ids_that_differ_warn(tmp_path):
    """HF warns about a listed id that is not the token's; tokenforge warns once per content."""
    path, _, _ = _file(tmp_path, "wordlevel", "one_content_two_ids")
    with pytest.warns(UserWarning, match=r"added_tokens\[1\]\.id: added token '<x>' is listed with id"):
        Tokenizer.from_file(path)


@pytest.mark.parametrize(
    "change, where",
    [
        (lambda a: a.update(id=-1), "added_tokens[0].id"),
        (lambda a: a.update(id=2**32), "added_tokens[0].id"),
        (lambda a: a.update(id=1.0), "added_tokens[0].id"),
        (lambda a: a.update(content=None), "added_tokens[0].content"),
        (lambda a: a.update(special="yes"), "added_tokens[0].special"),
        (lambda a: a.update(rstrip=1), "added_tokens[0].rstrip"),
    ],
)
def test_what_hf_refuses_is_refused(tmp_path, change, where):
    from tokenforge.errors import FormatError

    path, _, _ = _file(tmp_path, "wordlevel", "same_twice")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    change(doc["added_tokens"][0])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    with pytest.raises(Exception, match=r"expected|invalid|overflow"):  # HF serde error
        hf.Tokenizer.from_file(path)
    with pytest.raises(FormatError, match=re.escape(where)):
        Tokenizer.from_file(path)


@pytest.mark.parametrize("layout", ["special_then_plain", "two_contents_one_id", "three_listings"])
def test_add_tokens_after_load_as_hf(tmp_path, layout):
    """Tokenizer.add_tokens continues HF's added vocabulary, replaced contents and all."""
    path, _, _ = _file(tmp_path, "wordlevel", layout)
    ref = hf.Tokenizer.from_file(path)
    ours = _load(path)
    for step in (["<z>", "<x>"], [hf.AddedToken("<x>", special=False, rstrip=True)], ["<y>", "hello"]):
        assert ours.add_tokens(step) == ref.add_tokens(step)
        _compare(ours, ref, TEXTS, f"{layout} + {step}")


CONFIG_DECODERS = {
    "same_as_file": lambda n: {str(n): {"content": "<x>", "special": True}},
    "flags_differ": lambda n: {str(n): {"content": "<x>", "special": False, "lstrip": True, "rstrip": True}},
    "new_token": lambda n: {str(n + 7): {"content": "<z>", "special": True}},
    "out_of_order": lambda n: {
        str(n + 9): {"content": "<y>", "special": True, "rstrip": True},
        str(n): {"content": "<x>", "special": False},
    },
}


@pytest.mark.parametrize("decoder", sorted(CONFIG_DECODERS))
@pytest.mark.parametrize("layout", ["special_then_plain", "two_contents_one_id", "same_twice"])
def test_transformers_config_added_tokens_decoder(tmp_path, layout, decoder):
    """transformers adds tokenizer_config.json's added_tokens_decoder over tokenizer.json's added
    tokens (one add_tokens call, by id): from_pretrained does the same."""
    transformers = pytest.importorskip("transformers")
    path, _, _ = _file(tmp_path, "wordlevel", layout)
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(path, folder / "tokenizer.json")
    n = hf.Tokenizer.from_file(path).get_vocab_size(with_added_tokens=False)
    entries = {
        k: {"single_word": False, "lstrip": False, "rstrip": False, "normalized": not v["special"], **v}
        for k, v in CONFIG_DECODERS[decoder](n).items()
    }
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "added_tokens_decoder": entries}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = Tokenizer.from_pretrained(folder)
    _compare(ours, ref.backend_tokenizer, [*TEXTS, "<z> <x><y>"], f"{layout}/{decoder}")
    for text in TEXTS:
        ids = ref(text)["input_ids"]
        assert ours.encode(text).ids == ids, text
        assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=True), text


_MIXED: dict = {}


def _mixed_pair(tmp_path_factory, kind: str, layout: str):
    if (kind, layout) not in _MIXED:
        path, _, word = _file(tmp_path_factory.mktemp("mixed"), kind, layout)
        _MIXED[kind, layout] = (_load(path), hf.Tokenizer.from_file(path), word)
    return _MIXED[kind, layout]


PIECES = st.sampled_from(["<x>", "<y>", "<X>", " ", "  ", "\t", "\n", "a", "lo", "é", "日", "\u3000", "hello"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PIECES, max_size=12).map("".join))
def test_mixed_texts(tmp_path_factory, text):
    for kind in ("byte_level_bpe", "wordpiece", "unigram", "staged_bpe"):
        for layout in ("three_listings", "special_normalized_changed", "two_contents_one_id"):
            ours, ref, word = _mixed_pair(tmp_path_factory, kind, layout)
            for t in (text, text + word):
                want, got = ref.encode(t), ours.encode(t)
                assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), (kind, layout, t)
                assert ours.decode(got.ids) == ref.decode(want.ids), (kind, layout, t)
