r"""Falcon- and BLOOM-style tokenizer.json files on the fused byte-level BPE kernel
(pipelines/byte_level_hf_bpe.h with the built-in stages of pre_tokenizers/split_sequence.h):
the pre-tokenizer Sequence Punctuation(Contiguous), ByteLevel(use_regex, no prefix space),
Digits(contiguous), Split([0-9][0-9][0-9], Isolated), where the last two cut ByteLevel's
characters (so a UTF-8 character with a byte whose GPT-2 character is ², ³, ¹, ¼, ½ or ¾ is cut
there), and the ByteLevel post-processor trimming offsets; BLOOM's Split
(` ?[^(\s|[.,!?…。，、।۔،])]+`, Isolated) then ByteLevel(use_regex=false), a built-in stage too
(its stage against HF's is in test_fused_deepseek_llm.py, with DeepSeek's).

Each stage against HF's own pre-tokenizers on every code point sampled, samples and hypothesis
strings; then small BPEs trained by HF tokenizers with the exact Sequence: HF's ids, tokens,
offsets, word ids and decode; near misses stay staged."""

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
    BLOOM,
    BYTE_CHARS,
    FALCON,
    FALCON_DIGITS,
    NO_SPLIT,
    SEQUENCES,
    fused_description,
)

tokenizers = pytest.importorskip("tokenizers")

PUNCTUATION, GPT2, BYTE_NUMERIC, DIGITS3 = FALCON
# Each stage as HF's tokenizer.json holds it.
STAGE_JSON: dict[int, dict[str, Any]] = {
    PUNCTUATION: {"type": "Punctuation", "behavior": "Contiguous"},
    GPT2: {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
    BYTE_NUMERIC: {"type": "Digits", "individual_digits": False},
    DIGITS3: {"type": "Split", "pattern": {"Regex": FALCON_DIGITS}, "behavior": "Isolated", "invert": False},
}
# Runs of stages with HF counterparts (the last two read ByteLevel's characters: GPT-2 first).
RUNS = [[PUNCTUATION], [GPT2], [GPT2, BYTE_NUMERIC], [GPT2, DIGITS3], [PUNCTUATION, GPT2], list(FALCON)]

TRAINING = [
    "The year 2024 had 365 days; 1234567 is a number, and so is 3.14159 (or $1,000,000.00).",
    "def encode(self, text: str) -> list[int]:\n    return [ord(c) for c in text]  # 42\n",
    "Привет мир! Ça va? Ünïcödé wörds, ١٢٣٤ and ۱۲۳ digits. Ελληνικά κείμενα — «quotes».",
    "日本語のテキストです。カタカナとひらがなを混ぜた文章、そして漢字。深度求索，成立于2023年！",
    "don't won't it's we'll they've I'm you'd ... !!! ??? --- ___ <<>> @@ ## %% ^^ ~~ `x` |y|",
    "    indented\tcode {x: 1, y: [2, 3]}\r\n\r\n  // comment ==> !== ???",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, ½ ¾ ² ³ ¹ Ⅻ ① numbers; 한국어 텍스트; हिन्दी पाठ; ไทย",
]

SAMPLES = [
    "",
    " ",
    "  \n  ",
    "1 12 123 1234 12345 1234567890 ١٢٣٤٥ ½¾① Ⅻ ²³¹ x²",
    "abc123def4567ghi 12,345.678",
    # characters with a byte whose GPT-2 character is numeric: в (D0 B2), г (D0 B3), й (D0 B9),
    # м н о (D0 BC..BE), ² (C2 B2), ѕ, ḃ ...
    "вгймно ВГЙМНО слово ²³ ḃḹ 世界 ӂ",
    "don't it's 'quoted' \"double\" ((a)) !Hello ,World .x ...abc",
    "$100 +1 <=> a^b ~x |y| `z` ＄１００ ！！（全角）“”‘’ ‘-‟ 、。",
    "tab\there  \u3000 \u00a0nbsp\u2028x\u3000\u3000。",
    "<|endoftext|>hello world<|endoftext|>  hello world  <|fim|>",
    "a" * 300 + " " + "日本" * 200 + " " * 100 + "x" + "1" * 50 + "\n" * 20 + "  ",
    "e\u0301 cafe\u0301 \u0301\u0301abc",
]

TEXT = texts_of(
    " \t\n\r  ,.!'-_(#$+<=>^~|`abcXYZ0123456789٣½²³¹¼¾日本語かカ一вгймноḃ\u0301\u00a0\u3000、！“👍",
    ["1234", "   ", " \n", "'s", "...", "<|endoftext|>", "hello world"],
)


# -- each stage against HF's pre-tokenizers ------------------------------------------------------

_HF: dict[tuple[int, ...], Any] = {}


def _hf_pre_tokenizer(stages: list[int]) -> Any:
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    doc = json.loads(tok.to_str())
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [STAGE_JSON[k] for k in stages]}
    return tokenizers.Tokenizer.from_str(json.dumps(doc)).pre_tokenizer


