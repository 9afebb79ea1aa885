"""The fused byte-level BPE of tokenizer.json files (pipeline/fused_hf_bpe.py,
native pipelines/byte_level_hf_bpe.h) against HF tokenizers 0.23.3 and the staged pipeline.

The scanners it picks for a Split pattern against Oniguruma (`_core.Regex`, HF's engine) on the
corpus samples, every code point and hypothesis strings; then files trained here with HF's
trainers (GPT-2's ByteLevel with its regex, Llama-3-style and Qwen-style Splits with NFC,
tiktoken's patterns as tokenforge writes them, a pattern no scanner covers; add_prefix_space,
ignore_merges, added tokens, templates): fused == staged == HF on ids, tokens, offsets and
decode. The real Llama 3 and Qwen3 files are a slow test (../shared)."""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import WHOLE_CORPUS, corpus_files, read_sample
from hf_trio import Trio
from tokenforge import _core
from tokenforge.formats.hf_tokenizer_json import hf_split_pattern
from tokenforge.pipeline.fused_hf_bpe import (
    BYTE_CHARS,
    DIGITS_ALONE,
    HF_GPT2,
    LLAMA3,
    QWEN2,
    SCANNERS,
    STAGES,
    build_fused_hf_bpe,
    fused_description,
)
from tokenforge.pre_tokenizers.patterns import CL100K, O200K, TEKKEN

tokenizers = pytest.importorskip("tokenizers")

SAMPLE_TEXTS = [read_sample(p, 30_000) for p in corpus_files()]
LINES = [line for text in SAMPLE_TEXTS for line in text.splitlines(keepends=True)]

EDGE = [
    "",
    " ",
    "  \n  ",
    "\n\n",
    "a\n \n  ",
    "x  \r\n\t ",
    "Hello world!  It's  'S 'LL 'll 'Ve I'd ſ 'ſ",
    "1234567 ١٢٣٤ 12a34",
    "e\u0301 cafe\u0301 caf\u00e9 \u1e9b\u0323",  # NFC changes the first ones
    "日本語のテキスト、です。 Привет мир",
    "tab\there  \u3000 \u00a0nbsp\u2028x",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "<|endoftext|>hello world<|endoftext|>  hello world  <|fim|>",
    "a<|endoftext|> <|endoftext|>\n<|endoftext|>",
    "a" * 700 + " " + "日本" * 300 + " " * 300 + "x" + "1" * 50 + "\n" * 40 + "  ",
    "Ω" * 40 + " " + "ab" * 20 + " \u0301" * 30,
]

TEXT = st.lists(
    st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(
            [
                *" \t\n\r  ,.!'-_abSLVEDTM12٣é日本かカ\u0301\u0323\u00a0\u3000👍",
                "'s",
                "'LL",
                "<|endoftext|>",
                "hello world",
            ]
        ),
    ),
    max_size=30,
).map("".join)


# -- the scanners against Oniguruma ------------------------------------------------------------


def regex_ends(pattern: _core.Regex, text: str) -> list[int]:
    """Piece ends in code points as HF's Split(Isolated) cuts text (empty pieces dropped)."""
    return [end for start, end, _ in pattern.find_matches(text) if end > start]


def scanner_ends(scanner: int, text: str, windowed: bool) -> list[int]:
    data = text.encode()
    char_of = [0] * (len(data) + 1)
    chars = 0
    for i, b in enumerate(data):
        char_of[i] = chars
        chars += (b & 0xC0) != 0x80
    char_of[len(data)] = chars
    return [char_of[e] for e in _core._hf_split_ends(text, scanner, windowed)]


PATTERNS = sorted(SCANNERS.items(), key=lambda kv: kv[1])


def same_split(pattern: str, scanner: int, text: str) -> None:
    want = regex_ends(_regex(pattern), text)
    for windowed in (True, False):
        got = scanner_ends(scanner, text, windowed)
        if got != want:
            k = next(i for i, (a, b) in enumerate(zip([*got, -1], [*want, -1])) if a != b)
            at = want[k - 1] if k else 0
            raise AssertionError(
                f"scanner {scanner} (windowed={windowed}) vs Oniguruma on {pattern!r}: from code point {at} "
                f"{text[at : at + 30]!r}: ends {got[k : k + 3]} != {want[k : k + 3]}"
            )


