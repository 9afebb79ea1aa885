"""The rank-ordered merge of long pieces on their first sight, in both fused BPE kernels, against
HF tokenizers (tests/hf_trio.py's Trio: ids, tokens, offsets, words and decode).

HfBpeModel::scan_list (models/bpe/hf_bpe_model.h) merges a new piece of up to kScanSymbols (128)
symbols by scans of its pairs' ranks (longer ones go through the queue); a faster scan for long
pieces (the minima of blocks of 8 ranks, tried in docs/benchmarks.md) must pass these. The pieces
have every length from 1 to 140 symbols (the limit and every block of 8 crossed), are made of a
few letters whose merges tie (the same pair at many places, the leftmost first) or put the
lowest rank anywhere, and are met fresh, then again, alone, between others and at the text's
end. The sentencepiece-style kernel (pipelines/spm_hf_bpe.h, merge_cut and merge_plain) runs
the same merges over characters, the byte-level one (pipelines/byte_level_hf_bpe.h) over bytes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from hf_trio import Trio

tokenizers = pytest.importorskip("tokenizers")

SPACE = "\u2581"
LETTERS = "abcd"


def merges_over(alphabet: str, count: int, seed: int) -> list[tuple[str, str]]:
    """Merges in rank order, each of two tokens made before it: first the ties of one letter
    ("a a", "aa aa", ...), then random pairs of the tokens so far (short ones more often)."""
    rng = random.Random(seed)
    tokens = list(alphabet)
    merges: list[tuple[str, str]] = []
    made = set(tokens)
    for left in ["a", "aa", "aaaa"]:
        merges.append((left, left))
        made.add(left + left)
        tokens.append(left + left)
    while len(merges) < count:
        short = [t for t in tokens if len(t) <= 4]
        a = rng.choice(short if rng.random() < 0.7 else tokens)
        b = rng.choice(short if rng.random() < 0.7 else tokens)
        if a + b in made or len(a + b) > 12:
            continue
        merges.append((a, b))
        made.add(a + b)
        tokens.append(a + b)
    return merges


def vocab_of(base: list[str], merges: list[tuple[str, str]]) -> dict[str, int]:
    vocab: dict[str, int] = {}
    for token in [*base, *(a + b for a, b in merges)]:
        vocab.setdefault(token, len(vocab))
    return vocab


def spm_doc(seed: int) -> dict[str, Any]:
    """A Gemma-shaped file: Replace(" " -> "▁"), byte fallback, no pre-tokenizer."""
    merges = merges_over(LETTERS, 300, seed)
    merges += [(SPACE, "a"), (SPACE, "b"), ("x", SPACE)]
    base = ["<unk>", *(f"<0x{b:02X}>" for b in range(256)), SPACE, *LETTERS, "x"]
    tok = tokenizers.Tokenizer(
        tokenizers.models.BPE(vocab_of(base, merges), merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True)
    )
    tok.normalizer = tokenizers.normalizers.Replace(" ", SPACE)
    tok.decoder = tokenizers.decoders.Sequence(
        [tokenizers.decoders.Replace(SPACE, " "), tokenizers.decoders.ByteFallback(), tokenizers.decoders.Fuse()]
    )
    return json.loads(tok.to_str())


def byte_level_doc(seed: int) -> dict[str, Any]:
    """A GPT-2-shaped file: ByteLevel pre-tokenizer (its regex) and decoder."""
    merges = merges_over(LETTERS, 300, seed)
    base = sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(vocab_of(base, merges), merges))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = tokenizers.decoders.ByteLevel()
    return json.loads(tok.to_str())


def words(n: int, rng: random.Random) -> list[str]:
    """Pieces of n letters: one letter (all pairs tie), two alternating, random, and the lowest
    rank's pair ("aa") alone in a run of another letter at a place that moves with n."""
    low = "c" * (n // 3) + "aa" + "c" * n
    return ["a" * n, ("ab" * n)[:n], "".join(rng.choice(LETTERS) for _ in range(n)), low[:n]]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("shape", ["spm", "byte_level"])
def test_long_pieces_of_every_length_merge_as_hf(tmp_path_factory, shape, seed):
    doc = spm_doc(seed) if shape == "spm" else byte_level_doc(seed)
    t = Trio(doc, tmp_path_factory.mktemp("long_merges") / "tokenizer.json")
    assert t.kernel.name == ("spm_hf_bpe" if shape == "spm" else "byte_level_hf_bpe")
    rng = random.Random(seed)
    for n in range(1, 141):
        for word in words(n, rng):
            t.check(word)  # first sight: merged
            t.check(word)  # again: remembered (up to the tables' lengths)
            t.check(f"x {word} {word[::-1]}")  # between others and at the end


@pytest.mark.parametrize("shape", ["spm", "byte_level"])
def test_long_pieces_in_any_order_merge_as_hf(tmp_path_factory, shape):
    # Fresh kernels meet pieces around the limits (33 and 34 pairs, 127 to 129 symbols) longest
    # first, then shortest first: what one piece left in the kernel's caches never changes another's.
    doc = spm_doc(3) if shape == "spm" else byte_level_doc(3)
    rng = random.Random(3)
    pieces = [w for n in [31, 32, 33, 34, 35, 40, 63, 64, 65, 127, 128, 129] for w in words(n, rng)]
    for order in (pieces[::-1], pieces):
        t = Trio(doc, tmp_path_factory.mktemp("long_merges") / "tokenizer.json")
        for word in order:
            t.check(word)
        t.check(" ".join(order))
