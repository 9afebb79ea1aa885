"""Arguments checked before anything is stored or any native call is made (issue 17, findings 1,
8 and 9 at the Python level): thread counts follow one rule (tokenforge.threads); out-of-range
or mistyped numbers, flags and choices raise ValueError/TypeError naming the argument and what
it accepts (never nanobind's "incompatible function arguments"); a refused setting leaves the
previous one in place and `save()` after any accepted one reloads; NumPy integer ids (scalars,
1-D arrays, 2-D arrays for batches) decode on every surface, floats and other kinds do not.

Needs nothing from ../shared: the tokenizers are the bundled encodings, a small vocab.txt
written here, and a sentencepiece model trained here."""

from __future__ import annotations

import json
import os
import pathlib
import re

import numpy as np
import pytest

import tokenforge
import tokenforge.threads
from conftest import assert_clean_exit, run_isolated
from tokenforge import AddedToken, Tokenizer
from tokenforge.threads import MAX_THREADS
from tokenforge.trainers import (
    continue_bpe,
    prune_bpe,
    train_bpe,
    train_bpe_merges,
    train_wordpiece,
    train_wordpiece_merges,
)
from tokenforge.trainers.sentencepiece import save_sentencepiece, train_sentencepiece

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "while", "seven", "wizards", "hex"]
LINES = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(8)) for i in range(200)]
TEXT = "the quick brown fox jumps over the lazy dog"
INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
NOT_INTS = [1.0, np.float64(3.0), "3", None, [3], np.bool_(True)]
INCOMPATIBLE = "incompatible function arguments"


def write_vocab_txt(directory: pathlib.Path) -> pathlib.Path:
    pieces = sorted(
        set(WORDS) | set("abcdefghijklmnopqrstuvwxyz.,!") | {"##" + c for c in "abcdefghijklmnopqrstuvwxyz"}
    )
    path = directory / "vocab.txt"
    path.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *pieces]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def vocab_txt(tmp_path_factory) -> pathlib.Path:
    return write_vocab_txt(tmp_path_factory.mktemp("bert"))


@pytest.fixture
def bert(vocab_txt) -> Tokenizer:
    """A fresh small BERT tokenizer (tokenizers carry settings, so each test gets its own)."""
    return Tokenizer.bert_from_vocab_txt(str(vocab_txt))


@pytest.fixture(scope="module")
def spm_path(tmp_path_factory) -> str:
    model = train_sentencepiece(sentences=LINES, vocab_size=40, progress=False, num_threads=1)
    return save_sentencepiece(model, tmp_path_factory.mktemp("spm") / "small")[0]


@pytest.fixture
def spm_tok(spm_path) -> Tokenizer:
    tok = Tokenizer.from_file(spm_path)
    assert tok.kernel == "sentencepiece"
    return tok


def assert_names(error: pytest.ExceptionInfo, *names: str) -> None:
    message = str(error.value)
    assert INCOMPATIBLE not in message, message
    assert any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", message) for n in names), message


# ---------------------------------------------------------------- thread counts (finding 1)


def _thread_calls(bert: Tokenizer, spm_tok: Tokenizer):
    enc = tokenforge.get_encoding("cl100k_base")
    return {
        "encode_ordinary_batch": lambda n: enc.encode_ordinary_batch(["hello world"] * 3, num_threads=n),
        "encode_batch": lambda n: enc.encode_batch(["hello world"] * 3, num_threads=n),
        "decode_batch": lambda n: enc.decode_batch([[15339]], num_threads=n),
        "decode_bytes_batch": lambda n: enc.decode_bytes_batch([[15339]], num_threads=n),
        "Tokenizer.encode_batch (WordPiece)": lambda n: [e.ids for e in bert.encode_batch([TEXT] * 3, num_threads=n)],
        "Tokenizer.encode_batch (sentencepiece)": lambda n: [
            e.ids for e in spm_tok.encode_batch([TEXT] * 3, num_threads=n)
        ],
        "train_sentencepiece": lambda n: (
            train_sentencepiece(sentences=LINES, vocab_size=40, progress=False, num_threads=n).pieces
        ),
    }


