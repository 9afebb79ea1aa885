"""DeepSeek V3 / R1 style tokenizer.json files on the fused byte-level BPE kernel
(pipelines/byte_level_hf_bpe.h with pre_tokenizers/split_sequence.h): a Sequence of three
Isolated Splits (digit runs of at most 3, CJK and kana runs, DeepSeek's main pattern, the last on
its own scanner, pre_tokenizers/deepseek_scanner.h) then ByteLevel(use_regex=false). A small BPE
trained by HF tokenizers with that exact pre-tokenizer must give HF's ids, tokens, offsets, word
ids and decode, on samples and hypothesis strings; a near-miss main pattern runs through
Oniguruma in the fused pass; a near-miss sequence stays on the staged pipeline. (Each stage
against HF on every code point: tests/test_fused_deepseek_llm.py.)"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_trio import Trio, texts_of
from tokenforge import Tokenizer
from tokenforge.pipeline.compile import kernel_of
from tokenforge.pipeline.fused_hf_bpe import DEEPSEEK_CJK, DEEPSEEK_DIGITS, DEEPSEEK_V3, NO_SPLIT, fused_description

tokenizers = pytest.importorskip("tokenizers")

TRAINING = [
    "The year 2024 had 365 days; 1234567 is a number, and so is 3.14159.",
    "def encode(self, text: str) -> list[int]:\n    return [ord(c) for c in text]  # 42\n",
    "日本語のテキストです。カタカナとひらがなを混ぜた文章、そして漢字。",
    "深度求索是一家人工智能公司，成立于2023年。我们的模型很好！",
    "Привет мир! Ça va? Ünïcödé wörds, ١٢٣٤ and ۱۲۳ digits.",
    "    indented\tcode {x: 1, y: [2, 3]}\r\n\r\n  // comment ==> !== ???",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, ½ ¾ Ⅻ ① numbers",
    "https://example.com/path?q=1&r=22#frag 'quoted' \"double\" it's we'll",
]

SAMPLES = [
    "",
    " ",
    "  \n  ",
    "\n\n",
    "a\n \n  ",
    "x  \r\n\t ",
    "1 12 123 1234 12345 123456 1234567 ١٢٣٤٥ ½¾① Ⅻ",
    "abc123def4567ghi",
    "日本語のテキスト、です。 Привет мир",
    "カタカナ123漢字abcひらがな ゟ゠ヿ\u3040 龥龦 〇一",
    "深度求索2023年成立，DeepSeek-V3 模型。",
    "tab\there  \u3000 \u00a0nbsp\u2028x",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "<|endoftext|>hello world<|endoftext|>  hello world  <|fim|>",
    "def f(x):\n    return x**2 + 10000 // 7  # ok\r\n",
    "!Hello ,World .x ...abc ((a)) 'it's",
    "a" * 300 + " " + "日本" * 200 + " " * 100 + "x" + "1" * 50 + "\n" * 20 + "  ",
    "e\u0301 cafe\u0301 \u0301\u0301abc",
]

TEXT = texts_of(
    " \t\n\r  ,.!'-_(#abcXYZ0123456789٣½日本語かカ一龥ゟ゠ヿ\u3040\u0301\u00a0\u3000👍",
    ["1234", "12345678", "'s", "<|endoftext|>", "hello world"],
)


def deepseek_doc(
    digits: str = DEEPSEEK_DIGITS, add_prefix_space: bool = False, main: str = DEEPSEEK_V3
) -> dict[str, Any]:
    from tokenizers import AddedToken, Regex, decoders, models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(digits), behavior="isolated", invert=False),
            pre_tokenizers.Split(Regex(DEEPSEEK_CJK), behavior="isolated", invert=False),
            pre_tokenizers.Split(Regex(main), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1200,
        special_tokens=["<|endoftext|>", "<|fim|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TRAINING * 20, trainer)
    tok.add_tokens([AddedToken("hello world", normalized=False)])
    return json.loads(tok.to_str())


_TRIOS: dict[tuple[bool, str], Trio] = {}
# A near miss of the main pattern (\p{L}+ for [\p{L}\p{M}]+): Oniguruma runs it in the fused pass.
NEAR_V3 = DEEPSEEK_V3.replace("[\\p{L}\\p{M}]+", "\\p{L}+")


def trio(tmp_path_factory, add_prefix_space: bool = False, main: str = DEEPSEEK_V3) -> Trio:
    if (add_prefix_space, main) not in _TRIOS:
        doc = deepseek_doc(add_prefix_space=add_prefix_space, main=main)
        _TRIOS[add_prefix_space, main] = Trio(doc, tmp_path_factory.mktemp("deepseek") / "tokenizer.json")
    return _TRIOS[add_prefix_space, main]


@pytest.mark.parametrize("add_prefix_space", [False, True])
def test_the_file_runs_on_the_fused_kernel(tmp_path_factory, add_prefix_space):
    t = trio(tmp_path_factory, add_prefix_space)
    assert t.kernel.name == "byte_level_hf_bpe"
    d = fused_description(t.spec)
    assert d is not None and d["pre_splits"] == [1, 2, 3] and d["split"] == NO_SPLIT
    path = tmp_path_factory.mktemp("deepseek_file") / "tokenizer.json"
    path.write_text(json.dumps(deepseek_doc()))
    assert Tokenizer.from_file(path).kernel == "byte_level_hf_bpe"


@pytest.mark.parametrize("add_prefix_space", [False, True])
def test_fused_equals_hf_on_samples(tmp_path_factory, add_prefix_space):
    t = trio(tmp_path_factory, add_prefix_space)
    for text in [*SAMPLES, *TRAINING]:
        t.check(text)
    t.check(SAMPLES[6], SAMPLES[9])


def test_digit_runs_of_every_length(tmp_path_factory):
    t = trio(tmp_path_factory)
    for n in range(1, 14):
        for digit in "7٣½":
            run = digit * n
            for text in (run, "x" + run, run + "日本", "日" + run + "カ", " " + run + " ", "ab" + run + "cd"):
                t.check(text)


@pytest.mark.parametrize("add_prefix_space", [False, True])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, add_prefix_space, text, pair):
    trio(tmp_path_factory, add_prefix_space).check(text, pair)


def test_pieces_are_hf_pre_tokenizer_pieces(tmp_path_factory):
    t = trio(tmp_path_factory)
    for text in [*SAMPLES, *TRAINING]:
        if "<|" in text or "hello world" in text:
            continue
        want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
        got = ["".join(_byte_chars()[b] for b in piece) for piece, _ in t.fused.pieces(text)]
        assert got == want, text


def _byte_chars() -> tuple[str, ...]:
    from tokenforge.pipeline.fused_hf_bpe import BYTE_CHARS

    return BYTE_CHARS


@pytest.mark.parametrize(
    "change",
    [
        lambda parts: parts[0]["pattern"].update(Regex=r"\p{N}{1,4}"),
        lambda parts: parts[1]["pattern"].update(Regex="[一-龥]+"),
        lambda parts: parts[0].update(behavior="Removed"),
        lambda parts: parts.insert(0, parts.pop(1)),
        lambda parts: parts.pop(0),
    ],
)
def test_near_misses_stay_staged(tmp_path_factory, change):
    t = trio(tmp_path_factory)
    pre = json.loads(json.dumps(t.spec.pre_tokenizer))
    change(pre["pretokenizers"])
    spec = dataclasses.replace(t.spec, pre_tokenizer=pre)
    assert fused_description(spec) is None
    assert kernel_of(spec) == "staged"


def test_bad_pre_splits_raise(tmp_path_factory):
    from tokenforge import _core

    d = fused_description(trio(tmp_path_factory).spec)
    assert d is not None
    with pytest.raises(ValueError, match="pre-split"):
        _core.ByteLevelHfBpe(**{**d, "pre_splits": [1, 17]})
    with pytest.raises(ValueError, match="no split"):
        _core.ByteLevelHfBpe(**{**d, "pre_splits": []})
    with pytest.raises(ValueError, match="prefix_each_piece"):
        _core.ByteLevelHfBpe(**{**d, "prefix_each_piece": False})


def test_pieces_on_every_code_point(tmp_path_factory):
    # Every code point, in runs of 256 with digits and kana between: the built-in stages read
    # \p{N} and the CJK class as Oniguruma does.
    t = trio(tmp_path_factory)
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(chars), 256):
        text = "1カ".join("".join(chars[i + j : i + j + 64]) for j in range(0, 256, 64))
        want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
        got = ["".join(_byte_chars()[b] for b in piece) for piece, _ in t.fused.pieces(text)]
        assert got == want, hex(ord(chars[i]))


def test_cjk_runs_with_every_kana_code_point(tmp_path_factory):
    # A run of the CJK Split of letters and marks only is one piece; a kana-range character that
    # is neither (U+3040, U+309B, U+30A0, U+30FB, ...) makes the main pattern cut it: each such
    # code point at the start, inside and at the end of ideograph and kana runs, against HF.
    t = trio(tmp_path_factory)

    def same(text: str) -> None:
        want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
        got = ["".join(_byte_chars()[b] for b in piece) for piece, _ in t.fused.pieces(text)]
        assert got == want, text

    for c in map(chr, range(0x3040, 0x3100)):
        for run in ("漢字", "かな", "カナ", "一"):
            same(f"{c}{run} {run}{c}{run}、{run}{c}")
            same(f"x{c}{c}{run}{c}")


def test_ascii_stretches_of_every_length_before_a_stop(tmp_path_factory):
    # ASCII text of every length before a digit, a control, a non-ASCII character or the end:
    # windows are taken where the stop lies 16 bytes or more ahead, the character scanner
    # otherwise; both give HF's pieces.
    t = trio(tmp_path_factory)
    words = "The quick, brown fox's (jumps) over  the\tlazy dog;  it  ran.\n  Then  "
    for length in range(0, 70):
        head = (words * 2)[:length]
        for stop in ("7", "\x01", "é", "日本", "", " ", "\n"):
            text = head + stop + words
            want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
            got = ["".join(_byte_chars()[b] for b in piece) for piece, _ in t.fused.pieces(text)]
            assert got == want, text


def test_a_missing_stage_is_caught(tmp_path_factory):
    # Without any one of the three stages the pieces differ from HF's: the checks see it.
    from tokenforge import _core

    t = trio(tmp_path_factory)
    d = fused_description(t.spec)
    assert d is not None
    text = "日本語のテキストabc12345 def!"
    want = [p for p, _ in t.hf.pre_tokenizer.pre_tokenize_str(text)]
    for stages in ([1, 3], [2, 3], [3], [1, 2]):
        wrong = _core.ByteLevelHfBpe(**{**d, "pre_splits": stages})
        got = ["".join(_byte_chars()[b] for b in piece) for piece, _ in wrong.pieces(text)]
        assert got != want, stages


def test_near_miss_main_pattern_runs_through_oniguruma(tmp_path_factory):
    assert NEAR_V3 != DEEPSEEK_V3
    t = trio(tmp_path_factory, main=NEAR_V3)
    assert t.kernel.name == "byte_level_hf_bpe"
    d = fused_description(t.spec)
    assert d is not None and d["pre_splits"] == [1, 2] and d["split"] == -1 and d["pattern"] == NEAR_V3
    for text in [*SAMPLES, *TRAINING]:
        t.check(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_near_miss_main_pattern_equals_hf_on_any_text(tmp_path_factory, text):
    trio(tmp_path_factory, main=NEAR_V3).check(text)


# The main pattern's alternatives where they meet: ASCII punctuation then ASCII letters or not,
# a prefix before letters and marks, a space before punctuation and symbols, newlines after
# them, whitespace runs at the end and inside.
MAIN_CASES = [
    ".abc .Über !x1 $USD ~~~a a.b.c ..a",
    "\u0301abc a\u0301b \u0301 \u0301\u0301 1\u0301 \t\u0301",
    " !! ?x  $ 5 +\n\r\n-\r ©® ™x",
    "\tword \u3000word \u00a0word \u2028word 5word ½x ①x \x00x \x7fx \u200bx \ue000x",
    "word\n\n   \n  x  \t y   ",
    "«quoted» „low“ ‹x› —dash— …",
    "日本語 is 漢字, ひらがな; カタカナ!",
]


def test_main_pattern_where_alternatives_meet(tmp_path_factory):
    import test_fused_deepseek_llm as stages_test
    from tokenforge.pipeline.fused_hf_bpe import STAGES

    main = STAGES[("Split", DEEPSEEK_V3)]
    t = trio(tmp_path_factory)
    for text in MAIN_CASES:
        stages_test.same_pieces([main], text)
        stages_test.same_pieces([1, 2, main], text)
        t.check(text)


def test_new_pieces_of_every_kind_of_byte_pair(tmp_path_factory):
    # A piece new to the thread starts merging from its bytes' pairs, whose merges come from the
    # kernel's table of every two bytes (pipelines/byte_level_hf_bpe.h, byte_pairs_): characters
    # of one to four UTF-8 bytes side by side, in pieces of 1..40 characters (short, medium and
    # long; CJK runs cut into parts), each first seen, then again once known, as HF.
    import random

    t = trio(tmp_path_factory)
    rng = random.Random(19)
    pools = [
        "abcdefghijklmnopqrstuvwxyzABCDEZ",
        "0123456789",
        ",.!?'-_()#/\\;:",
        "éèàüößñçøåœÇÉ",
        "Приветмирждущы",
        "αβγδεζηθ",
        "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年深度求索",
        "日本語のテキストですカタカナとひらがな",
        "\u3400\u3401\u4db5\u9fa5\u9fa6",
        "👍🏽𝔘𝔫𝔦😀",
        "\u0301\u0308",
    ]
    for size in [*range(1, 20), 24, 31, 32, 40]:
        words = []
        for _ in range(12):
            mixed = rng.random() < 0.5
            pool = "".join(pools) if mixed else rng.choice(pools)
            words.append("".join(rng.choice(pool) for _ in range(size)))
        text = rng.choice([" ", "\n", "，"]).join(words)
        t.check(text)
        t.check(text)


def test_new_pieces_with_tied_pairs_of_every_length(tmp_path_factory):
    # Runs of one character or two make the same pair again and again: its equal ranks merge
    # leftmost first (the merge's min-scan takes four ranks a step, models/bpe/hf_bpe_model.h's
    # leftmost_min); every length from 1 byte to past the 128 symbols merged by a scan.
    t = trio(tmp_path_factory)
    for unit in ["l", "s", " ", "=", "ab", "日", "か", "本語", "ab日"]:
        for count in [*range(1, 24), 31, 32, 33, 42, 43, 44, 63, 64, 65, 127, 128, 129]:
            t.check(unit * count)
            t.check(f"x{unit * count} {unit * count}")


def test_long_pieces_past_the_long_cache(tmp_path_factory):
    # Pieces of 32..256 bytes are remembered in PieceCache's two-way long cache (2 x 8,192
    # entries): 20,000 distinct ones (sets fill, older ways are replaced), longer ones (never
    # remembered), then the same again and in another order, as HF.
    import random

    t = trio(tmp_path_factory)
    rng = random.Random(23)
    letters = "abcdefghijklmnopqrstuvwxyzéü"
    words = [
        "".join(rng.choice(letters) for _ in range(rng.choice([31, 32, 33, 40, 64, 127, 200, 255, 256, 257, 300])))
        for _ in range(20_000)
    ]
    docs = [" ".join(words[i : i + 200]) for i in range(0, len(words), 200)]
    cjk = "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年日本語のテキストです"
    docs += ["".join(rng.choice(cjk) for _ in range(rng.choice([11, 12, 30, 85, 86, 90]))) for _ in range(300)]
    assert [t.fused.encode(d, None).ids for d in docs] == [t.hf.encode(d).ids for d in docs]
    shuffled = list(range(len(docs)))
    rng.shuffle(shuffled)
    assert [t.fused.encode(docs[i], None).ids for i in shuffled] == [t.hf.encode(docs[i]).ids for i in shuffled]
