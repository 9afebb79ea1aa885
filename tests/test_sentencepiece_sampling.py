"""Subword regularization for sentencepiece models, against the sentencepiece library: Unigram
n-best lists equal to its nbest_encode (same segmentations, same order, ties included) on
models it trains here and on crafted ones; Unigram sampling and BPE-dropout checked
statistically against exact distributions (enumerated by brute force here) and against
sentencepiece's own samples."""

from __future__ import annotations

import collections
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED, corpus_files, read_sample
from tokenforge.formats.sentencepiece_model import (
    ModelType,
    Piece,
    PieceType,
    SentencePieceModel,
)
from tokenforge.models.sentencepiece import SentencePieceModelEncoder

spm = pytest.importorskip("sentencepiece")
MISTRAL = str(SHARED / "vocab" / "mistral-7b-v0.1.model")
CORPORA = {p.name: p for p in corpus_files()}
SAMPLES = 3000


@pytest.fixture(scope="module")
def unigram(tmp_path_factory):
    """Unigram models sentencepiece trains here (nmt_nfkc with and without byte fallback,
    identity), each with a user-defined symbol, and one with some pieces made unused:
    name -> (sentencepiece, ours)."""
    out = tmp_path_factory.mktemp("spm-sampling")
    text = out / "corpus.txt"
    text.write_text("".join(read_sample(p, 20_000) for p in corpus_files()), encoding="utf-8")
    models = {}
    for rule, fallback in [("nmt_nfkc", True), ("nmt_nfkc", False), ("identity", False)]:
        prefix = out / f"{rule}-{fallback}"
        spm.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(prefix),
            vocab_size=1200,
            model_type="unigram",
            normalization_rule_name=rule,
            byte_fallback=fallback,
            user_defined_symbols=["<sep>"],
            character_coverage=0.98,
            minloglevel=2,
        )
        models[prefix.name] = str(prefix.with_suffix(".model"))
    model = SentencePieceModel.read(models["nmt_nfkc-True"])
    for p in model.pieces[300::7]:
        if p.type == PieceType.NORMAL and len(p.piece) > 1:
            p.type = PieceType.UNUSED
    model.write(out / "unused.model")
    models["unused"] = str(out / "unused.model")
    return {
        name: (spm.SentencePieceProcessor(model_file=path), SentencePieceModelEncoder.from_file(path))
        for name, path in models.items()
    }


def lines_of(name: str, count: int) -> list[str]:
    lines = [line for line in read_sample(CORPORA[name], 60_000).split("\n") if line.strip()]
    return lines[:count]


@pytest.mark.parametrize("corpus", ["en-linuxdoc.txt", "code-python-stdlib.txt", "ja.txt", "ru.txt", "zh_CN.txt"])
def test_nbest_equals_sentencepiece_line_by_line(unigram, corpus):
    for name, (theirs, ours) in unigram.items():
        for line in lines_of(corpus, 80):
            for n in range(1, 11):
                assert ours.encode_nbest(line, n) == theirs.nbest_encode_as_ids(line, n), (name, n, line)


def test_nbest_equals_sentencepiece_on_long_text(unigram):
    """Long inputs fill the A* agenda: it is cut back to its best hypotheses, and past ten cuts
    the search falls back to the Viterbi path alone (exactly as sentencepiece does)."""
    theirs, ours = unigram["nmt_nfkc-True"]
    for corpus in ("en-linuxdoc.txt", "code-python-stdlib.txt", "ja.txt"):
        text = read_sample(CORPORA[corpus], 12_000)
        for size, n in [(1500, 100), (6000, 10), (12_000, 100)]:
            assert ours.encode_nbest(text[:size], n) == theirs.nbest_encode_as_ids(text[:size], n), (corpus, size, n)


def test_nbest_edges(unigram):
    theirs, ours = unigram["nmt_nfkc-True"]
    for text in ["", " ", "a", "<sep>", "x<sep>y<sep>", "😀", "a😀b😀😀c", "\u2581", "  ＡＢＣ ｶﾀｶﾅ ①", "ａ\u3000ｂ"]:
        for n in (1, 2, 7, 512):
            assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), (text, n)