@pytest.mark.parametrize("bad", [-1, 0, -(10**30)])
def test_thread_counts_below_one_are_value_errors_naming_num_threads(bad, bert, spm_tok):
    for call in _thread_calls(bert, spm_tok).values():
        with pytest.raises(ValueError) as error:
            call(bad)
        assert_names(error, "num_threads")


@pytest.mark.parametrize("bad", [1.5, "2", True, [2], np.float32(2)])
def test_thread_counts_that_are_not_ints_are_type_errors(bad, bert, spm_tok):
    for call in _thread_calls(bert, spm_tok).values():
        with pytest.raises(TypeError) as error:
            call(bad)
        assert_names(error, "num_threads")


def test_huge_and_numpy_thread_counts_work(bert, spm_tok):
    for name, call in _thread_calls(bert, spm_tok).items():
        expected = call(1)
        assert call(40000) == expected, name
        assert call(10**30) == expected, name
        assert call(np.int64(3)) == expected, name
        assert call(None) == expected, name


class _Recorder:
    """Stands in for a native object and records the thread count each batch call gets."""

    def __init__(self, native):
        self.native, self.threads = native, []

    def __getattr__(self, name):
        return getattr(self.native, name)

    def encode_batch(self, *args):
        self.threads.append(args[-1])
        return self.native.encode_batch(*args)


def test_thread_counts_reach_native_code_resolved_and_capped(bert, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 1000)  # more cores than MAX_THREADS
    enc = tokenforge.Encoding(
        "mine",
        pat_str=tokenforge.get_encoding("cl100k_base")._pat_str,
        mergeable_ranks={bytes([b]): b for b in range(256)},
        special_tokens={},
    )
    enc._core = _Recorder(enc._core)
    bert._native = _Recorder(bert._native)
    for n, expected in [(None, MAX_THREADS), (5, 5), (40000, MAX_THREADS)]:
        enc.encode_ordinary_batch(["ab"] * 10, num_threads=n)
        assert enc._core.threads[-1] == expected
    # Tokenizer.encode_batch by default: a thread per 32 K characters of work, a text counting 64
    # more, up to every core (and the cap)
    for texts, n, expected in [
        (10, None, 1),
        (200, None, 1),
        (2000, None, 5),
        (64 * 300, 1, 1),
        (512 * 300, None, MAX_THREADS),
        (10, 7, 7),
        (10, 40000, MAX_THREADS),
    ]:
        bert.encode_batch(["a b"] * texts, num_threads=n)
        assert bert._native.threads[-1] == expected
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # unknown: one thread
    assert tokenforge.threads.resolve_threads(None) == 1


def test_one_thread_rule_in_the_package():
    """Every default thread count comes from tokenforge.threads: no other module reads
    os.cpu_count() for itself."""
    root = pathlib.Path(tokenforge.__file__).parent
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "threads.py" and "cpu_count(" in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_huge_thread_counts_do_not_kill_the_process(spm_path):
    """These used to abort the interpreter ("terminate called without an active exception")."""
    code = f"""
import tokenforge
from tokenforge.trainers.sentencepiece import train_sentencepiece
enc = tokenforge.get_encoding("cl100k_base")
assert enc.encode_ordinary_batch(["x"] * 40000, num_threads=40000) == [[87]] * 40000
assert enc.encode_batch(["x"] * 2000, num_threads=2**62) == [[87]] * 2000
tok = tokenforge.Tokenizer.from_file({spm_path!r})
assert [e.ids for e in tok.encode_batch(["the fox"] * 5000, num_threads=40000)] == [tok.encode("the fox").ids] * 5000
model = train_sentencepiece(sentences={LINES!r}, vocab_size=40, progress=False, num_threads=40000)
assert len(model.pieces) == 40
print("ok")
"""
    proc = run_isolated(code)
    assert_clean_exit(proc)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


