"""Hostile settings and arguments, generated (issue 17's fuzz suite, settings part): padding and
truncation arguments of every type (huge and negative ints, floats, None, str, NumPy scalars),
thread counts, trainers' numeric options on tiny inputs. Each call either raises
ValueError/TypeError with a message that names one of the arguments it was given, or succeeds,
and then the tokenizer still encodes and decodes as it should and `save()` writes a file that
loads back with the same settings. A call that might kill the process runs in a subprocess.

The default run takes FUZZ_EXAMPLES examples per test (conftest; about 30 s in all); a longer
run: TOKENFORGE_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_settings.py."""

from __future__ import annotations

import pathlib
import re
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import FUZZ_EXAMPLES, assert_clean_exit, run_isolated
from tokenforge import Tokenizer
from tokenforge.trainers import train_bpe, train_bpe_merges, train_wordpiece
from tokenforge.trainers.sentencepiece import train_sentencepiece

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "while", "seven", "wizards", "hex"]
LINES = [" ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(7)) for i in range(60)]
TEXTS = ["the quick brown fox jumps over the lazy dog", "the fox", "seven wizards hex the lazy dog while over"]
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LONGEST_ENCODED = 4096  # accepted settings that pad further are saved and reloaded, not encoded
INCOMPATIBLE = "incompatible function arguments"

NUMPY_SCALARS = st.sampled_from(
    [
        np.int8(3),
        np.uint8(200),
        np.int16(-7),
        np.uint16(8),
        np.int32(0),
        np.uint32(12),
        np.int64(-1),
        np.int64(10**18),
        np.uint64(2**64 - 1),
        np.uint64(5),
        np.float32(2.0),
        np.float64(float("nan")),
        np.bool_(True),
        np.bool_(False),
    ]
)
HOSTILE = st.one_of(
    st.integers(-5, 40),
    st.integers(),
    st.sampled_from([0, 1, 2, 2**24, 2**24 + 1, 2**31, 2**32, 2**63, 10**30, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.booleans(),
    st.text(max_size=6),
    NUMPY_SCALARS,
    st.lists(st.integers(0, 5), max_size=2),
    st.just(b"left"),
)
DIRECTIONS = st.one_of(st.sampled_from(["left", "right"]), st.sampled_from(["Left", "up", ""]), HOSTILE)
STRATEGIES = st.one_of(st.sampled_from(["longest_first", "only_first", "only_second"]), HOSTILE)


@pytest.fixture(scope="module")
def vocab_txt(tmp_path_factory) -> pathlib.Path:
    pieces = sorted(set(WORDS) | set("abcdefghijklmnopqrstuvwxyz") | {"##" + c for c in "abcdefghijklmnopqrstuvwxyz"})
    path = tmp_path_factory.mktemp("bert") / "vocab.txt"
    path.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *pieces]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def spm_model():
    return train_sentencepiece(sentences=LINES, vocab_size=30, progress=False, num_threads=1)


def names_an_argument(error: BaseException, names) -> bool:
    message = str(error)
    return INCOMPATIBLE not in message and any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", message) for n in names)


def plain(tok: Tokenizer) -> list[list[int]]:
    """What each text encodes to with no padding and no truncation."""
    padding, truncation = tok.padding, tok.truncation
    tok.no_padding()
    tok.no_truncation()
    try:
        return [tok.encode(t).ids for t in TEXTS]
    finally:
        if padding:
            tok.enable_padding(**padding)
        if truncation:
            tok.enable_truncation(**truncation)


def check_padding_result(tok: Tokenizer) -> None:
    p = tok.padding
    unpadded = plain(tok)

    def target(longest: int) -> int:
        n = p["length"] or longest
        m = p["pad_to_multiple_of"]
        return n + (-n) % m if m else n

    if target(max(map(len, unpadded))) > LONGEST_ENCODED:
        return
    batch = tok.encode_batch(TEXTS)
    singles = [tok.encode(t) for t in TEXTS]
    for got, ids, length in [(e, ids, target(max(map(len, unpadded)))) for e, ids in zip(batch, unpadded)] + [
        (e, ids, target(len(ids))) for e, ids in zip(singles, unpadded)
    ]:
        n, pads = len(ids), max(0, length - len(ids))
        assert len(got.ids) == n + pads
        real = slice(pads, None) if p["direction"] == "left" else slice(0, n)
        pad = slice(0, pads) if p["direction"] == "left" else slice(n, None)
        assert got.ids[real] == ids
        assert got.ids[pad] == [p["pad_id"]] * pads
        assert got.attention_mask[pad] == [0] * pads and got.attention_mask[real] == [1] * n
        assert got.type_ids[pad] == [p["pad_type_id"]] * pads
        assert got.tokens[pad] == [p["pad_token"]] * pads
        assert tok.decode(got.ids[real]) == tok.decode(ids)


def check_truncation_result(tok: Tokenizer) -> None:
    t = tok.truncation
    added = 2  # [CLS] ... [SEP]
    for text, ids in zip(TEXTS, plain(tok)):
        if t["max_length"] < added:
            with pytest.raises(ValueError, match="leaves no room"):
                tok.encode(text)
            continue
        body, keep = ids[1:-1], t["max_length"] - added
        if len(body) > keep and t["strategy"] == "only_second":  # (one text has no second to cut, as HF)
            with pytest.raises(ValueError, match="needs a second sequence"):
                tok.encode(text)
            continue
        got = tok.encode(text)
        if len(body) <= keep:
            assert got.ids == ids
            continue
        kept = body[-keep:] if keep and t["direction"] == "left" else body[:keep]
        assert got.ids == [ids[0], *kept, ids[-1]]
        assert tok.decode(got.ids) == tok.decode([ids[0], *kept, ids[-1]])


def check_saved(tok: Tokenizer) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "tokenizer.json"
        tok.save(path)
        back = Tokenizer.from_file(path)
    assert (back.padding, back.truncation) == (tok.padding, tok.truncation)
    p, t = tok.padding or {}, tok.truncation
    small = max(p.get("length") or 0, p.get("pad_to_multiple_of") or 0) <= LONGEST_ENCODED
    if small and (not t or t["max_length"] >= 2):  # (below 2, encoding raises: no room for [CLS] and [SEP])
        assert [e.ids for e in back.encode_batch(TEXTS)] == [e.ids for e in tok.encode_batch(TEXTS)]


# ------------------------------------------------------------------------------ padding

PADDING_ARGS = st.fixed_dictionaries(
    {},
    optional={
        "direction": DIRECTIONS,
        "pad_id": st.one_of(st.integers(0, 80), HOSTILE),
        "pad_type_id": st.one_of(st.integers(0, 3), HOSTILE),
        "pad_token": st.one_of(st.sampled_from(["[PAD]", "", "<pad>", "\ud800"]), HOSTILE),
        "length": st.one_of(st.none(), st.integers(1, 40), HOSTILE),
        "pad_to_multiple_of": st.one_of(st.none(), st.integers(0, 16), HOSTILE),
    },
)


@FUZZ
@given(args=PADDING_ARGS, start=st.booleans())
@example(args={"length": -1}, start=False)  # the case: stored, then failing, and saved unreadable
@example(args={"length": 10**30, "pad_id": np.int64(1)}, start=True)
def test_fuzz_padding(vocab_txt, args, start):
    tok = Tokenizer.bert_from_vocab_txt(str(vocab_txt))
    if start:
        tok.enable_padding(length=20, direction="left", pad_id=4, pad_token="[MASK]")
    before = (tok.padding, [e.ids for e in tok.encode_batch(TEXTS)])
    try:
        tok.enable_padding(**args)
    except (ValueError, TypeError) as e:
        assert names_an_argument(e, args), (args, e)
        assert (tok.padding, [e.ids for e in tok.encode_batch(TEXTS)]) == before
    else:
        assert all(type(v) in (int, str, type(None)) for v in tok.padding.values()), tok.padding
        check_padding_result(tok)
    check_saved(tok)


@FUZZ
@given(args=PADDING_ARGS)
def test_fuzz_padding_sentencepiece(spm_model, args):
    tok = Tokenizer(spm_model)
    try:
        tok.enable_padding(**args)
    except (ValueError, TypeError) as e:
        assert names_an_argument(e, args), (args, e)
        assert tok.padding is None and [e.ids for e in tok.encode_batch(TEXTS)] == plain(tok)
    else:
        check_padding_result(tok)


# --------------------------------------------------------------------------- truncation

TRUNCATION_ARGS = st.fixed_dictionaries(
    {"max_length": st.one_of(st.integers(0, 12), HOSTILE)},
    optional={"stride": st.one_of(st.integers(0, 6), HOSTILE), "strategy": STRATEGIES, "direction": DIRECTIONS},
)


@FUZZ
@given(args=TRUNCATION_ARGS, start=st.booleans())
def test_fuzz_truncation(vocab_txt, args, start):
    tok = Tokenizer.bert_from_vocab_txt(str(vocab_txt))
    if start:
        tok.enable_truncation(7, stride=2, direction="left")
    before = tok.truncation
    try:
        tok.enable_truncation(**args)
    except (ValueError, TypeError) as e:
        assert names_an_argument(e, args), (args, e)
        assert tok.truncation == before
    else:
        t = tok.truncation
        assert all(type(v) in (int, str) for v in t.values()), t
        assert t["stride"] == 0 or t["stride"] < t["max_length"] - 2
        check_truncation_result(tok)
    check_saved(tok)


# ------------------------------------------------------------------------- thread counts

THREADS = st.one_of(st.none(), st.integers(-3, 8), HOSTILE)


@FUZZ
@given(num_threads=THREADS)
@example(num_threads=-1)
@example(num_threads=40000)
def test_fuzz_num_threads(vocab_txt, spm_model, num_threads):
    enc = tokenforge.get_encoding("cl100k_base")
    bert = Tokenizer.bert_from_vocab_txt(str(vocab_txt))
    spm = Tokenizer(spm_model)
    calls = [
        (lambda n: enc.encode_ordinary_batch(TEXTS * 30, num_threads=n), [enc.encode_ordinary(t) for t in TEXTS] * 30),
        (lambda n: enc.encode_batch(TEXTS, num_threads=n), [enc.encode(t) for t in TEXTS]),
        (lambda n: enc.decode_batch([[15339]], num_threads=n), ["hello"]),
        (
            lambda n: [e.ids for e in bert.encode_batch(TEXTS * 30, num_threads=n)],
            [bert.encode(t).ids for t in TEXTS] * 30,
        ),
        (lambda n: [e.ids for e in spm.encode_batch(TEXTS, num_threads=n)], [spm.encode(t).ids for t in TEXTS]),
    ]
    for call, expected in calls:
        try:
            got = call(num_threads)
        except (ValueError, TypeError) as e:
            assert names_an_argument(e, ["num_threads"]), e
            is_int = not isinstance(num_threads, (bool, np.bool_)) and hasattr(num_threads, "__index__")
            assert not is_int or int(num_threads) < 1, e  # every integer >= 1 is accepted (and capped)
        else:
            assert got == expected


def test_huge_thread_counts_in_a_subprocess():
    """Thread counts far past what a system can start, on every surface at once."""
    code = """
import tokenforge
from tokenforge.trainers import train_bpe
from tokenforge.trainers.sentencepiece import train_sentencepiece
enc = tokenforge.get_encoding("cl100k_base")
for n in (40000, 2**31, 2**64, 10**30):
    assert enc.encode_ordinary_batch(["hello"] * 500, num_threads=n) == [[15339]] * 500
tok = tokenforge.get_tokenizer("bert-base-uncased")
assert [e.ids for e in tok.encode_batch(["hello"] * 500, num_threads=10**6)] == [[101, 7592, 102]] * 500
lines = ["the quick brown fox jumps over the lazy dog"] * 50
assert len(train_sentencepiece(sentences=lines, vocab_size=30, progress=False, num_threads=10**5).pieces) == 30
print("ok")
"""
    proc = run_isolated(code)
    assert_clean_exit(proc)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


# ------------------------------------------------------------------- trainers' options

TINY = ["low lower lowest", "newer wider", "the fox"] * 4


def _round_trips_bpe(enc) -> None:
    for text in [*TINY, "unseen: ünïcödé 😀"]:
        assert enc.decode(enc.encode_ordinary(text)) == text


BPE_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "vocab_size": st.one_of(st.integers(250, 300), HOSTILE),
        "min_frequency": st.one_of(st.integers(1, 5), HOSTILE),
        "max_token_length": st.one_of(st.none(), st.integers(1, 6), HOSTILE),
        "max_memory": st.one_of(st.none(), st.sampled_from([1 << 20, 1 << 30, (1 << 20) - 1]), HOSTILE),
    },
)


