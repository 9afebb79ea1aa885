"""Byte-level BPE training against a plain reference trainer (minbpe's loop: count every
adjacent pair, merge the most frequent, recount), merge by merge; and the trained encodings
against tiktoken built from the same ranks."""

from __future__ import annotations

import random

import pytest
import regex

import tokenforge
from conftest import CORPUS, read_sample
from tokenforge.pre_tokenizers.patterns import BY_NAME, WHOLE_TEXT
from tokenforge.trainers import continue_bpe, train_bpe, train_bpe_merges


def merge_ids(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def reference_loop(
    chunks: list[list[int]],
    num_merges: int,
    first_id: int,
    lengths: list[int] | None,
    min_frequency: int = 1,
    max_length: int | None = None,
    weights: list[int] | None = None,
):
    """minbpe's training loop (count every adjacent pair, merge the most frequent, recount) with
    the documented tie-break (smallest pair); lengths: bytes per id, for max_length; weights:
    how often each chunk occurs (default once)."""
    merges = []
    for k in range(num_merges):
        stats: dict = {}
        for c, ids in enumerate(chunks):
            for pair in zip(ids, ids[1:]):
                if max_length is None or lengths[pair[0]] + lengths[pair[1]] <= max_length:
                    stats[pair] = stats.get(pair, 0) + (weights[c] if weights else 1)
        if not stats:
            break
        pair = min(stats, key=lambda p: (-stats[p], p))
        if stats[pair] < min_frequency:
            break
        merges.append(pair)
        if lengths is not None:
            lengths.append(lengths[pair[0]] + lengths[pair[1]])
        chunks = [merge_ids(ids, pair, first_id + k) for ids in chunks]
    return merges, chunks


def reference_merges(
    texts: list[str], num_merges: int, pattern: str | None, min_frequency: int = 1, max_length: int | None = None
):
    """minbpe's RegexTokenizer.train."""
    pat = regex.compile(WHOLE_TEXT if pattern is None else BY_NAME.get(pattern, pattern))
    chunks = [list(m.group().encode("utf-8")) for t in texts for m in pat.finditer(t)]
    return reference_loop(chunks, num_merges, 256, [1] * 256, min_frequency, max_length)


def sample(name: str, chars: int) -> str:
    return read_sample(CORPUS / name, chars)


@pytest.mark.parametrize(
    "corpus, pattern, merges",
    [
        ("en-linuxdoc.txt", "cl100k", 300),
        ("code-python-stdlib.txt", "o200k", 300),
        ("man/ru.txt", "gpt2", 200),
        ("man/ja.txt", "o200k", 200),
        ("en-linuxdoc.txt", r"\w+|\W+", 200),  # a pattern without a native scanner
        ("man/de.txt", None, 150),  # no split: minbpe's BasicTokenizer
    ],
)
def test_merges_equal_the_reference(corpus, pattern, merges):
    texts = [sample(corpus, 6000), sample(corpus, 3000)]  # repeated text: counts above 1
    expected, _ = reference_merges(texts, merges, pattern)
    assert train_bpe_merges(texts, merges, pattern) == expected


def test_overlapping_pairs_and_ties():
    # "aaaa" holds (a, a) three times; the merge takes positions 0-1 and 2-3. Equal counts go
    # to the smallest pair.
    texts = ["aaaa bbbb abab", "aaa", "ba ab"]
    for pattern in [None, "gpt2"]:
        expected, _ = reference_merges(texts, 20, pattern)
        assert train_bpe_merges(texts, 20, pattern) == expected


def test_random_texts_match_the_reference():
    rng = random.Random(11)
    for _ in range(30):
        alphabet = rng.choice(["ab", "abc ", "xy z\n", "aé世 "])
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(rng.randint(1, 4))]
        if not any(texts):
            continue
        pattern = rng.choice([None, "gpt2", "cl100k", "o200k"])
        expected, _ = reference_merges(texts, 30, pattern)
        assert train_bpe_merges(texts, 30, pattern) == expected, (texts, pattern)


def test_min_frequency_stops_training():
    texts = ["abcabcabc xyz"]
    expected, _ = reference_merges(texts, 50, None, min_frequency=2)
    got = train_bpe_merges(texts, 50, None, min_frequency=2)
    assert got == expected and len(got) < 50