# ---------------------------------------------------- trainers' numeric arguments (finding 8)


def _trainer_calls():
    base = tokenforge.Encoding(
        "base",
        pat_str=tokenforge.get_encoding("cl100k_base")._pat_str,
        mergeable_ranks={bytes([b]): b for b in range(256)},
        special_tokens={},
    )
    spm = {"sentences": LINES, "vocab_size": 40, "progress": False}
    return [
        # (call, argument, bad values that must be ValueErrors, bad values that must be TypeErrors)
        (lambda v: train_bpe(LINES, v), "vocab_size", [10**30, -5, 255, 2**24 + 1], [260.0, "300", None, True]),
        (lambda v: train_bpe(LINES, 300, min_frequency=v), "min_frequency", [0, -1, 10**30], [1.0, "2", True]),
        (lambda v: train_bpe(LINES, 300, max_token_length=v), "max_token_length", [1, -3, 10**30], [4.0, "4"]),
        (lambda v: train_bpe(LINES, 300, max_memory=v), "max_memory", [-1, 0, 1000, 10**30], [1e9, "1GB"]),
        (lambda v: train_bpe(LINES, 300, special_tokens={"<s>": v}), "<s>", [-1, 2**32, 10**30], [1.5, "9"]),
        (lambda v: train_bpe_merges(LINES, v), "num_merges", [-1, 10**30], [3.0, None]),
        (lambda v: train_bpe_merges(LINES, 10, min_frequency=v), "min_frequency", [0, 2**63], [2.5]),
        (lambda v: continue_bpe(base, LINES, v), "vocab_size", [256, 10, 2**24 + 1, 10**30], [300.0, None]),
        (lambda v: continue_bpe(base, LINES, 300, max_token_length=v), "max_token_length", [0, 10**30], ["x"]),
        (lambda v: prune_bpe(base, LINES, v), "vocab_size", [3, -1], [300.0, "300"]),
        (lambda v: train_wordpiece(LINES, v), "vocab_size", [2, -1, 10**30], [100.0, None]),
        (lambda v: train_wordpiece(LINES, 100, min_frequency=v), "min_frequency", [0, 10**30], [2.0]),
        (
            lambda v: train_wordpiece(LINES, 100, max_input_chars_per_word=v),
            "max_input_chars_per_word",
            [-1, 2**32, 10**30],
            [100.0, "100"],
        ),
        (lambda v: train_wordpiece_merges(LINES, v), "vocab_size", [10**30], ["100"]),
        (lambda v: train_sentencepiece(**(spm | {"vocab_size": v})), "vocab_size", [1, -1, 10**30], [40.0, None]),
        (
            lambda v: train_sentencepiece(**spm, character_coverage=v),
            "character_coverage",
            [0, 0.5, 1.5, -1, float("nan"), float("inf")],
            ["1.0", None, True],
        ),
        (lambda v: train_sentencepiece(**spm, shrinking_factor=v), "shrinking_factor", [0.1, 2, float("nan")], ["x"]),
        (
            lambda v: train_sentencepiece(**spm, max_sentencepiece_length=v),
            "max_sentencepiece_length",
            [0, 513, 10**30],
            [16.0],
        ),
        (lambda v: train_sentencepiece(**spm, num_sub_iterations=v), "num_sub_iterations", [0, 11], [2.0]),
        (
            lambda v: train_sentencepiece(**spm, seed_sentencepiece_size=v),
            "seed_sentencepiece_size",
            [999, 10**30],
            [1e6],
        ),
        (lambda v: train_sentencepiece(**spm, max_sentence_length=v), "max_sentence_length", [0, -1, 10**30], [4192.0]),
        (lambda v: train_sentencepiece(**spm, input_sentence_size=v), "input_sentence_size", [-1, 10**30], [1e6]),
        (lambda v: train_sentencepiece(**spm, num_threads=v), "num_threads", [-1, 0], [2.0]),
        (lambda v: train_sentencepiece(**spm, bos_id=v), "bos_id", [-2, 40, 10**30], [1.0]),
        (lambda v: train_sentencepiece(**spm, unk_id=v), "unk_id", [-1, 10**30], [0.0]),
        (lambda v: train_sentencepiece(**spm, seed=v), "seed", [], [1.5, "7"]),
        (lambda v: train_sentencepiece(**spm, byte_fallback=v), "byte_fallback", [], [1, "yes", None]),
        (lambda v: train_sentencepiece(**spm, split_digits=v), "split_digits", [], [0]),
    ]


