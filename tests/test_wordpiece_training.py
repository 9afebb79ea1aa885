"""WordPiece training against a plain reference trainer written here (recount everything each
round, merge the best likelihood score), merge by merge."""

from __future__ import annotations

import pytest

import tokenforge
from conftest import corpus_files, read_sample
from tokenforge.trainers import train_wordpiece, train_wordpiece_merges


def reference_merges(
    texts: list[str], vocab_size: int, specials: list[str], min_frequency: int = 1, floor_decay: float = 0.0
):
    """The textbook loop: words from the tokenizer's own pre-tokenizer, characters with "##"
    after the first, score = count(ab) / (count(a) count(b)); ties to the higher count, then the
    smaller pair of ids. With floor_decay, only pairs seen at least `floor` times compete: the
    floor starts at the highest pair count and, when no pair reaches it, falls to the highest
    count below it or floor * floor_decay, whichever is lower (never below min_frequency)."""
    splitter = tokenforge.Tokenizer.from_file(corpus_files()[0].parents[1] / "vocab" / "bert" / "tokenizer.json")
    words: dict[str, int] = {}
    for text in texts:
        for word, _ in splitter.pre_tokenize(text):
            words[word] = words.get(word, 0) + 1
    initial = sorted({w[0] for w in words})
    later = sorted({c for w in words for c in w[1:]})
    tokens = specials + initial + ["##" + c for c in later]
    ids = {t: i for i, t in enumerate(tokens)}
    splits = {w: [ids[w[0]]] + [ids["##" + c] for c in w[1:]] for w in words}
    merges = []
    floor = None
    while len(tokens) < vocab_size:
        token_counts: dict[int, int] = {}
        pair_counts: dict[tuple[int, int], int] = {}
        for w, n in words.items():
            s = splits[w]
            for t in s:
                token_counts[t] = token_counts.get(t, 0) + n
            for pair in zip(s, s[1:]):
                pair_counts[pair] = pair_counts.get(pair, 0) + n
        if floor is None:
            floor = max(pair_counts.values(), default=0) if floor_decay else min_frequency
        floor = max(floor, min_frequency)
        candidates = [(p, c) for p, c in pair_counts.items() if c >= floor]
        while not candidates and floor_decay and floor > min_frequency:
            below = max((c for c in pair_counts.values() if c < floor), default=0)
            if below < min_frequency:
                break
            floor = max(min_frequency, min(below, int(floor * floor_decay)))
            candidates = [(p, c) for p, c in pair_counts.items() if c >= floor]
        if not candidates:
            break
        best, _ = max(
            candidates,
            key=lambda pc: (pc[1] / (token_counts[pc[0][0]] * token_counts[pc[0][1]]), pc[1], -pc[0][0], -pc[0][1]),
        )
        new = len(tokens)
        right = tokens[best[1]].removeprefix("##")
        tokens.append(tokens[best[0]] + right)
        merges.append(best)
        for w, s in splits.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            splits[w] = out
    return tokens, merges


@pytest.mark.parametrize("floor_decay", [0.0, 0.9, 0.5, 1.0])
@pytest.mark.parametrize("corpus, size, min_frequency", [(0, 3000, 1), (3, 2000, 1), (1, 3000, 2), (5, 1500, 1)])
def test_merges_equal_the_reference(corpus, size, min_frequency, floor_decay):
    texts = [read_sample(corpus_files()[corpus], size)]
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    expected_tokens, expected = reference_merges(texts, 400, specials, min_frequency, floor_decay)
    tokens, merges = train_wordpiece_merges(
        texts, 400, special_tokens=specials, min_frequency=min_frequency, floor_decay=floor_decay
    )
    assert merges == expected
    assert tokens == expected_tokens


def test_trained_tokenizer_encodes_and_saves(tmp_path):
    from tokenizers import Tokenizer

    texts = [read_sample(corpus_files()[0], 200_000)]
    tok = train_wordpiece(texts, 2000, min_frequency=3)
    assert tok.get_vocab_size() <= 2000 and tok.token_to_id("[CLS]") == 2
    probe = read_sample(corpus_files()[0], 5000)
    enc = tok.encode(probe)
    assert enc.tokens[0] == "[CLS]" and "[UNK]" not in enc.tokens[1:-1]  # every character is in the alphabet
    assert tok.decode(enc.ids).replace(" ", "") == "".join(w for w, _ in tok.pre_tokenize(probe))
    path = tmp_path / "tokenizer.json"
    tok.save(path)
    assert Tokenizer.from_file(str(path)).encode(probe).ids == enc.ids  # HF reads what we trained


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="empty"):
        train_wordpiece(["", "   "], 100)
    with pytest.raises(ValueError, match="vocab_size"):
        train_wordpiece("abc", 3)
    with pytest.raises(ValueError, match="unk_token"):
        train_wordpiece("abc", 100, special_tokens=["[PAD]"])
    with pytest.raises(TypeError, match="not str"):
        train_wordpiece(["abc", 5], 100)


def test_fewer_tokens_than_asked_are_reported():
    with pytest.warns(UserWarning, match="merges asked for .* min_frequency=1"):
        tok = train_wordpiece(["the cat sat on the mat"] * 5, vocab_size=500)
    assert tok.get_vocab_size() < 500


def test_defaults_compress_held_out_text_as_well_as_hf():
    """The default trainer (a falling pair-count floor, unused tokens dropped) against HF's
    WordPieceTrainer on the same words: held-out text takes no more tokens (the score alone took
    1.6-2.7x HF's at 8k). Here 2,000 tokens over 300 K characters, where the vocabulary fills
    before the pairs run out; docs/benchmarks.md has the whole-corpus figures."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    for path in (corpus_files()[0], corpus_files()[1]):
        text = read_sample(path, 400_000)
        train, held = text[:300_000].splitlines(), text[300_000:].splitlines()
        ours = train_wordpiece(train, 2000, progress=False)
        hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        hf.normalizer = normalizers.BertNormalizer(lowercase=True)
        hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        hf.train_from_iterator(
            train, trainers.WordPieceTrainer(vocab_size=2000, special_tokens=specials, show_progress=False)
        )
        ours_n = sum(len(e.ids) for e in ours.encode_batch(held, add_special_tokens=False))
        hf_n = sum(len(e.ids) for e in hf.encode_batch(held, add_special_tokens=False))
        assert ours_n <= hf_n, (path.name, ours_n, hf_n)


def test_every_kept_token_is_used_on_the_training_words():
    """drop_unused: merged tokens that greedy matching never picks on the training text give
    their room to further merges (the score alone left 44-59% of a vocabulary unused)."""
    text = read_sample(corpus_files()[0], 200_000)
    tok = train_wordpiece(text.splitlines(), 1500, progress=False)
    used = {i for e in tok.encode_batch(text.splitlines(), add_special_tokens=False) for i in e.ids}
    vocab = tok.get_vocab()
    merged = [
        t for t in vocab if len(t.removeprefix("##")) > 1 and t not in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
    ]
    unused = [t for t in merged if vocab[t] not in used]
    assert len(merged) > 1000 and not unused, unused[:20]