@functools.cache
def _regex(pattern: str) -> _core.Regex:
    return _core.Regex(pattern)


@pytest.mark.parametrize(("pattern", "scanner"), PATTERNS)
def test_scanner_equals_oniguruma_on_samples(pattern, scanner):
    for text in [*SAMPLE_TEXTS, *EDGE]:
        same_split(pattern, scanner, text)


@pytest.mark.parametrize(("pattern", "scanner"), PATTERNS)
def test_scanner_equals_oniguruma_on_every_code_point(pattern, scanner):
    # Each code point alone, doubled, between letters, after a space, an apostrophe, a digit and
    # a newline, and before whitespace: every class it could fall in shows.
    chunk: list[str] = []
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        chunk.append(f"{c}{c}a{c} {c}'{c}1{c}\n{c}  ")
        if len(chunk) == 8192:
            same_split(pattern, scanner, "".join(chunk))
            chunk = []
    same_split(pattern, scanner, "".join(chunk))


@pytest.mark.parametrize(("pattern", "scanner"), PATTERNS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_scanner_equals_oniguruma_on_any_text(pattern, scanner, text):
    same_split(pattern, scanner, text)


def test_pattern_choice():
    assert SCANNERS[LLAMA3] == 3 and SCANNERS[QWEN2] == 4 and SCANNERS[HF_GPT2] == 0
    assert SCANNERS[hf_split_pattern(CL100K)] == 1 and SCANNERS[hf_split_pattern(O200K)] == 2


# -- files trained with HF's trainers -------------------------------------------------------------

CUSTOM = r"\w+|[^\w\s]+|\s+"  # no scanner: Oniguruma inside the fused pass

# name -> (normalizer NFC?, pre-tokenizer kind or Split pattern)
SHAPES = {
    "gpt2": (False, None),
    "llama3": (False, LLAMA3),
    "qwen2": (True, QWEN2),
    "cl100k": (False, hf_split_pattern(CL100K)),
    "o200k": (False, hf_split_pattern(O200K)),
    "custom": (True, CUSTOM),
    "tekken": (False, TEKKEN),
}
CASES = [
    ("gpt2", False, False),
    ("gpt2", True, True),
    ("llama3", False, True),
    ("llama3", True, False),
    ("qwen2", False, False),
    ("qwen2", True, True),
    ("cl100k", False, False),
    ("o200k", False, True),
    ("custom", False, False),
    ("custom", True, True),
    ("tekken", False, False),
]


def _train(tok: Any, nfc: bool, vocab_size: int) -> None:
    """Trains tok (its pre-tokenizer set) on the sample lines: the byte alphabet, two special
    tokens (ids 0 and 1), the ByteLevel decoder, NFC where asked."""
    from tokenizers import decoders, normalizers, pre_tokenizers, trainers

    if nfc:
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>", "<|fim|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(LINES[::3], trainer)


def trained_doc(shape: str, add_prefix_space: bool, ignore_merges: bool, template: bool) -> dict[str, Any]:
    from tokenizers import AddedToken, Regex, models, pre_tokenizers, processors

    nfc, split = SHAPES[shape]
    tok = tokenizers.Tokenizer(models.BPE())
    if split is None:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False),
            ]
        )
    _train(tok, nfc, 1500)
    tok.add_tokens([AddedToken("hello world", normalized=False), AddedToken(" xyz", normalized=False)])
    if template:
        tok.post_processor = processors.TemplateProcessing(
            single="<|endoftext|> $A",
            pair="<|endoftext|> $A <|fim|> $B:1",
            special_tokens=[("<|endoftext|>", 0), ("<|fim|>", 1)],
        )
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    doc = json.loads(tok.to_str())
    doc["model"]["ignore_merges"] = ignore_merges
    return doc


_TRIOS: dict[tuple, Trio] = {}