@pytest.mark.parametrize("pattern", ["cl100k", "o200k", None])
def test_trained_encoding_reproduces_the_trainer_and_tiktoken(pattern, tiktoken_module):
    texts = [sample("en-linuxdoc.txt", 8000), sample("man/fr.txt", 3000)]
    enc = train_bpe(texts, 256 + 250, pattern, special_tokens={"<|end|>": 1000})
    _merges, final_chunks = reference_merges(texts, 250, pattern)
    assert enc.n_vocab == 1001 and enc.encode("<|end|>", allowed_special="all") == [1000]
    # The trainer's final state is the encoding of each chunk.
    expected = [i for ids in final_chunks for i in ids]
    assert [i for t in texts for i in enc.encode_ordinary(t)] == expected
    # tiktoken, given the same ranks and pattern, agrees on other text too.
    ref = tiktoken_module.Encoding(
        "trained", pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks, special_tokens={"<|end|>": 1000}
    )
    other = sample("man/es.txt", 8000)
    assert enc.encode_ordinary(other) == ref.encode_ordinary(other)


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="vocab_size"):
        train_bpe("abc", 255)
    with pytest.raises(ValueError, match="empty"):
        train_bpe([], 300)
    with pytest.raises(ValueError, match="empty"):
        train_bpe(["", ""], 300)
    with pytest.raises(ValueError, match="min_frequency"):
        train_bpe("abc", 300, min_frequency=0)
    with pytest.raises(ValueError, match="pattern"):
        train_bpe("abc", 300, pattern="(unclosed")
    with pytest.raises(TypeError, match="not str"):
        train_bpe(["abc", b"def"], 300)
    with pytest.raises(ValueError, match="special"):
        train_bpe("abcabc", 260, special_tokens={"<|x|>": 256})  # an ordinary token's id


def test_lone_surrogates_train_like_they_encode():
    enc = train_bpe(["ab\ud800ab" * 5], 270, "gpt2")
    assert isinstance(enc, tokenforge.Encoding)
    assert enc.decode(enc.encode_ordinary("ab\ud800ab")) == "ab\ufffdab"


@pytest.mark.parametrize("pattern", ["cl100k", "o200k"])
def test_exports_give_the_same_ids(pattern, tiktoken_module, tmp_path):
    """A trained encoding written as .tiktoken (read back by tiktoken and by us) and as HF
    tokenizer.json (read by HF tokenizers, whose regex engine needs the pattern rewritten)."""
    from tiktoken.load import load_tiktoken_bpe
    from tokenizers import Tokenizer

    texts = [sample("en-linuxdoc.txt", 30000), sample("code-python-stdlib.txt", 20000)]
    specials = {"<|endoftext|>": 700}
    enc = train_bpe(texts, 256 + 300, pattern, special_tokens=specials)
    probe = [sample("man/fr.txt", 4000), sample("code-python-stdlib.txt", 4000), "1234567 89 2024-11-22\n\n  x"]

    path = tmp_path / "trained.tiktoken"
    tokenforge.dump_tiktoken_bpe(enc._mergeable_ranks, path)
    theirs = tiktoken_module.Encoding(
        "t",
        pat_str=enc._pat_str,
        mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens=specials,
    )
    ours = tokenforge.load_tiktoken(path, pat_str=enc._pat_str, special_tokens=specials)
    hf_path = tmp_path / "tokenizer.json"
    tokenforge.save_tokenizer_json(enc, hf_path)
    hf = Tokenizer.from_file(str(hf_path))
    for text in probe:
        ids = enc.encode_ordinary(text)
        assert theirs.encode_ordinary(text) == ids
        assert ours.encode_ordinary(text) == ids
        assert hf.encode(text, add_special_tokens=False).ids == ids
    assert hf.encode("a<|endoftext|>b").ids == enc.encode("a<|endoftext|>b", allowed_special="all")


def test_progress_on_request_only(capsys):
    train_bpe(["abcabc abd"] * 20, 270, "gpt2")
    assert capsys.readouterr().err == ""  # not a terminal: quiet by default
    train_bpe(["abcabc abd"] * 20, 270, "gpt2", progress=True)
    err = capsys.readouterr().err
    assert "counting chunks: 20 texts" in err and "merges: " in err