@pytest.mark.parametrize("case", range(len(_trainer_calls())))
def test_trainer_numbers_out_of_range_are_named_before_training(case):
    call, name, value_errors, type_errors = _trainer_calls()[case]
    for value in value_errors:
        with pytest.raises(ValueError) as error:
            call(value)
        assert_names(error, name)
    for value in type_errors:
        with pytest.raises(TypeError) as error:
            call(value)
        assert_names(error, name)


def test_trainers_take_numpy_integers():
    enc = train_bpe(
        LINES,
        np.int64(300),
        min_frequency=np.uint8(2),
        max_token_length=np.int32(8),
        max_memory=np.int64(1 << 30),
        special_tokens={"<s>": np.uint32(1000)},
    )
    assert enc.decode(enc.encode_ordinary(TEXT)) == TEXT and enc.encode("<s>", allowed_special="all") == [1000]
    assert len(train_bpe_merges(LINES, np.int16(10))) == 10
    tok = train_wordpiece(LINES, np.int64(60), min_frequency=np.int8(1), max_input_chars_per_word=np.uint16(50))
    assert tok.decode(tok.encode(TEXT).ids) == TEXT
    model = train_sentencepiece(
        sentences=LINES,
        vocab_size=np.int32(40),
        character_coverage=np.float32(1.0),
        num_threads=np.int64(2),
        seed=np.int64(5),
        progress=False,
    )
    assert Tokenizer(model).decode(Tokenizer(model).encode(TEXT).ids) == TEXT
    assert json.dumps(model.trainer_spec["vocab_size"]) == "40"  # stored as a plain int
    pruned, _ = prune_bpe(enc, LINES, np.int64(280))
    assert pruned.decode(pruned.encode_ordinary(TEXT)) == TEXT


def test_the_largest_vocabulary_is_accepted():
    """The upper bounds refuse absurd sizes only: the most ids an Encoding holds is a valid
    target (training stops when the text runs out of pairs)."""
    enc = train_bpe(LINES, 2**24)
    assert enc.decode(enc.encode_ordinary(TEXT)) == TEXT


# ---------------------------------------------- truncation and padding settings (finding 8)

PADDING_ERRORS = [
    # (arguments, exception, the argument the message names)
    ({"length": -1}, ValueError, "length"),
    ({"length": 0}, ValueError, "length"),  # HF's Fixed(0) pads nothing: say so rather than pad to the longest
    ({"length": 10**30}, ValueError, "length"),
    ({"length": 2**24 + 1}, ValueError, "length"),
    ({"length": 5.0}, TypeError, "length"),
    ({"length": "5"}, TypeError, "length"),
    ({"length": True}, TypeError, "length"),
    ({"pad_to_multiple_of": -8}, ValueError, "pad_to_multiple_of"),
    ({"pad_to_multiple_of": 10**30}, ValueError, "pad_to_multiple_of"),
    ({"pad_to_multiple_of": 8.0}, TypeError, "pad_to_multiple_of"),
    ({"pad_id": -1}, ValueError, "pad_id"),
    ({"pad_id": 10**6}, ValueError, "pad_id"),  # outside the vocabulary
    ({"pad_id": 0.0}, TypeError, "pad_id"),
    ({"pad_id": None}, TypeError, "pad_id"),
    ({"pad_id": False}, TypeError, "pad_id"),
    ({"pad_type_id": -1}, ValueError, "pad_type_id"),
    ({"pad_type_id": 2**16}, ValueError, "pad_type_id"),  # type ids are 16 bits (16-byte rows)
    ({"pad_type_id": "0"}, TypeError, "pad_type_id"),
    ({"pad_token": 5}, TypeError, "pad_token"),
    ({"pad_token": None}, TypeError, "pad_token"),
    ({"pad_token": "\ud800"}, ValueError, "pad_token"),
    ({"direction": "up"}, ValueError, "direction"),
    ({"direction": "LEFT"}, ValueError, "direction"),
    ({"direction": None}, TypeError, "direction"),
    ({"direction": ["left"]}, TypeError, "direction"),
]

