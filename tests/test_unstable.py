"""Partial tokens (tokenforge.unstable): Encoding.encode_with_unstable against tiktoken's on
prompts cut anywhere in the corpus samples and on hypothesis strings, and token_healing's
promises (the ids plus the prefix spell the prompt; every allowed next token fits the prefix)
on Encodings and tokenizer.json pipelines, with the trailing-space example."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import corpus_files, read_sample
from tokenforge.unstable import token_healing

SAMPLES = [read_sample(p, 4_000) for p in corpus_files()]
EDGE = [
    "",
    "hello fanta",
    "Here is a tag line for an ice cream shop: ",
    "Here is a tag line for an ice cream shop:",
    "trailing newlines\n\n",
    "tabs\t\t",
    "def f():\n    ",
    "x  ",
    " !",
    "  !",
    "12345",
    "日本",
    "emoji 👍",
    "<|endoftext|>",
    "text<|endoftext|>",
    "<|endoftext|> after",
    "\u3000",
    "a\r\n",
    "\U00018d80:",  # a letter only in newer Unicode than tiktoken's: pieces follow the encoder's tables
]


def _prompts(per_sample: int = 1) -> list[str]:
    """The edge cases and prompts cut from the samples (tiktoken itself needs a second or more
    on some: a prompt ending in spaces has ~100k completions to try; keep these few)."""
    rng = random.Random(7)
    cuts = []
    for text in SAMPLES:
        for _ in range(per_sample):
            end = rng.randrange(1, len(text))
            cuts.append(text[max(0, end - rng.randrange(1, 60)) : end])
    return EDGE + cuts


def _same(ours: tokenforge.Encoding, theirs, text: str, **policy) -> None:
    stable, completions = ours.encode_with_unstable(text, **policy)
    ref_stable, ref_completions = theirs.encode_with_unstable(text, **policy)
    assert stable == ref_stable, text
    assert {tuple(c) for c in completions} == {tuple(c) for c in ref_completions}, text
    assert len(completions) == len({tuple(c) for c in completions})
    data = text.encode("utf-8")
    assert data.startswith(ours.decode_bytes(stable))
    for c in completions:
        assert ours.decode_bytes(stable + c).startswith(data) or not c


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_encode_with_unstable_equals_tiktoken(reference, name):
    ours, theirs = tokenforge.get_encoding(name), reference(name)
    for text in _prompts():
        _same(ours, theirs, text, disallowed_special=())
    _same(ours, theirs, "text<|endoftext|>", allowed_special="all")
    _same(ours, theirs, "<|endoftext|> and more", allowed_special={"<|endoftext|>"})
    with pytest.raises(ValueError, match="endoftext"):
        ours.encode_with_unstable("x<|endoftext|>")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n\t!.1日👍")) | st.characters(codec="utf-8"), max_size=12))
def test_encode_with_unstable_on_any_text(reference, text):
    _same(tokenforge.get_encoding("cl100k_base"), reference("cl100k_base"), text, disallowed_special=())


def _check_healing(enc: tokenforge.Encoding, prompt: str) -> None:
    healed = token_healing(enc, prompt)
    assert enc.decode_bytes(healed.ids) + healed.prefix_bytes == prompt.encode("utf-8"), prompt
    for t in healed.allowed_next:
        data = enc.decode_single_token_bytes(t)
        assert data.startswith(healed.prefix_bytes) or healed.prefix_bytes.startswith(data), (prompt, data)
    if healed.prefix:
        assert healed.allowed_next


def test_the_trailing_space_example():
    enc = tokenforge.get_encoding("cl100k_base")
    prompt = "Here is a tag line for an ice cream shop: "
    assert enc.encode(prompt)[-1] == enc.encode(" ")[0]  # the prompt ends in a lone-space token
    healed = token_healing(enc, prompt)
    assert healed.ids == enc.encode(prompt.rstrip(" ")) and healed.prefix == " "
    assert enc.encode(" Scoop")[0] in healed.allowed_next  # words with their space are allowed again
    assert all(enc.decode_single_token_bytes(t).startswith(b" ") for t in healed.allowed_next)
    partial = token_healing(enc, "The best flavour is choc")
    assert partial.prefix.endswith("choc") and enc.encode(" chocolate")[0] in partial.allowed_next


@pytest.mark.parametrize("name", ["gpt2", "o200k_base"])
def test_healing_an_encoding(name):
    enc = tokenforge.get_encoding(name)
    for prompt in _prompts()[: len(EDGE) + 4]:
        _check_healing(enc, prompt)


def test_healing_a_tokenizer():
    gpt2 = tokenforge.Tokenizer(tokenforge.get_encoding("gpt2"))
    healed = token_healing(gpt2, "I like ice cre")
    assert healed.prefix == " cre" and gpt2.token_to_id("Ġcream") in healed.allowed_next
    assert healed.ids == gpt2.encode("I like ice", add_special_tokens=False).ids
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    for prompt in ("hello worl", "the quick brown fo", "unbelievab"):
        full = bert.encode(prompt, add_special_tokens=False).ids
        healed = token_healing(bert, prompt)
        assert healed.ids == full[:-1] and prompt.endswith(healed.prefix) and healed.prefix
        assert full[-1] in healed.allowed_next  # the token it backed off from is allowed again
        texts = bert.decode_batch([[1037, i] for i in healed.allowed_next])  # after "a", as healing reads them
        assert all(t[1:].startswith(healed.prefix) for t in texts)
    assert token_healing(bert, "").ids == [] and token_healing(bert, "").prefix == ""
    with pytest.raises(TypeError):
        token_healing(bert, b"x")  # type: ignore[arg-type]
