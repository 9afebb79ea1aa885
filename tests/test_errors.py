"""Errors: bad ids, bad argument types, corrupt vocabulary files, bad constructor arguments,
lone surrogates and vocabularies that cannot encode every byte."""

from __future__ import annotations

import base64

import pytest

import tokenforge
from tokenforge import InvalidTokenError

NAMES = ["r50k_base", "cl100k_base", "o200k_base"]
SIMPLE = r"\S+|\s+"


# ---------------------------------------------------------------- invalid ids


def test_invalid_token_error_hierarchy():
    assert issubclass(InvalidTokenError, KeyError)
    assert issubclass(InvalidTokenError, ValueError)
    assert issubclass(tokenforge.DisallowedSpecialTokenError, ValueError)


def _bad_ids(enc):
    return [enc.n_vocab, enc.n_vocab + 1, 2**31, 2**32 - 1, 2**32, -1, -(2**31), 2**64, 2**70]


@pytest.mark.parametrize("name", NAMES)
def test_out_of_range_ids(name, reference):
    enc, ref = tokenforge.get_encoding(name), reference(name)
    good = enc.encode("hello")
    for bad in _bad_ids(enc):
        if 0 <= bad < 2**32:
            with pytest.raises(KeyError):  # tiktoken agrees the id is invalid
                ref.decode_bytes([bad])
        for ids in ([bad], [*good, bad], [bad, *good]):
            for call in (enc.decode, enc.decode_bytes, enc.decode_with_offsets, enc.decode_tokens_bytes):
                with pytest.raises(InvalidTokenError) as info:
                    call(ids)
                assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
                assert str(bad) in str(info.value), str(info.value)
            with pytest.raises(InvalidTokenError):
                enc.decode_batch([good, ids])
        with pytest.raises(InvalidTokenError) as info:
            enc.decode_single_token_bytes(bad)
        assert str(bad) in str(info.value)
        with pytest.raises(KeyError):
            enc.stream_decoder().push(bad)


def test_unused_id_between_specials(reference):
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    # cl100k_base has no token 100261..100275 (between <|fim_suffix|> and <|endofprompt|>)
    for hole in (100256, 100261, 100275):
        with pytest.raises(KeyError):
            ref.decode_single_token_bytes(hole)
        with pytest.raises(InvalidTokenError) as info:
            enc.decode([hole])
        assert str(hole) in str(info.value)
        with pytest.raises(InvalidTokenError):
            enc.decode_single_token_bytes(hole)
    assert enc.decode([100276]) == "<|endofprompt|>"


@pytest.mark.parametrize("bad", [1.0, "1", None, b"1", [1], 1.5])
def test_non_int_ids_in_decode(bad, reference):
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    with pytest.raises(TypeError):
        ref.decode([bad])
    for call in (enc.decode, enc.decode_bytes):
        with pytest.raises(TypeError):
            call([bad])
        with pytest.raises(TypeError):
            call([15339, bad])
    with pytest.raises(TypeError):
        enc.decode_batch([[bad]])


@pytest.mark.parametrize("bad", [1.0, "1", None])
def test_non_int_ids_single_token(bad, reference):
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    with pytest.raises(TypeError):
        ref.decode_single_token_bytes(bad)
    for call in (
        lambda: enc.decode_single_token_bytes(bad),
        lambda: enc.decode_tokens_bytes([bad]),
        lambda: enc.decode_with_offsets([bad]),
        lambda: enc.stream_decoder().push(bad),
    ):
        with pytest.raises(TypeError):
            call()


@pytest.mark.parametrize("bad", [None, 5, "abc"])
def test_decode_non_sequence(bad):
    enc = tokenforge.get_encoding("cl100k_base")
    with pytest.raises(TypeError):
        enc.decode(bad)
    with pytest.raises(TypeError):
        enc.decode_bytes(bad)


def test_decode_bool_ids_are_ints(reference):
    # bool is an int subclass; tiktoken decodes True as id 1
    enc, ref = tokenforge.get_encoding("cl100k_base"), reference("cl100k_base")
    assert enc.decode([True, False]) == ref.decode([True, False])


# ---------------------------------------------------------------- non-str text


def _custom_regex_encoding():
    ranks = {bytes([b]): b for b in range(256)}
    return tokenforge.Encoding("bytes", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={"<s>": 256})


