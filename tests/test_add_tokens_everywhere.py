"""add_tokens and add_special_tokens on every tokenizer, as HF tokenizers 0.23.3 on the file
tokenforge saves for it: a byte-level BPE `Encoding` (tiktoken's cl100k and p50k) and
sentencepiece models (Mistral's BPE .model, a Unigram model trained here), whose own split and
special tokens live in the model, take added tokens in their tokenizer.json form
(formats/convert.py `tokenizer_json_form`). The reference is HF's Tokenizer loaded from the
saved tokenizer.json with the same tokens added: ids, tokens, offsets, word ids, the vocabulary
and decode must be equal; and transformers' fast tokenizer over the same file agrees on ids.
The Encoding's own special tokens stay special added tokens (matched in text, skipped by decode).
"""

from __future__ import annotations

import io

import pytest

from conftest import SHARED, corpus_files, read_sample
from tokenforge import AddedToken, Tokenizer, get_encoding

hf = pytest.importorskip("tokenizers")
spm = pytest.importorskip("sentencepiece")

SAMPLES = [line for path in corpus_files() for line in read_sample(path, 3_000).splitlines() if line.strip()][::4]
MODEL = SHARED / "vocab" / "mistral-7b-v0.1.model"


def _added(ours: bool) -> tuple[list, list]:
    """The same tokens for both libraries: (plain tokens, special tokens)."""
    make = AddedToken if ours else hf.AddedToken

    def token(content: str, **flags: bool):
        # (tokenforge's AddedToken is special unless told, HF's is not: the flags are spelled out)
        flags = {"special": False, **flags}
        return make(content, 0, **flags) if ours else make(content, **flags)

    plain = [
        "<foo>",
        "hello",  # in the vocabulary: keeps its id
        token(" world", lstrip=True),
        token("zz", single_word=True, normalized=False),
        token("<bar>", rstrip=True, normalized=False),
    ]
    # (Not "<foo>" again: re-added as special behind a normalizer, HF keeps showing and decoding it
    # by its stale normalized form, which tokenforge does not copy.)
    special = ["<|im_start|>", token("<mask>", lstrip=True, rstrip=True, special=True), "<|endoftext|>"]
    return plain, special


TEXTS = [
    "",
    "hello <foo> world",
    "a<foo>b <bar>   c",
    "zz zzz azz zz.",
    "x  <mask>  y <|im_start|>user\nhi<|im_end|>",
    "<|endoftext|> after the end <|endoftext|>",
    "  leading and trailing   ",
    "naïve café — ünïcödé 日本語のテキスト",
]


def _pair(tmp_path, tok: Tokenizer) -> tuple[Tokenizer, object]:
    """tok with the tokens added, and HF's tokenizer of its saved file with the same tokens."""
    path = tmp_path / "tokenizer.json"
    tok.save(path)
    theirs = hf.Tokenizer.from_file(str(path))
    plain, special = _added(ours=False)
    theirs.add_tokens(plain)
    theirs.add_special_tokens(special)
    plain, special = _added(ours=True)
    assert tok.add_tokens(plain) > 0
    assert tok.add_special_tokens(special) > 0
    return tok, theirs


def _same(ours: Tokenizer, theirs, texts, unk: int | None = None) -> None:
    """`unk`: an id whose token text is left out of the comparison (HF's Unigram shows the text
    an unknown token covers; tokenforge's staged Unigram shows "<unk>", a gap of its own)."""
    for text in texts:
        a, b = ours.encode(text), theirs.encode(text)
        assert a.ids == b.ids, text
        assert [t for t, i in zip(a.tokens, a.ids) if i != unk] == [t for t, i in zip(b.tokens, b.ids) if i != unk], (
            text
        )
        assert a.offsets == b.offsets, text
        assert a.word_ids == b.word_ids, text
        for skip in (True, False):
            assert ours.decode(a.ids, skip) == theirs.decode(b.ids, skip), (text, skip)
    pair = ours.encode(texts[1], texts[4]), theirs.encode(texts[1], texts[4])
    assert pair[0].ids == pair[1].ids and pair[0].offsets == pair[1].offsets
    assert ours.get_vocab() == theirs.get_vocab()
    assert ours.get_vocab_size() == theirs.get_vocab_size()
    assert ours.get_vocab(False) == theirs.get_vocab(False)
    for a, b in zip(
        sorted(ours.get_added_tokens_decoder().items()), sorted(theirs.get_added_tokens_decoder().items()), strict=True
    ):
        assert a[0] == b[0] and a[1].content == b[1].content and a[1].special == b[1].special


