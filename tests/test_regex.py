"""_core.Regex (src/native/pre_tokenizers/regex.h, Oniguruma vendored) must cut every text exactly
as HF tokenizers does with the same pattern: its Split pre-tokenizer (every behaviour, inverted or
not, which between them show every span, empty matches included) and its Replace normalizer (the
matches alone). The patterns are those of tokenizer files in the wild plus the constructs they use
(\\p classes, possessive and lazy quantifiers, look-around, case-insensitive groups, empty
matches); the texts are the corpus samples, every Unicode code point, and hypothesis strings."""

from __future__ import annotations

import random
import re
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, corpus_files, read_sample
from tokenforge import _core

tokenizers = pytest.importorskip("tokenizers")

# name -> pattern, as tokenizer.json files carry them.
PATTERNS = {
    # HF's ByteLevel pre-tokenizer (GPT-2, RoBERTa, ...).
    "gpt2": r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    # tiktoken's forms, possessive quantifiers and all.
    "gpt2-tiktoken": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""",
    "cl100k-tiktoken": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    # Llama 3, GPT-4 (HF), Phi-4, OLMo 2, GLM-4.5.
    "llama3": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # GPT-4o, Llama 4, MiniMax.
    "o200k": r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # Mistral Nemo (Tekken).
    "tekken": r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # Qwen2 / 2.5 / 3, Hunyuan.
    "qwen2": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "qwen3.5": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # Kimi K2: class intersections.
    "kimi-k2": r"""[\p{Han}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # DeepSeek V3 / R1: three splits in a row.
    "deepseek-v3-digits": r"\p{N}{1,3}",
    "deepseek-v3-cjk": "[一-龥\u3040-ゟ゠-ヿ]+",
    "deepseek-v3-cjk-escaped": r"[一-龥\u3040-ゟ゠-ヿ]+",
    "deepseek-v3-main": r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # DeepSeek LLM / Coder (v1).
    "deepseek-newline": r"[\r\n]",
    # (NFC would change \u1f7d, \u1fbe, \u1fd3, \u1fdb, \u2126, \u212a: escaped so the pattern stays the file's)
    "deepseek-letters": "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
    "deepseek-punct": r"\s?[!-/:-~！-／：-～‘-‟　-。]+",
    "deepseek-trailing-space": r"\s+$",
    "deepseek-han-hangul": r"[一-龥ࠀ-一가-퟿]+",
    "deepseek-coder-letters": r"\s?\p{L}+",
    "deepseek-coder-punct": r"\s?\p{P}+",
    # Command A: digit groups of three from the right.
    "command-a-digits": r"\d{1,3}(?=(?:\d{3})*\b)",
    # Gemma 2/3/4 (a String pattern: HF escapes it into a regex), Bloom, Falcon.
    "gemma-space": " ",
    "bloom": r" ?[^(\s|[.,!?…。，、।۔،])]+",
    "falcon-punct": r"[\p{P}\$\+<=>\^~\|`]+",
    "falcon-words": r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)",
    "falcon-digits": r"[0-9][0-9][0-9]",
    # StarCoder-style digit splits, whitespace, punctuation, BERT-like words.
    "digit": r"\p{N}",
    "ascii-digit": r"\d",
    "whitespace": r"\s+",
    "punctuation": r"\p{P}",
    "words": r"\w+|[^\w\s]+",
    # NLLB's Replace normalizer.
    "nllb-spaces": r" {2,}",
    # Lazy, possessive, look-around, case-insensitive, anchors, Oniguruma's own escapes.
    "lazy": r"\p{L}+?\p{Ll}|\s+?",
    "lazy-dot": r"<.*?>|.",
    "possessive": r"\p{L}*+\p{N}?|\s++",
    "lookbehind": r"(?<=\s)\p{L}+|(?<![\p{L}\p{N}])\p{N}+",
    "lookahead": r"\p{L}+(?=\s)|\s+(?=\p{Lu})",
    "ignorecase": r"(?i)straße|ǅ|k|σ+",
    "ignorecase-group": r"(?i:'S|'T|'RE|'VE|'M|'LL|'D)",
    "grapheme": r"\X",
    "hex-h": r"\h+",
    "linebreak": r"\R",
    "keep": r"\p{L}\K\p{L}",
    "dot": r".",
    "atomic": r"(?>\p{L}+)\p{N}*",
    "backref": r"(\p{L})\1+",
    "lookbehind-variable": r"(?<=\s\p{L}{0,3}|^)\p{N}+|(?<!ab?)c",
    "ruby-intervals": r"a{2,1}|x{,|\d**",
    # Empty matches: how find_iter steps past them.
    "empty-star": r"a*",
    "empty-lazy": r"\p{L}*?",
    "word-boundary": r"\b",
    "not-word-boundary": r"\B",
    "empty-lookahead": r"(?=x)",
    "empty-lookahead-upper": r"(?=\p{Lu})",
    "line-start": r"^",
    "line-end": r"$",
    "empty": r"",
    "optional-space": r" ?",
}

BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]

_compiled: dict[str, _core.Regex] = {}


def ours(pattern: str) -> _core.Regex:
    if pattern not in _compiled:
        _compiled[pattern] = _core.Regex(pattern)
    return _compiled[pattern]


def split_spans(spans, behavior: str):
    """HF's NormalizedString::split (tokenizers/src/tokenizer/normalizer.rs): the
    (start, end, removed) pieces a behaviour makes of find_matches' spans."""
    if behavior == "isolated":
        return [(s, e, False) for s, e, _ in spans]
    if behavior == "removed":
        return list(spans)
    acc: list[list] = []
    previous = False
    if behavior == "contiguous":
        for s, e, m in spans:
            if m == previous and acc:
                acc[-1][1] = e
            else:
                acc.append([s, e, False])
            previous = m
    elif behavior == "merged_with_previous":
        for s, e, m in spans:
            if m and not previous and acc:
                acc[-1][1] = e
            else:
                acc.append([s, e, False])
            previous = m
    else:  # merged_with_next
        for s, e, m in reversed(spans):
            if m and not previous and acc:
                acc[-1][0] = s
            else:
                acc.append([s, e, False])
            previous = m
        acc.reverse()
    return [tuple(a) for a in acc]


def our_pieces(pattern: str, text: str, behavior: str, invert: bool = False):
    spans = ours(pattern).find_matches(text)
    if invert:
        spans = [(s, e, not m) for s, e, m in spans]
    return [(text[s:e], (s, e)) for s, e, removed in split_spans(spans, behavior) if not removed and e > s]


def hf_pieces(pattern: str, text: str, behavior: str, invert: bool = False):
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior=behavior, invert=invert)
    return split.pre_tokenize_str(text)


def our_replace(pattern: str, text: str, content: str) -> str:
    out, prev = [], 0
    for s, e, _ in ours(pattern).find_iter(text):
        out += [text[prev:s], content]
        prev = e
    out.append(text[prev:])
    return "".join(out)


def hf_replace(pattern: str, text: str, content: str) -> str:
    return tokenizers.normalizers.Replace(tokenizers.Regex(pattern), content).normalize_str(text)


def assert_same(pattern: str, text: str, behaviors=BEHAVIORS, inverts=(False, True)) -> None:
    for behavior in behaviors:
        for invert in inverts:
            expected = hf_pieces(pattern, text, behavior, invert)
            got = our_pieces(pattern, text, behavior, invert)
            if got != expected:
                i = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
                pytest.fail(
                    f"{pattern!r} {behavior} invert={invert}: piece {i}: ours {got[i : i + 3]} HF {expected[i : i + 3]}"
                )


SAMPLES = {path.name: read_sample(path, None) for path in corpus_files()}


@pytest.mark.parametrize("name", list(PATTERNS))
def test_patterns_on_samples(name):
    """Each pattern on every corpus sample (English docs, code, manuals in eight languages): the
    isolated pieces of their first 20,000 characters, every behaviour on their first lines."""
    pattern = PATTERNS[name]
    for text in SAMPLES.values():
        assert_same(pattern, text[:20000], behaviors=["isolated"], inverts=(False,))
        assert_same(pattern, text[:2000])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PATTERNS))
