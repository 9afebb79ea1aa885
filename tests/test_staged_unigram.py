"""HF's Unigram model in the staged pipeline (models/unigram/unigram_model.h through _core.Staged
and pipeline/staged.py) against HF tokenizers 0.23.3: a model trained here with HF's
UnigramTrainer on the corpus samples, in variants (byte_fallback, unk_id set or not, pieces
missing, tied scores, repeated pieces), behind a Metaspace pre-tokenizer or none (the normalizer
writing the "▁"s), ids, offsets and decode equal on the language samples and hypothesis strings;
hand-made vocabularies for the corners (ties, fused unknowns, the missing unk_id error); option
errors; a T5-style model converted by transformers from a sentencepiece model trained here
(without its Precompiled normalizer, which the staged pipeline lacks); a megabyte-long piece."""

from __future__ import annotations

import functools
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files, read_sample
from tokenforge import _core
from tokenforge.pipeline.spec import PipelineSpec
from tokenforge.pipeline.staged import build_staged

tokenizers = pytest.importorskip("tokenizers")

# Lines of every corpus sample (first 20 K characters each), and whole 8 K-character stretches
# (long pieces where there is no pre-tokenizer).
SAMPLES = [line for path in corpus_files() for line in read_sample(path, 20_000).splitlines() if line.strip()][::5]
STRETCHES = [read_sample(path, 8_000) for path in corpus_files()]

METASPACE = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
# Llama's way: the normalizer writes the "▁"s, the whole text is one piece.
SPACES_TO_MARKS = [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]
MARKS_TO_SPACES = [
    {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    {"type": "ByteFallback"},
    {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0},
]
PIPELINES: dict[str, dict[str, Any]] = {
    "metaspace": {"normalizer": [], "pre_tokenizer": [METASPACE], "decoder": [{"type": "ByteFallback"}, METASPACE]},
    "nfkc-metaspace": {
        "normalizer": [{"type": "NFKC"}],
        "pre_tokenizer": [METASPACE],
        "decoder": [{"type": "ByteFallback"}, METASPACE],
    },
    "none": {"normalizer": SPACES_TO_MARKS, "pre_tokenizer": [], "decoder": MARKS_TO_SPACES},
}


@functools.cache
def trained() -> tuple[tuple[str, float], ...]:
    """[(piece, score)] of a Unigram model HF's UnigramTrainer learns from the samples."""
    tok = tokenizers.Tokenizer(tokenizers.models.Unigram())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    trainer = tokenizers.trainers.UnigramTrainer(
        vocab_size=1500, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False
    )
    tok.train_from_iterator([read_sample(path, 8_000) for path in corpus_files()], trainer)
    model = json.loads(tok.to_str())["model"]
    assert model["unk_id"] == 0 and len(model["vocab"]) > 1000
    return tuple((piece, score) for piece, score in model["vocab"])


def _bytes(skip: frozenset[int] = frozenset()) -> list[list[Any]]:
    return [[f"<0x{b:02X}>", -20.0 - b / 256] for b in range(256) if b not in skip]


def _holes(vocab: list[list[Any]]) -> list[list[Any]]:
    """vocab without every third piece of one non-ASCII character (so texts have unknowns where
    longer pieces may still cover them)."""
    out, singles = [], 0
    for piece, score in vocab:
        if len(piece) == 1 and ord(piece) > 0x7F and piece != "▁":
            singles += 1
            if singles % 3 == 0:
                continue
        out.append([piece, score])
    return out


def variant(name: str) -> dict[str, Any]:
    """The model dict of a variant of the trained model."""
    vocab = [[p, s] for p, s in trained()]
    unk_id: int | None = 0
    byte_fallback = False
    if name == "no-unk":
        unk_id = None
    elif name == "byte-fallback":
        vocab, byte_fallback = vocab + _bytes(), True
    elif name == "holes":
        vocab = _holes(vocab)
    elif name == "holes-byte-fallback":  # no <0xE5>: some CJK characters fall back to <unk>
        vocab, byte_fallback = _holes(vocab) + _bytes(frozenset({0xE5})), True
    elif name == "holes-byte-fallback-no-unk":
        vocab, byte_fallback, unk_id = _holes(vocab) + _bytes(), True, None
    elif name == "holes-no-unk":  # texts with an unknown character raise, in HF and here
        vocab, unk_id = _holes(vocab), None
    elif name == "ties":  # many equal sums: the first path found must win
        vocab = [[p, float(round(s))] for p, s in vocab]
    elif name == "repeats":  # a repeated piece has its last entry's id and score
        vocab = vocab + [[p, s + 0.75] for p, s in vocab[1::9]]
    elif name == "unk-last":  # <unk> not first, with a score of its own
        vocab = [*vocab[1:], ["<unk>", -3.5]]
        unk_id = len(vocab) - 1
    else:
        assert name == "plain"
    return {"type": "Unigram", "unk_id": unk_id, "vocab": vocab, "byte_fallback": byte_fallback}


VARIANTS = [
    "plain",
    "no-unk",
    "byte-fallback",
    "holes",
    "holes-byte-fallback",
    "holes-byte-fallback-no-unk",
    "holes-no-unk",
    "ties",
    "repeats",
    "unk-last",
]


def tokenizer_json(model: dict[str, Any], normalizer=(), pre_tokenizer=(), decoder=()) -> dict[str, Any]:
    def seq(parts, key):
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"type": "Sequence", key: list(parts)}

    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": seq(normalizer, "normalizers"),
        "pre_tokenizer": seq(pre_tokenizer, "pretokenizers"),
        "post_processor": None,
        "decoder": seq(decoder, "decoders"),
        "model": model,
    }