def test_files_stream_in_pieces_that_train_like_the_whole(tmp_path):
    from tokenforge.trainers import read_text_files

    en, ja = sample("en-linuxdoc.txt", 2_500_000), sample("man/ja.txt", 700_000)  # ja: ~2 MB of UTF-8
    (tmp_path / "en.txt").write_text(en, encoding="utf-8")
    (tmp_path / "ja.txt").write_text(ja, encoding="utf-8")
    parts = list(read_text_files(tmp_path / "en.txt"))
    assert len(parts) > 1 and "".join(parts) == en  # cut, and nothing lost at block edges
    assert "".join(read_text_files(str(tmp_path / "ja.txt"))) == ja  # characters across blocks
    assert train_bpe_merges(parts, 200) == train_bpe_merges([en], 200)
    assert train_bpe_merges(read_text_files(tmp_path / "*.txt"), 100, "o200k") == train_bpe_merges(
        [en, ja], 100, "o200k"
    )


@pytest.mark.parametrize("max_length", [2, 4, 7])
def test_max_token_length(max_length):
    texts = [sample("en-linuxdoc.txt", 5000), sample("man/ru.txt", 2000)]
    expected, _ = reference_merges(texts, 150, "cl100k", max_length=max_length)
    assert train_bpe_merges(texts, 150, "cl100k", max_token_length=max_length) == expected
    enc = train_bpe(texts, 256 + 150, "cl100k", max_token_length=max_length)
    assert max(len(t) for t in enc.token_byte_values()) <= max_length
    with pytest.raises(ValueError, match="max_token_length"):
        train_bpe(texts, 300, max_token_length=1)


def reference_continue(base, texts: list[str], num_merges: int):
    """The reference loop started from `base`'s ids for each piece, new ids after base's."""
    pat = regex.compile(base._pat_str)
    chunks = [base._core.encode_pieces([m.group()]) for t in texts for m in pat.finditer(t)]
    return reference_loop(chunks, num_merges, base.max_token_value + 1, None)


def test_continue_training_keeps_the_base_and_matches_the_reference():
    from tokenforge.trainers import continue_bpe

    base = train_bpe([sample("en-linuxdoc.txt", 6000)], 256 + 80, "cl100k", special_tokens={"<|s|>": 400})
    texts = [sample("man/de.txt", 5000)]
    cont = continue_bpe(base, texts, 256 + 80 + 60, special_tokens={"<|t|>": 500})
    merges, final_chunks = reference_continue(base, texts, 60)
    first = 401  # past the base's special id
    by_id = {i: t for t, i in base._mergeable_ranks.items()}
    for k, (a, b) in enumerate(merges):
        by_id[first + k] = by_id[a] + by_id[b]
    assert cont._mergeable_ranks == {**base._mergeable_ranks, **{by_id[i]: i for i in range(first, first + 60)}}
    assert [i for t in texts for i in cont.encode_ordinary(t)] == [i for ids in final_chunks for i in ids]
    assert cont.encode("<|s|><|t|>", allowed_special="all") == [400, 500]


def test_continue_from_cl100k(reference, tiktoken_module):
    from tokenforge.trainers import continue_bpe

    base = tokenforge.get_encoding("cl100k_base")
    cont = continue_bpe(base, [sample("man/ru.txt", 20000)], len(base._mergeable_ranks) + 40)
    assert cont.max_token_value == 100276 + 40 and cont.encode("<|endoftext|>", allowed_special="all") == [100257]
    assert all(cont._mergeable_ranks[t] == i for t, i in base._mergeable_ranks.items())
    ref = tiktoken_module.Encoding(
        "c", pat_str=cont._pat_str, mergeable_ranks=cont._mergeable_ranks, special_tokens=cont._special_tokens
    )
    for text in [sample("man/ru.txt", 5000), sample("en-linuxdoc.txt", 3000)]:
        assert cont.encode_ordinary(text) == ref.encode_ordinary(text)
    en = sample("en-linuxdoc.txt", 3000)
    assert cont.encode_ordinary(en) == reference("cl100k_base").encode_ordinary(
        en
    )  # the new merges are all Cyrillic here
    with pytest.raises(ValueError, match="above the base"):
        continue_bpe(base, "text", 1000)


