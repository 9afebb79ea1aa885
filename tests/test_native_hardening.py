"""The native core under hostile use (issue 17): thread starts the system refuses, settings
changed while other threads encode, ids a post-processor names outside the vocabulary, NumPy
ids, and Ctrl-C during a long batch. Cases that used to kill the interpreter run in a fresh
process (conftest.run_isolated), so that a regression fails the test instead of pytest."""

from __future__ import annotations

import io
import os
import random

import numpy as np
import pytest

import tokenforge
from conftest import assert_clean_exit, run_isolated

spm = pytest.importorskip("sentencepiece")
# The address-space limit and memory readings below are Linux's (/proc/self/status, RLIMIT_AS).
LINUX_PROC = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc/self/status")

_WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "while",
    "seven",
    "wizards",
    "quietly",
    "judge",
    "boxing",
    "matches",
    "in",
    "Paris",
    "and",
    "Tokyo;",
    "numbers",
    "12345",
    "and",
    "67.89",
    "appear",
    "too",
]


def _corpus(lines: int = 400) -> list[str]:
    rng = random.Random(1)
    return [" ".join(rng.choices(_WORDS, k=12)) for _ in range(lines)]


@pytest.fixture(scope="module")
def spm_tokenizer(tmp_path_factory) -> tokenforge.Tokenizer:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_corpus()), model_writer=model, vocab_size=60, model_type="unigram", minloglevel=2
    )
    path = tmp_path_factory.mktemp("spm") / "small.model"
    path.write_bytes(model.getvalue())
    tok = tokenforge.Tokenizer.from_file(path)
    assert tok.kernel == "sentencepiece"
    tok._path = path  # type: ignore[attr-defined]
    return tok


@pytest.fixture(scope="module")
def bert_tokenizer(tmp_path_factory) -> tokenforge.Tokenizer:
    path = tmp_path_factory.mktemp("bert") / "vocab.txt"
    pieces = sorted(
        set(_WORDS)
        | {"##" + c for c in "abcdefghijklmnopqrstuvwxyz0123456789"}
        | set("abcdefghijklmnopqrstuvwxyz0123456789.;")
    )
    path.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *pieces]) + "\n", encoding="utf-8")
    tok = tokenforge.Tokenizer.from_file(path)
    tok._path = path  # type: ignore[attr-defined]
    return tok


# ------------------------------------------------------------------- threads (finding 1)


@LINUX_PROC
def test_thread_start_refused_by_the_system_is_not_fatal():
    """With address space for only a few thread stacks, a batch asking for thousands of native
    threads runs: on no more threads than cores, and on those the system starts (it used to
    abort: "terminate called without an active exception"; later, with every requested thread
    started, the last ones found no memory for their tables: std::bad_alloc)."""
    code = """
import resource, tokenforge
enc = tokenforge.get_encoding("cl100k_base")
vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (256 << 20), resource.RLIM_INFINITY))
out = enc._core.encode_batch(["hello world"] * 4000, None, 4000)   # past the Python-level cap
assert out == [[15339, 1917]] * 4000
print("ok")
"""
    proc = run_isolated(code)
    assert_clean_exit(proc)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_huge_thread_counts_in_every_batch_call():
    enc = tokenforge.get_encoding("cl100k_base")
    assert enc.encode_ordinary_batch(["x"] * 3000, num_threads=40000) == [[87]] * 3000


# ------------------------------------------ settings changed while encoding (finding 3)


_RACE = """
import threading, time, tokenforge
tok = tokenforge.Tokenizer.from_file({path!r})
texts = {texts!r}
errors, stop = [], threading.Event()

def encode():
    try:
        while not stop.is_set():
            for out in tok.encode_batch(texts, num_threads=2):
                assert len(out.ids) == len(out.tokens) == len(out.offsets)
    except BaseException as e:
        errors.append(repr(e))

def flip(i):
{flip}

workers = [threading.Thread(target=encode) for _ in range(3)]
for w in workers:
    w.start()
start, i = time.perf_counter(), 0
while time.perf_counter() - start < 3:
    flip(i)
    i += 1
stop.set()
for w in workers:
    w.join()
print(i, errors[:3])
assert not errors, errors[:3]
"""


