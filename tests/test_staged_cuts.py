"""The staged pipeline's pieces as spans of one normalized text (pipelines/staged.h,
for_each_piece): where the pre-tokenizer only cuts (Whitespace, WhitespaceSplit, BertPreTokenizer,
Punctuation, Digits, CharDelimiterSplit, Split, FixedLength, Sequences of them, or none), the
model reads each piece straight from the stretch's normalized text, and its offsets map back
through that text's alignments. Against HF tokenizers: ids, tokens, offsets and word ids, with
normalizers that move, drop and add characters, with and without added tokens (normalized and
not, lstrip / rstrip), ids first (one text, no truncation: encode_ids) and with the rows."""

from __future__ import annotations

import random
from typing import Any

import pytest

from conftest import corpus_files, read_sample
from tokenforge import Tokenizer

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import AddedToken, Regex, models, normalizers, pre_tokenizers, trainers  # noqa: E402

LINES = [line for path in corpus_files() for line in read_sample(path, 20_000).splitlines() if line.strip()]
ATOMS = ["Hello", "WORLD", " ", "  ", "\n", "\t", "12345", ".", "',", "é", "É", "e\u0301", "Дом", "世界", "😀"]
ATOMS += ["\u00a0", "ﬁ", "²", "<s>", "[MASK]", "hello", " world", "İ", "ǅ", "a-b", "(x)", "\u3000", "ß"]

PRE_TOKENIZERS: dict[str, Any] = {
    "whitespace": pre_tokenizers.Whitespace(),
    "whitespace_split": pre_tokenizers.WhitespaceSplit(),
    "bert": pre_tokenizers.BertPreTokenizer(),
    "punctuation_next": pre_tokenizers.Punctuation("merged_with_next"),
    "digits": pre_tokenizers.Digits(individual_digits=False),
    "char_delimiter": pre_tokenizers.CharDelimiterSplit("e"),
    "split_regex_invert": pre_tokenizers.Split(Regex(r"\p{L}+"), "removed", invert=True),
    "split_string": pre_tokenizers.Split(" ", "merged_with_previous"),
    "fixed_length": pre_tokenizers.FixedLength(length=3),
    "sequence": pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Sequence([pre_tokenizers.BertPreTokenizer(), pre_tokenizers.Digits(individual_digits=True)]),
            pre_tokenizers.Punctuation("contiguous"),
        ]
    ),
    "none": None,
}

NORMALIZERS: dict[str, Any] = {
    "none": None,
    "nfd_lower_strip_accents": normalizers.Sequence(
        [normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()]
    ),
    "strip_prepend": normalizers.Sequence([normalizers.Strip(), normalizers.Prepend("▁")]),
    "replace_nfkc": normalizers.Sequence([normalizers.Replace(Regex(r"\s+"), "  "), normalizers.NFKC()]),
}


def _texts(seed: str) -> list[str]:
    rng = random.Random(seed)
    texts = ["", " ", "Hello, world! 12 345", "  Café déjà vu\tİstanbul ﬁ² ", "x<s>y [MASK] hello world"]
    for _ in range(40):
        if rng.random() < 0.5:
            texts.append(rng.choice(LINES)[: rng.randint(0, 160)])
        else:
            texts.append("".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 25))))
    return texts


def _model(kind: str) -> tuple[Any, Any]:
    if kind == "bpe":
        model = models.BPE(unk_token="<unk>", end_of_word_suffix="</w>")
        return model, trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>"], end_of_word_suffix="</w>")
    if kind == "wordlevel":
        return models.WordLevel(unk_token="<unk>"), trainers.WordLevelTrainer(vocab_size=400, special_tokens=["<unk>"])
    if kind == "wordpiece":
        return models.WordPiece(unk_token="<unk>"), trainers.WordPieceTrainer(vocab_size=400, special_tokens=["<unk>"])
    return models.Unigram(), trainers.UnigramTrainer(vocab_size=1500, special_tokens=["<unk>"], unk_token="<unk>")


def _check(hf: Any, ours: Tokenizer, texts: list[str], where: str) -> None:
    for text in texts:
        want = hf.encode(text, add_special_tokens=False)
        got = ours.encode(text, add_special_tokens=False)
        at = f"{where} on {text!r}"
        assert list(got.ids) == want.ids, at  # (ids first: read before anything else)
        assert list(got.tokens) == want.tokens, at
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], at
        assert list(got.word_ids) == want.word_ids, at
    # A batch (ids first on threads), and rows first (truncation off the ids-first path).
    assert [list(e.ids) for e in ours.encode_batch(texts, add_special_tokens=False)] == [
        e.ids for e in hf.encode_batch(texts, add_special_tokens=False)
    ], where
    ours.enable_truncation(10_000)
    hf.enable_truncation(10_000)
    for text in texts:
        want = hf.encode(text, add_special_tokens=False)
        got = ours.encode(text, add_special_tokens=False)
        assert (list(got.ids), [tuple(o) for o in got.offsets]) == (
            want.ids,
            [tuple(o) for o in want.offsets],
        ), f"{where} (rows first) on {text!r}"


@pytest.mark.parametrize("pre", list(PRE_TOKENIZERS))
@pytest.mark.parametrize("norm", list(NORMALIZERS))
@pytest.mark.parametrize("added", [False, True])
def test_cut_pieces_match_hf(tmp_path, pre, norm, added):
    kind = ["bpe", "wordlevel", "wordpiece", "unigram"][(list(PRE_TOKENIZERS).index(pre) + len(norm)) % 4]
    model, trainer = _model(kind)
    tok = tokenizers.Tokenizer(model)
    if NORMALIZERS[norm] is not None:
        tok.normalizer = NORMALIZERS[norm]
    if PRE_TOKENIZERS[pre] is not None:
        tok.pre_tokenizer = PRE_TOKENIZERS[pre]
    tok.train_from_iterator(LINES[:400], trainer=trainer)
    if added:
        tok.add_special_tokens([AddedToken("<s>", normalized=False), AddedToken("[MASK]", lstrip=True)])
        tok.add_tokens([AddedToken("hello", normalized=True), AddedToken(" world", rstrip=True, normalized=False)])
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = Tokenizer.from_file(path)
    assert ours.kernel == "staged"
    _check(hf, ours, _texts(f"{pre}-{norm}"), f"{kind} over {norm} / {pre}" + (" + added" if added else ""))