def pair_of(doc: dict[str, Any]) -> tuple[Any, Any]:
    """(HF's tokenizer, ours) for a tokenizer.json document; ours built through pipeline/staged.py."""
    hf = tokenizers.Tokenizer.from_str(json.dumps(doc))
    spec = PipelineSpec(
        model=doc["model"], normalizer=doc["normalizer"], pre_tokenizer=doc["pre_tokenizer"], decoder=doc["decoder"]
    )
    return hf, build_staged(spec)


@functools.cache
def built(model_name: str, pipeline: str) -> tuple[Any, Any]:
    return pair_of(tokenizer_json(variant(model_name), **PIPELINES[pipeline]))


def check(hf: Any, ours: Any, text: str) -> None:
    try:
        expected = hf.encode(text)
    except Exception as e:  # noqa: BLE001 (HF raises a bare Exception: "unknown token but `unk_id` is missing")
        assert "unk_id" in str(e)
        with pytest.raises(RuntimeError, match="unk_id"):
            ours.encode(text)
        return
    got = ours.encode(text)
    assert got.ids == expected.ids, text
    assert got.offsets == expected.offsets, text
    assert ours.decode(expected.ids) == hf.decode(expected.ids), text


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("model_name", VARIANTS)
def test_trained_on_samples(model_name, pipeline):
    hf, ours = built(model_name, pipeline)
    for text in [*SAMPLES, *STRETCHES]:
        check(hf, ours, text)


def _vocab_chars() -> list[str]:
    return sorted({c for p, _ in trained() for c in p})


TEXT = st.lists(
    st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from([" ", "  ", "\n", "▁", "<unk>", "<0x41>", "<0xE5>", "日本", "é", "\u0301", "\ufffd", "😀"]),
        st.builds(lambda k: _vocab_chars()[k % len(_vocab_chars())], st.integers(0, 10_000)),
        st.builds(lambda k: trained()[k % len(trained())][0], st.integers(0, 10_000)),
    ),
    max_size=30,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=TEXT, model_name=st.sampled_from(VARIANTS), pipeline=st.sampled_from(list(PIPELINES)))
def test_trained_hypothesis(text, model_name, pipeline):
    hf, ours = built(model_name, pipeline)
    check(hf, ours, text)


# --- hand-made vocabularies: the corners ---------------------------------------------------------