def _race(path, flip: str) -> None:
    """Encodes batches on 3 Python threads (each batch on 2 native threads) for 3 s while the
    main thread changes settings with `flip(i)`; no call may fail or crash (a segfault 3 runs
    of 3 before settings became swapped snapshots)."""
    texts = [line * 3 for line in _corpus(200)]
    proc = run_isolated(_RACE.format(path=str(path), texts=texts, flip=flip))
    assert_clean_exit(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_spm_settings_change_while_other_threads_encode(spm_tokenizer):
    _race(
        spm_tokenizer._path,
        """
    tok.add_eos = i % 2 == 0
    if i % 3 == 0:
        tok.enable_truncation(8 + i % 5)
    else:
        tok.no_truncation()
    if i % 7 == 0:
        tok.enable_padding(pad_id=0, pad_token=tok.id_to_token(0))
    else:
        tok.no_padding()""",
    )


def test_wordpiece_settings_change_while_other_threads_encode(bert_tokenizer):
    _race(
        bert_tokenizer._path,
        """
    if i % 2:
        tok.enable_truncation(6 + i % 4, stride=i % 3)
    else:
        tok.no_truncation()
    if i % 5 == 0:
        tok.enable_padding(length=40, pad_id=0)
    else:
        tok.no_padding()""",
    )


# ------------------------------------------- ids outside the vocabulary (finding 2, 9)


def test_post_processor_ids_outside_the_vocabulary_are_refused(bert_tokenizer):
    native = bert_tokenizer._native
    size = len(bert_tokenizer._token_of)
    for bad in (size, 10**6, 2**32 - 1):
        with pytest.raises(ValueError, match="not in the vocabulary"):
            native.set_template([(False, 0, 0, [bad]), (True, 0, 0, [])], [(True, 0, 0, [])])
        with pytest.raises(ValueError, match="not in the vocabulary"):
            native.set_padding(True, 0, 0, bad)
    # nothing was stored: encoding still works and names every token
    assert bert_tokenizer.encode("the fox").tokens == ["[CLS]", "the", "fox", "[SEP]"]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_numpy_ids_decode_natively(spm_tokenizer, dtype):
    enc = tokenforge.get_encoding("cl100k_base")
    ids = enc.encode("hello world")
    if np.iinfo(dtype).max >= max(ids):
        assert enc.decode(np.array(ids, dtype=dtype)) == "hello world"
    sp_ids = spm_tokenizer.encode("the fox", add_special_tokens=False).ids
    as_numpy = np.array(sp_ids, dtype=dtype)
    assert spm_tokenizer.decode(as_numpy) == spm_tokenizer.decode(sp_ids) == "the fox"
    assert spm_tokenizer.decode([np.int64(i) for i in sp_ids]) == "the fox"
    with pytest.raises(TypeError, match="int"):
        spm_tokenizer.decode([sp_ids[0], np.float64(1.0)])


# ---------------------------------------------------------------- Ctrl-C (finding 11)

_INTERRUPT = """
import os, random, signal, threading, time, tokenforge
{make}
doc = "".join(random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=100_000))
sent, done = [], threading.Event()
def interrupt():  # Ctrl-C after 0.3 s, pressed again every 0.3 s (a machine under load may be slow to see it)
    while not done.wait(0.3) and len(sent) < 20:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
def first_only(signum, frame):  # the first Ctrl-C seen interrupts; later presses change nothing
    if not done.is_set():
        done.set()
        raise KeyboardInterrupt
signal.signal(signal.SIGINT, first_only)
threading.Thread(target=interrupt, daemon=True).start()
start = time.perf_counter()
try:
    {call}
    done.set()
    print("finished", time.perf_counter() - start)
except KeyboardInterrupt:
    print("interrupted", time.perf_counter() - sent[-1])
"""

_BATCHES = {
    "Encoding": (
        "enc = tokenforge.get_encoding('cl100k_base')",
        "enc.encode_ordinary_batch([doc] * 400, num_threads=1)",
    ),
    "Encoding-threads": (
        "enc = tokenforge.get_encoding('cl100k_base')",
        "enc.encode_ordinary_batch([doc] * 800, num_threads=2)",
    ),
    "train_bpe": (
        (
            "from tokenforge.trainers import train_bpe\nrng = random.Random(0)\n"
            "texts = [''.join(rng.choices('abcdefghijklmnopqrstuvwxyz ', k=10_000)) for _ in range(800)]"
        ),
        "train_bpe(texts, 20_000, progress=False)",
    ),
}


@pytest.mark.parametrize("name", list(_BATCHES))
def test_ctrl_c_stops_a_long_native_batch(name):
    """A batch of several seconds ends with KeyboardInterrupt within a second of Ctrl-C (it used
    to run to the end): timed from the last Ctrl-C sent, which a loaded machine may need twice."""
    make, call = _BATCHES[name]
    proc = run_isolated(_INTERRUPT.format(make=make, call=call))
    assert_clean_exit(proc)
    word, seconds = proc.stdout.split()
    assert word == "interrupted", proc.stdout
    assert float(seconds) < 1.0, proc.stdout


# ------------------------------------------------------------ memory (finding 11)

# VmHWM, not getrusage's ru_maxrss: that one keeps the parent's peak across fork and exec.
_PEAK = """
import tokenforge
def status(key):
    return next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith(key + ":"))
{setup}
base = status("VmRSS")
result = {call}
print((status("VmHWM") - base) / size)
"""


def _peak_ratio(setup: str, call: str) -> float:
    """Peak resident memory of `call` over what the process held before, per input byte (`size`)."""
    proc = run_isolated(_PEAK.format(setup=setup, call=call))
    assert_clean_exit(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return float(proc.stdout.split()[-1])


@LINUX_PROC
def test_wordpiece_training_on_one_huge_word_stays_small():
    """One word of 20 MB: the tokenizer reads it as [UNK] whole, so training leaves it out (it
    took 47x the word: a string per character, then tokens millions of characters long)."""
    ratio = _peak_ratio(
        "from tokenforge.trainers.wordpiece import train_wordpiece\n"
        "word = 'abcdefghij' * 2_000_000\nsize = len(word)\ntexts = [word, 'some other words here'] * 2",
        "train_wordpiece(texts, vocab_size=200, progress=False)",
    )
    assert ratio < 6, ratio  # 4.7 here: the word, its copy as a table key, its alignment


@LINUX_PROC
def test_encode_with_offsets_of_a_large_text_stays_near_its_size():
    """Offsets are 4-byte PackedInts, not lists of ints (a 200 MB text took 25x its size)."""
    ratio = _peak_ratio(
        "import random\nenc = tokenforge.get_encoding('cl100k_base')\nenc.encode('warm up')\n"
        "words = ['token', 'forge', 'memory', ' ', 'of', 'a', 'large', 'text', '\\n', '42', 'é']\n"
        "text = ''.join(random.Random(0).choices(words, k=8_000_000))\nsize = len(text.encode())",
        "enc.encode_with_offsets(text)",
    )
    assert ratio < 8, ratio  # 6.5 here (3 bytes a token: 12 bytes of results a token, and the UTF-8)


def test_encoded_rows_are_sixteen_bytes(bert_tokenizer):
    """A token of an Encoded costs 16 bytes (id, span, type id, masks); type ids past 65535 are
    refused where set."""
    native = bert_tokenizer._native
    with pytest.raises(ValueError, match="type id"):
        native.set_template([(True, 0, 70_000, [])], [(True, 0, 0, [])])
    out = bert_tokenizer.encode("the fox", "the dog")
    assert out.type_ids == [0, 0, 0, 0, 1, 1, 1]