@settings(max_examples=150, deadline=None)
@given(
    st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \t▁aeé日本😀<sep>"))), max_size=30),
    st.integers(1, 10),
)
def test_random_text_nbest_equals_sentencepiece(unigram, text, n):
    for name in ("nmt_nfkc-True", "identity-False"):
        theirs, ours = unigram[name]
        assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), name


def crafted(tmp_path, pieces: list[tuple[str, float, PieceType]]):
    """A Unigram model of the given pieces (after <unk>, <s>, </s>) with identity normalization
    and no dummy prefix, so the text is the lattice: (sentencepiece, ours)."""
    model = SentencePieceModel(
        pieces=[
            Piece("<unk>", 0, PieceType.UNKNOWN),
            Piece("<s>", 0, PieceType.CONTROL),
            Piece("</s>", 0, PieceType.CONTROL),
        ]
        + [Piece(p, s, t) for p, s, t in pieces]
    )
    model.trainer_spec["model_type"] = ModelType.UNIGRAM
    spec = model.normalizer_spec
    spec["name"], spec["add_dummy_prefix"], spec["remove_extra_whitespaces"] = "identity", False, False
    path = tmp_path / f"crafted-{len(list(tmp_path.iterdir()))}.model"
    model.write(path)
    return spm.SentencePieceProcessor(model_file=str(path)), SentencePieceModelEncoder.from_file(path)


def test_nbest_ties_pop_in_sentencepiece_order(tmp_path):
    """Equal scores everywhere: many segmentations tie, and only the same agenda (a binary heap
    fed in the same order) lists them in the same order."""
    N = PieceType.NORMAL
    theirs, ours = crafted(tmp_path, [(p, -1.0, N) for p in ["a", "b", "c", "ab", "bc", "abc", "ca", "cab", "bca"]])
    for text in ["abc", "abcabc", "cabcab", "abcabcabca", "bcabcabcabcab"]:
        for n in (2, 3, 5, 10, 40, 200):
            assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), (text, n)


def test_user_defined_symbols_and_unknowns_in_nbest(tmp_path):
    """A user-defined symbol scores 0.1 * (characters - 1) in the lattice; a character no piece
    covers alone is an unknown, and unknowns in a row are one id."""
    N, U = PieceType.NORMAL, PieceType.USER_DEFINED
    theirs, ours = crafted(
        tmp_path,
        [
            ("a", -1.0, N),
            ("b", -2.0, N),
            ("c", -3.0, N),
            ("ab", -2.5, N),
            ("abc", 0, U),
            ("bc", 0, U),
            ("é", -1.5, N),
            ("éé", 0, U),
            ("xa", -4.0, N),
        ],
    )
    for text in ["abc", "éé", "xabcx", "abcbc", "abcabcbcxéé", "bcbcbcbc", "xxabxx", "zxay"]:
        for n in (1, 2, 3, 5, 10, 50):
            assert ours.encode_nbest(text, n) == theirs.nbest_encode_as_ids(text, n), (text, n)
        assert ours.encode(text) == theirs.encode(text), text


def test_viterbi_rebases_long_sums_like_sentencepiece(tmp_path, unigram):
    """sentencepiece sums Viterbi scores in float and rebases them when they leave [-1e5, 1e5]:
    a huge first score is forgotten before the small differences after it are compared."""
    N = PieceType.NORMAL
    for ab in (-0.51, -0.54, -0.56):
        theirs, ours = crafted(
            tmp_path, [("x", -1048576.0, N), ("y", -0.03, N), ("a", -0.03, N), ("b", -0.5, N), ("ab", ab, N)]
        )
        for text in ["xab", "xyab"]:
            assert ours.encode(text) == theirs.encode(text), (ab, text)
    theirs, ours = unigram["nmt_nfkc-False"]
    text = read_sample(CORPORA["en-linuxdoc.txt"], 400_000)
    assert ours.encode(text) == theirs.encode(text)