TRUNCATION_ERRORS = [
    ({"max_length": -1}, ValueError, "max_length"),
    ({"max_length": 10**30}, ValueError, "max_length"),
    ({"max_length": 5.0}, TypeError, "max_length"),
    ({"max_length": None}, TypeError, "max_length"),
    ({"max_length": True}, TypeError, "max_length"),
    ({"max_length": 10, "stride": -1}, ValueError, "stride"),
    ({"max_length": 10, "stride": 10**30}, ValueError, "stride"),
    ({"max_length": 10, "stride": 1.0}, TypeError, "stride"),
    ({"max_length": 10, "stride": 8}, ValueError, "stride"),  # 10 less [CLS] and [SEP] leaves 8: no room to move
    ({"max_length": 10, "strategy": "longest"}, ValueError, "strategy"),
    ({"max_length": 10, "strategy": ["only_first"]}, TypeError, "strategy"),
    ({"max_length": 10, "direction": "middle"}, ValueError, "direction"),
    ({"max_length": 10, "direction": 0}, TypeError, "direction"),
]


def _state(tok: Tokenizer):
    batch = tok.encode_batch([TEXT, "the fox"])
    return tok.padding, tok.truncation, [(e.ids, e.attention_mask, e.type_ids) for e in batch]


@pytest.mark.parametrize("args, error, name", PADDING_ERRORS, ids=[str(a) for a, _, _ in PADDING_ERRORS])
def test_refused_padding_names_the_argument_and_keeps_the_settings(args, error, name, bert, spm_tok, tmp_path):
    for tok in (bert, spm_tok):
        for previous in (None, {"length": 12, "pad_id": 0, "direction": "left"}):
            tok.no_padding()
            if previous:
                tok.enable_padding(**previous)
            before = _state(tok)
            with pytest.raises(error) as info:
                tok.enable_padding(**args)
            assert_names(info, name)
            assert _state(tok) == before
    bert.save(tmp_path / "tokenizer.json")  # the file holds the settings kept, and loads again
    assert Tokenizer.from_file(tmp_path / "tokenizer.json").padding == bert.padding


@pytest.mark.parametrize("args, error, name", TRUNCATION_ERRORS, ids=[str(a) for a, _, _ in TRUNCATION_ERRORS])
def test_refused_truncation_names_the_argument_and_keeps_the_settings(args, error, name, bert, tmp_path):
    for previous in (None, {"max_length": 6, "stride": 1, "direction": "left"}):
        bert.no_truncation()
        if previous:
            bert.enable_truncation(**previous)
        before = _state(bert)
        with pytest.raises(error) as info:
            bert.enable_truncation(**args)
        assert_names(info, name)
        assert _state(bert) == before
    bert.save(tmp_path / "tokenizer.json")
    assert Tokenizer.from_file(tmp_path / "tokenizer.json").truncation == bert.truncation


def test_enable_padding_length_minus_one_used_to_be_stored(bert, tmp_path):
    """The issue's case: the bad length was stored, encode then failed, and save() wrote a file
    that could not be loaded back."""
    with pytest.raises(ValueError, match=r"length must be None .* or an int in 1\.\.2\*\*24, got -1"):
        bert.enable_padding(length=-1)
    assert bert.padding is None
    assert len(bert.encode(TEXT).ids) == len(TEXT.split()) + 2
    bert.save(tmp_path / "tokenizer.json")
    assert Tokenizer.from_file(tmp_path / "tokenizer.json").encode(TEXT).ids == bert.encode(TEXT).ids


