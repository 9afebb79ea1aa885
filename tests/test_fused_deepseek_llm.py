"""DeepSeek LLM / V2 and DeepSeek Coder style tokenizer.json files on the fused byte-level BPE
kernel (pipelines/byte_level_hf_bpe.h with the built-in stages of pre_tokenizers/split_sequence.h):
their pre-tokenizer Sequences (Isolated Splits of newlines, letters, punctuation, trailing
whitespace, CJK, then Digits(individual_digits)) and ByteLevel(use_regex=false).

Each built-in stage against HF's own pre-tokenizer of that stage on every code point (alone and
in context), samples and hypothesis strings; then small BPEs trained by HF tokenizers with the
exact Sequences: HF's ids, tokens, offsets, word ids and decode; near misses stay staged."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_trio import Trio, texts_of
from tokenforge import Tokenizer, _core
from tokenforge.pipeline.compile import kernel_of
from tokenforge.pipeline.fused_hf_bpe import (
    CODER_LETTERS,
    CODER_PUNCT,
    DEEPSEEK_CJK,
    DEEPSEEK_DIGITS,
    DEEPSEEK_LLM_CJK,
    DEEPSEEK_LLM_LETTERS,
    DEEPSEEK_LLM_PUNCT,
    NEWLINES,
    NO_SPLIT,
    SEQUENCES,
    STAGES,
    TRAILING_SPACE,
    fused_description,
)

tokenizers = pytest.importorskip("tokenizers")

# Each stage's id -> its pre-tokenizer as HF's tokenizer.json holds it.
STAGE_JSON: dict[int, dict[str, Any]] = {
    STAGES[key]: (
        {"type": "Digits", "individual_digits": True}
        if key[0] == "Digits"
        else {"type": "Split", "pattern": {"Regex": key[1]}, "behavior": "Isolated", "invert": False}
    )
    for key in STAGES
}
LLM = list(SEQUENCES["DeepSeek LLM"])
CODER = list(SEQUENCES["DeepSeek Coder"])

TRAINING = [
    "The year 2024 had 365 days; 1234567 is a number, and so is 3.14159.",
    "def encode(self, text: str) -> list[int]:\n    return [ord(c) for c in text]  # 42\n",
    "日本語のテキストです。カタカナとひらがなを混ぜた文章、そして漢字。",
    "深度求索是一家人工智能公司，成立于2023年。我们的模型很好！“引号”‘单引号’",
    "Привет мир! Ça va? Ünïcödé wörds, ١٢٣٤ and ۱۲۳ digits. Ελληνικά κείμενα.",
    "    indented\tcode {x: 1, y: [2, 3]}\r\n\r\n  // comment ==> !== ???",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, ½ ¾ Ⅻ ① numbers; 한국어 텍스트; हिन्दी पाठ; ไทย",
    "https://example.com/path?q=1&r=22#frag 'quoted' \"double\" it's we'll   \n",
]

SAMPLES = [
    "",
    " ",
    "  \n  ",
    "\n\n",
    "a\n \n  ",
    "x  \r\n\t ",
    "trailing   ",
    "1 12 123 1234 12345 ١٢٣٤٥ ½¾① Ⅻ",
    "abc123def4567ghi",
    "日本語のテキスト、です。 Привет мир",
    "카타카나 한국어123漢字abc ひらがな ゟ゠ヿ\u3040 龥龦 〇一 ࠀ 一",
    "tab\there  \u3000 \u00a0nbsp\u2028x\u3000\u3000。",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U00010400\U0001044f\U0001e900",
    "<|endoftext|>hello world<|endoftext|>  hello world  <|fim|>",
    "def f(x):\n    return x**2 + 10000 // 7  # ok\r\n",
    "!Hello ,World .x ...abc ((a)) 'it's ！！（全角）“”‘’ ‘-‟",
    "a" * 300 + " " + "日本" * 200 + " " * 100 + "x" + "1" * 50 + "\n" * 20 + "  ",
    "e\u0301 cafe\u0301 \u0301\u0301abc ΐΊ\u1fd3\u1fdb ι\u1fbe Ω\u2126 K\u212a ώ\u1f7d",
    "µ ƻ ʔ ǅ ß ſ ﬀ ｆｕｌｌ ＡＺ",
]

TEXT = texts_of(
    " \t\n\r  ,.!'-_(#$+abcXYZ0123456789٣½日本語かカ一龥ࠀ가퟿µƻ\u0301\u00a0\u3000\u3001！～“‘👍Ωΐ",
    ["1234", "   ", " \n", "'s", "<|endoftext|>", "hello world"],
)


# -- each stage against HF's pre-tokenizer of that stage -----------------------------------------


def _hf_pre_tokenizer(stages: list[int]) -> Any:
    doc = {"type": "Sequence", "pretokenizers": [STAGE_JSON[k] for k in stages]}
    return _from_json(doc)


def _from_json(pre: dict[str, Any]) -> Any:
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    doc = json.loads(tok.to_str())
    doc["pre_tokenizer"] = pre
    return tokenizers.Tokenizer.from_str(json.dumps(doc)).pre_tokenizer


_HF: dict[tuple[int, ...], Any] = {}


def same_pieces(stages: list[int], text: str) -> None:
    key = tuple(stages)
    if key not in _HF:
        _HF[key] = _hf_pre_tokenizer(stages)
    want = [end for _, (_, end) in _HF[key].pre_tokenize_str(text)]
    data = text.encode()
    char_of = {0: 0}
    chars = 0
    for i, b in enumerate(data):
        chars += (b & 0xC0) != 0x80
        char_of[i + 1] = chars
    got = [char_of[e] for e in _core._pre_split_ends(text, stages)]
    if got != want:
        k = next(i for i, (a, b) in enumerate(zip([*got, -1], [*want, -1])) if a != b)
        at = want[k - 1] if k else 0
        raise AssertionError(
            f"stages {stages} vs HF: from code point {at} {text[at : at + 30]!r}: ends {got[k : k + 3]} != "
            f"{want[k : k + 3]}"
        )


ALL_STAGES = sorted(STAGE_JSON)


@pytest.mark.parametrize("stage", ALL_STAGES)
def test_stage_equals_hf_on_samples(stage):
    for text in [*SAMPLES, *TRAINING]:
        same_pieces([stage], text)


def _in_contexts(code_points) -> list[str]:
    # Each code point alone, doubled, between letters, after a space, an ideographic space, a
    # digit and a newline, before a mark and before whitespace and the end: every class it could
    # fall in shows. Texts of 65536 code points.
    chunk: list[str] = []
    texts = []
    for cp in code_points:
        c = chr(cp)
        chunk.append(f"{c}{c}a{c} {c}\u3000{c}1{c}\n{c}\u0301 ")
        if len(chunk) == 65536:
            texts.append("".join(chunk))
            chunk = []
    return [*texts, "".join(chunk)]


def _every_code_point() -> list[int]:
    return [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


def _sampled_code_points() -> list[int]:
    # Below U+3100 (the scripts of the letter ranges, the punctuation), every 16th above, and
    # each character the stages' regexes name, with its neighbours (the ranges' ends).
    named = {ord(c) + d for key in STAGES if key[0] == "Split" for c in key[1] for d in (-1, 0, 1)}
    return [cp for cp in _every_code_point() if cp < 0x3100 or cp % 16 == 0 or cp in named]


@pytest.mark.parametrize("stage", ALL_STAGES)
def test_stage_equals_hf_on_code_points(stage):
    for text in _in_contexts(_sampled_code_points()):
        same_pieces([stage], text)
    for cp in (0x20, 0x0A, 0x31, 0x4E00, 0x0800, 0x3000, 0xFF01, 0x1F7D):
        same_pieces([stage], chr(cp))  # alone, at the end
        same_pieces([stage], chr(cp) + " ")


@pytest.mark.slow
@pytest.mark.parametrize("stage", ALL_STAGES)
def test_stage_equals_hf_on_every_code_point(stage):
    # Every code point in every context (minutes a stage: -m slow).
    for text in _in_contexts(_every_code_point()):
        same_pieces([stage], text)


@pytest.mark.parametrize("stage", ALL_STAGES)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_stage_equals_hf_on_any_text(stage, text):
    same_pieces([stage], text)


@pytest.mark.parametrize("sequence", sorted(SEQUENCES))
@settings(max_examples=200, deadline=None)
@given(text=TEXT)
def test_sequences_equal_hf_on_any_text(sequence, text):
    same_pieces(list(SEQUENCES[sequence]), text)


def test_trailing_space_dollar_is_before_each_newline():
    # \s+$: Oniguruma's $ holds at the end and before each \n (not before \r).
    for text in ["a  \n  b", "a  \r\n b", "  ", "a \nb\n", " \u2028 x", "a \u0085x", " \n\n \n x", "\n", "x\n "]:
        same_pieces([STAGES[("Split", TRAILING_SPACE)]], text)


def test_bad_stage_ids_raise():
    with pytest.raises(ValueError, match="stage"):
        _core._pre_split_ends("abc", [0])
    with pytest.raises(ValueError, match="stage"):
        _core._pre_split_ends("abc", [17])


def test_no_quadratic_whitespace():
    # A long run of whitespace with no $ or newline in it: each stage stays linear.
    import time

    text = " " * 200_000 + "x"
    for stage in ALL_STAGES:
        start = time.perf_counter()
        _core._pre_split_ends(text, [stage])
        assert time.perf_counter() - start < 1.0, stage


# -- files trained with HF's trainer ------------------------------------------------------------


def trained_doc(stages: list[int], add_prefix_space: bool = False, template: bool = False) -> dict[str, Any]:
    from tokenizers import AddedToken, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    doc = json.loads(tok.to_str())
    doc["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            *(STAGE_JSON[k] for k in stages),
            {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": True, "use_regex": False},
        ],
    }
    tok = tokenizers.Tokenizer.from_str(json.dumps(doc))
    trainer = trainers.BpeTrainer(
        vocab_size=1200,
        special_tokens=["<|endoftext|>", "<|fim|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TRAINING * 20, trainer)
    tok.add_tokens([AddedToken("hello world", normalized=False)])
    if template:  # as DeepSeek's files: an empty normalizer Sequence, a begin-of-sentence token
        bos = tok.token_to_id("<|fim|>")
        tok.post_processor = processors.TemplateProcessing(
            single="<|fim|> $A", pair="<|fim|> $A <|fim|> $B:1", special_tokens=[("<|fim|>", bos)]
        )
        tok.normalizer = normalizers.Sequence([])
    return json.loads(tok.to_str())


_TRIOS: dict[tuple[str, bool], Trio] = {}
NAMES = ["DeepSeek LLM", "DeepSeek Coder"]


def trio(tmp_path_factory, name: str, add_prefix_space: bool = False) -> Trio:
    if (name, add_prefix_space) not in _TRIOS:
        doc = trained_doc(list(SEQUENCES[name]), add_prefix_space, template=add_prefix_space)
        _TRIOS[name, add_prefix_space] = Trio(doc, tmp_path_factory.mktemp("deepseek") / "tokenizer.json")
    return _TRIOS[name, add_prefix_space]


@pytest.mark.parametrize("name", NAMES)
def test_the_file_runs_on_the_fused_kernel(tmp_path_factory, name):
    t = trio(tmp_path_factory, name)
    assert t.kernel.name == "byte_level_hf_bpe"
    d = fused_description(t.spec)
    assert d is not None and d["pre_splits"] == list(SEQUENCES[name]) and d["split"] == NO_SPLIT
    path = tmp_path_factory.mktemp("deepseek_file") / "tokenizer.json"
    path.write_text(json.dumps(trained_doc(list(SEQUENCES[name]))))
    assert Tokenizer.from_file(path).kernel == "byte_level_hf_bpe"


@pytest.mark.parametrize("add_prefix_space", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_fused_equals_hf_on_samples(tmp_path_factory, name, add_prefix_space):
    t = trio(tmp_path_factory, name, add_prefix_space)
    for text in [*SAMPLES, *TRAINING]:
        t.check(text)
    t.check(SAMPLES[7], SAMPLES[10])


@pytest.mark.parametrize("add_prefix_space", [False, True])
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, name, add_prefix_space, text, pair):
    trio(tmp_path_factory, name, add_prefix_space).check(text, pair)


@pytest.mark.parametrize("name", NAMES)
def test_pieces_are_hf_pre_tokenizer_pieces(tmp_path_factory, name):
    from tokenforge.pipeline.fused_hf_bpe import BYTE_CHARS

    t = trio(tmp_path_factory, name)
    for text in [*SAMPLES, *TRAINING]:
        if "<|" in text or "hello world" in text:
            continue
        want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
        got = ["".join(BYTE_CHARS[b] for b in piece) for piece, _ in t.fused.pieces(text)]
        assert got == want, text


NEAR_MISSES = [
    lambda parts: parts[1]["pattern"].update(Regex=parts[1]["pattern"]["Regex"].replace("\\s?", " ?")),
    lambda parts: parts[2]["pattern"].update(Regex=r"\s?[!-/:-~]+"),
    lambda parts: parts[0].update(behavior="Removed"),
    lambda parts: parts[-2].update(individual_digits=False),
    lambda parts: parts.insert(0, parts.pop(1)),
    lambda parts: parts.pop(0),
    lambda parts: parts.pop(-2),
    lambda parts: parts[1].update(invert=True),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("change", NEAR_MISSES)
def test_near_misses_stay_staged(tmp_path_factory, name, change):
    t = trio(tmp_path_factory, name)
    pre = json.loads(json.dumps(t.spec.pre_tokenizer))
    change(pre["pretokenizers"])
    spec = dataclasses.replace(t.spec, pre_tokenizer=pre)
    assert fused_description(spec) is None
    assert kernel_of(spec) == "staged"


def test_the_table_holds_the_files_strings():
    # The regex strings as DeepSeek's files spell them (tokenforge's GGUF table has the same ones,
    # from llama.cpp; its V3 main pattern escapes the quote and the newlines, the file does not),
    # and each stage id once.
    from tokenforge.formats.gguf_pre import SPLITS

    assert SPLITS["deepseek-llm"][:5] == (
        NEWLINES,
        DEEPSEEK_LLM_LETTERS,
        DEEPSEEK_LLM_PUNCT,
        TRAILING_SPACE,
        DEEPSEEK_LLM_CJK,
    )
    assert SPLITS["deepseek-coder"][:4] == (NEWLINES, CODER_LETTERS, CODER_PUNCT, DEEPSEEK_LLM_CJK)
    assert SPLITS["deepseek3"][:2] == (DEEPSEEK_DIGITS, DEEPSEEK_CJK)
    assert sorted(STAGES.values()) == list(range(1, len(STAGES) + 1))
