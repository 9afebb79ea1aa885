"""Whole tokenizer.json files through `Tokenizer.from_file`, against HF tokenizers loading the
same file: files the test builds with HF's own components and trainers (every run), and the real
model folders in ../shared/vocab/hf where they are at hand. Ids, tokens, offsets, type ids and
decode must be equal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import WHOLE_CORPUS, corpus_files, read_sample

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

LINES = [line for path in corpus_files() for line in read_sample(path, 6000).splitlines()[:40] if line.strip()]
TRAIN = [read_sample(path, 40_000) for path in corpus_files()]


def same(ours: tokenforge.Tokenizer, hf, text: str, pair: str | None = None) -> None:
    a, b = ours.encode(text, pair), hf.encode(text, pair)
    assert (a.ids, a.tokens, a.offsets, a.type_ids) == (b.ids, b.tokens, b.offsets, b.type_ids), text
    assert ours.decode(a.ids) == hf.decode(b.ids), text
    assert ours.decode(a.ids, skip_special_tokens=False) == hf.decode(b.ids, skip_special_tokens=False), text


def llama2_style(tmp_path) -> str:
    """A sentencepiece-style BPE as HF writes Llama 2's: Prepend + Replace normalizers, byte
    fallback, Replace/ByteFallback/Fuse/Strip decoders, a <s> template."""
    tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    special = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tok.train_from_iterator(TRAIN, trainers.BpeTrainer(vocab_size=2000, special_tokens=special))
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", tok.token_to_id("<s>"))]
    )
    path = str(tmp_path / "llama2_style.json")
    tok.save(path)
    return path


def wordlevel_nfkc(tmp_path) -> str:
    tok = tokenizers.Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)]
    )
    tok.train_from_iterator(
        TRAIN, trainers.WordLevelTrainer(vocab_size=3000, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    )
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    path = str(tmp_path / "wordlevel.json")
    tok.save(path)
    return path


def metaspace_bpe(tmp_path) -> str:
    tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", continuing_subword_prefix="##"))
    tok.normalizer = normalizers.NFD()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tok.train_from_iterator(
        TRAIN, trainers.BpeTrainer(vocab_size=1500, special_tokens=["<unk>"], continuing_subword_prefix="##")
    )
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    path = str(tmp_path / "metaspace.json")
    tok.save(path)
    return path


def byte_level_regex(tmp_path) -> str:
    """A byte-level BPE as Llama 3's and Qwen's files spell it: a regex Split (a pattern no
    built-in scanner has), then ByteLevel without its own regex; a regex Replace normalizer."""
    tok = tokenizers.Tokenizer(models.BPE(ignore_merges=True))
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(tokenizers.Regex(r"\s{3,}"), "  ")])
    pattern = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,2}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.train_from_iterator(
        TRAIN,
        trainers.BpeTrainer(
            vocab_size=2000, special_tokens=["<|end|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tok.decoder = decoders.ByteLevel()
    path = str(tmp_path / "byte_level_regex.json")
    tok.save(path)
    return path


def roberta_style(tmp_path) -> str:
    """GPT-2's byte-level BPE as RoBERTa's file spells it: ByteLevel with its regex and a prefix
    space, RobertaProcessing trimming the offsets."""
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.train_from_iterator(
        TRAIN,
        trainers.BpeTrainer(
            vocab_size=1500, special_tokens=["<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tok.post_processor = processors.RobertaProcessing(("</s>", 1), ("<s>", 0), trim_offsets=True, add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    path = str(tmp_path / "roberta.json")
    tok.save(path)
    return path


def gpt2_style(tmp_path) -> str:
    """GPT-2's form: ByteLevel pre-tokenizer without a prefix space, a ByteLevel post-processor
    that trims offsets."""
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(
        TRAIN, trainers.BpeTrainer(vocab_size=1500, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    )
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.decoder = decoders.ByteLevel()
    path = str(tmp_path / "gpt2.json")
    tok.save(path)
    return path


def llama3_style(tmp_path) -> str:
    """Llama 3's shape, which the fused byte-level kernel runs: Split with its regex, ByteLevel
    without one, ignore_merges, a special token and a template."""
    tok = tokenizers.Tokenizer(models.BPE(ignore_merges=True))
    pattern = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+"
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.train_from_iterator(
        TRAIN,
        trainers.BpeTrainer(
            vocab_size=2000, special_tokens=["<|begin|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin|> $A", pair="<|begin|> $A <|begin|>:1 $B:1", special_tokens=[("<|begin|>", 0)]
    )
    tok.decoder = decoders.ByteLevel()
    path = str(tmp_path / "llama3_style.json")
    tok.save(path)
    return path


@pytest.fixture(
    scope="module",
    params=[llama2_style, wordlevel_nfkc, metaspace_bpe, byte_level_regex, roberta_style, gpt2_style, llama3_style],
)
def built(request, tmp_path_factory):
    path = request.param(tmp_path_factory.mktemp("hf"))
    return tokenforge.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path)


def test_byte_level_files_of_llama3_shape_run_fused(tmp_path):
    assert tokenforge.Tokenizer.from_file(llama3_style(tmp_path)).kernel == "byte_level_hf_bpe"
    assert tokenforge.Tokenizer.from_file(byte_level_regex(tmp_path)).kernel == "staged"  # a regex Replace


def test_built_files_equal_hf(built):
    ours, hf = built
    assert ours.kernel in ("staged", "byte_level_hf_bpe", "spm_hf_bpe", "unigram_hf")
    for line in LINES:
        same(ours, hf, line)
    same(ours, hf, LINES[0], LINES[1])
    batch = ours.encode_batch(LINES[:50])
    assert [e.ids for e in batch] == [e.ids for e in hf.encode_batch(LINES[:50])]


TEXT = st.text(
    st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(list(" \n\t  ▁éé日本ｶ\u0301ﬁ<s>"))),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_built_files_equal_hf_on_any_text(built, text):
    ours, hf = built
    same(ours, hf, text)


REAL = ["llama2", "gemma3", "llama3", "qwen3"]


@pytest.mark.slow
@pytest.mark.parametrize("name", REAL)
def test_real_model_folders_equal_hf(name):
    if WHOLE_CORPUS is None:
        pytest.skip("../shared is not at hand")
    path = WHOLE_CORPUS.parent / "vocab" / "hf" / name / "tokenizer.json"
    ours, hf = tokenforge.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    for p in corpus_files(whole=True):
        for line in read_sample(p, 200_000).splitlines()[:2000]:
            same(ours, hf, line)


def test_bad_ids_are_refused_by_every_kernel(built):
    ours, _ = built
    n = ours.get_vocab_size()
    with pytest.raises(ValueError, match=rf"token id {n + 5} is not in this tokenizer's vocabulary"):
        ours.decode([1, n + 5])
    with pytest.raises(ValueError, match="token id -1 is not in this tokenizer's vocabulary"):
        ours.decode([-1])
    with pytest.raises(TypeError):
        ours.decode(["a"])


def _with_post(path: str, post, out) -> str:
    """The file at `path` with HF's post-processor `post`, saved by HF to `out`."""
    tok = tokenizers.Tokenizer.from_file(path)
    tok.post_processor = post
    tok.save(str(out))
    return str(out)


