"""A byte-level BPE as a `Tokenizer` (ByteLevelBpeTokenizer): the ids of tiktoken and of our own
`Encoding` (the fused path it shares its model with), offsets checked against an independent
reading of the token bytes and against HF tokenizers, pairs, truncation, padding, special-token
policy, loading from every byte-level file, copies."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import DATA, FUZZ_EXAMPLES, corpus_files, read_sample
from tokenforge import Tokenizer
from tokenforge.processors.template import TemplateProcessing

NAMES = ["gpt2", "p50k_base", "cl100k_base", "o200k_base"]


def expected_offsets(text: str, token_bytes: list[bytes]) -> list[tuple[int, int]]:
    """Each token's span of code points: from the character holding its first byte to the one
    holding its last (worked out from the text's characters, not from the native counter)."""
    char_of_byte = []
    for i, ch in enumerate(text):
        char_of_byte += [i] * len(ch.encode("utf-8"))
    spans, at = [], 0
    for b in token_bytes:
        spans.append((char_of_byte[at], char_of_byte[at + len(b) - 1] + 1))
        at += len(b)
    return spans


@pytest.fixture(scope="module")
def tokenizers():
    return {name: tokenforge.get_tokenizer(name) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_ids_equal_tiktoken_and_the_encoding_on_every_corpus(name, tokenizers, reference):
    tok, enc, theirs = tokenizers[name], tokenforge.get_encoding(name), reference(name)
    for path in corpus_files():
        text = read_sample(path, 40_000)
        got = tok.encode(text)
        assert got.ids == theirs.encode_ordinary(text) == enc.encode_ordinary(text), path.name
        assert got.offsets == expected_offsets(text, enc.decode_tokens_bytes(got.ids)), path.name


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(text=st.text(max_size=60))
def test_ids_and_offsets_on_any_text(text, tokenizers, reference):
    for name in ("cl100k_base", "o200k_base"):
        enc = tokenforge.get_encoding(name)
        got = tokenizers[name].encode(text, disallowed_special=())
        assert got.ids == reference(name).encode(text, disallowed_special=())
        assert got.offsets == expected_offsets(text, enc.decode_tokens_bytes(got.ids))
        assert got.tokens == [tokenizers[name].id_to_token(i) for i in got.ids]


def test_tokens_and_offsets_match_hf_tokenizers(tmp_path, tokenizers):
    """HF reads our tokenizer.json of GPT-2 and gives the same ids, tokens and offsets."""
    hf_tokenizers = pytest.importorskip("tokenizers")
    tokenforge.save_tokenizer_json(tokenforge.get_encoding("gpt2"), tmp_path / "tokenizer.json")
    hf = hf_tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    tok = tokenizers["gpt2"]
    for text in ["Hello world", "héllo  wörld 🧿\n\n日本語 ok", "  leading, trailing  ", "a\u0301b 😀😀"]:
        ours, theirs = tok.encode(text), hf.encode(text, add_special_tokens=False)
        assert (ours.ids, ours.tokens, ours.offsets) == (theirs.ids, theirs.tokens, theirs.offsets), text


def test_pairs_truncation_and_padding(tokenizers):
    tok = copy.copy(tokenizers["cl100k_base"])
    one = tok.encode("hello world")
    both = tok.encode("hello world", "and a pair")
    assert both.ids == one.ids + tok.encode("and a pair").ids
    assert both.type_ids == [0, 0, 1, 1, 1]
    tok.enable_truncation(max_length=3)
    cut = tok.encode("one two three four five")
    assert len(cut.ids) == 3 and cut.overflowing
    tok.no_truncation()
    tok.enable_padding(pad_id=tok.token_to_id("!"), pad_token="!")
    batch = tok.encode_batch(["a", "a b c", ("x", "y z")])
    assert {len(e.ids) for e in batch} == {3}
    assert batch[0].attention_mask == [1, 0, 0]
    assert batch[0].tokens[1:] == ["!", "!"]
    assert batch[2].type_ids == [0, 1, 1]


def test_a_template_puts_special_tokens_around_the_text():
    enc = tokenforge.get_encoding("cl100k_base")
    eot = enc.eot_token
    post = TemplateProcessing.from_templates(
        "$A <|endoftext|>", "$A <|endoftext|> $B:1 <|endoftext|>:1", [("<|endoftext|>", eot)]
    )
    tok = Tokenizer(enc, post_processor=post)
    got = tok.encode("hi", "there")
    assert got.ids == [*enc.encode("hi"), eot, *enc.encode("there"), eot]
    assert got.special_tokens_mask == [0, 1, 0, 1]
    assert tok.encode("hi", add_special_tokens=False).ids == enc.encode("hi")
    assert tok.decode(got.ids) == "hithere"
    assert tok.decode(got.ids, skip_special_tokens=False) == "hi<|endoftext|>there<|endoftext|>"


def test_special_tokens_follow_tiktoken_by_default(tokenizers):
    tok = tokenizers["cl100k_base"]
    enc = tokenforge.get_encoding("cl100k_base")
    text = "a <|endoftext|> b"
    with pytest.raises(tokenforge.DisallowedSpecialTokenError):
        tok.encode(text)
    with pytest.raises(tokenforge.DisallowedSpecialTokenError):
        tok.encode_batch(["fine", text])
    assert tok.encode(text, allowed_special="all").ids == enc.encode(text, allowed_special="all")
    assert tok.encode(text, disallowed_special=()).ids == enc.encode_ordinary(text)
    assert tok.encode_batch([text], allowed_special={"<|endoftext|>"})[0].ids == enc.encode(text, allowed_special="all")


def test_mixed_batches_of_texts_and_pairs(tokenizers):
    tok = tokenizers["o200k_base"]
    batch = tok.encode_batch(["one", ("two", "three"), ["four", "five"], "six"])
    assert [e.ids for e in batch] == [
        tok.encode("one").ids,
        tok.encode("two", "three").ids,
        tok.encode("four", "five").ids,
        tok.encode("six").ids,
    ]
    with pytest.raises(TypeError, match="item 1"):
        tok.encode_batch(["one", ("two",)])
    with pytest.raises(TypeError, match="item 0"):
        tok.encode_batch([5])


def test_decode_and_bad_ids(tokenizers):
    tok = tokenizers["cl100k_base"]
    text = "héllo 🧿"
    assert tok.decode(tok.encode(text).ids) == text
    assert tok.decode(tok.encode(text).ids[:-1]).endswith("\ufffd")
    with pytest.raises(ValueError, match="100300"):
        tok.decode([1, 100300])
    with pytest.raises(ValueError, match="-1"):
        tok.decode([-1])
    with pytest.raises(TypeError):
        tok.decode(["a"])
    np = pytest.importorskip("numpy")
    assert tok.decode(np.array(tok.encode(text).ids)) == text


def test_vocabulary_reads_as_hf_shows_byte_level_tokens(tokenizers):
    tok = tokenizers["gpt2"]
    assert tok.token_to_id("Ġworld") == tokenforge.get_encoding("gpt2").encode(" world")[0]
    assert tok.id_to_token(50256) == "<|endoftext|>"
    assert tok.get_vocab_size() == 50257
    assert tok.get_vocab()["!"] == 0


def test_loads_every_byte_level_file(tmp_path, tokenizers):
    enc = tokenforge.get_encoding("cl100k_base")
    text = "Loading from files, héllo 123"
    # .tiktoken: OpenAI's own files are recognised; others need their pattern
    data = DATA / "cl100k_base.tiktoken"
    assert Tokenizer.from_file(data).encode(text).ids == enc.encode(text)
    ranks = {bytes([b]): b for b in range(256)} | {b"he": 256, b"ll": 257, b"hell": 258}
    tokenforge.dump_tiktoken_bpe(ranks, tmp_path / "mine.tiktoken")
    with pytest.raises(ValueError, match="pat_str"):
        Tokenizer.from_file(tmp_path / "mine.tiktoken")
    mine = Tokenizer.from_file(tmp_path / "mine.tiktoken", pat_str=enc._pat_str)
    small = tokenforge.Encoding("small", pat_str=enc._pat_str, mergeable_ranks=ranks, special_tokens={})
    assert mine.kernel == "byte_level_bpe" and mine.encode("hello " + text).ids == small.encode("hello " + text)
    # .tokenforge
    tokenforge.save_encoding(enc, tmp_path / "x.tokenforge")
    assert Tokenizer.from_file(tmp_path / "x.tokenforge").encode(text).ids == enc.encode(text)
    # GPT-2's encoder.json + vocab.bpe, by file or by folder
    gpt2 = tokenforge.get_encoding("gpt2")
    tokenforge.save_gpt2_files(gpt2._mergeable_ranks, tmp_path / "encoder.json", tmp_path / "vocab.bpe")
    for path in (tmp_path / "encoder.json", tmp_path):
        assert Tokenizer.from_file(path).encode(text).ids == gpt2.encode(text)
    # save() writes what the extension names, and it reads back the same
    for name in ("again.tokenforge", "again.json"):
        tokenizers["cl100k_base"].save(tmp_path / name)
    assert Tokenizer.from_file(tmp_path / "again.tokenforge").encode(text).ids == enc.encode(text)
    assert json.loads((tmp_path / "again.json").read_text())["model"]["type"] == "BPE"


def test_patterns_without_a_native_scanner_are_refused_clearly():
    enc = tokenforge.Encoding(
        "words", pat_str=r"\w+|\W", mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={}
    )
    with pytest.raises(ValueError, match="no native scanner"):
        Tokenizer(enc)


def test_copies_and_pickles_keep_settings_apart(tokenizers):
    tok = tokenforge.get_tokenizer("p50k_base")
    tok.enable_truncation(2)
    again = pickle.loads(pickle.dumps(tok))
    assert again.truncation == tok.truncation and again.encode("a b c d").ids == tok.encode("a b c d").ids
    other = copy.deepcopy(tok)
    other.no_truncation()
    assert len(tok.encode("a b c d").ids) == 2 and len(other.encode("a b c d").ids) == 4
    with pytest.raises(AttributeError, match="fixed"):
        tok.encoding = tokenforge.get_encoding("gpt2")