def test_numpy_settings_are_stored_as_ints_and_save(bert, tmp_path):
    bert.enable_padding(
        pad_id=np.int64(0), pad_type_id=np.uint8(1), length=np.int32(16), pad_to_multiple_of=np.uint16(8)
    )
    bert.enable_truncation(np.int64(12), stride=np.int8(2))
    for settings in (bert.padding, bert.truncation):
        assert all(type(v) in (int, str, type(None)) for v in settings.values()), settings
    enc = bert.encode(TEXT)
    assert len(enc.ids) == 16 and enc.ids[12:] == [0] * 4 and enc.type_ids[12:] == [1] * 4
    bert.save(tmp_path / "tokenizer.json")
    back = Tokenizer.from_file(tmp_path / "tokenizer.json")
    assert (back.padding, back.truncation) == (bert.padding, bert.truncation)
    assert back.encode(TEXT).ids == enc.ids


def test_accepted_edge_settings_save_and_reload(bert, tmp_path):
    for padding, truncation in [
        ({"length": 1}, {"max_length": 0}),
        ({"pad_to_multiple_of": 0, "pad_token": ""}, {"max_length": 2, "stride": 0}),  # as HF: 0 means no rounding
        ({"length": 2**24, "pad_type_id": 2**16 - 1, "direction": "left"}, {"max_length": 2**63 - 1, "stride": 3}),
        ({"pad_id": len(bert.get_vocab()) - 1, "pad_token": "[X]"}, {"max_length": 3, "strategy": "only_second"}),
        # HF takes a pad_id whose token is not pad_token (tests/test_wordpiece.py pads BERT with id 7 so)
        ({"length": 30, "pad_id": 7, "pad_type_id": 2}, None),
    ]:
        bert.enable_padding(**padding)
        if truncation:
            bert.enable_truncation(**truncation)
        else:
            bert.no_truncation()
        path = tmp_path / "tokenizer.json"
        bert.save(path)
        back = Tokenizer.from_file(path)
        assert (back.padding, back.truncation) == (bert.padding, bert.truncation)


def test_stride_must_leave_room_beside_the_templates_special_tokens(bert, spm_tok):
    bert.enable_truncation(10, stride=7)  # 10 - 2 special tokens = 8 > 7
    with pytest.raises(ValueError, match="stride 8 must be below max_length 10 less the 2 special tokens"):
        bert.enable_truncation(10, stride=8)
    assert bert.truncation["stride"] == 7
    bert.enable_truncation(1)  # no stride: a max_length below the special tokens fails when encoding, as before
    with pytest.raises(ValueError, match="leaves no room"):
        bert.encode(TEXT)
    assert bert.encode(TEXT, add_special_tokens=False).ids == bert.encode(TEXT, add_special_tokens=False).ids[:1]
    # sentencepiece: the template changes with add_bos/add_eos, and is checked against the truncation too
    assert spm_tok.add_bos and not spm_tok.add_eos
    spm_tok.enable_truncation(4, stride=2)  # 4 - <s> = 3 > 2
    with pytest.raises(ValueError, match="stride 2 must be below max_length 4 less the 2 special tokens"):
        spm_tok.add_eos = True
    assert not spm_tok.add_eos and spm_tok.encode(TEXT).ids[-1] != spm_tok.eos_id
    spm_tok.enable_truncation(5, stride=2)
    spm_tok.add_eos = True
    assert spm_tok.encode(TEXT).ids[-1] == spm_tok.eos_id


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0])
def test_flags_must_be_bools(bad, bert, spm_tok, spm_path):
    before = (spm_tok.add_bos, spm_tok.add_eos, bert.split_special_tokens)
    for set_flag, name in [
        (lambda: setattr(spm_tok, "add_bos", bad), "add_bos"),
        (lambda: setattr(spm_tok, "add_eos", bad), "add_eos"),
        (lambda: setattr(bert, "split_special_tokens", bad), "split_special_tokens"),
        (lambda: Tokenizer.from_file(spm_path, add_eos=bad), "add_eos"),
        (lambda: bert.encode_batch([TEXT], add_special_tokens=bad), "add_special_tokens"),
        (lambda: spm_tok.encode_batch([TEXT], add_special_tokens=bad), "add_special_tokens"),
        (lambda: bert.decode([5], skip_special_tokens=bad), "skip_special_tokens"),
        (lambda: spm_tok.decode([5], skip_special_tokens=bad), "skip_special_tokens"),
        (lambda: bert.decode_batch([[5]], skip_special_tokens=bad), "skip_special_tokens"),
        (lambda: AddedToken("x", 3, bad), "special"),
    ]:
        if bad is None and name == "add_bos":
            continue  # add_bos=None in the constructor means "when the model has a bos piece"; not a setter value
        with pytest.raises(TypeError) as info:
            set_flag()
        assert_names(info, name)
    assert (spm_tok.add_bos, spm_tok.add_eos, bert.split_special_tokens) == before
    spm_tok.add_eos = np.bool_(True)  # NumPy's bool is a bool
    assert spm_tok.add_eos is True