def test_patterns_on_whole_corpora(name):
    """The same on the whole samples, and on the whole corpora where they are at hand."""
    for path in corpus_files() + corpus_files(whole=True):
        assert_same(PATTERNS[name], read_sample(path, None), behaviors=["isolated"], inverts=(False,))


@pytest.mark.parametrize("name", list(PATTERNS))
def test_replace_on_samples(name):
    """Replace rewrites the matches alone (find_iter), empty ones included."""
    pattern = PATTERNS[name]
    for text in SAMPLES.values():
        part = text[:10000]
        assert our_replace(pattern, part, "<>") == hf_replace(pattern, part, "<>")
    assert our_replace(pattern, "", "<>") == hf_replace(pattern, "", "<>") == ""


def test_empty_text():
    for pattern in PATTERNS.values():
        assert ours(pattern).find_matches("") == [(0, 0, False)]
        assert ours(pattern).find_iter("") == []


def test_spans_cover_the_text():
    text = SAMPLES["en-linuxdoc.txt"][:5000] + " 日本語のテキスト 😀\u0301 "
    for pattern in PATTERNS.values():
        spans = ours(pattern).find_matches(text)
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        for (_, e, m), (s, _, m2) in zip(spans, spans[1:]):
            assert e == s
            assert m or m2  # no two gaps in a row
        assert ours(pattern).find_iter(text) == [sp for sp in spans if sp[2]]


# Every code point (no surrogates) in chunks, for the character classes.
CLASS_PATTERNS = [
    r"\p{L}",
    r"\p{Lu}",
    r"\p{Ll}",
    r"\p{Lt}",
    r"\p{Lm}",
    r"\p{Lo}",
    r"\p{M}",
    r"\p{N}",
    r"\p{Nd}",
    r"\p{P}",
    r"\p{S}",
    r"\p{Han}",
    r"\p{Hiragana}",
    r"\s",
    r"\S",
    r"\w",
    r"\d",
    r"\h",
    r"[^\s\p{L}\p{N}]",
    r"[^\r\n\p{L}\p{N}]",
    r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]",
    r"[[:punct:]]",
    r"[[:alpha:]]",
    r"(?i)[a-z]",
    r"(?i)ss|k|ǆ",
    r"\X",
    r".",
    r"\b",
]
CHUNK = 0x8000
CHUNKS = [
    "".join(chr(c) for c in range(lo, min(lo + CHUNK, 0x110000)) if not 0xD800 <= c < 0xE000)
    for lo in range(0, 0x110000, CHUNK)
]


@pytest.mark.parametrize("pattern", CLASS_PATTERNS)
def test_every_code_point(pattern):
    """The gaps between matches (behaviour "removed") give the characters of a one-character
    class exactly; the isolated pieces show where graphemes and words end."""
    behaviors = ["isolated"] if pattern in (r"\X", r"\b") else ["removed"]
    for chunk in CHUNKS:
        assert_same(pattern, chunk, behaviors=behaviors, inverts=(False,))


ATOMS = [
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\x0b",
    "\x0c",
    "\x85",
    "\u00a0",
    "\u2028",
    "\u3000",
    "a",
    "Z",
    "hello",
    "World",
    "HTTP",
    "x",
    "ß",
    "SS",
    "ſ",
    "K",
    "k",
    "İ",
    "ı",
    "ǅ",
    "Σ",
    "ς",
    "é",
    "e\u0301",
    "\u0301",
    "\u200d",
    "'",
    "'s",
    "'S",
    "'ll",
    "’",
    "12",
    "12345",
    "٣",
    "①",
    "²",
    "Ⅻ",
    "\U0001d7d8",
    ".",
    ",",
    "!?",
    "/",
    "<a>",
    "(",
    "[",
    "…",
    "。",
    "，",
    "中文",
    "日本",
    "ひらがな",
    "カタカナ",
    "한국어",
    "مرحبا",
    "हिन्दी",
    "ไทย",
    "😀",
    "👍🏽",
    "🇫🇷",
    "\x00",
    "\x7f",
]
TEXTS = st.lists(st.sampled_from(ATOMS), max_size=30).map("".join) | st.text(max_size=40)