@pytest.mark.parametrize("make", [llama2_style, wordlevel_nfkc, metaspace_bpe, llama3_style])
def test_template_tokens_show_the_template_text(make, tmp_path):
    """A template's special token shows the text the template gives it (HF's
    SpecialToken.tokens), not its id's name: single, pair, truncated parts, BertProcessing and
    RobertaProcessing, on every kernel; save() keeps the texts."""
    path = make(tmp_path)
    hf = tokenizers.Tokenizer.from_file(path)
    a, b, c = (hf.token_to_id(t) for t in list(hf.get_vocab())[10:13])
    posts = {
        "template": processors.TemplateProcessing(
            single="<X> $A <Y> <Z>",
            pair="<X> $A <Y> $B:1 <Z>:1",
            special_tokens=[("<X>", a), ("<Y>", b), ("<Z>", c)],
        ),
        "multi": processors.TemplateProcessing(
            single="W $A",
            pair="W $A W $B:1",
            special_tokens=[{"id": "W", "ids": [a, b], "tokens": ["é", "日本"]}],
        ),
        "bert": processors.BertProcessing(("[S]", b), ("[C]", a)),
        "roberta": processors.RobertaProcessing(("</S>", b), ("<S>", a), trim_offsets=False),
    }
    for name, post in posts.items():
        file = _with_post(path, post, tmp_path / f"{name}.json")
        ours, ref = tokenforge.Tokenizer.from_file(file), tokenizers.Tokenizer.from_file(file)
        for text, pair in [(LINES[0], None), (LINES[1], LINES[2]), ("", None), ("", "")]:
            same(ours, ref, text, pair)
        for t in (ours, ref):
            t.enable_truncation(max_length=14, stride=2)
        got, want = ours.encode(LINES[3], LINES[4]), ref.encode(LINES[3], LINES[4])
        assert [list(o.tokens) for o in got.overflowing] == [o.tokens for o in want.overflowing], name
        assert list(got.tokens) == want.tokens, name
        ours.no_truncation()
        ref.no_truncation()
        saved = str(tmp_path / f"{name}-saved.json")
        ours.save(saved)
        again = tokenizers.Tokenizer.from_file(saved)
        assert again.encode(LINES[1], LINES[2]).tokens == ref.encode(LINES[1], LINES[2]).tokens, name