@pytest.mark.parametrize("bad", [b"hello", None, 123, bytearray(b"x"), ["a"], 1.5])
@pytest.mark.parametrize("which", ["cl100k_base", "custom"])
def test_encode_non_str(bad, which):
    enc = tokenforge.get_encoding(which) if which != "custom" else _custom_regex_encoding()
    for call in (
        lambda: enc.encode(bad),
        lambda: enc.encode(bad, allowed_special="all"),
        lambda: enc.encode(bad, disallowed_special=()),
        lambda: enc.encode_ordinary(bad),
        lambda: enc.encode_to_numpy(bad),
        lambda: enc.encode_with_offsets(bad),
        lambda: enc.encode_batch([bad]),
        lambda: enc.encode_batch(["ok", bad], disallowed_special=()),
        lambda: enc.encode_ordinary_batch([bad]),
        lambda: enc.encode_ordinary_batch(["ok", bad], num_threads=2),
    ):
        with pytest.raises(TypeError):
            call()


def test_encode_batch_with_single_str():
    enc = tokenforge.get_encoding("cl100k_base")
    with pytest.raises(TypeError):
        enc.encode_ordinary_batch("hello")
    with pytest.raises(TypeError):
        enc.encode_batch("hello")


# ---------------------------------------------------------------- corrupt .tiktoken files


def _lines(n=300):
    lines = [base64.b64encode(bytes([b])) + b" " + str(b).encode() for b in range(256)]
    pairs = [b"ab", b"cd", b"abcd", b"  ", b"\xff\xfe", b"the", b" the", b"in", b"ing", b"ed"]
    lines += [base64.b64encode(t) + b" " + str(256 + i).encode() for i, t in enumerate(pairs)]
    return lines[:n]


def _replace_line(lineno, new):
    lines = _lines()
    lines[lineno - 1] = new
    return lines


CORRUPT = {
    "bad-base64": (11, _replace_line(11, b"!!!! 10")),
    "bad-base64-padding": (12, _replace_line(12, b"YQ 11")),
    "missing-rank": (11, _replace_line(11, base64.b64encode(b"\x0a"))),
    "non-numeric-rank": (11, _replace_line(11, base64.b64encode(b"\x0a") + b" ten")),
    "float-rank": (11, _replace_line(11, base64.b64encode(b"\x0a") + b" 10.0")),
    "negative-rank": (11, _replace_line(11, base64.b64encode(b"\x0a") + b" -10")),
    "huge-rank": (11, _replace_line(11, base64.b64encode(b"\x0a") + b" 99999999999999999999999999")),
    "duplicated-rank": (258, _replace_line(258, base64.b64encode(b"zz") + b" 256")),
    "extra-field": (11, _replace_line(11, base64.b64encode(b"\x0a") + b" 10 extra")),
    "empty-token": (11, _replace_line(11, b" 10")),
    "tab-separated": (11, _replace_line(11, base64.b64encode(b"\x0a") + b"\t10")),
    "garbage-line": (267, [*_lines(), b"this is not a vocabulary line"]),
}


def _write(tmp_path, name, lines):
    path = tmp_path / f"{name}.tiktoken"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_tiktoken_file(case, tmp_path):
    lineno, lines = CORRUPT[case]
    path = _write(tmp_path, case, lines)
    for load in (tokenforge.load_tiktoken, tokenforge.load_tiktoken_bpe, lambda p: tokenforge.load_tiktoken(str(p))):
        with pytest.raises(ValueError) as info:
            load(path)
        message = str(info.value)
        assert str(path) in message, message
        assert f"line {lineno}" in message, message


def test_duplicate_token_bytes(tmp_path):
    lines = _replace_line(263, base64.b64encode(b"ab") + b" 262")  # b"ab" is already rank 256 (line 257)
    path = _write(tmp_path, "dup-bytes", lines)
    for load in (tokenforge.load_tiktoken, tokenforge.load_tiktoken_bpe):
        with pytest.raises(ValueError) as info:
            load(path)
        assert str(path) in str(info.value)
        assert "line 263" in str(info.value), str(info.value)