def same_pieces(stages: list[int], text: str) -> None:
    """The stages' pieces of text, as HF's pre-tokenizer Sequence gives them (in ByteLevel's
    characters where the stages hold it)."""
    key = tuple(stages)
    if key not in _HF:
        _HF[key] = _hf_pre_tokenizer(stages)
    want = [piece for piece, _ in _HF[key].pre_tokenize_str(text)]
    data = text.encode()
    ends = _core._pre_split_ends(text, stages)
    pieces = [data[a:b] for a, b in zip([0, *ends], ends)]
    if GPT2 in stages:
        got = ["".join(BYTE_CHARS[b] for b in piece) for piece in pieces]
    else:
        got = [piece.decode() for piece in pieces]
    if got != want:
        k = next(i for i, (a, b) in enumerate(zip([*got, None], [*want, None])) if a != b)
        raise AssertionError(
            f"stages {stages} vs HF on {text[:40]!r}...: piece {k}: {got[k : k + 3]} != {want[k : k + 3]}"
        )


@pytest.mark.parametrize("stages", RUNS, ids=str)
def test_stages_equal_hf_on_samples(stages):
    for text in [*SAMPLES, *TRAINING]:
        same_pieces(stages, text)


def _in_contexts(code_points: list[int]) -> list[str]:
    # Each code point alone, doubled, between letters, after a space, a digit, punctuation and a
    # newline, before a mark and before whitespace: every class it could fall in shows.
    chunk: list[str] = []
    texts = []
    for cp in code_points:
        c = chr(cp)
        chunk.append(f"{c}{c}a{c} {c}1{c}12{c},{c}\n{c}\u0301 ")
        if len(chunk) == 8192:
            texts.append("".join(chunk))
            chunk = []
    return [*texts, "".join(chunk)]


def _sampled_code_points() -> list[int]:
    # Below U+3100 (the scripts, the punctuation, the numeric bytes' characters), every 64th
    # above.
    return [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and (cp < 0x3100 or cp % 64 == 0)]


@pytest.mark.parametrize("stages", RUNS, ids=str)
def test_stages_equal_hf_on_code_points(stages):
    for text in _in_contexts(_sampled_code_points()):
        same_pieces(stages, text)
    for cp in (0x20, 0x0A, 0x31, 0x2C, 0x432, 0xB2, 0x4E00, 0x3000):
        same_pieces(stages, chr(cp))  # alone, at the end
        same_pieces(stages, chr(cp) + " ")


@pytest.mark.parametrize("stages", RUNS, ids=str)
@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_stages_equal_hf_on_any_text(stages, text):
    same_pieces(stages, text)


