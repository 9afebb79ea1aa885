"""The transformers-style surface of `Tokenizer` (transformers_api.py) against transformers 5 on
the same folder: the call (`tok(text, text_pair, padding=..., truncation=..., ...)`, every
argument, one text, a pair, batches of texts and of pairs), its BatchEncoding (keys, values,
tokens(i), word_ids(i), sequence_ids(i), char_to_token, ...), convert_ids_to_tokens,
convert_tokens_to_ids, tokenize, batch_decode and decode's clean_up_tokenization_spaces, the
special-token attributes and settings, and the errors transformers raises.

Folders: three built here with HF tokenizers (a byte-level BPE, a Metaspace Unigram, a BERT
WordPiece), each beside a tokenizer_config.json, and the real folders of ../shared/vocab/hf where
present ($TOKENFORGE_SHARED; skipped otherwise)."""

from __future__ import annotations

import inspect
import json
import os
import pathlib
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tokenforge import Tokenizer
from tokenforge.transformers_api import _ENCODE_PLUS_KEYWORDS

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")
np = pytest.importorskip("numpy")
from test_pretokenized import _bert, _bpe, _unigram  # noqa: E402 (the same built tokenizers)

REPO = pathlib.Path(__file__).resolve().parents[1]
SHARED = pathlib.Path(os.environ.get("TOKENFORGE_SHARED", REPO.parent / "shared"))
REAL_FOLDERS = ["gemma3", "llama2", "llama3", "qwen3"]

TEXTS = [
    "hello world, the quick brown fox",
    "Don't stop , it 's fine !",
    "",
    "é 東京 fox",
    "the lazy dog " * 12,
    "x",
]
PAIRS = ["a pair text", "fox", "", "the dog ran", "hello", "world " * 9]


def _bpe_folder(folder: pathlib.Path) -> pathlib.Path:
    """A byte-level BPE (GPT-2's stages) with a bos/eos template, no pad token in its config."""
    tok = _bpe(add_prefix_space=False)
    folder.mkdir()
    tok.save(str(folder / "tokenizer.json"))
    config = {"bos_token": "<s>", "eos_token": "</s>", "extra_special_tokens": ["<pad>"], "model_max_length": 24}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def _unigram_folder(folder: pathlib.Path) -> pathlib.Path:
    """A Metaspace Unigram (T5-like: "$A </s>"), its pad token "<pad>", padding on the left."""
    tok = _unigram()
    folder.mkdir()
    tok.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "padding_side": "left",
        "clean_up_tokenization_spaces": True,
        "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def _bert_folder(folder: pathlib.Path) -> pathlib.Path:
    """A BERT WordPiece folder (BertTokenizer: token_type_ids by default), truncating on the left."""
    tok = _bert()
    folder.mkdir()
    tok.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "BertTokenizer",
        "do_lower_case": True,
        "model_max_length": 16,
        "truncation_side": "left",
        "clean_up_tokenization_spaces": True,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


BUILT = {"bpe": _bpe_folder, "unigram": _unigram_folder, "bert": _bert_folder}


def _load(folder: pathlib.Path) -> tuple[Any, Tokenizer]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    return ref, Tokenizer.from_pretrained(folder)