def test_prune_keeps_what_a_corpus_uses(tiktoken_module):
    from tokenforge.trainers import prune_bpe

    base = tokenforge.get_encoding("o200k_base")
    texts = [sample("en-linuxdoc.txt", 60000), sample("code-python-stdlib.txt", 30000)]
    pruned, remap = prune_bpe(base, texts)
    assert 256 < len(pruned._mergeable_ranks) < 20000
    for text in texts:  # the corpus encodes to the same tokens, renumbered
        assert pruned.encode_ordinary(text) == [remap[i] for i in base.encode_ordinary(text)]
    assert pruned.encode("<|endoftext|>", allowed_special="all") == [remap[199999]]
    assert sorted(remap.values()) == list(range(pruned.n_vocab))  # dense new ids
    ref = tiktoken_module.Encoding(
        "p", pat_str=pruned._pat_str, mergeable_ranks=pruned._mergeable_ranks, special_tokens=pruned._special_tokens
    )
    other = sample("man/fr.txt", 5000)
    assert (
        pruned.encode_ordinary(other) == ref.encode_ordinary(other)
        and pruned.decode(ref.encode_ordinary(other)) == other
    )

    small, small_remap = prune_bpe(base, texts, 3000)
    assert len(small._mergeable_ranks) <= 3000 and small.decode(small.encode_ordinary(texts[0])) == texts[0]
    assert set(small_remap) < set(remap)
    with pytest.raises(ValueError, match="vocab_size"):
        prune_bpe(base, texts, 100)


def read_minbpe_model(path) -> tuple[str, dict[str, int], dict[int, bytes]]:
    """What minbpe's Tokenizer.load does with a .model file."""
    with open(path, encoding="utf-8") as f:
        assert f.readline().strip() == "minbpe v1"
        pattern = f.readline().strip()
        specials = {}
        for _ in range(int(f.readline().strip())):
            text, i = f.readline().strip().split()
            specials[text] = int(i)
        vocab = {i: bytes([i]) for i in range(256)}
        for k, line in enumerate(f):
            a, b = map(int, line.split())
            vocab[256 + k] = vocab[a] + vocab[b]
    return pattern, specials, vocab


@pytest.mark.parametrize("pattern", ["cl100k", None])
def test_minbpe_files(pattern, tmp_path):
    enc = train_bpe([sample("man/pl.txt", 6000)], 256 + 120, pattern, special_tokens={"<|endoftext|>": 376})
    tokenforge.save_minbpe(enc, tmp_path / "tok")
    read_pattern, specials, vocab = read_minbpe_model(tmp_path / "tok.model")
    assert read_pattern == ("" if pattern is None else enc._pat_str) and specials == {"<|endoftext|>": 376}
    assert {t: i for i, t in vocab.items()} == enc._mergeable_ranks
    lines = (tmp_path / "tok.vocab").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 376 and lines[10] == "[\\u000a] 10" and lines[-1].endswith("] 375")
    with pytest.raises(ValueError, match="dump_tiktoken_bpe"):
        tokenforge.save_minbpe(tokenforge.get_encoding("cl100k_base"), tmp_path / "cl100k")
    assert not (tmp_path / "cl100k.model").exists()


def test_forced_tokens_come_first_and_training_continues_from_them():
    texts = [sample("en-linuxdoc.txt", 6000), sample("man/ja.txt", 1500)]
    forced = [" kernel", "日本", "本日", "x"]
    enc = train_bpe(texts, 256 + 120, "cl100k", forced_tokens=forced)
    ranks = enc._mergeable_ranks
    # characters first, then the token left to right; "x" is a byte already and shared parts are made once
    made = [
        b" k",
        b" ke",
        b" ker",
        b" kern",
        b" kerne",
        b" kernel",
        b"\xe6\x97",
        "日".encode(),
        b"\xe6\x9c",
        "本".encode(),
        "日本".encode(),
        "本日".encode(),
    ]
    assert [ranks[t] for t in made] == list(range(256, 256 + len(made)))
    for text in forced:
        assert enc.encode_ordinary(text) == [ranks[text.encode()]]
    # the rest is the plain reference loop started from the forced vocabulary's ids
    base = tokenforge.Encoding(
        "b",
        pat_str=enc._pat_str,
        special_tokens={},
        mergeable_ranks={t: i for t, i in ranks.items() if i < 256 + len(made)},
    )
    first = 256 + len(made)
    merges, final_chunks = reference_loop(
        [base._core.encode_pieces([m.group()]) for t in texts for m in regex.finditer(enc._pat_str, t)],
        120 - len(made),
        first,
        None,
    )
    by_id = {i: t for t, i in ranks.items()}
    assert [(a, b) for a, b in merges] == [
        tuple(ranks[p] for p in tokenforge.formats.gpt2_files.split_for_merge(ranks, by_id[i], i))
        for i in range(first, 256 + 120)
    ]
    assert [i for t in texts for i in enc.encode_ordinary(t)] == [i for ids in final_chunks for i in ids]