def test_duplicate_token_bytes_rejected_by_load_tiktoken(tmp_path):
    lines = _replace_line(263, base64.b64encode(b"ab") + b" 262")
    path = _write(tmp_path, "dup-bytes", lines)
    with pytest.raises(ValueError) as info:
        tokenforge.load_tiktoken(path)
    assert str(path) in str(info.value)


def test_line_numbers_count_physical_lines(tmp_path):
    # blank lines (skipped, as tiktoken does) and CRLF endings must not shift the reported line
    lines = _lines()
    lines.insert(5, b"")
    lines[20] = b"%%% 19"
    path = _write(tmp_path, "blank", lines)
    with pytest.raises(ValueError, match="line 21"):
        tokenforge.load_tiktoken_bpe(path)
    crlf = tmp_path / "crlf.tiktoken"
    lines = _lines()
    lines[29] = b"%%% 29"
    crlf.write_bytes(b"\r\n".join(lines) + b"\r\n")
    with pytest.raises(ValueError, match="line 30"):
        tokenforge.load_tiktoken(crlf)


def test_well_formed_variants_load(tmp_path, tiktoken_module):
    # what tiktoken's loader accepts: blank lines, CRLF, no final newline, gaps in ranks
    lines = _lines()
    variants = {
        "blank": b"\n".join([*lines[:5], b"", *lines[5:]]) + b"\n\n",
        "crlf": b"\r\n".join(lines) + b"\r\n",
        "no-final-newline": b"\n".join(lines),
        "gap": b"\n".join([*lines, base64.b64encode(b"zzz") + b" 1000"]) + b"\n",
    }
    for name, data in variants.items():
        path = tmp_path / f"{name}.tiktoken"
        path.write_bytes(data)
        expected = tiktoken_module.load.load_tiktoken_bpe(str(path))
        assert tokenforge.load_tiktoken_bpe(path) == expected, name
        enc = tokenforge.load_tiktoken(path, pat_str=SIMPLE)
        assert enc._mergeable_ranks == expected
        assert enc.decode(enc.encode("abcd the")) == "abcd the"


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.tiktoken"
    with pytest.raises(FileNotFoundError):
        tokenforge.load_tiktoken(missing)
    with pytest.raises(FileNotFoundError):
        tokenforge.load_tiktoken_bpe(missing)
    with pytest.raises(FileNotFoundError):
        tokenforge.load_gpt2(tmp_path / "encoder.json", tmp_path / "vocab.bpe")


# ---------------------------------------------------------------- constructor


def _ranks():
    return {bytes([b]): b for b in range(256)}