@pytest.mark.parametrize("name", ["cl100k_base", "p50k_base"])
def test_encoding_takes_added_tokens(tmp_path, name):
    tok = Tokenizer(get_encoding(name))
    assert tok.kernel == "byte_level_bpe"
    ours, theirs = _pair(tmp_path, tok)
    assert ours.kernel == "byte_level_hf_bpe"  # still the fused kernel
    _same(ours, theirs, TEXTS + SAMPLES)
    # The Encoding's own special tokens are special added tokens now: matched, skipped by decode.
    eot = ours.token_to_id("<|endoftext|>")
    assert eot == get_encoding(name).eot_token
    assert ours.encode("a<|endoftext|>b").ids.count(eot) == 1
    assert ours.decode(ours.encode("a<|endoftext|>b").ids) == "ab"
    # Saved again, HF and tokenforge read the same ids back. (HF numbers the added tokens the
    # model lacks from the vocabulary's size on, whatever ids the file gives: after cl100k's id
    # gap the saved file keeps the ids by listing those tokens in the vocabulary too.)
    again = tmp_path / "again.json"
    ours.save(again)
    back, hf_back = Tokenizer.from_file(again), hf.Tokenizer.from_file(str(again))
    for text in TEXTS:
        assert back.encode(text).ids == ours.encode(text).ids == hf_back.encode(text).ids


def test_encoding_with_template_and_settings(tmp_path):
    from tokenforge.processors.template import TemplateProcessing

    enc = get_encoding("cl100k_base")
    post = TemplateProcessing.from_templates(
        "<|endoftext|> $A", "<|endoftext|> $A <|endoftext|> $B:1", [("<|endoftext|>", enc.eot_token)]
    )
    tok = Tokenizer(enc, post_processor=post)
    tok.enable_truncation(12)
    ours, theirs = _pair(tmp_path, tok)
    assert ours.truncation == {"max_length": 12, "stride": 0, "strategy": "longest_first", "direction": "right"}
    for text in TEXTS:
        a, b = ours.encode(text, "and a <foo> pair"), theirs.encode(text, "and a <foo> pair")
        assert (a.ids, a.tokens, a.offsets, a.type_ids) == (b.ids, b.tokens, b.offsets, b.type_ids), text


def test_sentencepiece_bpe_model_takes_added_tokens(tmp_path):
    tok = Tokenizer.from_file(MODEL)
    assert tok.kernel == "sentencepiece"
    ours, theirs = _pair(tmp_path, tok)
    _same(ours, theirs, TEXTS + SAMPLES)


def _unigram_model(tmp_path) -> str:
    model = io.BytesIO()
    lines = [line for line in SAMPLES if line.strip()] * 3
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=600,
        minloglevel=2,
        model_type="unigram",
        normalization_rule_name="identity",
        user_defined_symbols=["<user>"],
    )
    path = tmp_path / "u.model"
    path.write_bytes(model.getvalue())
    return str(path)


def test_sentencepiece_unigram_model_takes_added_tokens(tmp_path):
    tok = Tokenizer.from_file(_unigram_model(tmp_path))
    ours, theirs = _pair(tmp_path, tok)
    _same(ours, theirs, [*TEXTS, "a <user> b<user>c", *SAMPLES], unk=ours.token_to_id("<unk>"))


def test_transformers_agrees(tmp_path):
    transformers = pytest.importorskip("transformers")
    tok = Tokenizer(get_encoding("cl100k_base"))
    path = tmp_path / "tokenizer.json"
    tok.save(path)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))
    plain, special = _added(ours=False)
    fast.add_tokens(plain)
    fast.add_special_tokens({"additional_special_tokens": special})
    plain, special = _added(ours=True)
    tok.add_tokens(plain)
    tok.add_special_tokens(special)
    for text in TEXTS:
        assert tok.encode(text).ids == fast(text, add_special_tokens=False)["input_ids"], text


def test_add_tokens_counts_and_repeats(tmp_path):
    tok = Tokenizer(get_encoding("cl100k_base"))
    assert tok.add_tokens(["<foo>", "<foo>"]) == 1
    assert tok.add_tokens(["<foo>"]) == 0
    first = tok.token_to_id("<foo>")
    assert first == 100277  # past the largest special id (<|endofprompt|>), as HF numbers it
    assert tok.add_special_tokens(["<|endoftext|>"]) == 0  # already a special added token
    assert tok.encode("<foo><|endoftext|>").ids == [first, 100257]