@FUZZ
@given(options=BPE_OPTIONS)
@example(options={"vocab_size": 10**30})
@example(options={"vocab_size": -5})
def test_fuzz_train_bpe_options(options):
    args = {"vocab_size": 270} | options
    try:
        enc = train_bpe(TINY, args.pop("vocab_size"), **args)
    except (ValueError, TypeError) as e:
        assert names_an_argument(e, list(options) or ["vocab_size"]), (options, e)
    else:
        assert len(enc._mergeable_ranks) <= int(options.get("vocab_size", 270))
        _round_trips_bpe(enc)


@FUZZ
@given(num_merges=st.one_of(st.integers(-2, 30), HOSTILE), min_frequency=st.one_of(st.integers(1, 3), HOSTILE))
def test_fuzz_train_bpe_merges(num_merges, min_frequency):
    try:
        merges = train_bpe_merges(TINY, num_merges, min_frequency=min_frequency)
    except (ValueError, TypeError) as e:
        assert names_an_argument(e, ["num_merges", "min_frequency"]), e
    else:
        assert len(merges) <= int(num_merges) and all(a < 256 + k and b < 256 + k for k, (a, b) in enumerate(merges))


WORDPIECE_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "vocab_size": st.one_of(st.integers(3, 80), HOSTILE),
        "min_frequency": st.one_of(st.integers(1, 4), HOSTILE),
        "max_input_chars_per_word": st.one_of(st.none(), st.integers(0, 20), HOSTILE),
    },
)