SMALL = [
    ["<unk>", 0.0],
    ["a", -1.0],
    ["b", -2.0],
    ["ab", -3.0],
    ["c", -1.5],
    ["bc", -3.5],
    ["abc", -4.5],
    ["<0x78>", -9.0],
    ["xy", -1.0],
    ["é", -2.0],
    ["aé", -3.0],
]
SMALL_TEXTS = ["abc", "aabcc", "xyz", "xxyx", "zzz", "<unk>", "a<unk>z", "<unk><unk>", "xy", "aé", "ééé", "a b", "ｘ"]


@pytest.mark.parametrize(
    "model",
    [
        {"type": "Unigram", "vocab": SMALL, "unk_id": 0},
        {"type": "Unigram", "vocab": SMALL, "unk_id": 0, "byte_fallback": True},
        {"type": "Unigram", "vocab": SMALL, "unk_id": None},
        {"type": "Unigram", "vocab": SMALL[1:], "byte_fallback": True},
        {"type": "Unigram", "vocab": SMALL[1:], "unk_id": 4, "byte_fallback": True},  # unk is "bc"
        {"type": "Unigram", "vocab": [["a", -1.0], ["ab", -1.0], ["zz", 5.0], ["<unk>", 2.0]], "unk_id": 3},
        {"type": "Unigram", "vocab": [["a", -1.0], ["ab", -1.0]]},  # "ab": b alone is unknown, never taken
        {"type": "Unigram", "vocab": [["a", 0.0], ["b", 0.0], ["ab", 0.0], ["ba", 0.0], ["aba", 0.0]], "unk_id": 0},
        {"type": "Unigram", "vocab": [["a", -1], ["a", -2], ["aa", -3], ["", 1.0], ["<unk>", -1]], "unk_id": 4},
        {"type": "Unigram", "vocab": [], "unk_id": None},
        {"type": "Unigram", "vocab": [["<unk>", 0.0]], "unk_id": 0},
    ],
)
def test_hand_made_vocabularies(model):
    for pipeline in ({}, {"pre_tokenizer": [METASPACE], "decoder": [METASPACE]}):
        hf, ours = pair_of(tokenizer_json(model, **pipeline))
        for text in [*SMALL_TEXTS, "ab ba aba", "aaaa", "babab"]:
            check(hf, ours, text)


def test_equal_sums_keep_the_first_path():
    """Ties everywhere: HF keeps the first node found at each end (by start, then length)."""
    vocab = [["<unk>", -1.0], *([p, -1.0] for p in ["a", "b", "aa", "ab", "ba", "aab", "abb", "bab", "aaa"])]
    hf, ours = pair_of(tokenizer_json({"type": "Unigram", "vocab": vocab, "unk_id": 0}))
    for text in ["aab", "abab", "aaab", "babba", "aaaaaaa", "abbabbaab"]:
        check(hf, ours, text)


def _serde_json_f64(x: float) -> float:
    """The f64 serde_json (HF's JSON reader) makes of repr(x): the digits as an integer, then
    one multiplication or division by a power of ten."""
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = int(whole + fraction)
    power = int(exponent or 0) - len(fraction)
    f = float(abs(digits)) * float(f"1e{power}") if power >= 0 else float(abs(digits)) / float(f"1e{-power}")
    return -f if x < 0 else f


def test_scores_are_read_as_hf_reads_them():
    """HF's scores are not always the nearest doubles of their text (serde_json's fast float
    reading): a tie in HF's sums is no tie in exact ones, and the first path must still win."""
    found = 0
    for k in range(1, 2000):
        s = -(k / 997 + 0.1)
        near, hf_s = s, _serde_json_f64(s)
        if not hf_s < near:
            continue
        t = hf_s + hf_s  # "ab" ties "a" + "b" in HF's sums, but loses to them in exact ones
        if _serde_json_f64(t) != t:
            continue
        vocab = [["<unk>", -100.0], ["a", near], ["b", near], ["ab", t]]
        hf, ours = pair_of(tokenizer_json({"type": "Unigram", "vocab": vocab, "unk_id": 0}))
        assert hf.encode("ab").ids == [3]
        check(hf, ours, "ab")
        check(hf, ours, "abab")
        found += 1
        if found == 5:
            break
    assert found == 5