def test_nbest_argument_errors(unigram):
    _, ours = unigram["identity-False"]
    for bad in (0, -1, 513, 2.0, "3"):
        with pytest.raises(ValueError, match="nbest_size"):
            ours.encode_nbest("abc", bad)
    with pytest.raises(ValueError, match="Unigram-only"):
        SentencePieceModelEncoder.from_file(MISTRAL).encode_nbest("abc", 2)


# --- sampling ------------------------------------------------------------------------------


def segmentations(model: SentencePieceModel, normalized: str) -> dict[tuple[int, ...], float]:
    """Every segmentation of `normalized` in the Unigram lattice, as ids with its score: the
    reference the samplers are measured against (texts without unknowns)."""
    ids = {p.piece: (i, p) for i, p in enumerate(model.pieces) if p.type in (PieceType.NORMAL, PieceType.USER_DEFINED)}
    out: dict[tuple[int, ...], float] = {}

    def walk(pos: int, path: tuple[int, ...], score: float) -> None:
        if pos == len(normalized):
            out[path] = score
            return
        for end in range(pos + 1, len(normalized) + 1):
            if normalized[pos:end] in ids:
                i, p = ids[normalized[pos:end]]
                s = 0.1 * (end - pos - 1) if p.type == PieceType.USER_DEFINED else p.score
                walk(end, (*path, i), score + s)

    walk(0, (), 0.0)
    return out


def chi_square_z(stat: float, dof: int) -> float:
    """A chi-square statistic as a standard normal deviate (Wilson-Hilferty)."""
    return ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))


def fits(counts: collections.Counter, probs: dict, draws: int) -> float:
    """Goodness of fit of sample counts to exact probabilities: categories expected fewer than
    5 times are pooled. Returns the deviate (about N(0, 1) when the samples follow probs)."""
    assert set(counts) <= set(probs), set(counts) - set(probs)
    stat, pooled_obs, pooled_exp, bins = 0.0, 0, 0.0, 0
    for key, p in probs.items():
        expected = p * draws
        if expected < 5:
            pooled_obs, pooled_exp = pooled_obs + counts[key], pooled_exp + expected
            continue
        stat, bins = stat + (counts[key] - expected) ** 2 / expected, bins + 1
    if pooled_exp >= 5:
        stat, bins = stat + (pooled_obs - pooled_exp) ** 2 / pooled_exp, bins + 1
    assert bins >= 2
    return chi_square_z(stat, bins - 1)


def same_distribution(a: collections.Counter, b: collections.Counter) -> float:
    """Chi-square test that two equal-sized samples come from one distribution (categories
    seen fewer than 10 times in both together are pooled); the deviate, as in fits."""
    stat, bins, rest_a, rest_b = 0.0, 0, 0, 0
    for key in set(a) | set(b):
        if a[key] + b[key] < 10:
            rest_a, rest_b = rest_a + a[key], rest_b + b[key]
            continue
        stat, bins = stat + (a[key] - b[key]) ** 2 / (a[key] + b[key]), bins + 1
    if rest_a + rest_b >= 10:
        stat, bins = stat + (rest_a - rest_b) ** 2 / (rest_a + rest_b), bins + 1
    assert bins >= 2
    return chi_square_z(stat, bins - 1)


def softmax(scores: dict, alpha: float) -> dict:
    top = max(scores.values())
    weights = {k: math.exp(alpha * (s - top)) for k, s in scores.items()}
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def sentencepiece_samples(theirs, text: str, alpha: float, nbest_size: int, seed: int) -> collections.Counter:
    spm.set_random_generator_seed(seed)
    return collections.Counter(
        tuple(theirs.encode(text, enable_sampling=True, alpha=alpha, nbest_size=nbest_size)) for _ in range(SAMPLES)
    )


