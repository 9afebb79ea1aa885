"""The tiktoken-compatible `Encoding` surface, checked against tiktoken itself.

Every expectation that tiktoken can produce comes from tiktoken (the `reference` fixture);
only behaviour tiktoken lacks (stream decoding, `encode_with_offsets`, file writers) is
checked through invariants.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

import tokenforge
from conftest import DATA, corpus_files, read_sample

ALL_NAMES = ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base", "o200k_harmony"]
MAIN = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"]

# The original GPT-2 split pattern (no possessive quantifiers): no native scanner matches it.
GPT2_ORIGINAL = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
SIMPLE = r"\S+|\s+"

# Strings whose characters are split across tokens (or sit right at token edges).
BYTE_SPLITTING = [
    "👋",
    "héllo 👋 wörld",
    "👨‍👩‍👧‍👦 family",
    "👍🏽👍🏿🏳️‍🌈",
    "❤️‍🔥 ✌︎ ✌️",
    "你好，世界！这是一个测试。",
    "日本語のテキストと漢字の組み合わせ",
    "한국어 텍스트 테스트",
    "ภาษาไทย",
    "नमस्ते दुनिया",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 𓀀𓀁𓀂 🀄🃏",
    "a\u0301e\u0301\u0302 \u0300\u0301",
    "Ω≈ç√∫˜µ≤≥÷ Ⅻ ① ½",
    "\u00a0\u3000\u2028\x85\x0b\x0c",
    "🤷\u200d♂️🤷🏻\u200d♀️",
]

ROUND_TRIP = [
    *BYTE_SPLITTING,
    "",
    " ",
    "hello world",
    "Hello, World! It's   fine.\n\n\tDon't   PANIC   ",
    "    leading and trailing    ",
    "\r\n\r\n\n\n  \t\t \n",
    "1234567890 3.14159 1e10 0x1F",
    "don't WON'T we'LL they'Re I'M you'VE he'D",
    "def f(x):\n    return x ** 2  # comment\n",
    "<|endoftext|> as text",
    "a" * 1000,
    "\x00\x01\x02\x7f",
    "\U0010ffff\ue000�",
]


def _docs(path, chars=6000, size=1500):
    text = read_sample(path, chars)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _corpus_docs(chars=6000, size=1500):
    return [d for p in corpus_files() for d in _docs(p, chars, size)]


@pytest.fixture(scope="module")
def corpus_docs():
    return _corpus_docs()


# ---------------------------------------------------------------- vocabulary facts


def test_list_encoding_names_covers_tiktoken(tiktoken_module):
    ours = tokenforge.list_encoding_names()
    assert set(tiktoken_module.list_encoding_names()) <= set(ours)
    assert len(ours) == len(set(ours))
    for name in ours:
        assert isinstance(name, str)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_vocabulary_facts(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    assert ours.name == ref.name
    assert ours.n_vocab == ref.n_vocab
    assert ours.max_token_value == ref.max_token_value
    assert ours.eot_token == ref.eot_token
    assert ours.special_tokens_set == ref.special_tokens_set
    assert ours.token_byte_values() == ref.token_byte_values()


@pytest.mark.parametrize("name", ALL_NAMES)
def test_mergeable_ranks(name, reference):
    assert tokenforge.get_encoding(name)._mergeable_ranks == reference(name)._mergeable_ranks


def test_get_encoding_is_cached():
    assert tokenforge.get_encoding("cl100k_base") is tokenforge.get_encoding("cl100k_base")


# ---------------------------------------------------------------- encode_single_token


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base", "p50k_edit"])
def test_encode_single_token_ordinary_and_special_text(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    for text in ["hello", " world", "a", "\n", " ", "!", "The", "ing"]:
        assert ours.encode_single_token(text) == ref.encode_single_token(text)
        assert ours.encode_single_token(text.encode()) == ref.encode_single_token(text.encode())
    for special in ref.special_tokens_set:
        assert ours.encode_single_token(special) == ref.encode_single_token(special)
    for b in range(256):
        assert ours.encode_single_token(bytes([b])) == ref.encode_single_token(bytes([b]))
    # every token's bytes map back to it (sampled)
    rng = random.Random(1)
    for token in rng.sample(range(ours.max_token_value), 300):
        if token in ref._special_tokens.values():
            continue
        try:
            data = ref.decode_single_token_bytes(token)
        except KeyError:
            continue
        assert ours.encode_single_token(data) == token
        assert ours.encode_single_token(bytearray(data)) == token


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_encode_single_token_special_bytes(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    for special in sorted(ref.special_tokens_set):
        assert ours.encode_single_token(special.encode()) == ref.encode_single_token(special.encode())


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("not_a_token", ["hello world", "", b"", "<|endoftext", b"\xff" * 40, "zzzzqqqqxxxx"])
def test_encode_single_token_key_error(name, not_a_token, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    with pytest.raises(KeyError):
        ref.encode_single_token(not_a_token)
    with pytest.raises(KeyError):
        ours.encode_single_token(not_a_token)


# ---------------------------------------------------------------- decoding


@pytest.mark.parametrize("name", MAIN)
def test_decode_family_matches_tiktoken(name, reference, corpus_docs):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    for text in corpus_docs + BYTE_SPLITTING:
        ids = ref.encode_ordinary(text)
        assert ours.decode(ids) == ref.decode(ids) == text
        assert ours.decode_bytes(ids) == ref.decode_bytes(ids)
        assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
        assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)
        assert [ours.decode_single_token_bytes(t) for t in ids] == [ref.decode_single_token_bytes(t) for t in ids]
    batch = [ref.encode_ordinary(t) for t in BYTE_SPLITTING]
    assert ours.decode_batch(batch) == ref.decode_batch(batch)
    assert ours.decode_bytes_batch(batch) == ref.decode_bytes_batch(batch)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "p50k_edit"])
def test_decode_special_tokens(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    specials = sorted(ref.special_tokens_set)
    text = "x".join(specials) + " tail"
    ids = ref.encode(text, allowed_special="all")
    assert ours.decode(ids) == ref.decode(ids) == text
    assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
    assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)
    for s in specials:
        tok = ref.encode_single_token(s)
        assert ours.decode_single_token_bytes(tok) == ref.decode_single_token_bytes(tok) == s.encode()


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_decode_invalid_utf8(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    tok = ref.encode_single_token
    cases = [
        [tok(b"\xff")],
        [tok(b"a"), tok(b"\xe4"), tok(b"\xbd"), tok(b"b")],  # truncated 3-byte sequence
        [tok(b"\xbd"), tok(b"a")],  # lone continuation byte
        [tok(b"\xf0"), tok(b"\x9f"), tok(b"\x98")],  # truncated 4-byte sequence at the end
        [tok(b"\xc0"), tok(b"\xaf")],  # overlong encoding
        [tok(b"\xed"), tok(b"\xa0"), tok(b"\x80")],  # encoded surrogate
        [*ref.encode("héllo")[:1], tok(b"\xc3"), *ref.encode(" end")],
    ]
    for ids in cases:
        raw = ref.decode_bytes(ids)
        assert ours.decode_bytes(ids) == raw
        assert ours.decode(ids) == ref.decode(ids) == raw.decode("utf-8", "replace")
        assert "\ufffd" in ours.decode(ids)
        assert ours.decode(ids, errors="replace") == ref.decode(ids, errors="replace")
        assert ours.decode(ids, errors="ignore") == ref.decode(ids, errors="ignore") == raw.decode("utf-8", "ignore")
        assert ours.decode(ids, errors="backslashreplace") == raw.decode("utf-8", "backslashreplace")
        assert ours.decode(ids, errors="surrogateescape").encode("utf-8", "surrogateescape") == raw
        with pytest.raises(UnicodeDecodeError):
            ref.decode(ids, errors="strict")
        with pytest.raises(UnicodeDecodeError):
            ours.decode(ids, errors="strict")
        with pytest.raises(UnicodeDecodeError):
            ours.decode_with_offsets(ids)
        assert ours.decode_batch([ids, ids], errors="ignore") == [raw.decode("utf-8", "ignore")] * 2


@pytest.mark.parametrize("name", MAIN)
def test_round_trip(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    for text in ROUND_TRIP:
        ids = ours.encode(text, disallowed_special=())
        assert ids == ref.encode(text, disallowed_special=())
        assert ours.decode(ids) == text
        assert ours.decode_bytes(ids) == text.encode("utf-8")
        assert b"".join(ours.decode_tokens_bytes(ids)) == text.encode("utf-8")


def test_decode_accepts_any_int_sequence():
    enc = tokenforge.get_encoding("cl100k_base")
    ids = enc.encode("hello world")
    assert enc.decode(tuple(ids)) == "hello world"
    assert enc.decode(np.array(ids, dtype=np.uint32)) == "hello world"
    assert enc.decode(np.array(ids, dtype=np.int64)) == "hello world"
    assert enc.decode([]) == ""
    assert enc.decode_bytes([]) == b""
    assert enc.decode_with_offsets([]) == ("", [])


def test_decode_tokens_bytes_accepts_numpy_ints(reference):
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    arr = enc.encode_to_numpy("hello world 👋")
    assert enc.decode_single_token_bytes(arr[0]) == ref.decode_single_token_bytes(arr[0])
    assert enc.decode_tokens_bytes(arr) == ref.decode_tokens_bytes(arr)
    assert enc.decode_with_offsets(arr) == ref.decode_with_offsets(arr)


# ---------------------------------------------------------------- encode variants


@pytest.mark.parametrize("name", MAIN)
def test_encode_to_numpy(name, reference, corpus_docs):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    for text in corpus_docs[::3] + BYTE_SPLITTING + ["", "<|endoftext|>x"]:
        arr = ours.encode_to_numpy(text, disallowed_special=())
        assert isinstance(arr, np.ndarray)
        assert arr.dtype == np.uint32
        assert arr.ndim == 1
        assert arr.tolist() == ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    arr = ours.encode_to_numpy("a<|endoftext|>b", allowed_special="all")
    assert arr.tolist() == ref.encode("a<|endoftext|>b", allowed_special="all")
    with pytest.raises(ValueError):
        ours.encode_to_numpy("a<|endoftext|>b")


def _check_offsets(enc, ref, text, **kw):
    ids, offsets, byte_offsets = enc.encode_with_offsets(text, **kw)
    assert ids == enc.encode(text, **kw) == ref.encode(text, **kw)
    # each token's bytes sit exactly at its byte offset in the text's UTF-8
    utf8, pieces = text.encode("utf-8"), enc.decode_tokens_bytes(ids)
    assert [utf8[b : b + len(p)] for b, p in zip(byte_offsets, pieces)] == pieces
    assert byte_offsets == sorted(byte_offsets) and len(byte_offsets) == len(ids)
    assert len(offsets) == len(ids)
    assert offsets == ref.decode_with_offsets(ids)[1]
    assert offsets == sorted(offsets)
    for tok, off in zip(ids, offsets):
        data = enc.decode_single_token_bytes(tok)
        assert 0 <= off < max(len(text), 1)
        if not 0x80 <= data[0] < 0xC0:  # starts on a character boundary
            assert text[off:].encode("utf-8").startswith(data), (text, tok, off)


@pytest.mark.parametrize("name", MAIN)
def test_encode_with_offsets(name, reference, corpus_docs):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    for text in corpus_docs[::2] + ROUND_TRIP:
        _check_offsets(ours, ref, text, disallowed_special=())
    _check_offsets(ours, ref, "héllo<|endoftext|>👋<|endoftext|>", allowed_special="all")
    with pytest.raises(ValueError):
        ours.encode_with_offsets("x<|endoftext|>")


def test_encode_with_offsets_regex_pattern(reference):
    # A pattern with no native scanner takes the Python path; offsets must agree with it.
    ref = reference("r50k_base")
    enc = tokenforge.Encoding(
        "custom", pat_str=r"\S+|\s+", mergeable_ranks=ref._mergeable_ranks, special_tokens={"<|endoftext|>": 50256}
    )
    text = "héllo wörld 👋<|endoftext|>x"
    ids, offsets, byte_offsets = enc.encode_with_offsets(text, allowed_special="all")
    assert ids == enc.encode(text, allowed_special="all")
    pieces = enc.decode_tokens_bytes(ids)
    assert [text.encode()[b : b + len(p)] for b, p in zip(byte_offsets, pieces)] == pieces
    assert offsets == enc.decode_with_offsets(ids)[1]


def test_encode_with_offsets_multibyte_rule():
    enc = tokenforge.get_encoding("cl100k_base")
    # "👋" is several tokens in cl100k_base; every one of them starts inside character 2
    text = "ab👋c"
    ids, offsets, _ = enc.encode_with_offsets(text)
    pieces = enc.decode_tokens_bytes(ids)
    assert b"".join(pieces) == text.encode()
    emoji_tokens = [o for p, o in zip(pieces, offsets) if any(b >= 0x80 for b in p)]
    assert len(emoji_tokens) >= 2
    assert set(emoji_tokens) == {2}
    assert offsets[-1] == 3


# ---------------------------------------------------------------- streaming


def _valid_prefix(data: bytes) -> str:
    for cut in range(len(data), max(-1, len(data) - 4), -1):
        try:
            return data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise AssertionError(f"no valid prefix of {data[-8:]!r}")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
def test_stream_decoder(name, reference, corpus_docs):
    enc, ref = tokenforge.get_encoding(name), reference(name)
    rng = random.Random(0)
    texts = rng.sample(corpus_docs, 8) + BYTE_SPLITTING + ["".join(BYTE_SPLITTING)]
    for text in texts:
        ids = ref.encode_ordinary(text)
        dec = enc.stream_decoder()
        out, raw = [], b""
        for tok in ids:
            piece = dec.push(tok)
            assert isinstance(piece, str)
            assert "\ufffd" not in piece or "\ufffd" in text
            out.append(piece)
            raw += ref.decode_single_token_bytes(tok)
            assert "".join(out) == _valid_prefix(raw)  # partial characters are held back
        out.append(dec.flush())
        assert "".join(out) == ref.decode(ids) == text


def test_stream_decoder_holds_partial_character():
    enc = tokenforge.get_encoding("cl100k_base")
    tok = enc.encode_single_token
    dec = enc.stream_decoder()
    assert dec.push(tok(b"a")) == "a"
    assert dec.push(tok(b"\xf0")) == ""
    assert dec.push(tok(b"\x9f")) == ""
    assert dec.push(tok(b"\x91")) == ""
    assert dec.push(tok(b"\x8b")) == "👋"
    assert dec.push(tok(b"\xe4")) == ""
    assert dec.flush() == "\ufffd"  # an incomplete character at the end follows errors="replace"
    dec.reset()
    assert dec.push(tok(b"\xe4")) == ""
    dec.reset()
    assert dec.push(tok(b"b")) == "b"
    assert dec.flush() == ""

    strict = enc.stream_decoder(errors="strict")
    strict.push(tok(b"\xe4"))
    with pytest.raises(UnicodeDecodeError):
        strict.flush()
    with pytest.raises(UnicodeDecodeError):
        enc.stream_decoder(errors="strict").push(tok(b"\xff"))
    assert enc.stream_decoder(errors="ignore").push(tok(b"\xff")) == ""
    with pytest.raises(KeyError):
        enc.stream_decoder().push(enc.n_vocab)


def test_stream_decoder_special_tokens(reference):
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    text = "hi 👋<|endoftext|>你好<|fim_prefix|>"
    ids = ref.encode(text, allowed_special="all")
    dec = enc.stream_decoder()
    assert "".join(dec.push(t) for t in ids) + dec.flush() == text


# ---------------------------------------------------------------- batches


@pytest.mark.parametrize("name", MAIN)
def test_batches_match_single_encodes(name, reference, corpus_docs):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    texts = corpus_docs + BYTE_SPLITTING + ["", "<|endoftext|>"]
    expected = [ref.encode_ordinary(t) for t in texts]
    assert [ours.encode_ordinary(t) for t in texts] == expected
    for threads in (1, 2, 4):
        assert ours.encode_ordinary_batch(texts, num_threads=threads) == expected
        assert ours.encode_batch(texts, num_threads=threads, disallowed_special=()) == expected
    assert ours.encode_ordinary_batch(texts) == expected
    assert ours.encode_ordinary_batch(tuple(texts)) == expected
    assert ours.encode_ordinary_batch([]) == []


def test_batches_leave_the_collector_as_they_found_it():
    """A batch pauses the cyclic collector while it builds its lists, then restores its state."""
    import gc

    enc = tokenforge.get_encoding("cl100k_base")
    texts = ["hello world"] * 5000
    assert gc.isenabled()
    assert enc.encode_ordinary_batch(texts) == [enc.encode_ordinary("hello world")] * 5000
    assert gc.isenabled()
    gc.disable()
    try:
        enc.encode_ordinary_batch(texts)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "p50k_edit"])
def test_encode_batch_special(name, reference):
    ours, ref = tokenforge.get_encoding(name), reference(name)
    texts = ["a<|endoftext|>b", "<|endoftext|><|endoftext|>", "plain", "x <|endoftext|> y"]
    for threads in (1, 2):
        assert ours.encode_batch(texts, allowed_special="all", num_threads=threads) == ref.encode_batch(
            texts, allowed_special="all"
        )
        assert ours.encode_batch(texts, allowed_special={"<|endoftext|>"}, num_threads=threads) == ref.encode_batch(
            texts, allowed_special={"<|endoftext|>"}
        )
        assert ours.encode_batch(texts, disallowed_special=(), num_threads=threads) == ref.encode_batch(
            texts, disallowed_special=()
        )
    with pytest.raises(ValueError):
        ref.encode_batch(texts)
    with pytest.raises(ValueError):
        ours.encode_batch(texts)


# ---------------------------------------------------------------- custom encodings


@pytest.fixture(scope="module")
def cl100k_args(reference):
    ref = reference("cl100k_base")
    specials = {**ref._special_tokens, "<|custom|>": 100300}
    return ref._mergeable_ranks, specials


CUSTOM_TEXTS = [
    "Hello world's  \n\n  x yo 123 don't WE'LL   ",
    "<|endoftext|>start and end<|endoftext|>",
    "a<|endoftext|><|endoftext|>b<|custom|> <|fim_prefix|>mid<|fim_suffix|>",
    "<|endoftext",
    "   \t\n\r\n  ",
    "",
    *BYTE_SPLITTING,
]


@pytest.mark.parametrize("pattern", [GPT2_ORIGINAL, SIMPLE], ids=["gpt2-original", "simple"])
def test_custom_pattern_without_native_scanner(pattern, tiktoken_module, cl100k_args, corpus_docs):
    ranks, specials = cl100k_args
    ours = tokenforge.Encoding("custom", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    ref = tiktoken_module.Encoding("custom", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    assert ours.n_vocab == ref.n_vocab
    assert ours.max_token_value == ref.max_token_value
    assert ours.special_tokens_set == ref.special_tokens_set
    texts = corpus_docs[::2] + CUSTOM_TEXTS
    for text in texts:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
        assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
        expected = ref.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all") == expected
        assert ours.encode_to_numpy(text, allowed_special="all").tolist() == expected
        ids, offsets, _ = ours.encode_with_offsets(text, allowed_special="all")
        assert ids == expected
        assert offsets == ref.decode_with_offsets(expected)[1]
        assert ours.decode(expected) == text
        one = {"<|custom|>"}
        assert ours.encode(text, allowed_special=one, disallowed_special=()) == ref.encode(
            text, allowed_special=one, disallowed_special=()
        )
    assert ours.encode_batch(texts, allowed_special="all", num_threads=2) == ref.encode_batch(
        texts, allowed_special="all"
    )
    assert ours.encode_ordinary_batch(texts, num_threads=2) == ref.encode_ordinary_batch(texts)
    with pytest.raises(ValueError):
        ours.encode("x<|custom|>")


def test_constructor_with_cl100k_pattern_gives_cl100k_ids(reference, corpus_docs):
    ref = reference("cl100k_base")
    ours = tokenforge.Encoding(
        "mine", pat_str=ref._pat_str, mergeable_ranks=ref._mergeable_ranks, special_tokens=ref._special_tokens
    )
    cl100k = tokenforge.get_encoding("cl100k_base")
    for text in corpus_docs[::2] + CUSTOM_TEXTS[: -len(BYTE_SPLITTING)] + BYTE_SPLITTING:
        text = text.replace("<|custom|>", "")
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all") == cl100k.encode(text, allowed_special="all")
    assert ours.n_vocab == cl100k.n_vocab
    assert ours.token_byte_values() == cl100k.token_byte_values()


def test_custom_encoding_small_vocab(tiktoken_module):
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    ranks[b"abab"] = 257
    ranks[b" c"] = 258
    specials = {"<s>": 300}
    ours = tokenforge.Encoding("tiny", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens=specials)
    ref = tiktoken_module.Encoding("tiny", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens=specials)
    assert ours.n_vocab == ref.n_vocab == 301
    for text in ["ababab c", "abab<s>ab", "aab bab", "<s>"]:
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours.decode([257, 300]) == "abab<s>"
    with pytest.raises(KeyError):
        ours.decode([299])  # a hole between the ordinary and special ids


# ---------------------------------------------------------------- pickling


@pytest.mark.parametrize("name", ["cl100k_base", "r50k_base", "o200k_harmony"])
def test_pickle_named(name):
    enc = tokenforge.get_encoding(name)
    data = pickle.dumps(enc)
    assert len(data) < 1000  # pickled by name, not by vocabulary
    copy = pickle.loads(data)
    assert copy.name == name
    text = "hello 👋 <|endoftext|>"
    assert copy.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert copy.n_vocab == enc.n_vocab
    assert copy.special_tokens_set == enc.special_tokens_set
    # and once more, from the copy
    again = pickle.loads(pickle.dumps(copy))
    assert again.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


@pytest.mark.parametrize("pattern", [GPT2_ORIGINAL, tokenforge.get_encoding("cl100k_base")._pat_str])
def test_pickle_custom(pattern, cl100k_args, tiktoken_module):
    ranks, specials = cl100k_args
    enc = tokenforge.Encoding("custom", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    copy = pickle.loads(pickle.dumps(enc))
    assert copy.name == "custom"
    assert copy.n_vocab == enc.n_vocab
    assert copy.special_tokens_set == enc.special_tokens_set
    assert copy._mergeable_ranks == ranks
    ref = tiktoken_module.Encoding("custom", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    for text in CUSTOM_TEXTS:
        assert copy.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


def test_pickle_custom_with_builtin_name_keeps_its_vocabulary():
    ranks = {bytes([b]): b for b in range(256)}
    enc = tokenforge.Encoding("cl100k_base", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={})
    copy = pickle.loads(pickle.dumps(enc))
    assert copy.n_vocab == 256
    assert copy.encode("hello") == list(b"hello")


# ---------------------------------------------------------------- files


def test_load_tiktoken_bundled_file(reference, corpus_docs):
    ref = reference("cl100k_base")
    enc = tokenforge.load_tiktoken(DATA / "cl100k_base.tiktoken", special_tokens=ref._special_tokens)
    assert enc.name == "cl100k_base"
    assert enc.n_vocab == ref.n_vocab
    for text in corpus_docs[::3] + BYTE_SPLITTING:
        assert enc.encode(text) == ref.encode(text)
    assert enc.encode("<|endoftext|>", allowed_special="all") == [ref.eot_token]

    o200k = reference("o200k_base")
    enc = tokenforge.load_tiktoken(
        str(DATA / "o200k_base.tiktoken"), pat_str=o200k._pat_str, special_tokens=o200k._special_tokens, name="mine"
    )
    assert enc.name == "mine"
    for text in [*BYTE_SPLITTING, "Hello WORLD'S test"]:
        assert enc.encode(text) == o200k.encode(text)
    assert enc._mergeable_ranks == o200k._mergeable_ranks


def test_load_tiktoken_with_non_native_pattern(reference):
    ref = reference("p50k_base")
    enc = tokenforge.load_tiktoken(DATA / "p50k_base.tiktoken", pat_str=GPT2_ORIGINAL, special_tokens={})
    assert enc.special_tokens_set == set()
    for text in [*BYTE_SPLITTING, "Hello world's  test\n\n", "<|endoftext|>"]:
        assert enc.encode(text) == ref.encode_ordinary(text)


def test_load_gpt2_from_saved_files(tmp_path, reference, corpus_docs):
    gpt2 = tokenforge.get_encoding("gpt2")
    enc_json, vocab_bpe = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    tokenforge.save_gpt2_files(gpt2._mergeable_ranks, enc_json, vocab_bpe, {"<|endoftext|>": 50256})
    loaded = tokenforge.load_gpt2(enc_json, vocab_bpe)
    assert loaded.n_vocab == gpt2.n_vocab == reference("gpt2").n_vocab
    assert loaded.special_tokens_set == {"<|endoftext|>"}
    assert loaded.eot_token == 50256
    assert loaded._mergeable_ranks == gpt2._mergeable_ranks
    for text in corpus_docs[::3] + BYTE_SPLITTING:
        assert loaded.encode(text) == gpt2.encode(text)
    assert loaded.encode("a<|endoftext|>", allowed_special="all") == gpt2.encode(
        "a<|endoftext|>", allowed_special="all"
    )


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base"])
def test_dump_and_load_tiktoken_bpe(name, tmp_path, tiktoken_module, reference):
    ranks = reference(name)._mergeable_ranks
    path = tmp_path / f"{name}.tiktoken"
    tokenforge.dump_tiktoken_bpe(ranks, path)
    assert tokenforge.load_tiktoken_bpe(path) == ranks
    assert tokenforge.load_tiktoken_bpe(str(path)) == ranks
    assert tiktoken_module.load.load_tiktoken_bpe(str(path)) == ranks
    if name == "cl100k_base":
        assert path.read_bytes() == (DATA / "cl100k_base.tiktoken").read_bytes()
    # overwriting an existing file works and leaves no temp files behind
    small = {b"a": 0, b"b": 1, b"ab": 2}
    tokenforge.dump_tiktoken_bpe(small, path)
    assert tokenforge.load_tiktoken_bpe(path) == small
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{name}.tiktoken"]


def test_dump_tiktoken_bpe_sparse_and_unsorted(tmp_path, tiktoken_module):
    ranks = {b"\xff\x00": 7, b"z": 3, b" ": 0, b"\n\r": 100}
    path = tmp_path / "sparse.tiktoken"
    tokenforge.dump_tiktoken_bpe(ranks, path)
    assert tokenforge.load_tiktoken_bpe(path) == ranks
    assert tiktoken_module.load.load_tiktoken_bpe(str(path)) == ranks


@pytest.mark.parametrize(
    "pattern",
    [
        r"([a-z]+)|\S|\s+",
        r"([a-z])([a-z]*)|\S|\s+",
        r"""'(s|t|re|ve|m|ll|d)| ?(\p{L})+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+""",
    ],
)
def test_custom_pattern_with_capturing_groups(pattern, tiktoken_module, reference):
    ref_base = reference("r50k_base")
    ranks, specials = ref_base._mergeable_ranks, {"<|endoftext|>": 50256}
    ours = tokenforge.Encoding("groups", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    ref = tiktoken_module.Encoding("groups", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    for text in ["hello World 42!! x<|endoftext|>yz", "it's  fine"]:
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


def test_encode_with_offsets_surrogate_pair_indexes_given_text():
    enc = tokenforge.get_encoding("cl100k_base")
    text = "a\ud83d\ude00b"  # a valid pair written as two surrogates: "b" is at index 3
    ids, offsets, _ = enc.encode_with_offsets(text)
    assert enc.decode(ids) == "a😀b"
    assert offsets[-1] == 3


def test_id_lists_share_permanent_ints():
    """Returned lists share one int object per id (never freed, so no count per item): they
    must stay valid however many lists come and go, on one thread or many."""
    import gc
    import sys

    enc = tokenforge.get_encoding("cl100k_base")
    text = "hello world, hello again " * 50
    expected = enc.encode_ordinary(text)
    for _ in range(300):
        enc.encode_ordinary(text)
        enc.encode_ordinary_batch([text] * 4, num_threads=2)
    gc.collect()
    again = enc.encode_ordinary(text)
    assert again == expected and again[0] is enc.encode_ordinary(text)[0]
    assert sys.getrefcount(again[0]) > 1000
    assert enc.encode_ordinary_batch([text, "", text], num_threads=2) == [expected, [], expected]


def test_ids_and_offsets_past_the_shared_ints():
    """A special id far above the vocabulary and offsets larger than any id get ints of their
    own, in single and batch calls alike."""
    r50k = tokenforge.get_encoding("r50k_base")
    far = 10**9
    enc = tokenforge.Encoding(
        "far", pat_str=r50k._pat_str, mergeable_ranks=r50k._mergeable_ranks, special_tokens={"<|far|>": far}
    )
    text = "a<|far|>b"
    ids = enc.encode(text, allowed_special="all")
    assert far in ids and enc.decode(ids) == text
    assert enc.encode_batch([text, text], allowed_special="all", num_threads=2) == [ids, ids]
    long_text = "x " * 300_000
    _, _, byte_offsets = enc.encode_with_offsets(long_text)
    assert byte_offsets[-1] == len(long_text) - 1  # the final space


def test_encode_batch_takes_any_iterable(reference):
    """A generator is read once (the special-token check used to spend it: [] came back)."""
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    texts = ["hello world", "a b c", ""]
    assert enc.encode_batch(t for t in texts) == ref.encode_batch(texts)
    assert enc.encode_ordinary_batch(iter(texts)) == ref.encode_ordinary_batch(texts)


def test_encoding_for_model_agrees_with_tiktoken(tiktoken_module):
    """Every model name and prefix tiktoken knows maps to the same encoding, with the same ids."""
    import tiktoken.model as ref

    from tokenforge import model_names

    assert model_names.MODEL_TO_ENCODING == ref.MODEL_TO_ENCODING
    assert list(model_names.MODEL_PREFIX_TO_ENCODING.items()) == list(ref.MODEL_PREFIX_TO_ENCODING.items())
    probes = [*ref.MODEL_TO_ENCODING, *(p + "2024-08-06" for p in ref.MODEL_PREFIX_TO_ENCODING), "ft:gpt-4o:org:x"]
    for model in probes:
        assert tokenforge.encoding_name_for_model(model) == ref.encoding_name_for_model(model), model
    enc = tokenforge.encoding_for_model("gpt-4o-mini")
    assert enc.name == "o200k_base" and enc.encode("hello world") == ref.encoding_for_model("gpt-4o-mini").encode(
        "hello world"
    )
    for unknown in ("llama-3", "", "GPT-4"):
        with pytest.raises(KeyError):
            ref.encoding_name_for_model(unknown)
        with pytest.raises(KeyError, match="get_encoding"):
            tokenforge.encoding_name_for_model(unknown)


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"])
def test_load_tiktoken_knows_openai_files(name, tmp_path, reference):
    """OpenAI's files get their own pattern and special tokens (o200k used to get cl100k's
    pattern, and wrong ids); any other file must name its pattern."""
    ref = reference(name)
    path = tmp_path / f"{name}.tiktoken"
    tokenforge.dump_tiktoken_bpe(ref._mergeable_ranks, path)
    enc = tokenforge.load_tiktoken(path)
    text = "Hello world's 123 tokens\n\n  ünïcode 日本語 <|endoftext|>"
    assert enc.name == name
    assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    tokenforge.dump_tiktoken_bpe({t: r for t, r in ref._mergeable_ranks.items() if r < 300}, path)
    with pytest.raises(ValueError, match="pat_str"):
        tokenforge.load_tiktoken(path)