@pytest.mark.parametrize("make", [wordlevel_nfkc, llama3_style])
def test_overflowing_parts_keep_their_sequence_type_ids(make, tmp_path):
    """HF's templates set the type ids of the whole texts only: the overflowing parts keep their
    sequence's index (0, 1), whatever type id the template gives the sequence; RobertaProcessing
    and BertProcessing build the parts anew with theirs where special tokens are added."""
    path = make(tmp_path)
    hf = tokenizers.Tokenizer.from_file(path)
    a, b = (hf.token_to_id(t) for t in list(hf.get_vocab())[10:12])
    posts = {
        "b0": processors.TemplateProcessing(single="$A:1 <X>", pair="$A:1 <X> $B:0 <X>:1", special_tokens=[("<X>", a)]),
        "b5": processors.TemplateProcessing(single="$A:3", pair="<X>:2 $A:3 $B:5", special_tokens=[("<X>", a)]),
        "roberta": processors.RobertaProcessing(("</s>", b), ("<s>", a), trim_offsets=False),
        "bert": processors.BertProcessing(("[SEP]", b), ("[CLS]", a)),
    }
    for name, post in posts.items():
        file = _with_post(path, post, tmp_path / f"{name}.json")
        ours, ref = tokenforge.Tokenizer.from_file(file), tokenizers.Tokenizer.from_file(file)
        for t in (ours, ref):
            t.enable_truncation(max_length=12, stride=2)
        for add in (True, False):
            for text, pair in [(LINES[3], LINES[4]), (LINES[5], None), (LINES[6], "x")]:
                got, want = ours.encode(text, pair, add), ref.encode(text, pair, add_special_tokens=add)
                where = (name, add, text, pair)
                assert list(got.type_ids) == want.type_ids, where
                assert [list(o.type_ids) for o in got.overflowing] == [o.type_ids for o in want.overflowing], where
                assert [list(o.ids) for o in got.overflowing] == [o.ids for o in want.overflowing], where
        saved = str(tmp_path / f"{name}-saved.json")
        ours.save(saved)
        again = tokenizers.Tokenizer.from_file(saved)  # (the saved file keeps truncation)
        for add in (True, False):
            got, want = (
                again.encode(LINES[3], LINES[4], add_special_tokens=add),
                ref.encode(LINES[3], LINES[4], add_special_tokens=add),
            )
            assert [o.type_ids for o in got.overflowing] == [o.type_ids for o in want.overflowing], (name, add)
            assert got.tokens == want.tokens, (name, add)