@pytest.mark.parametrize(
    "text, alpha", [("the kernel module", 0.1), ("interrupt handler", 0.3), ("configuration", 1.0)]
)
def test_lattice_sampling_follows_the_exact_distribution(unigram, text, alpha):
    theirs, ours = unigram["nmt_nfkc-False"]
    exact = softmax(segmentations(ours.model, ours.normalize(text)), alpha)
    assert len(exact) > 20
    mine = collections.Counter(tuple(ours.sample_encode(text, alpha, -1, seed=i)) for i in range(SAMPLES))
    reference = sentencepiece_samples(theirs, text, alpha, -1, seed=7)
    assert fits(mine, exact, SAMPLES) < 4
    assert fits(reference, exact, SAMPLES) < 4  # the enumeration is sentencepiece's distribution
    assert same_distribution(mine, reference) < 4


@pytest.mark.parametrize(
    "text, alpha, k", [("interrupt handler", 0.5, 5), ("tokenization", 0.2, 8), ("configuration", 1.0, 3)]
)
def test_nbest_sampling_follows_the_exact_distribution(unigram, text, alpha, k):
    theirs, ours = unigram["nmt_nfkc-False"]
    ranked = sorted(segmentations(ours.model, ours.normalize(text)).items(), key=lambda kv: -kv[1])
    assert ranked[k - 1][1] > ranked[k][1]  # no tie at the cut
    exact = softmax(dict(ranked[:k]), alpha)
    assert set(exact) == {tuple(x) for x in ours.encode_nbest(text, k)}
    mine = collections.Counter(tuple(ours.sample_encode(text, alpha, k, seed=i)) for i in range(SAMPLES))
    reference = sentencepiece_samples(theirs, text, alpha, k, seed=11)
    assert fits(mine, exact, SAMPLES) < 4
    assert fits(reference, exact, SAMPLES) < 4
    assert same_distribution(mine, reference) < 4


def test_sampling_statistics_can_fail(unigram):
    """The tests above reject a sampler whose alpha is off by a third."""
    _, ours = unigram["nmt_nfkc-False"]
    exact = softmax(segmentations(ours.model, ours.normalize("interrupt handler")), 0.3)
    wrong = collections.Counter(tuple(ours.sample_encode("interrupt handler", 0.4, -1, seed=i)) for i in range(SAMPLES))
    assert fits(wrong, exact, SAMPLES) > 4


def test_unigram_sampling_edges(unigram):
    theirs, ours = unigram["nmt_nfkc-True"]
    text = "Sampling 😀 and <sep> unknowns"
    for nbest_size in (0, 1):
        assert ours.sample_encode(text, 0.5, nbest_size) == ours.encode(text)
    assert ours.sample_encode(text, 500.0, -1, seed=1) == ours.encode(text)  # all weight on the best path
    assert ours.sample_encode("", 0.5) == []
    draws = {tuple(ours.sample_encode(text, 0.1, -1, seed=s)) for s in range(50)}
    assert len(draws) > 10
    assert all(theirs.decode(list(d)) == theirs.decode(ours.encode(text)) for d in draws)
    assert ours.sample_encode(text, 0.1, seed=3) == ours.sample_encode(text, 0.1, seed=3)
    assert len({tuple(ours.sample_encode(text, 0.1)) for _ in range(30)}) > 1  # unseeded: random


def test_sampling_argument_errors(unigram):
    _, ours = unigram["identity-False"]
    for alpha in (-0.1, float("nan"), float("inf"), "1"):
        with pytest.raises(ValueError, match="alpha"):
            ours.sample_encode("abc", alpha)
    for nbest_size in (-2, 513, 1.5):
        with pytest.raises(ValueError, match="nbest_size"):
            ours.sample_encode("abc", 0.1, nbest_size)
    for seed in (-1, 2**64, 1.0):
        with pytest.raises(ValueError, match="seed"):
            ours.sample_encode("abc", 0.1, seed=seed)
    bpe = SentencePieceModelEncoder.from_file(MISTRAL)
    with pytest.raises(ValueError, match="Unigram-only"):
        bpe.sample_encode("abc", 0.1, -1)
    with pytest.raises(ValueError, match="alpha"):
        bpe.sample_encode("abc", 1.5)


# --- BPE-dropout ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mistral():
    return spm.SentencePieceProcessor(model_file=MISTRAL), SentencePieceModelEncoder.from_file(MISTRAL)