@settings(max_examples=300, deadline=None)
@given(pattern=st.sampled_from(list(PATTERNS.values())), text=TEXTS)
def test_hypothesis_strings(pattern, text):
    assert_same(pattern, text)
    assert our_replace(pattern, text, "#") == hf_replace(pattern, text, "#")


INVALID = [
    "(",
    "a)",
    "[a-",
    "[b-a]",
    "[]",
    r"[\d-z]",
    "*a",
    "x{100001}",
    r"\p{NoSuchClass}",
    "[[:foo:]]",
    r"\k<nope>",
    r"(?<n>a)\k<m>",
    r"\g<1>",
    "(?z)",
    "(?P<n>a)",
    "\\",
]


@pytest.mark.parametrize("pattern", INVALID)
def test_invalid_pattern(pattern):
    """Oniguruma rejects the pattern in both: HF raises, and we raise ValueError naming it with
    Oniguruma's message."""
    try:
        tokenizers.Regex(pattern)
    except Exception as e:  # noqa: BLE001 (HF raises a plain Exception)
        hf_message = str(e)
    else:
        pytest.skip(f"HF accepts {pattern!r}")
    with pytest.raises(ValueError) as info:
        _core.Regex(pattern)
    assert repr(pattern)[1:-1] in str(info.value) or pattern in str(info.value)
    assert hf_message.removeprefix("Oniguruma error: ") in str(info.value)


def test_invalid_patterns_are_rejected_by_hf():
    """The list above must not be all skips."""
    rejected = 0
    for pattern in INVALID:
        try:
            tokenizers.Regex(pattern)
        except Exception:  # noqa: BLE001
            rejected += 1
    assert rejected == len(INVALID)


@pytest.mark.parametrize(
    "pattern,text",
    [
        (r"(a+)+$", "a" * 40 + "b"),  # catastrophic backtracking in one attempt
        (r"(a|aa)+$", "a" * 2000 + "b"),
        (r"\p{L}+\d", "a" * 200_000),  # quadratic over the start positions of one search
        (r"(?:\s*\S+)*x", "word " * 20_000),
    ],
)
def test_pathological_patterns_stop(pattern, text):
    """A runaway search raises RuntimeError naming the pattern (Oniguruma's retry limits), or
    finishes; it never hangs."""
    start = time.perf_counter()
    try:
        spans = _core.Regex(pattern).find_matches(text)
    except RuntimeError as e:
        assert pattern in str(e) and "retry-limit" in str(e)
    else:
        assert spans[-1][1] == len(text)
    assert time.perf_counter() - start < 60


def test_retry_limit_in_match_as_hf():
    """One attempt gives up where HF's does (its panic), not earlier: a search just under the
    limit finishes as in HF."""
    pattern, text = r"(a|aa)+$", "a" * 14 + "b"
    assert our_pieces(pattern, text, "isolated") == hf_pieces(pattern, text, "isolated")


def test_threads_share_one_regex():
    """find_matches is const: threads searching with one Regex (the GIL released) agree with a
    lone search."""
    regex = ours(PATTERNS["o200k"])
    texts = [t[i * 20000 : (i + 1) * 20000] for t in SAMPLES.values() for i in range(3)]
    expected = [regex.find_matches(t) for t in texts]
    results: dict[int, list] = {}

    def work(k: int) -> None:
        order = list(range(len(texts)))
        random.Random(k).shuffle(order)
        results[k] = [(i, regex.find_matches(texts[i])) for i in order]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        for i, spans in results[k]:
            assert spans == expected[i]


def test_pattern_and_types():
    regex = _core.Regex(r"\w+")
    assert regex.pattern == r"\w+"
    with pytest.raises(TypeError):
        regex.find_matches(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(UnicodeEncodeError):
        regex.find_matches("\ud800")


def test_onig_version_is_hf_one():
    """The vendored sources are the release the onig crate of HF tokenizers builds."""
    header = (REPO / "src/native/third_party/oniguruma/src/oniguruma.h").read_text()
    version = tuple(
        int(re.search(rf"#define ONIGURUMA_VERSION_{k}\s+(\d+)", header)[1]) for k in ("MAJOR", "MINOR", "TEENY")
    )
    assert version == (6, 9, 10)