def trio(tmp_path_factory, shape: str, add_prefix_space: bool, ignore_merges: bool) -> Trio:
    key = (shape, add_prefix_space, ignore_merges)
    if key not in _TRIOS:
        template = add_prefix_space  # half the cases with a template, half with ByteLevel's
        doc = trained_doc(shape, add_prefix_space, ignore_merges, template)
        _TRIOS[key] = Trio(doc, tmp_path_factory.mktemp("fused") / "tokenizer.json")
    return _TRIOS[key]


@pytest.mark.parametrize(("shape", "add_prefix_space", "ignore_merges"), CASES)
def test_trained_files_choose_the_fused_kernel(tmp_path_factory, shape, add_prefix_space, ignore_merges):
    t = trio(tmp_path_factory, shape, add_prefix_space, ignore_merges)
    d = fused_description(t.spec)
    assert d is not None
    assert d["split"] == (0 if shape == "gpt2" else SCANNERS.get(SHAPES[shape][1], -1))
    assert d["add_prefix_space"] is add_prefix_space and d["nfc"] is SHAPES[shape][0]


@pytest.mark.parametrize(("shape", "add_prefix_space", "ignore_merges"), CASES)
def test_fused_equals_hf_on_samples(tmp_path_factory, shape, add_prefix_space, ignore_merges):
    t = trio(tmp_path_factory, shape, add_prefix_space, ignore_merges)
    for text in EDGE:
        t.check(text)
    for line in LINES[::5]:
        t.check(line)
    for text in SAMPLE_TEXTS:
        t.check(text[:4000])
        t.check(unicodedata.normalize("NFD", text[:2000]))  # (with NFC: every stretch composed here)
        t.check(f"{unicodedata.normalize('NFD', text[:300])}<|endoftext|>e\u0301<|endoftext|>")
    t.check(EDGE[6], EDGE[9])
    t.check(LINES[1], "<|endoftext|> x")


@pytest.mark.parametrize(("shape", "add_prefix_space", "ignore_merges"), CASES)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, shape, add_prefix_space, ignore_merges, text, pair):
    trio(tmp_path_factory, shape, add_prefix_space, ignore_merges).check(text, pair)


@pytest.mark.parametrize(("shape", "add_prefix_space", "ignore_merges"), CASES)
def test_pieces_are_hf_pre_tokenizer_pieces(tmp_path_factory, shape, add_prefix_space, ignore_merges):
    t = trio(tmp_path_factory, shape, add_prefix_space, ignore_merges)
    for text in [*EDGE[:8], *LINES[:300:3]]:
        if "<|" in text:
            continue
        want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
        assert spelled_pieces(t.fused, text) == want, text


def test_pre_tokenize_and_normalize_are_the_staged_pipelines(tmp_path_factory):
    t = trio(tmp_path_factory, "qwen2", True, True)
    staged = t.staged._native
    added = t.staged._kernel.default_added
    for text in [*EDGE, *LINES[:100:7]]:
        assert t.fused.pre_tokenize(text, added) == staged.pre_tokenize(text, added)
        assert t.fused.pre_tokenize(text) == staged.pre_tokenize(text)
        assert t.fused.normalize(text) == staged.normalize(text)


def spelled_pieces(fused: _core.ByteLevelHfBpe, text: str) -> list[str]:
    """The pieces of text as the model sees them, in the byte alphabet."""
    return ["".join(BYTE_CHARS[b] for b in piece) for piece, _ in fused.pieces(text)]


def test_a_wrong_scanner_is_caught(tmp_path_factory):
    # cl100k's scanner keeps whitespace after a newline at the end of the text whole; Llama 3's
    # pattern splits it after the newline: the checks here must see that.
    t = trio(tmp_path_factory, "llama3", False, True)
    wrong = _core.ByteLevelHfBpe(**{**fused_description(t.spec), "split": SCANNERS[hf_split_pattern(CL100K)]})
    wrong.set_template([(True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])])
    text = "a\n \n  "
    want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
    assert spelled_pieces(t.fused, text) == want
    assert spelled_pieces(wrong, text) != want