def dropout_distribution(model: SentencePieceModel, normalized: str, alpha: float) -> dict[tuple[int, ...], float]:
    """The exact distribution of BPE-dropout: sentencepiece's merge loop (highest score first,
    then the leftmost) run down every branch, each merge taken with probability 1 - alpha."""
    pieces = {p.piece: (i, p.score) for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL}
    out: collections.Counter = collections.Counter()

    def pairs_at(symbols: list[str], nexts: list[int], left: int) -> list[tuple[float, int, int, int]]:
        right = nexts[left] if left >= 0 else -1
        if left < 0 or right < 0 or (symbols[left] + symbols[right]) not in pieces:
            return []
        merged = symbols[left] + symbols[right]
        return [(pieces[merged][1], left, right, len(merged))]

    def run(symbols: list[str], prevs: list[int], nexts: list[int], agenda: list, prob: float) -> None:
        while agenda:
            top = max(agenda, key=lambda e: (e[0], -e[1]))
            agenda = [e for e in agenda if e is not top]
            _, left, right, size = top
            if not symbols[left] or not symbols[right] or len(symbols[left]) + len(symbols[right]) != size:
                continue
            run(symbols, prevs, nexts, agenda, prob * alpha)  # skipped
            symbols, prevs, nexts = symbols[:], prevs[:], nexts[:]
            symbols[left], symbols[right] = symbols[left] + symbols[right], ""
            nexts[left] = nexts[right]
            if nexts[right] >= 0:
                prevs[nexts[right]] = left
            agenda = agenda + pairs_at(symbols, nexts, prevs[left]) + pairs_at(symbols, nexts, left)
            prob *= 1 - alpha
        ids, i = [], 0
        while i >= 0:
            ids.append(pieces[symbols[i]][0])
            i = nexts[i]
        out[tuple(ids)] += prob

    chars = list(normalized)
    nexts = [i + 1 if i + 1 < len(chars) else -1 for i in range(len(chars))]
    prevs = [i - 1 for i in range(len(chars))]
    run(chars, prevs, nexts, [e for i in range(len(chars)) for e in pairs_at(chars, nexts, i)], 1.0)
    return dict(out)


def test_dropout_zero_is_encode_and_one_is_characters(mistral):
    theirs, ours = mistral
    for text in lines_of("en-linuxdoc.txt", 30) + lines_of("ja.txt", 10) + ["😀 x  y", ""]:
        assert ours.sample_encode(text, 0.0) == ours.encode(text)
        singles = []  # each character alone, or its UTF-8 bytes (byte fallback)
        for c in ours.normalize(text):
            i = theirs.piece_to_id(c)
            singles += [i] if i != theirs.unk_id() else [theirs.piece_to_id(f"<0x{b:02X}>") for b in c.encode()]
        assert ours.sample_encode(text, 1.0) == singles
        assert theirs.encode(text, enable_sampling=True, alpha=1.0, nbest_size=-1) == singles


@pytest.mark.parametrize("text, alpha", [("hello", 0.1), ("tokens", 0.3), ("the cat", 0.5)])
def test_dropout_follows_the_exact_distribution(mistral, text, alpha):
    theirs, ours = mistral
    exact = dropout_distribution(ours.model, ours.normalize(text), alpha)
    assert math.isclose(sum(exact.values()), 1.0) and len(exact) > 5
    mine = collections.Counter(tuple(ours.sample_encode(text, alpha, seed=i)) for i in range(SAMPLES))
    reference = sentencepiece_samples(theirs, text, alpha, -1, seed=5)
    assert fits(mine, exact, SAMPLES) < 4
    assert fits(reference, exact, SAMPLES) < 4
    assert same_distribution(mine, reference) < 4


def test_dropout_on_long_text_keeps_the_text(mistral):
    theirs, ours = mistral
    text = read_sample(CORPORA["ru.txt"], 5000)
    rng = random.Random(3)
    for alpha in (0.05, 0.2, 0.7):
        ids = ours.sample_encode(text, alpha, seed=rng.randrange(2**64))
        assert theirs.decode(ids) == theirs.decode(theirs.encode(text))
        assert len(ids) > len(ours.encode(text))