def test_forced_tokens_that_cannot_be_whole_are_refused():
    with pytest.raises(
        ValueError, match=r"'hello world' can never be one token: the split pattern cuts it into \['hello', ' world'\]"
    ):
        train_bpe("hello world", 300, "cl100k", forced_tokens=["hello world"])
    with pytest.raises(ValueError, match="lone surrogate"):
        train_bpe("abc", 300, forced_tokens=["a\ud800"])
    with pytest.raises(ValueError, match="non-empty strings"):
        train_bpe("abc", 300, forced_tokens=[""])
    with pytest.raises(ValueError, match="below the 262 tokens"):
        train_bpe("abc", 260, forced_tokens=["abcdefg"])
    assert len(train_bpe("abc", 300, None, forced_tokens=["hello world"])._mergeable_ranks) <= 300  # no split: fine


def test_gpt2_byte_ids_and_gpt2_files(tmp_path, tiktoken_module):
    """byte_ids="gpt2" numbers the bytes as GPT-2 files must; the merges are the reference's on
    those ids; the encoder.json + vocab.bpe written give our ids in tiktoken, HF and tokenforge."""
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tokenizers import Tokenizer
    from tokenizers.models import BPE

    texts = [sample("en-linuxdoc.txt", 8000), sample("man/ru.txt", 3000)]
    enc = train_bpe(texts, 256 + 150, "gpt2", byte_ids="gpt2", special_tokens={"<|endoftext|>": 406})
    order = list(tokenforge.bytes_to_unicode())
    assert all(enc._mergeable_ranks[bytes([b])] == i for i, b in enumerate(order))
    gpt2_id = {b: i for i, b in enumerate(order)}
    chunks = [[gpt2_id[b] for b in m.group().encode()] for t in texts for m in regex.finditer(enc._pat_str, t)]
    merges, _ = reference_loop(chunks, 150, 256, None)
    by_id = {i: t for t, i in enc._mergeable_ranks.items()}
    assert [by_id[a] + by_id[b] for a, b in merges] == [by_id[256 + k] for k in range(150)]

    encoder, vocab = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    tokenforge.save_gpt2_files(enc._mergeable_ranks, encoder, vocab, enc._special_tokens)
    theirs = tiktoken_module.Encoding(
        "t",
        pat_str=enc._pat_str,
        special_tokens={},
        mergeable_ranks=data_gym_to_mergeable_bpe_ranks(str(vocab), str(encoder)),
    )
    ours = tokenforge.load_gpt2(encoder, vocab)
    hf_path = tmp_path / "tokenizer.json"
    tokenforge.save_tokenizer_json(enc, hf_path)
    hf = Tokenizer.from_file(str(hf_path))
    hf.model = BPE.from_file(str(encoder), str(vocab))  # the GPT-2 files' vocabulary and merges
    for text in [sample("man/de.txt", 3000), sample("code-python-stdlib.txt", 3000)]:
        ids = enc.encode_ordinary(text)
        assert theirs.encode_ordinary(text) == ids and ours.encode_ordinary(text) == ids
        assert hf.encode(text, add_special_tokens=False).ids == ids
    with pytest.raises(ValueError, match="byte_ids"):
        train_bpe("abc", 300, byte_ids="latin1")
    with pytest.raises(ValueError, match="cannot be represented in GPT-2 format"):
        tokenforge.save_gpt2_files(train_bpe(texts, 300)._mergeable_ranks, encoder, vocab)