def test_bad_descriptions_raise(tmp_path_factory):
    d = fused_description(trio(tmp_path_factory, "custom", False, False).spec)
    with pytest.raises(ValueError, match="scanner"):
        _core.ByteLevelHfBpe(**{**d, "split": 9})
    with pytest.raises(ValueError):
        _core.ByteLevelHfBpe(**{**d, "split": -1, "pattern": "(unclosed"})
    with pytest.raises(ValueError, match="byte"):
        _core.ByteLevelHfBpe(**{**d, "vocab": [(t, i) for t, i in d["vocab"] if t != BYTE_CHARS[0xF8]]})
    with pytest.raises(ValueError, match="two tokens"):
        _core.ByteLevelHfBpe(**{**d, "vocab": [*d["vocab"], ("zzzq", 0)]})
    with pytest.raises(ValueError, match="BPE"):
        _core.ByteLevelHfBpe(**{**d, "model_type": "WordLevel"})
    with pytest.raises(ValueError, match="surrogate"):
        _core.ByteLevelHfBpe(**{**d, "decoder": [("ByteLevel", {"trim_offsets": "\ud800"})]})


def test_tokens_no_merge_reaches(tmp_path_factory):
    # With ignore_merges a piece that is a token is that token even where no merge makes it (as
    # Llama 3's tiktoken-born file has many); the same bytes as part of a longer run, cut where
    # no token crosses, are merged. Tokens here: a CJK word and a Cyrillic one, no merges.
    doc = trained_doc("llama3", False, True, False)
    vocab = doc["model"]["vocab"]
    words = ("日本語", "テキスト", "Привет", "語の")
    for added in doc["added_tokens"]:  # those past the vocabulary move up to make room
        if added["id"] >= len(vocab):
            added["id"] += len(words)
    for word in words:
        vocab["".join(BYTE_CHARS[b] for b in word.encode())] = len(vocab)
    t = Trio(doc, tmp_path_factory.mktemp("unreached") / "tokenizer.json")
    for text in ["日本語", "日本語のテキスト", "x日本語のテキスト日本語。テキスト", "Привет Приветы", "の語の語の"]:
        t.check(text)


def test_an_unk_token_is_never_used(tmp_path_factory):
    doc = trained_doc("gpt2", False, False, False)
    doc["model"]["unk_token"] = "<|endoftext|>"
    t = Trio(doc, tmp_path_factory.mktemp("unk") / "tokenizer.json")
    assert fused_description(t.spec) is not None
    for text in EDGE:
        t.check(text)


@pytest.mark.parametrize(
    ("shape", "add_prefix_space", "ignore_merges"), [("llama3", False, True), ("gpt2", False, False)]
)
def test_warm_batches_meet_new_pieces(tmp_path_factory, shape, add_prefix_space, ignore_merges):
    # Once a batch of pieces meets none new to the thread, the next is looked up in one pass;
    # a new piece there is merged and stored (which may move the table), at every length (one
    # byte, the short and medium tables, longer), inside the text and in its last 16 bytes.
    t = trio(tmp_path_factory, shape, add_prefix_space, ignore_merges)
    rng = random.Random(7)
    known = " ".join(LINES[0].split()[:20] * 4)
    t.check(known)
    letters = "abcdefghijklmnopqrstuvwxyzé日ж"

    def new_word(length: int) -> str:
        return "".join(rng.choice(letters) for _ in range(length))

    for length in range(1, 41):
        for tail in ("", "!", " " + known[:30], " x"):
            t.check(known + " " + new_word(length) + tail)
    # Many new pieces within warm batches: the thread's tables grow while one is looked up.
    t.check(" ".join(f"{known[:60]} {new_word(rng.randint(2, 35))}" for _ in range(300)))


