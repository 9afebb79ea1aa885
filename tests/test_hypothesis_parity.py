"""Property tests: random text built from the pieces that stress each split pattern, encoded
by tokenforge and by tiktoken, must give the same ids, and decode back to the text."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenforge

NAMES = ["cl100k_base", "o200k_base", "r50k_base", "p50k_base"]

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    database=None,  # write nothing into the repository
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

WHITESPACE = [
    " ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\u2029",
    "\x0b",
    "\x0c",
    "\x85",
    "\u1680",
    "\u2009",
    "\u200b",
    "\u202f",
    "\ufeff",
    "\x1c",
    "\x1f",
]
CONTRACTIONS = [
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'Re",
    "'rE",
    "'ve",
    "'VE",
    "'Ve",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'Ll",
    "'lL",
    "'d",
    "'D",
    "'ſ",
    "'K",
    "'\u212a",
    "’s",
    "'",
    "''",
    "'x",
    "'sa",
    "'ll'",
]
DIGITS = (
    list("0123456789")
    + list("٠١٢٣٤٥٦٧٨٩")
    + list("０１２３９")
    + list("ⅠⅡⅢⅻ\u2160\u2169\u3007")
    + list("²³¹½¼①⑳०१२৩๑𝟘𝟙𝟡")
    + ["123", "4567", "1234567", "3.14", "1,000", "2024-01-01"]
)
EMOJI = [
    "👋",
    "👨\u200d👩\u200d👧\u200d👦",
    "👍🏽",
    "👍🏿",
    "🧑🏿\u200d🚀",
    "❤️",
    "❤\ufe0f\u200d🔥",
    "✌︎",
    "✌️",
    "🏳️\u200d🌈",
    "🇺🇸",
    "🇯🇵",
    "1️⃣",
    "#️⃣",
    "🤷\u200d♂️",
    "😀",
    "🀄",
    "\U0001faf6",
    "\ufe0f",
    "\u200d",
    "🏻",
]
SCRIPTS = [
    "你好世界",
    "漢字",
    "日本語のテキスト",
    "カタカナ",
    "한국어",
    "텍스트",
    "ภาษาไทย",
    "สวัสดี",
    "नमस्ते",
    "हिन्दी",
    "مرحبا",
    "שלום",
    "Привет",
    "Ελληνικά",
    "ქართული",
    "አማርኛ",
    "𓀀𓀁",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]
LETTERS = [
    "ǅ",
    "ǈ",
    "ǋ",
    "ǲ",
    "Ǳ",
    "ǳ",
    "ʰ",
    "ˢ",
    "ᵃ",
    "ª",
    "º",
    "ß",
    "ẞ",
    "İ",
    "ı",
    "Σσς",
    "ﬁ",
    "Ꭰ",
    "ꭰ",
    "Hello",
    "HELLO",
    "hello",
    "HeLLo",
    "CamelCase",
    "iPhone",
    "ÀÉÎÕÜ",
    "àéîõü",
    "Ǆa",
    "aǅb",
]
COMBINING = [chr(c) for c in range(0x300, 0x370)] + ["\u0903", "\u093f", "\u20dd", "\u0488"]
PUNCT = [
    *list(string.punctuation),
    "...",
    "!!",
    "?!",
    "--",
    "//",
    "/*",
    "*/",
    "->",
    "<|",
    "|>",
    "«»",
    "“”",
    "。",
    "、",
    "—",
]

whitespace = st.sampled_from(WHITESPACE)
space_runs = st.builds(
    lambda c, n: c * n, st.sampled_from([" ", "\t", "\n", "\u3000", "\r\n", " \n"]), st.integers(1, 12)
)
ascii_text = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation, max_size=12)
contractions = st.sampled_from(CONTRACTIONS)
digits = st.sampled_from(DIGITS)
emoji = st.sampled_from(EMOJI)
scripts = st.sampled_from(SCRIPTS)
letters = st.sampled_from(LETTERS)
combining = st.sampled_from(COMBINING)
letter_with_marks = st.builds(
    lambda base, marks: base + "".join(marks),
    st.sampled_from([*list("aeAEnoxZ"), "ǅ", "ʰ", "你", " "]),
    st.lists(combining, min_size=1, max_size=3),
)
punct = st.sampled_from(PUNCT)
by_category = st.text(
    alphabet=st.characters(
        categories=[
            "Lu",
            "Ll",
            "Lt",
            "Lm",
            "Lo",
            "Mn",
            "Mc",
            "Me",
            "Nd",
            "Nl",
            "No",
            "Zs",
            "Zl",
            "Zp",
            "Cc",
            "Cf",
            "Pc",
            "Pd",
            "Po",
            "Sm",
            "So",
            "Co",
        ]
    ),
    max_size=6,
)
anything = st.text(max_size=10)

FRAGMENT = st.one_of(
    ascii_text,
    whitespace,
    space_runs,
    contractions,
    digits,
    emoji,
    scripts,
    letters,
    combining,
    letter_with_marks,
    punct,
    by_category,
    anything,
)
MIXED = st.lists(FRAGMENT, max_size=24).map("".join)


def _pair(reference, name):
    return tokenforge.get_encoding(name), reference(name)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(text=MIXED)
def test_mixed_text_parity(name, reference, text):
    ours, ref = _pair(reference, name)
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.decode(expected) == text


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(text=st.text(max_size=40))
def test_arbitrary_text_parity(name, reference, text):
    ours, ref = _pair(reference, name)
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.decode_bytes(expected) == text.encode("utf-8")


@pytest.mark.parametrize("name", NAMES)
@settings(SETTINGS, max_examples=150)
@given(texts=st.lists(MIXED, min_size=1, max_size=6))
def test_batch_and_numpy_and_offsets_parity(name, reference, texts):
    ours, ref = _pair(reference, name)
    expected = [ref.encode_ordinary(t) for t in texts]
    assert ours.encode_ordinary_batch(texts, num_threads=2) == expected
    for text, ids in zip(texts, expected):
        assert ours.encode_to_numpy(text, disallowed_special=()).tolist() == ids
        got_ids, offsets, _ = ours.encode_with_offsets(text, disallowed_special=())
        assert got_ids == ids
        assert offsets == ref.decode_with_offsets(ids)[1]


SPECIAL_FRAGMENT = st.one_of(
    FRAGMENT, st.sampled_from(["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|endoftext", "<|", "|>"])
)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(text=st.lists(SPECIAL_FRAGMENT, max_size=16).map("".join))
def test_special_tokens_in_random_text(name, reference, text):
    ours, ref = _pair(reference, name)
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    try:
        expected = ref.encode(text)
    except ValueError:
        with pytest.raises(ValueError):
            ours.encode(text)
    else:
        assert ours.encode(text) == expected


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.binary(max_size=60))
def test_bytes_level_round_trip(name, reference, data):
    ours, ref = _pair(reference, name)
    text = data.decode("utf-8", "replace")
    ids = ours.encode_ordinary(text)
    assert ids == ref.encode_ordinary(text)
    assert ours.decode_bytes(ids) == text.encode("utf-8")
    assert ours.decode(ids) == text
    latin = data.decode("latin-1")
    ids = ours.encode_ordinary(latin)
    assert ids == ref.encode_ordinary(latin)
    assert ours.decode(ids) == latin


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_random_id_sequences_decode_like_tiktoken(name, reference, data):
    ours, ref = _pair(reference, name)
    specials = sorted(ref._special_tokens.values())
    ids = data.draw(
        st.lists(
            st.one_of(st.integers(0, 255), st.integers(0, ref.n_vocab + 3), st.sampled_from(specials)), max_size=20
        )
    )
    try:
        raw = ref.decode_bytes(ids)
    except KeyError:  # an id in no table (past the end, or a hole such as cl100k_base's 100256)
        with pytest.raises(tokenforge.InvalidTokenError):
            ours.decode_bytes(ids)
        with pytest.raises(tokenforge.InvalidTokenError):
            ours.decode(ids)
        return
    assert ours.decode_bytes(ids) == raw
    assert ours.decode(ids) == ref.decode(ids)
    assert ours.decode(ids, errors="ignore") == ref.decode(ids, errors="ignore")
    assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
    try:
        expected = ref.decode_with_offsets(ids)
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            ours.decode_with_offsets(ids)
    else:
        assert ours.decode_with_offsets(ids) == expected
    dec = ours.stream_decoder()
    assert "".join(dec.push(t) for t in ids) + dec.flush() == ref.decode(ids)