@pytest.fixture(scope="module", params=list(BUILT))
def pair_of(request, tmp_path_factory):
    """(name, transformers' tokenizer, tokenforge's) of a folder built here."""
    folder = BUILT[request.param](tmp_path_factory.mktemp("folders") / request.param)
    ref, ours = _load(folder)
    if request.param == "bpe":  # (its config names no pad token: the calls that pad need one)
        ref.pad_token = ours.pad_token = "<pad>"
    return request.param, ref, ours


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("object", [_plain(v) for v in value])
        return ("array", value.dtype.kind, value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _outcome(tok: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the call gives: (keys, values, per-row tokens/word_ids/sequence_ids), or the error."""
    if hasattr(tok, "backend_tokenizer"):  # (transformers' backend keeps the last call's settings)
        tok.backend_tokenizer.no_truncation()
        tok.backend_tokenizer.no_padding()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = tok(*args, **kwargs)
    except Exception:  # noqa: BLE001  (HF's truncation errors are plain Exceptions, tokenforge's ValueErrors)
        return ("error",)
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        return ("panic",)  # (HF panics where a pair's stride exceeds what truncation leaves it)
    rows = len(out.encodings)
    maps = [(out.tokens(i), out.word_ids(i), out.sequence_ids(i)) for i in range(rows)]
    chars = [out.char_to_token(i, 0) for i in range(rows)] if rows and args and args[0] != "" else []
    return (list(out.keys()), {k: _plain(v) for k, v in out.items()}, maps, chars, len(out), out.n_sequences)


INPUTS = {
    "one text": (TEXTS[0],),
    "one pair": (TEXTS[1], PAIRS[0]),
    "one empty": ("",),
    "empty pair": (TEXTS[3], ""),
    "long text": (TEXTS[4],),
    "batch": (TEXTS,),
    "batch of pairs": (TEXTS, PAIRS),
    "batch of tuples": ([(t, p) for t, p in zip(TEXTS, PAIRS)],),
}

CALLS = [
    {},
    {"add_special_tokens": False},
    {"padding": True},
    {"padding": "longest"},
    {"padding": "max_length", "max_length": 30},
    {"padding": "max_length"},  # model_max_length
    {"padding": "do_not_pad"},
    {"padding": False},
    {"padding": True, "pad_to_multiple_of": 8},
    {"padding": True, "padding_side": "left"},
    {"padding": True, "padding_side": "right"},
    {"padding": True, "max_length": 5},  # (ignored, with transformers' warning)
    {"truncation": True, "max_length": 7},
    {"truncation": "longest_first", "max_length": 9},
    {"truncation": "only_first", "max_length": 9},
    {"truncation": "only_second", "max_length": 9},
    {"truncation": True},  # model_max_length
    {"truncation": False},
    {"truncation": "do_not_truncate"},
    {"max_length": 6},  # max_length alone truncates
    {"truncation": True, "max_length": 8, "stride": 2, "return_overflowing_tokens": True},
    {"truncation": "only_first", "max_length": 10, "stride": 1, "return_overflowing_tokens": True},
    {"truncation": True, "max_length": 8, "padding": "max_length", "pad_to_multiple_of": 4},
    {"truncation": True, "max_length": 9, "padding": True, "pad_to_multiple_of": 4},  # (9 % 4: ValueError)
    {
        "truncation": True,
        "max_length": 10,
        "stride": 3,
        "padding": True,
        "return_overflowing_tokens": True,
        "return_special_tokens_mask": True,
    },
    {"truncation": True, "max_length": 6, "stride": 5},  # stride past the room left: an error
    {"return_attention_mask": False},
    {"return_attention_mask": True, "return_token_type_ids": True},
    {"return_token_type_ids": False},
    {"return_offsets_mapping": True},
    {"return_special_tokens_mask": True},
    {"return_length": True},
    {"return_length": True, "padding": True},
    {"return_tensors": "np", "padding": True},
    {"return_tensors": "np"},  # (ragged: NumPy object arrays)
    {"return_tensors": "np", "return_offsets_mapping": True, "truncation": True, "max_length": 5, "padding": True},
    {"padding": "sideways"},
    {"truncation": "middle"},
]


def _call_id(kwargs: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items()) or "defaults"


@pytest.mark.parametrize("kwargs", CALLS, ids=[_call_id(c) for c in CALLS])
def test_call_as_transformers(pair_of, kwargs):
    name, ref, ours = pair_of
    for what, args in INPUTS.items():
        want = _outcome(ref, args, kwargs)
        if want == ("panic",):
            continue
        got = _outcome(ours, args, kwargs)
        assert got == want, (name, what, kwargs)


def test_call_leaves_the_tokenizers_own_settings(pair_of):
    """The call's padding and truncation are for the call only: encode keeps the tokenizer's
    (HF tokenizers') settings, here none and then its own, also while other threads call."""
    _, _, ours = pair_of
    plain = [list(e.ids) for e in ours.encode_batch(TEXTS)]
    errors: list[BaseException] = []

    def call() -> None:
        try:
            for _ in range(30):
                out = ours(TEXTS, padding="max_length", truncation=True, max_length=12)
                assert all(len(row) == 12 for row in out["input_ids"])
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    for _ in range(30):
        assert [list(e.ids) for e in ours.encode_batch(TEXTS)] == plain
    for t in threads:
        t.join()
    assert not errors
    assert ours.truncation is None and ours.padding is None
    ours.enable_truncation(5)
    try:
        assert len(ours(TEXTS[4])["input_ids"]) > 5  # (the call does not truncate unless asked)
        assert len(ours.encode(TEXTS[4]).ids) == 5
    finally:
        ours.no_truncation()


def test_targets_as_transformers(pair_of):
    """text_target / text_pair_target: the targets' ids as labels; positional arguments in
    transformers' order (text, text_pair, text_target, text_pair_target, add_special_tokens)."""
    _, ref, ours = pair_of
    for args, kwargs in [
        ((TEXTS[:3],), {"text_target": PAIRS[:3]}),
        ((TEXTS[:3], PAIRS[:3], TEXTS[3:], PAIRS[3:]), {"padding": True, "truncation": True, "max_length": 9}),
        ((None, None, TEXTS[0]), {"return_offsets_mapping": True}),
        ((TEXTS[1], None, TEXTS[2], None, False), {}),
    ]:
        assert _outcome(ours, args, kwargs) == _outcome(ref, args, kwargs), (args, kwargs)


def test_batch_encoding_surface(pair_of):
    name, ref, ours = pair_of
    got = ours(TEXTS[:2], PAIRS[:2], return_offsets_mapping=True)
    want = ref(TEXTS[:2], PAIRS[:2], return_offsets_mapping=True)
    assert got.input_ids == want.input_ids and got.attention_mask == want["attention_mask"]
    assert len(got) == len(want) and list(got.keys()) == list(want.keys()) and "input_ids" in got
    assert got.is_fast and len(got.encodings) == 2 and list(got[0].ids) == want[0].ids
    for i in range(2):
        assert got.tokens(i) == want.tokens(i)
        assert got.word_ids(i) == want.word_ids(i) and got.sequence_ids(i) == want.sequence_ids(i)
        for t in range(len(got.tokens(i))):
            assert got.token_to_chars(i, t) == want.token_to_chars(i, t), (name, i, t)
            assert got.token_to_sequence(i, t) == want.token_to_sequence(i, t)
            assert got.token_to_word(i, t) == want.token_to_word(i, t)
        for c in range(len(TEXTS[i])):
            assert got.char_to_token(i, c) == want.char_to_token(i, c), (name, i, c)
            assert got.char_to_word(i, c) == want.char_to_word(i, c), (name, i, c)
        for c in range(len(PAIRS[i])):
            assert got.char_to_token(i, c, sequence_index=1) == want.char_to_token(i, c, sequence_index=1)
        words = {w for w in got.word_ids(i) if w is not None}
        for w in words:
            assert got.word_to_tokens(i, w) == want.word_to_tokens(i, w)
            assert got.word_to_chars(i, w) == want.word_to_chars(i, w)
    one_got, one_want = ours(TEXTS[0]), ref(TEXTS[0])
    assert one_got.char_to_token(3) == one_want.char_to_token(3) and one_got.token_to_word(1) == one_want.token_to_word(
        1
    )
    with pytest.raises(AttributeError):
        _ = got.no_such_key


def test_return_tensors_pt_needs_torch(pair_of):
    _, ref, ours = pair_of
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="PyTorch is not installed"):
            ours(TEXTS, padding=True, return_tensors="pt")
        with pytest.raises(ImportError):
            ref(TEXTS, padding=True, return_tensors="pt")
    else:
        got, want = ours(TEXTS, padding=True, return_tensors="pt"), ref(TEXTS, padding=True, return_tensors="pt")
        assert all(bool((got[k] == want[k]).all()) and got[k].dtype == want[k].dtype for k in want)


# -- pre-tokenized input (is_split_into_words) ---------------------------------------------------

WORD_INPUTS = {
    "one example": (["hello", "world", ",", "the", "quick"],),
    "one pair": (["Don't", "stop"], ["a", "pair", "text"]),
    "empty words": (["", "x", ""],),
    "no words": ([],),
    "spaces and non-ASCII": (["two words", "é 東京", " fox ", "naïve"],),
    "special text": (["<s>", "a</s>", "[CLS]x"],),
    "batch": ([t.split() for t in TEXTS],),
    "batch of pairs": ([t.split() for t in TEXTS], [p.split() for p in PAIRS]),
    "batch of tuples": ([(t.split(), p.split()) for t, p in zip(TEXTS, PAIRS)],),
    "tuple batch": (tuple(tuple(t.split()) for t in TEXTS),),
}

WORD_CALLS = [
    {},
    {"add_special_tokens": False},
    {"padding": True},
    {"padding": "max_length", "max_length": 30, "return_tensors": "np"},
    {"truncation": True, "max_length": 7},
    {"truncation": True, "max_length": 8, "stride": 2, "return_overflowing_tokens": True, "padding": True},
    {"truncation": "only_second", "max_length": 9},
    {"return_offsets_mapping": True, "return_special_tokens_mask": True, "return_length": True},
    {"split_special_tokens": True, "return_offsets_mapping": True},
]


@pytest.mark.parametrize("kwargs", WORD_CALLS, ids=[_call_id(c) for c in WORD_CALLS])
def test_split_into_words_as_transformers(pair_of, kwargs):
    name, ref, ours = pair_of
    kwargs = {**kwargs, "is_split_into_words": True}
    for what, args in WORD_INPUTS.items():
        want = _outcome(ref, args, kwargs)
        if want == ("panic",):
            continue
        assert _outcome(ours, args, kwargs) == want, (name, what, kwargs)


def test_tokenize_keywords_as_transformers(pair_of):
    name, ref, ours = pair_of
    calls = [
        ((["hello", "wor ld", "é 東京"],), {"is_split_into_words": True}),
        ((["a", "b"], ["c"]), {"is_split_into_words": True, "add_special_tokens": True}),
        ((SPECIAL_TEXT,), {"split_special_tokens": True}),
        ((SPECIAL_TEXT,), {"split_special_tokens": False}),
        ((TEXTS[0],), {"foo": 1, "padding": True}),
    ]
    for args, kwargs in calls:
        assert ours.tokenize(*args, **kwargs) == ref.tokenize(*args, **kwargs), (name, args, kwargs)
    assert set(inspect.signature(ours._encode_plus).parameters) - {
        "self",
        "text",
        "text_pair",
        "add_special_tokens",
    } == (_ENCODE_PLUS_KEYWORDS)


def test_split_into_words_errors_as_transformers(pair_of):
    _, ref, ours = pair_of
    for tok in (ref, ours):
        with pytest.raises(TypeError):  # (one str is no list of words)
            tok("hello world", is_split_into_words=True)
        with pytest.raises(TypeError, match="text_pair` must be a list"):
            tok([["a"], ["b"]], "a pair", is_split_into_words=True)
        with pytest.raises(ValueError, match="does not match batch length"):
            tok([["a"], ["b"]], [["c"]], is_split_into_words=True)
        with pytest.raises(ValueError, match="text input must be of type"):
            tok([3], is_split_into_words=True)


def test_other_keywords_as_transformers(pair_of):
    """transformers 5 ignores keywords it has no parameter for (no warning, no error);
    tokenizer_kwargs replace the arguments; max_target_length cuts the targets."""
    name, ref, ours = pair_of
    calls = [
        ((TEXTS[0],), {"foo": 1, "return_offsets": True}),
        ((TEXTS,), {"padding": True, "bar": None}),
        ((TEXTS[0],), {"tokenizer_kwargs": {"add_special_tokens": False, "return_length": True}}),
        ((TEXTS[0],), {"add_special_tokens": True, "tokenizer_kwargs": {"add_special_tokens": False}}),
        ((TEXTS[4],), {"text_target": TEXTS[4], "truncation": True, "max_length": 20, "max_target_length": 5}),
        ((SPECIAL_TEXT,), {"tokenizer_kwargs": {"split_special_tokens": True, "verbose": False}}),
        ((SPECIAL_TEXT,), {"split_special_tokens": True, "tokenizer_kwargs": {"split_special_tokens": False}}),
        # (a max_target_length among tokenizer_kwargs is no argument of the call: ignored)
        ((TEXTS[4],), {"text_target": TEXTS[4], "max_length": 9, "tokenizer_kwargs": {"max_target_length": 3}}),
        ((TEXTS[1],), {"tokenizer_kwargs": {}, "return_tensors": "np", "padding": "max_length", "max_length": 30}),
    ]
    for args, kwargs in calls:
        want = _outcome(ref, args, kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (none, as transformers)
            got = ours(*args, **kwargs)
        assert _outcome(ours, args, kwargs) == want, (name, kwargs)
        assert "labels" not in want[1] or got["labels"] == want[1]["labels"]


SPECIAL_TEXT = "<s> hello </s>[SEP] [CLS]<pad> world [MASK] <unk>"


def test_split_special_tokens_for_one_call(pair_of):
    """split_special_tokens in the call is that call's; the tokenizer's own stays, also for
    threads encoding at the same time."""
    name, ref, ours = pair_of
    stored = ours.split_special_tokens
    for split in (True, False, None):
        kwargs = {"return_offsets_mapping": True} if split is None else {"split_special_tokens": split}
        for args in ((SPECIAL_TEXT,), ([SPECIAL_TEXT, "x <s>"], ["</s>", "[SEP]"])):
            assert _outcome(ours, args, kwargs) == _outcome(ref, args, kwargs), (name, split)
        assert ours.split_special_tokens is stored
    plain = ours(SPECIAL_TEXT)["input_ids"]
    split = ours(SPECIAL_TEXT, split_special_tokens=True)["input_ids"]
    if name != "unigram":  # (its special tokens are split as text here too)
        assert plain != split
    jobs = [{"split_special_tokens": True}, {}] * 40
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda kw: ours(SPECIAL_TEXT, **kw)["input_ids"], jobs))
    assert got == [split, plain] * 40


def test_error_classes_as_transformers(pair_of):
    """Where transformers (or HF tokenizers under it) raises TypeError or OverflowError,
    tokenforge's error is one too (and still the ValueError it was)."""
    _, ref, ours = pair_of
    calls = [
        (([TEXTS[0], None],), {}, TypeError),  # (a later item: transformers' backend raises)
        (([(TEXTS[0], "a", "b")],), {}, TypeError),
        (([TEXTS[0], 5],), {}, TypeError),
        ((TEXTS[:2], ["a", 5]), {}, TypeError),
        ((TEXTS[0],), {"truncation": True, "max_length": -1}, OverflowError),
    ]
    for args, kwargs, error in calls:
        for tok in (ref, ours):
            with pytest.raises(error):
                tok(*args, **kwargs)
        with pytest.raises(ValueError):
            ours(*args, **kwargs)
    hf = ref.backend_tokenizer
    for call in (
        lambda t: t.enable_truncation(-1),
        lambda t: t.enable_truncation(5, stride=-1),
        lambda t: t.enable_padding(length=-1),
        lambda t: t.enable_padding(pad_to_multiple_of=-2),
    ):
        for tok in (hf, ours):
            with pytest.raises(OverflowError):
                call(tok)
        with pytest.raises(ValueError):
            call(ours)
    hf.no_truncation()
    hf.no_padding()


def test_errors_as_transformers(pair_of):
    _, ref, ours = pair_of
    for tok in (ref, ours):
        with pytest.raises(ValueError, match="specify either `text`"):
            tok()
        with pytest.raises(TypeError, match="text_pair` must be a list"):
            tok(TEXTS, "a pair")
        with pytest.raises(ValueError, match="does not match batch length"):
            tok(TEXTS, PAIRS[:2])
        with pytest.raises(ValueError, match="text input must be of type"):
            tok(3)
        with pytest.raises(IndexError):
            tok([])
    # (transformers takes any value here and fails at the next call; tokenforge says so at once)
    with pytest.raises(ValueError, match="Padding side should be selected between 'right' and 'left'"):
        ours.padding_side = "middle"
    with pytest.raises(ValueError, match="Truncation side should be selected"):
        ours.truncation_side = "top"


def test_padding_without_a_pad_token(tmp_path):
    """transformers' ValueError, naming the fix; then tok.pad_token = tok.eos_token pads."""
    ref, ours = _load(_bpe_folder(tmp_path / "bpe"))
    assert ours.pad_token is None and ours.pad_token_id is None
    for tok in (ref, ours):
        with pytest.raises(ValueError, match=r"Asking to pad but the tokenizer does not have a padding token"):
            tok(TEXTS, padding=True)
        with pytest.raises(ValueError, match=r"tokenizer.pad_token = tokenizer.eos_token"):
            tok(TEXTS[0], padding="max_length", max_length=40)
    ref.pad_token = ref.eos_token
    ours.pad_token = ours.eos_token
    assert ours.pad_token_id == ref.pad_token_id == 1
    assert ours(TEXTS, padding=True)["input_ids"] == ref(TEXTS, padding=True)["input_ids"]
    assert ours.special_tokens_map == ref.special_tokens_map
    ref.padding_side = ours.padding_side = "left"
    ref.truncation_side = ours.truncation_side = "left"
    ref.model_max_length = ours.model_max_length = 6
    kw = {"padding": "max_length", "truncation": True}
    assert ours(TEXTS, **kw)["input_ids"] == ref(TEXTS, **kw)["input_ids"]
    with pytest.raises(ValueError, match="Padding side"):
        ours.padding_side = "middle"
    ours.pad_token_id = 2
    assert ours.pad_token == "<pad>"
    ours.pad_token = None
    assert ours.pad_token is None and "pad_token" not in ours.special_tokens_map


def test_a_tokenizer_without_a_folder(tmp_path):
    """transformers' defaults: no special tokens, no length limit, right sides; padding refused
    until a pad token is set."""
    tok = Tokenizer.from_file(str(_bert_folder(tmp_path / "bert") / "tokenizer.json"))
    assert tok.config is None and tok.name_or_path == "" and tok.bos_token is None and tok.pad_token_id is None
    assert tok.model_max_length == int(1e30) and tok.padding_side == tok.truncation_side == "right"
    assert tok.special_tokens_map == {} and tok.extra_special_tokens == []
    assert tok.model_input_names == ["input_ids", "attention_mask"]
    out = tok(["hello world", "fox"], truncation=True)  # (no limit: nothing cut)
    assert out["input_ids"] == [list(e.ids) for e in tok.encode_batch(["hello world", "fox"])]
    with pytest.raises(ValueError, match="does not have a padding token"):
        tok("x", padding=True)
    tok.pad_token = "[PAD]"
    assert tok.config is not None and tok.pad_token_id == tok.token_to_id("[PAD]")
    assert tok(["hello world", "fox"], padding=True)["attention_mask"][1][-1] == 0


def test_attributes_as_transformers(pair_of):
    _, ref, ours = pair_of
    _same_attributes(ref, ours)


def _same_attributes(ref: Any, ours: Tokenizer) -> None:
    names = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
    for name in names:
        assert getattr(ours, name) == getattr(ref, name), name
        assert getattr(ours, name + "_id") == getattr(ref, name + "_id"), name
    for name in (
        "extra_special_tokens",
        "extra_special_tokens_ids",
        "special_tokens_map",
        "all_special_tokens",
        "all_special_ids",
        "model_max_length",
        "padding_side",
        "truncation_side",
        "vocab_size",
        "pad_token_type_id",
        "model_input_names",
        "clean_up_tokenization_spaces",
    ):
        assert getattr(ours, name) == getattr(ref, name), name
    assert len(ours) == len(ref) and bool(ours)
    assert os.path.realpath(ours.name_or_path) == os.path.realpath(ref.name_or_path)
    for key in ref.special_tokens_map:  # model-specific ones too (image_token, ...)
        assert getattr(ours, key) == getattr(ref, key) and getattr(ours, key + "_id") == getattr(ref, key + "_id")


def test_conversions_as_transformers(pair_of):
    _, ref, ours = pair_of
    _same_conversions(ref, ours)


def _same_conversions(ref: Any, ours: Tokenizer) -> None:
    n = len(ref)
    ids = [*range(n), n + 3]
    for skip in (False, True):
        assert ours.convert_ids_to_tokens(ids, skip_special_tokens=skip) == ref.convert_ids_to_tokens(
            ids, skip_special_tokens=skip
        )
    assert ours.convert_ids_to_tokens(np.array(ids[:5])) == ref.convert_ids_to_tokens(np.array(ids[:5]))
    for i in (0, 1, n - 1, n + 3):
        assert ours.convert_ids_to_tokens(i) == ref.convert_ids_to_tokens(i)
    tokens = [*ref.convert_ids_to_tokens(list(range(min(n, 50)))), "no-such-token", ""]
    assert ours.convert_tokens_to_ids(tokens) == ref.convert_tokens_to_ids(tokens)
    for t in tokens:
        assert ours.convert_tokens_to_ids(t) == ref.convert_tokens_to_ids(t)
    for text, pair in [(TEXTS[0], None), (TEXTS[1], PAIRS[0]), ("", None), (TEXTS[3], PAIRS[3])]:
        for add in (False, True):
            assert ours.tokenize(text, pair, add_special_tokens=add) == ref.tokenize(text, pair, add_special_tokens=add)
        assert ours.tokenize(text, pair) == ref.tokenize(text, pair)


def test_decoding_as_transformers(pair_of):
    _, ref, ours = pair_of
    _same_decoding(ref, ours)


def _same_decoding(ref: Any, ours: Tokenizer) -> None:
    batch = ref(TEXTS, PAIRS)["input_ids"] + [ref("Don't go , it 's late . Isn't it ?")["input_ids"]]
    assert ours.batch_decode(batch) == ref.batch_decode(batch)
    for skip in (False, True):
        for clean in (None, False, True):
            kw = {"skip_special_tokens": skip, "clean_up_tokenization_spaces": clean}
            assert ours.batch_decode(batch, **kw) == ref.batch_decode(batch, **kw), kw
            for ids in batch:
                assert ours.decode(ids, **kw) == ref.decode(ids, **kw), kw
    padded = ref(TEXTS, padding=True, return_tensors="np")["input_ids"] if ref.pad_token is not None else None
    if padded is not None:
        assert ours.batch_decode(padded) == ref.batch_decode(padded)
    assert ours.batch_decode(batch[0]) == ref.batch_decode(batch[0])  # (one sequence: a list of its text)
    # (sequences of every kind in one batch: an array, NumPy integers in a list, a tuple)
    mixed = [np.array(batch[0]), [np.int64(i) for i in batch[1]], tuple(batch[2]), batch[3]]
    assert ours.batch_decode(mixed) == ref.batch_decode(mixed)
    assert ours.batch_decode(tuple(mixed)) == ref.batch_decode(tuple(mixed))
    assert ours.batch_decode([]) == ref.batch_decode([]) == []
    # decode keeps HF tokenizers' default (skip special tokens), batch_decode transformers' (keep them)
    assert ours.decode(batch[0]) == ref.decode(batch[0], skip_special_tokens=True)


# -- the real folders of ../shared/vocab/hf --------------------------------------------------


@pytest.fixture(scope="module", params=REAL_FOLDERS)
def real_pair(request):
    folder = SHARED / "vocab" / "hf" / request.param
    if not (folder / "tokenizer.json").is_file():
        pytest.skip(f"{folder}: not here (set TOKENFORGE_SHARED to the shared data)")
    ref, ours = _load(folder)
    return request.param, ref, ours


REAL_CALLS = [
    {},
    {"add_special_tokens": False, "return_offsets_mapping": True},
    {"padding": True, "return_special_tokens_mask": True},
    {"padding": "max_length", "max_length": 48, "pad_to_multiple_of": 16, "padding_side": "left"},
    {"truncation": True, "max_length": 9, "stride": 2, "return_overflowing_tokens": True, "padding": True},
    {"truncation": "only_second", "max_length": 12, "return_length": True},
    {"return_tensors": "np", "padding": True, "truncation": True, "max_length": 16},
]


def test_real_folders(real_pair):
    name, ref, ours = real_pair
    if ref.pad_token is None:
        ref.pad_token = ref.eos_token
        ours.pad_token = ours.eos_token
    for kwargs in REAL_CALLS:
        for what, args in INPUTS.items():
            want = _outcome(ref, args, kwargs)
            if want != ("panic",):
                assert _outcome(ours, args, kwargs) == want, (name, what, kwargs)
    _same_attributes(ref, ours)
    _same_decoding(ref, ours)
    ids = [*range(0, len(ref), max(1, len(ref) // 500)), len(ref) - 1]
    for skip in (False, True):
        assert ours.convert_ids_to_tokens(ids, skip_special_tokens=skip) == ref.convert_ids_to_tokens(
            ids, skip_special_tokens=skip
        )
    for text in TEXTS:
        assert ours.tokenize(text) == ref.tokenize(text)
    for kwargs in REAL_CALLS[:3]:
        kwargs = {**kwargs, "is_split_into_words": True}
        for what, args in WORD_INPUTS.items():
            want = _outcome(ref, args, kwargs)
            if want != ("panic",):
                assert _outcome(ours, args, kwargs) == want, (name, what, kwargs)