@pytest.mark.parametrize(
    ("shape", "add_prefix_space", "ignore_merges"), [("llama3", False, True), ("qwen2", False, False)]
)
def test_new_pieces_near_the_scan_limit(tmp_path_factory, shape, add_prefix_space, ignore_merges):
    # A new piece of up to 128 bytes is merged over its bytes' ids by a scan, a longer one by
    # HF's queue: letters, two- and three-byte characters and mixed runs of 100..140 bytes.
    t = trio(tmp_path_factory, shape, add_prefix_space, ignore_merges)
    for unit in ("ab", "the", "é", "日本語", "xé日", "Привет"):
        for size in range(100, 141):
            run = unit * (size // len(unit.encode()) + 1)
            while len(run.encode()) > size:
                run = run[:-1]
            t.check(f"{run} {run}!")


def test_batches_equal_single_encodes(tmp_path_factory):
    t = trio(tmp_path_factory, "qwen2", False, False)
    texts = [*EDGE, *LINES[:200]]
    batch = t.fused.encode_batch(texts, None, True, t.staged._kernel.default_added, 2)
    assert [e.ids for e in batch] == [t.fused.encode(x).ids for x in texts]


def test_other_shapes_are_left_to_the_staged_pipeline(tmp_path_factory):
    t = trio(tmp_path_factory, "llama3", False, True)
    spec = t.spec
    model = dict(spec.model)
    assert fused_description(dataclasses.replace(spec, model={**model, "byte_fallback": True})) is None
    assert fused_description(dataclasses.replace(spec, model={**model, "dropout": 0.1})) is None
    assert fused_description(dataclasses.replace(spec, model={**model, "continuing_subword_prefix": "##"})) is None
    vocab = dict(model["vocab"])
    del vocab["Ġ"]
    assert fused_description(dataclasses.replace(spec, model={**model, "vocab": vocab})) is None
    assert fused_description(dataclasses.replace(spec, normalizer={"type": "Lowercase"})) is None
    assert fused_description(dataclasses.replace(spec, decoder={"type": "Fuse"})) is None
    removed = json.loads(json.dumps(spec.pre_tokenizer))
    removed["pretokenizers"][0]["behavior"] = "Removed"
    assert fused_description(dataclasses.replace(spec, pre_tokenizer=removed)) is None
    with pytest.raises(ValueError):
        build_fused_hf_bpe(dataclasses.replace(spec, normalizer={"type": "Lowercase"}))


# -- digits alone, then ByteLevel's own regex (StarCoder's and Command R's files) -----------------

DIGIT_TEXT = st.lists(
    st.sampled_from([*"0123456789 ab\n", "٣", "²", "Ⅻ", "x1", " 12", "1.5e-3", "a1b2", "  7", "日本"]), max_size=30
).map("".join)


def digits_doc(nfc: bool, add_prefix_space: bool) -> dict[str, Any]:
    """A trained file of StarCoder's shape: Sequence[Digits(individual_digits), ByteLevel(use_regex)];
    with NFC, Command R's."""
    from tokenizers import models, pre_tokenizers

    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=True),
        ]
    )
    _train(tok, nfc, 1200)
    return json.loads(tok.to_str())


@pytest.mark.parametrize("nfc", [False, True])
def test_digits_then_byte_level_regex_runs_fused(tmp_path, nfc):
    """Digits alone, then ByteLevel's GPT-2 regex on each piece: the pre-split (DIGITS_ALONE)
    then the GPT-2 scanner, fused, as HF and the staged pipeline cut it."""
    t = Trio(digits_doc(nfc, False), tmp_path / "tokenizer.json")
    d = fused_description(t.spec)
    assert d is not None and d["pre_splits"] == [STAGES[DIGITS_ALONE]] and d["split"] == SCANNERS[HF_GPT2]
    for text in [*EDGE, "abc123 4567 x=1.5e10; 2²³ ١٢٣ Ⅻ  99\n 0", " 1 22  333   4444"]:
        t.check(text)
    for line in LINES[::5]:
        t.check(line)
    for text in SAMPLE_TEXTS:
        t.check(text[:4000])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=DIGIT_TEXT | TEXT)
def test_digits_then_byte_level_regex_on_any_text(tmp_path_factory, text):
    key = ("digits", False, False)
    if key not in _TRIOS:
        _TRIOS[key] = Trio(digits_doc(False, False), tmp_path_factory.mktemp("digits") / "tokenizer.json")
    _TRIOS[key].check(text)