@FUZZ
@given(options=WORDPIECE_OPTIONS)
def test_fuzz_train_wordpiece_options(options):
    args = {"vocab_size": 60} | options
    try:
        tok = train_wordpiece(TINY, args.pop("vocab_size"), **args)
    except (ValueError, TypeError) as e:
        assert names_an_argument(e, list(options) or ["vocab_size"]), (options, e)
    else:
        for text in TINY:
            enc = tok.encode(text)
            assert all(0 <= i < len(tok._token_of) for i in enc.ids)
            limit = options.get("max_input_chars_per_word", 100)
            if "[UNK]" not in enc.tokens and (limit is None or int(limit) >= 6):
                assert tok.decode(enc.ids) == text


SPM_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "vocab_size": st.one_of(st.integers(5, 40), HOSTILE),
        "character_coverage": st.one_of(st.floats(0.97, 1.01), HOSTILE),
        "max_sentencepiece_length": st.one_of(st.integers(0, 20), HOSTILE),
        "shrinking_factor": st.one_of(st.floats(0.4, 1.0), HOSTILE),
        "num_sub_iterations": st.one_of(st.integers(0, 11), HOSTILE),
        "seed_sentencepiece_size": st.one_of(st.integers(999, 2000), HOSTILE),
        "max_sentence_length": st.one_of(st.integers(0, 100), HOSTILE),
        "input_sentence_size": st.one_of(st.integers(0, 30), HOSTILE),
        "num_threads": st.one_of(st.none(), st.integers(-1, 4), HOSTILE),
        "bos_id": st.one_of(st.integers(-2, 5), HOSTILE),
        "pad_id": st.one_of(st.integers(-2, 5), HOSTILE),
        "seed": st.one_of(st.none(), st.integers(), HOSTILE),
        "byte_fallback": st.one_of(st.booleans(), HOSTILE),
        "split_digits": st.one_of(st.booleans(), HOSTILE),
    },
)


@FUZZ
@given(options=SPM_OPTIONS, model_type=st.sampled_from(["unigram", "bpe"]))
def test_fuzz_train_sentencepiece_options(options, model_type):
    args = {"vocab_size": 25} | options
    try:
        model = train_sentencepiece(sentences=TINY, model_type=model_type, progress=False, **args)
    except (ValueError, TypeError) as e:
        # what the text cannot give (a vocab_size too high for it) is named as vocab_size
        assert names_an_argument(e, [*options, "vocab_size"]), (options, e)
    else:
        tok = Tokenizer(model)
        assert len(model.pieces) == int(args["vocab_size"])
        for text in TINY:
            ids = tok.encode(text, add_special_tokens=False).ids
            assert tok.decode(ids) == text or "<unk>" in [model.pieces[i].piece for i in ids]
        with tempfile.TemporaryDirectory() as directory:  # the model's spec holds only what its fields can
            path = pathlib.Path(directory) / "m.model"
            tok.save(path)
            back = Tokenizer.from_file(path)
            assert back.encode(TINY[0]).ids == tok.encode(TINY[0]).ids