def test_special_token_sets_are_checked():
    enc = tokenforge.get_encoding("cl100k_base")
    for args, name in [
        ({"allowed_special": 5}, "allowed_special"),
        ({"disallowed_special": 5}, "disallowed_special"),
        ({"disallowed_special": {5}}, "disallowed_special"),
        ({"allowed_special": "<s>"}, "allowed_special"),
    ]:
        with pytest.raises(TypeError) as info:
            enc.encode("hi", **args)
        assert_names(info, name)


def test_added_token_ids_are_checked():
    assert AddedToken("x", np.int64(3)) == AddedToken("x", 3)
    with pytest.raises(ValueError, match="id of added token 'x'"):
        AddedToken("x", -1)
    with pytest.raises(TypeError, match="id of added token 'x'"):
        AddedToken("x", 3.0)


# ------------------------------------------------------------------ NumPy ids (finding 9)


def _decoders(bert: Tokenizer, spm_tok: Tokenizer):
    """name -> (decode one sequence, ids to decode (all below 128, so every dtype holds them))."""
    enc = tokenforge.get_encoding("cl100k_base")
    bert_base = tokenforge.get_tokenizer("bert-base-uncased")
    hello = bert_base.encode("hello world").ids  # [101, 7592, 2088, 102]: 7592 is past int8/uint8
    ascii_ids = list(range(0, 94, 7))  # cl100k's tokens of single ASCII characters (whole characters)
    return {
        "Encoding.decode": (enc.decode, ascii_ids),
        "Encoding.decode_bytes": (enc.decode_bytes, ascii_ids),
        "Encoding.decode_tokens_bytes": (enc.decode_tokens_bytes, ascii_ids),
        "Encoding.decode_with_offsets": (enc.decode_with_offsets, ascii_ids),
        "WordPiece (vocab.txt)": (bert.decode, bert.encode(TEXT).ids),
        "WordPiece (bert-base-uncased)": (bert_base.decode, hello),
        "sentencepiece": (spm_tok.decode, spm_tok.encode(TEXT).ids),
        "sentencepiece, control pieces shown": (
            lambda ids: spm_tok.decode(ids, skip_special_tokens=False),
            spm_tok.encode(TEXT).ids,
        ),
    }


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: d.__name__)
def test_numpy_integer_ids_decode_on_every_surface(dtype, bert, spm_tok):
    for name, (decode, ids) in _decoders(bert, spm_tok).items():
        fits = [i for i in ids if i <= np.iinfo(dtype).max]
        expected = decode(fits)
        assert decode(np.array(fits, dtype=dtype)) == expected, name
        assert decode([dtype(i) for i in fits]) == expected, name
        assert decode(tuple(np.array(fits, dtype=dtype))) == expected, name
        assert decode(np.array(fits, dtype=dtype)[::-1][::-1]) == expected, name  # not contiguous


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: d.__name__)
def test_numpy_ids_in_batches_and_single_lookups(dtype, bert, spm_tok):
    enc = tokenforge.get_encoding("cl100k_base")
    rows = np.array([[40, 41, 42], [90, 91, 92]], dtype=dtype)
    assert enc.decode_batch(rows) == enc.decode_batch(rows.tolist()) == [enc.decode(r) for r in rows]
    assert enc.decode_bytes_batch(rows) == [enc.decode_bytes(r.tolist()) for r in rows]
    assert enc.decode_batch(list(rows)) == enc.decode_batch(rows.tolist())
    assert enc.decode_single_token_bytes(dtype(40)) == enc.decode_single_token_bytes(40)
    decoder = enc.stream_decoder()
    assert "".join(decoder.push(t) for t in rows[0]) + decoder.flush() == enc.decode(rows[0].tolist())
    assert enc.is_special_token(np.uint64(100257)) and not enc.is_special_token(dtype(40))
    for tok in (bert, spm_tok):
        ids = tok.encode(TEXT).ids
        assert tok.decode_batch(np.array([ids, ids], dtype=dtype)) == [tok.decode(ids)] * 2
        assert tok.decode_batch([np.array(ids, dtype=dtype)]) == [tok.decode(ids)]
        assert tok.id_to_token(dtype(5)) == tok.id_to_token(5) is not None