def test_digits_then_byte_level_with_a_prefix_space_runs_staged(tmp_path):
    """With add_prefix_space, ByteLevel puts the space before its regex runs, which a Split
    before ByteLevel(use_regex=false) would not: such files stay on the staged pipeline."""
    from tokenforge import Tokenizer

    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(digits_doc(False, True)), encoding="utf-8")
    ours, theirs = Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    assert ours.kernel == "staged"
    for text in ["12 ab", "a1 22", " x 3"]:
        assert ours.encode(text).ids == theirs.encode(text).ids, text


# -- trim_offsets (ByteLevel's and RobertaProcessing's post-processors) ---------------------------

# (post-processor, its add_prefix_space, the pre-tokenizer's add_prefix_space, shape)
TRIM_CASES = [
    ("ByteLevel", False, False, "gpt2"),
    ("ByteLevel", True, True, "gpt2"),
    ("RobertaProcessing", True, True, "gpt2"),
    ("RobertaProcessing", False, False, "llama3"),
    ("RobertaProcessing", True, False, "qwen2"),  # (NFC: texts NFC changes run staged, trimmed there)
]


def trimmed_doc(processor: str, add_prefix_space: bool, pre_prefix: bool, shape: str) -> dict[str, Any]:
    """A trained file whose post-processor trims offsets (RoBERTa's, or ByteLevel's), with added
    tokens that lstrip / rstrip take spaces into (their rows show the text they matched)."""
    doc = trained_doc(shape, pre_prefix, False, False)
    vocab = doc["model"]["vocab"]
    n = max([*vocab.values(), *(a["id"] for a in doc["added_tokens"])]) + 1
    doc["added_tokens"] += [
        {"id": n, "content": "<mask>", "single_word": False, "lstrip": True, "rstrip": False,
         "normalized": False, "special": True},
        {"id": n + 1, "content": "<r>", "single_word": False, "lstrip": False, "rstrip": True,
         "normalized": False, "special": False},
    ]  # fmt: skip
    for i, token in enumerate(["<|endoftext|>", "<|fim|>"]):
        assert vocab[token] == i
    if processor == "ByteLevel":
        doc["post_processor"] = {
            "type": "ByteLevel",
            "add_prefix_space": add_prefix_space,
            "trim_offsets": True,
            "use_regex": True,
        }
    else:
        doc["post_processor"] = {
            "type": "RobertaProcessing",
            "sep": ["<|fim|>", 1],
            "cls": ["<|endoftext|>", 0],
            "trim_offsets": True,
            "add_prefix_space": add_prefix_space,
        }
    return doc


TRIM_TEXTS = [
    *EDGE,
    "hello  <mask>  world",
    " <mask> a<r>  b <r>",
    "  lead and trail  ",
    "a \t\n b\u3000 c\u00a0 d",
    " x",
    "x ",
]


@pytest.mark.parametrize(("processor", "add_prefix_space", "pre_prefix", "shape"), TRIM_CASES)
def test_trimmed_offsets_run_fused_as_hf(tmp_path, processor, add_prefix_space, pre_prefix, shape):
    """The fused kernel trims offsets as HF's post-processor does (spaces off each token's ends,
    the one add_prefix_space put first kept), on one text, pairs, a text NFC changes, added
    tokens whose lstrip / rstrip took spaces, and pre-tokenized words."""
    from tokenforge import Tokenizer

    doc = trimmed_doc(processor, add_prefix_space, pre_prefix, shape)
    t = Trio(doc, tmp_path / "tokenizer.json")
    assert Tokenizer.from_file(tmp_path / "tokenizer.json").kernel == "byte_level_hf_bpe"
    for text in TRIM_TEXTS:
        t.check(text)
        t.check(text, " pair  <mask> b ")
    for line in LINES[::9]:
        t.check(line)
    ours = Tokenizer.from_file(tmp_path / "tokenizer.json")
    for words in (["hello", " world ", "  "], [" a", "<mask> b", "c  "], []):
        a = ours.encode(words, is_pretokenized=True)
        b = t.hf.encode(words, is_pretokenized=True)
        assert (a.ids, [tuple(o) for o in a.offsets]) == (b.ids, [tuple(o) for o in b.offsets]), words