def test_own_file_round_trip_and_errors(tmp_path):
    from tokenforge.formats.tokenforge_file import load_encoding, save_encoding

    enc = train_bpe(
        [sample("en-linuxdoc.txt", 5000)], 300, "o200k", special_tokens={"<|end|>": 300, "<|é|>": 301}, name="mine"
    )
    path = tmp_path / "mine.tokenforge"
    save_encoding(enc, path)
    back = load_encoding(path)
    assert (back.name, back._pat_str, back._special_tokens, back._mergeable_ranks) == (
        enc.name,
        enc._pat_str,
        enc._special_tokens,
        enc._mergeable_ranks,
    )
    text = sample("man/fr.txt", 2000) + "<|é|>"
    assert back.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    good = path.read_bytes()
    for data, message in [
        (b"IQ== 0\n", "not a tokenforge BPE file"),
        (good.replace(b'"version": 1', b'"version": 9'), "version 9"),
        (good.replace(b'"name": "mine"', b'"name": 5'), "string name"),
        (good[: good.index(b"\n") + 1] + b"IQ== 0\n!!!! 1\n", "line 3: "),
    ]:
        path.write_bytes(data)
        with pytest.raises(ValueError, match=message):
            load_encoding(path)
    with pytest.raises(TypeError, match="needs a tokenforge Encoding"):
        save_encoding("cl100k_base", tmp_path / "x.tokenforge")


def test_max_memory_keeps_exact_counts_of_the_most_frequent_chunks():
    """A tiny budget: counting spills to disk, every count stays exact, and the chunks kept are
    exactly those seen at least some number of times, as many as fit; training uses just them."""
    from collections import Counter

    from tokenforge import _core
    from tokenforge.trainers.chunk_table import count_chunks

    texts = [sample("en-linuxdoc.txt", 1_500_000), sample("code-python-stdlib.txt", 1_500_000)]
    pat = BY_NAME["cl100k"]
    truth = Counter(m.group().encode() for t in texts for m in regex.finditer(pat, t))
    budget = 1 << 20
    with pytest.warns(UserWarning, match="fewer than .* times were left out of training; raise max_memory"):
        kept = dict(count_chunks(texts, pat, False, budget).items())
    threshold = min(kept.values())
    assert threshold > 1 and all(truth[c] == n for c, n in kept.items())
    assert kept.keys() == {c for c, n in truth.items() if n >= threshold}
    fits, one_more = _core.ChunkCounts(), _core.ChunkCounts()
    for chunk, n in truth.items():
        if n >= threshold:
            fits.add(chunk, n)
        if n >= threshold - 1:
            one_more.add(chunk, n)

    def entries_memory(table) -> int:
        return sum(memory for _, memory in table.memory_by_count().values())

    assert entries_memory(fits) <= budget // 10 < entries_memory(one_more)

    chunks = list(kept)
    with pytest.warns(UserWarning):
        merges = train_bpe_merges(texts, 60, "cl100k", max_memory=budget)
    assert merges == reference_loop([list(c) for c in chunks], 60, 256, None, weights=[kept[c] for c in chunks])[0]
    assert train_bpe_merges(texts, 60, "cl100k", max_memory=1 << 30) == train_bpe_merges(texts, 60, "cl100k")
    with pytest.raises(ValueError, match="max_memory"):
        train_bpe("abc", 300, max_memory=1000)


def test_corrupt_spill_files_are_refused(tmp_path):
    from tokenforge import _core

    counts = _core.ChunkCounts()
    counts.add(b"hello", 3)
    counts.add(b" world" * 10, 2)
    path = str(tmp_path / "part")
    counts.spill([path])
    assert len(counts) == 0
    back = _core.ChunkCounts()
    back.read_spilled(path, 3)
    assert back.items() == [(b"hello", 3)]
    data = (tmp_path / "part").read_bytes()
    (tmp_path / "part").write_bytes(data[:-3])
    with pytest.raises(ValueError, match=r"part is cut short or corrupt at record 1"):
        _core.ChunkCounts().read_spilled(path)
    with pytest.raises(RuntimeError, match="cannot open spill file"):
        _core.ChunkCounts().read_spilled(str(tmp_path / "missing"))


def test_fewer_merges_than_asked_are_reported():
    """A corpus that runs out of pairs gives a smaller vocabulary, with a warning saying why."""
    with pytest.warns(UserWarning, match=r"made \d+ of the 744 merges asked for .* min_frequency=1"):
        enc = train_bpe(["abcabc abd"], 1000)
    assert len(enc._mergeable_ranks) < 300
    base = tokenforge.get_encoding("cl100k_base")
    with pytest.warns(UserWarning, match="of the 5,000 merges asked for"):
        continue_bpe(base, ["only a few words here"], len(base._mergeable_ranks) + 5000)