@pytest.mark.parametrize(
    "bad",
    [np.array([5.0, 6.0]), np.array([True, False]), np.array([[5, 6]]), np.array(["5"]), np.array(5)],
    ids=["float", "bool", "2-D", "str", "0-D"],
)
def test_arrays_that_are_not_1d_integers_are_type_errors(bad, bert, spm_tok):
    for decode, _ in _decoders(bert, spm_tok).values():
        with pytest.raises(TypeError):
            decode(bad)


@pytest.mark.parametrize("bad", NOT_INTS, ids=repr)
def test_ids_that_are_not_integers_are_type_errors(bad, bert, spm_tok):
    enc = tokenforge.get_encoding("cl100k_base")
    for decode, ids in _decoders(bert, spm_tok).values():
        with pytest.raises(TypeError):
            decode([ids[0], bad])
    for lookup in (
        enc.decode_single_token_bytes,
        enc.is_special_token,
        bert.id_to_token,
        spm_tok.id_to_token,
        enc.stream_decoder().push,
    ):
        with pytest.raises(TypeError):
            lookup(bad)


def test_bool_ids_read_as_zero_and_one_everywhere(bert, spm_tok):
    """bool is an int subclass; tiktoken, HF tokenizers and sentencepiece all decode True as id 1,
    and so does every surface here (NumPy bool arrays are refused, as they refuse them)."""
    enc = tokenforge.get_encoding("cl100k_base")
    for decode in (enc.decode, bert.decode, spm_tok.decode, lambda ids: spm_tok.decode(ids, skip_special_tokens=False)):
        assert decode([True, False]) == decode([1, 0])
    assert bert.id_to_token(True) == bert.id_to_token(1)


def test_out_of_vocabulary_numpy_ids_are_value_errors(bert, spm_tok):
    enc = tokenforge.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="18446744073709551615"):
        enc.decode(np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(ValueError, match="-1"):
        enc.decode(np.array([-1], dtype=np.int8))
    for tok in (bert, spm_tok):
        with pytest.raises(ValueError, match="not in this tokenizer's vocabulary"):
            tok.decode(np.array([10**6], dtype=np.int64))
        with pytest.raises(ValueError, match="not in this tokenizer's vocabulary"):
            tok.decode(np.array([-3], dtype=np.int16))
        assert tok.id_to_token(np.int64(10**6)) is None