def test_batches_and_threads():
    hf, ours = built("holes-byte-fallback", "metaspace")
    texts = SAMPLES[:200]
    expected = hf.encode_batch(texts)
    for threads in (1, 4):
        got = ours.encode_batch(texts, None, True, None, threads)
        assert [e.ids for e in got] == [e.ids for e in expected]
        assert [e.offsets for e in got] == [e.offsets for e in expected]


def test_option_errors():
    def make(**model):
        return _core.Staged([], [], "Unigram", model, [], [], ["a"], [])

    make(vocab=[["a", -1.0]], unk_id=0, byte_fallback=False)
    with pytest.raises(ValueError, match="unknown option 'unk_token'"):
        make(vocab=[["a", -1.0]], unk_token="<unk>")
    with pytest.raises(ValueError, match="'vocab' is required"):
        make(unk_id=0)
    with pytest.raises(ValueError, match="entry 1 is not"):
        make(vocab=[["a", -1.0], ["b"]])
    with pytest.raises(ValueError, match="entry 0 is not"):
        make(vocab=[[1, -1.0]])
    with pytest.raises(ValueError, match="unk_id 1 is not below"):
        make(vocab=[["a", -1.0]], unk_id=1)
    with pytest.raises(ValueError, match="empty"):
        make(vocab=[], unk_id=0)
    with pytest.raises(ValueError, match="at least 0"):
        make(vocab=[["a", -1.0]], unk_id=-1)
    with pytest.raises(ValueError, match="not finite"):
        make(vocab=[["a", float("nan")]])
    with pytest.raises(ValueError, match="true or false"):
        make(vocab=[["a", -1.0]], byte_fallback=1)
    with pytest.raises(ValueError, match="token, id"):
        _core.Staged([], [], "Unigram", {"vocab": [["a", -1.0]]}, [("b", 0)], [], ["a"], [])


def test_long_piece_is_not_quadratic():
    """A megabyte with no pre-tokenizer is one piece: linear in it, and equal to HF."""
    vocab = [["<unk>", 0.0], *([("a" * k), -float(k) / 2] for k in range(1, 17)), ["b", -3.0], ["ab", -2.0]]
    hf, ours = pair_of(tokenizer_json({"type": "Unigram", "vocab": vocab, "unk_id": 0}))
    for text in ["a" * 1_000_000, "ab" * 500_000, "日" * 300_000]:
        start = time.perf_counter()
        got = ours.encode(text)
        assert time.perf_counter() - start < 1.0
        if len(text) <= 600_000:
            expected = hf.encode(text)
            assert got.ids == expected.ids
            assert got.offsets == expected.offsets


# --- a T5-style model: sentencepiece trains, transformers converts ----------------------------------


def test_t5_style_from_sentencepiece(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    converters = pytest.importorskip("transformers.convert_slow_tokenizer")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SAMPLES), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(tmp_path / "t5"),
        vocab_size=1000,
        model_type="unigram",
        character_coverage=0.9995,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        user_defined_symbols=["<sep>", "ab"],
        minloglevel=2,
    )

    class Original:  # what T5Converter reads of a slow tokenizer
        vocab_file = str(tmp_path / "t5.model")
        legacy = True
        add_prefix_space = True
        _extra_ids = 10

        @staticmethod
        def convert_tokens_to_ids(token: str) -> int:
            assert token == "</s>"
            return 1

    doc = json.loads(converters.T5Converter(Original()).converted().to_str())
    assert doc["model"]["type"] == "Unigram"
    doc["normalizer"] = None  # Precompiled: not in the staged pipeline
    doc["post_processor"] = None
    doc["added_tokens"] = []
    hf, ours = pair_of(doc)
    for text in [*SAMPLES, "a<sep>b ab", "x\U0001f600y"]:
        check(hf, ours, text)