def test_digit_triples_from_the_left():
    for n in range(1, 12):
        for before in ("", "x", "²", "1²"):
            same_pieces(list(FALCON), before + "1234567890"[: n % 10 or 10] * (1 + n // 10) + " ")


# -- files trained with HF's trainer -------------------------------------------------------------


BLOOM_STAGES = [
    {"type": "Split", "pattern": {"Regex": BLOOM}, "behavior": "Isolated", "invert": False},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
]


def trained_doc(stages: list[dict[str, Any]] | None = None, trim_offsets: bool = True) -> dict[str, Any]:
    from tokenizers import AddedToken, decoders, models, pre_tokenizers, processors, trainers

    tok = tokenizers.Tokenizer(models.BPE())
    tok.decoder = decoders.ByteLevel()
    doc = json.loads(tok.to_str())
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": stages or [STAGE_JSON[k] for k in FALCON]}
    tok = tokenizers.Tokenizer.from_str(json.dumps(doc))
    trainer = trainers.BpeTrainer(
        vocab_size=1200,
        special_tokens=["<|endoftext|>", "<|fim|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TRAINING * 20, trainer)
    tok.add_tokens([AddedToken("hello world", normalized=False)])
    tok.post_processor = processors.ByteLevel(trim_offsets=trim_offsets)  # as Falcon's and BLOOM's files
    return json.loads(tok.to_str())


_TRIOS: dict[str, Trio] = {}


def trio(tmp_path_factory, name: str = "falcon") -> Trio:
    if name not in _TRIOS:
        doc = trained_doc() if name == "falcon" else trained_doc(BLOOM_STAGES, trim_offsets=name == "bloom-trim")
        _TRIOS[name] = Trio(doc, tmp_path_factory.mktemp(name) / "tokenizer.json")
    return _TRIOS[name]


NAMES = ["falcon", "bloom", "bloom-trim"]


@pytest.mark.parametrize("name", NAMES)
def test_the_file_runs_on_the_fused_kernel(tmp_path_factory, name):
    t = trio(tmp_path_factory, name)
    assert t.kernel.name == "byte_level_hf_bpe"
    d = fused_description(t.spec)
    stages = list(FALCON) if name == "falcon" else list(SEQUENCES["BLOOM"])
    assert d is not None and d["pre_splits"] == stages and d["split"] == NO_SPLIT
    path = tmp_path_factory.mktemp(name + "_file") / "tokenizer.json"
    path.write_text(json.dumps(trained_doc() if name == "falcon" else trained_doc(BLOOM_STAGES)))
    assert Tokenizer.from_file(path).kernel == "byte_level_hf_bpe"


@pytest.mark.parametrize("name", NAMES)
def test_fused_equals_hf_on_samples(tmp_path_factory, name):
    t = trio(tmp_path_factory, name)
    for text in [*SAMPLES, *TRAINING]:
        t.check(text)
    t.check(SAMPLES[3], SAMPLES[5])


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, name, text, pair):
    trio(tmp_path_factory, name).check(text, pair)


@pytest.mark.parametrize("name", NAMES)
def test_fused_equals_hf_on_the_samples_corpora(tmp_path_factory, name):
    from conftest import corpus_files

    t = trio(tmp_path_factory, name)
    for path in corpus_files():
        text = path.read_text(encoding="utf-8", errors="replace")[:20000]
        for at in range(0, len(text), 4000):
            t.check(text[at : at + 4000])


NEAR_MISSES = [
    lambda parts: parts[0].update(behavior="Isolated"),
    lambda parts: parts[0].pop("behavior"),
    lambda parts: parts[1].update(add_prefix_space=True),
    lambda parts: parts[1].update(use_regex=False),
    lambda parts: parts[2].update(individual_digits=True),
    lambda parts: parts[3]["pattern"].update(Regex="[0-9][0-9]"),
    lambda parts: parts[3].update(behavior="Removed"),
    lambda parts: parts.pop(0),
    lambda parts: parts.pop(2),
    lambda parts: parts.insert(0, parts.pop(1)),
]


BLOOM_NEAR_MISSES = [
    lambda parts: parts[0]["pattern"].update(Regex=BLOOM.replace("(", "")),
    lambda parts: parts[0].update(behavior="Removed"),
    lambda parts: parts[0].update(invert=True),
    lambda parts: parts[1].update(use_regex=True),
]


@pytest.mark.parametrize(
    "name, change", [*(("falcon", c) for c in NEAR_MISSES), *(("bloom", c) for c in BLOOM_NEAR_MISSES)]
)
def test_near_misses_do_not_run_the_built_in_stages(tmp_path_factory, name, change):
    t = trio(tmp_path_factory, name)
    pre = json.loads(json.dumps(t.spec.pre_tokenizer))
    change(pre["pretokenizers"])
    spec = dataclasses.replace(t.spec, pre_tokenizer=pre)
    d = fused_description(spec)
    # (BLOOM's near misses may still run fused, their Split through Oniguruma)
    assert d is None or not d["pre_splits"], d
    if name == "falcon":
        assert kernel_of(spec) == "staged"