def test_constructor_rank_given_twice():
    ranks = _ranks()
    ranks[b"ab"] = 97  # same rank as b"a"
    with pytest.raises(ValueError):
        tokenforge.Encoding("x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.parametrize("key", ["a", "ab", 5, b""])
def test_constructor_non_bytes_key(key):
    ranks = _ranks()
    ranks[key] = 300
    with pytest.raises(ValueError):
        tokenforge.Encoding("x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.parametrize("rank", [-1, 1.5])
def test_constructor_negative_or_non_int_rank(rank):
    ranks = _ranks()
    ranks[b"ab"] = rank
    with pytest.raises(ValueError):
        tokenforge.Encoding("x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.parametrize("rank", ["300", None, 2**40])
def test_constructor_bad_rank_value(rank):
    ranks = _ranks()
    ranks[b"ab"] = rank
    with pytest.raises(ValueError):
        tokenforge.Encoding("x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={})


def test_explicit_n_vocab(tiktoken_module):
    ranks = _ranks()
    ok = tokenforge.Encoding(
        "x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={"<s>": 256}, explicit_n_vocab=257
    )
    assert ok.n_vocab == 257
    for n in (256, 258, 1000):
        with pytest.raises(ValueError):
            tokenforge.Encoding(
                "x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={"<s>": 256}, explicit_n_vocab=n
            )
        with pytest.raises(AssertionError):  # tiktoken agrees it is inconsistent
            tiktoken_module.Encoding(
                "x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={"<s>": 256}, explicit_n_vocab=n
            )
    # right count, but the largest id is not n - 1
    with pytest.raises(ValueError):
        tokenforge.Encoding(
            "x", pat_str=SIMPLE, mergeable_ranks=ranks, special_tokens={"<s>": 300}, explicit_n_vocab=257
        )


def test_bad_special_tokens():
    for specials in ({"": 300}, {"<s>": -1}, {"<s>": "300"}, {b"<s>": 300}):
        with pytest.raises(ValueError):
            tokenforge.Encoding("x", pat_str=SIMPLE, mergeable_ranks=_ranks(), special_tokens=specials)


# ---------------------------------------------------------------- surrogates


SURROGATE_TEXTS = [
    "a\ud800b",
    "\ud83d\ude00",
    "x\ud83d\ude00y",
    "\ude00\ud83d",
    "\udfff",
    "\ud800\ud800",
    "it's \udc80 fine \ud83d",
    " \ud800 \ud800\n\ud800",
]


@pytest.mark.parametrize("name", NAMES)
def test_lone_surrogates_match_tiktoken(name, reference):
    enc, ref = tokenforge.get_encoding(name), reference(name)
    for text in SURROGATE_TEXTS:
        expected = ref.encode(text)
        assert enc.encode(text) == expected, repr(text)
        assert enc.encode_ordinary(text) == ref.encode_ordinary(text)
        assert enc.encode_to_numpy(text).tolist() == expected
        assert enc.encode_with_offsets(text)[0] == expected
        assert enc.encode_batch([text, "ok"]) == [expected, ref.encode("ok")]
        assert enc.encode_ordinary_batch([text], num_threads=2) == [expected]
    assert enc.encode("\ud83d\ude00") == enc.encode("😀")
    assert enc.decode(enc.encode("a\ud800b")) == "a\ufffdb"


def test_lone_surrogates_custom_pattern(tiktoken_module, reference):
    ranks = reference("cl100k_base")._mergeable_ranks
    pat = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    enc = tokenforge.Encoding("c", pat_str=pat, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 100257})
    ref = tiktoken_module.Encoding("c", pat_str=pat, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 100257})
    for text in [*SURROGATE_TEXTS, "�<|endoftext|>��"]:
        assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


# ---------------------------------------------------------------- registry


def test_unknown_encoding_name():
    with pytest.raises(ValueError) as info:
        tokenforge.get_encoding("nope")
    message = str(info.value)
    assert "nope" in message
    for name in tokenforge.list_encoding_names():
        assert name in message


# ---------------------------------------------------------------- vocabulary missing a byte


@pytest.mark.parametrize("missing", [0xC3, 0xA9, 0x61])
@pytest.mark.parametrize("pattern", ["native", "regex"])
def test_vocabulary_missing_a_byte(missing, pattern):
    # b"\xff" never occurs in UTF-8 text, so drop bytes of "é" (c3 a9) or "a" instead
    pat = tokenforge.get_encoding("cl100k_base")._pat_str if pattern == "native" else SIMPLE
    kept = [b for b in range(256) if b != missing]
    ranks = {bytes([b]): r for r, b in enumerate(kept)}
    enc = tokenforge.Encoding("holes", pat_str=pat, mergeable_ranks=ranks, special_tokens={"<s>": 300})
    text = "xaé y"
    for call in (
        lambda: enc.encode(text),
        lambda: enc.encode_ordinary(text),
        lambda: enc.encode(f"<s>{text}", allowed_special="all"),
        lambda: enc.encode_to_numpy(text),
        lambda: enc.encode_with_offsets(text),
        lambda: enc.encode_batch(["ok", text], num_threads=2),
        lambda: enc.encode_ordinary_batch([text, "ok"], num_threads=1),
    ):
        with pytest.raises(ValueError):
            call()
    # text without that byte still works, and the encoding stays usable after the error
    ok = "bcd" if missing == 0x61 else "bad"
    assert enc.decode(enc.encode(ok)) == ok
    assert enc.encode_single_token(b"b") == ranks[b"b"]
    with pytest.raises(KeyError):
        enc.encode_single_token(bytes([missing]))


# ---------------------------------------------------------------- HF tokenizers' error classes


def _hf_pair(tmp_path):
    """A small BPE tokenizer.json HF tokenizers trains here, read by both."""
    hf = pytest.importorskip("tokenizers")
    bpe = hf.Tokenizer(hf.models.BPE(unk_token="[UNK]"))
    bpe.pre_tokenizer = hf.pre_tokenizers.Whitespace()
    trainer = hf.trainers.BpeTrainer(vocab_size=80, special_tokens=["[UNK]", "[CLS]"], show_progress=False)
    bpe.train_from_iterator(["hello world", "low lower lowest", "héllo wörld"], trainer)
    path = tmp_path / "tokenizer.json"
    bpe.save(str(path))
    return hf.Tokenizer.from_file(str(path)), tokenforge.Tokenizer.from_file(path)


@pytest.mark.parametrize("bad", [-1, -(2**31), -(2**63), 2**32, 2**32 + 5, 2**64, 2**70])
def test_tokenizer_ids_a_u32_cannot_hold_are_overflow_errors(tmp_path, bad):
    """decode, decode_batch and id_to_token of an id a u32 cannot hold: HF tokenizers' class
    (OverflowError), still the ValueError tokenforge raised before, the id in the message."""
    np = pytest.importorskip("numpy")
    from tokenforge.arguments import TokenIdOverflowError

    hf, ours = _hf_pair(tmp_path)
    good = ours.encode("hello world").ids
    calls = [
        lambda t, ids: t.decode(ids),
        lambda t, ids: t.decode(ids, skip_special_tokens=False),
        lambda t, ids: t.decode_batch([good, ids]),
    ]
    for ids in ([bad], [*good, bad], [bad, *good]):
        for call in calls:
            with pytest.raises(OverflowError):
                call(hf, ids)
            with pytest.raises(TokenIdOverflowError) as info:
                call(ours, ids)
            assert isinstance(info.value, OverflowError) and isinstance(info.value, ValueError)
            assert str(bad) in str(info.value)
    if -(2**63) <= bad < 2**63:  # a NumPy array's ids too
        with pytest.raises(OverflowError, match=str(bad)):
            ours.decode(np.array([*good, bad], dtype=np.int64))
    with pytest.raises(OverflowError):
        hf.id_to_token(bad)
    with pytest.raises(TokenIdOverflowError, match=str(bad)):
        ours.id_to_token(bad)
    with pytest.raises(OverflowError, match=str(bad)):
        ours.decode_stream().step(bad)


def test_tokenizer_ids_a_u32_holds(tmp_path):
    """An id a u32 holds above the vocabulary: id_to_token is None, as HF's; decode raises
    ValueError (not OverflowError), where HF tokenizers skips it."""
    hf, ours = _hf_pair(tmp_path)
    for bad in (ours.get_vocab_size(), 2**31, 2**32 - 1):
        assert hf.id_to_token(bad) is None and ours.id_to_token(bad) is None
        assert hf.decode([bad]) == ""
        with pytest.raises(ValueError, match=str(bad)) as info:
            ours.decode([bad])
        assert not isinstance(info.value, OverflowError)
    assert ours.id_to_token(0) == hf.id_to_token(0) == "[UNK]"


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_tokenizer_skips_ids_in_a_vocabulary_gap(tmp_path, name):
    """cl100k's and o200k's ids have gaps below their special tokens: HF tokenizers' decode of
    the file tokenforge saves skips an id in a gap, and so does tokenforge's Tokenizer (its
    decode, decode_batch and decode_stream); an id above the top one still raises ValueError."""
    hf = pytest.importorskip("tokenizers")
    ours = tokenforge.get_tokenizer(name)
    ours.save(tmp_path / "tokenizer.json")
    ref = hf.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    top = max(ours.get_vocab().values())
    gaps = [i for i in range(top) if ours.id_to_token(i) is None]
    assert gaps and all(ref.id_to_token(i) is None for i in gaps)
    hello = ours.encode("hello world").ids
    special = ours.encode("<|endoftext|>", allowed_special="all").ids
    for ids in ([gaps[0]], [*hello[:1], gaps[0], *hello[1:]], [*special, gaps[-1], *hello]):
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip), ids
            assert ours.decode_batch([ids, hello], skip) == ref.decode_batch([ids, hello], skip), ids
        stream, ref_stream = (
            ours.decode_stream(skip_special_tokens=False),
            hf.decoders.DecodeStream(skip_special_tokens=False),
        )
        assert [stream.step(i) for i in ids] == [ref_stream.step(ref, i) for i in ids], ids
    with pytest.raises(ValueError, match=str(top + 1)):
        ours.decode([*hello, top + 1])