@pytest.mark.parametrize(("processor", "add_prefix_space", "pre_prefix", "shape"), TRIM_CASES[:3])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_trimmed_offsets_on_any_text(tmp_path_factory, processor, add_prefix_space, pre_prefix, shape, text, pair):
    key = ("trim", processor, add_prefix_space, pre_prefix, shape)
    if key not in _TRIOS:
        doc = trimmed_doc(processor, add_prefix_space, pre_prefix, shape)
        _TRIOS[key] = Trio(doc, tmp_path_factory.mktemp("trim") / "tokenizer.json")
    _TRIOS[key].check(text, pair)


@pytest.mark.parametrize(("processor", "add_prefix_space", "pre_prefix", "shape"), TRIM_CASES[1:3])
def test_trimmed_offsets_after_truncation(tmp_path, processor, add_prefix_space, pre_prefix, shape):
    """With truncation, HF trims each part on its own after cutting (a part's first token keeps
    the single space add_prefix_space would have added): the parts' offsets as HF's."""
    from tokenforge import Tokenizer

    doc = trimmed_doc(processor, add_prefix_space, pre_prefix, shape)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ours, theirs = Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    assert ours.kernel == "byte_level_hf_bpe"
    for stride in (0, 2):
        ours.enable_truncation(16, stride=stride)
        theirs.enable_truncation(16, stride=stride)
        for text, pair in [(LINES[3], None), ("  a  b  <mask>  c d  e f  g h  ", " x  y z  w "), (" hello " * 9, None)]:
            a, b = ours.encode(text, pair), theirs.encode(text, pair)
            for x, y in zip([a, *a.overflowing], [b, *b.overflowing], strict=True):
                assert x.ids == y.ids and x.tokens == y.tokens, (text, stride)
                assert [tuple(o) for o in x.offsets] == [tuple(o) for o in y.offsets], (text, stride)


# -- the real files ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "qwen3"])
def test_real_files_fused_equals_hf(tmp_path, name):
    if WHOLE_CORPUS is None:
        pytest.skip("../shared is not at hand")
    path = WHOLE_CORPUS.parent / "vocab" / "hf" / name / "tokenizer.json"
    t = Trio(json.loads(path.read_text()), tmp_path / "tokenizer.json")
    assert (
        fused_description(t.spec) is not None and fused_description(t.spec)["split"] == {"llama3": 3, "qwen3": 4}[name]
    )
    for text in EDGE:
        t.check(text)
    for p in corpus_files(whole=True):
        text = read_sample(p, 300_000)
        t.check(text)
        for line in text.splitlines()[:1500]:
            t.check(line)


@pytest.mark.parametrize("skip", [False, True])
def test_random_ids_decode_as_hf(tmp_path_factory, skip):
    """Any ids (single bytes that leave a character cut, added tokens with a space, special
    tokens), decoded by the fused kernel's one-pass ByteLevel decode: HF's text, one U+FFFD for
    each invalid sequence as its from_utf8_lossy, an added token with a space as it is."""
    import tokenizers

    from tokenforge import Tokenizer

    hf = tokenizers.Tokenizer.from_str(trio(tmp_path_factory, "llama3", True, False).hf.to_str())
    hf.add_tokens(["with space", "plain"])
    path = tmp_path_factory.mktemp("decode") / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ours = Tokenizer.from_file(str(path))
    assert ours.kernel == "byte_level_hf_bpe"
    size = hf.get_vocab_size(with_added_tokens=True)
    # (byte-level tokens of lead and continuation bytes: sequences cut short and stray bytes)
    pieces = ["\u00e6", "\u0139", "\u0142", "\u00c3", "\u00a4", "\u00f0", "\u0141", "\u0120"]
    byte_ids = [i for i in map(hf.token_to_id, pieces) if i is not None]
    assert len(byte_ids) > 4
    rng = random.Random(23)
    for _ in range(400):
        ids = [rng.choice(byte_ids) if rng.random() < 0.5 else rng.randrange(size) for _ in range(rng.randint(0, 24))]
        assert ours.decode(ids, skip_special_tokens=skip) == hf.decode(ids, skip_special_tokens=skip), ids
