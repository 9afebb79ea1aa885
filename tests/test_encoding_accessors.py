"""HF Encoding's word and sequence accessors (word_ids, sequence_ids, n_sequences, char_to_token,
token_to_chars, word_to_tokens, token_to_word, token_to_sequence, char_to_word, word_to_chars)
and DecodeStream, against HF `tokenizers` itself on tokenizer.json files HF builds here: BERT
WordPiece (pairs, truncation with stride, padding), byte-level BPE (the fused kernel), Metaspace
BPE, Unigram and a Whitespace/Punctuation pipeline (the staged kernel), and tiktoken's cl100k
(the fused byte_level_bpe kernel) against the tokenizer.json tokenforge writes for it."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files, read_sample
from tokenforge import Tokenizer

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import AddedToken, decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

LINES = [line for path in corpus_files() for line in read_sample(path, 20_000).splitlines() if line.strip()]
SAMPLES = [line[:160] for line in LINES[::41]] + ["", " ", "héllo wörld  日本語。 [MASK] xyz", "a\u0301 b\t\nc"]
TEXT = st.text(
    st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from(list(" \t\n,.!'-ab12éé日本▁Ġ#xyz"))),
    max_size=30,
)
TRAIN = LINES[::3]


# --- the files -------------------------------------------------------------------------------


def bert_doc() -> dict[str, Any]:
    tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(TRAIN, trainers.WordPieceTrainer(vocab_size=800, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    tok.add_tokens([AddedToken("xyz", normalized=False)])
    return json.loads(tok.to_str())


def byte_level_doc() -> dict[str, Any]:
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=800,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TRAIN, trainer)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.add_tokens([AddedToken(" xyz", normalized=False)])
    return json.loads(tok.to_str())


def byte_level_trim_doc() -> dict[str, Any]:
    """The byte-level file with a post-processor that trims offsets (ByteLevel's add_prefix_space
    rule keeps the first token's single leading space, per overflowing part too)."""
    doc = byte_level_doc()
    doc["post_processor"] = json.loads(processors.ByteLevel(trim_offsets=True, add_prefix_space=True).__getstate__())
    return doc


def roberta_doc() -> dict[str, Any]:
    doc = byte_level_doc()
    eot = doc["model"]["vocab"]["<|endoftext|>"]
    roberta = processors.RobertaProcessing(("<|endoftext|>", eot), ("<|endoftext|>", eot), add_prefix_space=True)
    doc["post_processor"] = json.loads(roberta.__getstate__())
    return doc


def metaspace_bpe_doc() -> dict[str, Any]:
    tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace(prepend_scheme="first")])
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tok.train_from_iterator(TRAIN, trainers.BpeTrainer(vocab_size=900, special_tokens=specials, show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", tok.token_to_id("<s>"))]
    )
    tok.add_special_tokens(["xyz"])
    return json.loads(tok.to_str())


def unigram_doc() -> dict[str, Any]:
    tok = tokenizers.Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(" ", " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=4000, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(TRAIN, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", tok.token_to_id("</s>"))]
    )
    return json.loads(tok.to_str())


def whitespace_doc() -> dict[str, Any]:
    tok = tokenizers.Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation()])
    tok.train_from_iterator(TRAIN, trainers.WordLevelTrainer(vocab_size=500, special_tokens=["[UNK]", "[PAD]"]))
    tok.add_tokens([AddedToken("xyz", normalized=False)])
    return json.loads(tok.to_str())  # no post-processor: one text has no sequence ranges


DOCS = {
    "bert": (bert_doc, "wordpiece"),
    "byte_level": (byte_level_doc, "byte_level_hf_bpe"),
    "byte_level_trim": (byte_level_trim_doc, "staged"),
    "roberta": (roberta_doc, "staged"),
    "metaspace_bpe": (metaspace_bpe_doc, "spm_hf_bpe"),
    "metaspace_bpe_staged": (metaspace_bpe_doc, "staged"),  # the same file forced onto the staged kernel
    "unigram": (unigram_doc, "staged"),
    "whitespace": (whitespace_doc, "staged"),
}
_PAIRS: dict[str, tuple[Any, Tokenizer]] = {}


def pair_of(name: str, tmp_path_factory) -> tuple[Any, Tokenizer]:
    """HF's tokenizer and ours for one file (built once)."""
    if name not in _PAIRS:
        path = tmp_path_factory.mktemp(name) / "tokenizer.json"
        if name == "cl100k":  # ours over the Encoding, HF's over the file tokenforge writes for it
            from tokenforge import get_encoding

            ours = Tokenizer(get_encoding("cl100k_base"))
            ours.save(path)
        else:
            path.write_text(json.dumps(DOCS[name][0]()))
            ours = Tokenizer.from_file(path)
            if DOCS[name][1] == "staged" and ours.kernel != "staged":
                ours = Tokenizer.from_spec(dataclasses.replace(ours.spec, kernel="staged"))
        _PAIRS[name] = (tokenizers.Tokenizer.from_file(str(path)), ours)
    return _PAIRS[name]


NAMES = [*DOCS, "cl100k"]


# --- the comparison --------------------------------------------------------------------------


def same_encoding(ours: Any, theirs: Any, where: str) -> None:
    """Every accessor of ours answers as HF's, on every index in range and a few past it."""
    assert ours.ids == theirs.ids, where
    assert [tuple(o) for o in ours.offsets] == [tuple(o) for o in theirs.offsets], where
    assert ours.word_ids == theirs.word_ids, where
    assert ours.sequence_ids == theirs.sequence_ids, where
    assert ours.n_sequences == theirs.n_sequences, where
    n = len(theirs.ids)
    for i in range(n + 2):
        assert ours.token_to_sequence(i) == theirs.token_to_sequence(i), (where, i)
        assert ours.token_to_chars(i) == theirs.token_to_chars(i), (where, i)
        assert ours.token_to_word(i) == theirs.token_to_word(i), (where, i)
    words = [w for w in theirs.word_ids if w is not None]
    top_char = max([e for _, e in theirs.offsets], default=0)
    for s in range(3):
        for w in range(max(words, default=0) + 2):
            assert ours.word_to_tokens(w, s) == theirs.word_to_tokens(w, s), (where, w, s)
            assert ours.word_to_chars(w, s) == theirs.word_to_chars(w, s), (where, w, s)
        for c in range(top_char + 2):
            assert ours.char_to_token(c, s) == theirs.char_to_token(c, s), (where, c, s)
            assert ours.char_to_word(c, s) == theirs.char_to_word(c, s), (where, c, s)
    assert ours.char_to_token(3) == theirs.char_to_token(3) and ours.word_to_tokens(0) == theirs.word_to_tokens(0)
    assert len(ours.overflowing) == len(theirs.overflowing), where
    for k, (o, t) in enumerate(zip(ours.overflowing, theirs.overflowing)):
        same_encoding(o, t, f"{where} overflowing[{k}]")


def check(hf: Any, tok: Tokenizer, text: str, pair: str | None = None) -> None:
    """The encodings of text (and pair) by both; where HF refuses (truncation that cannot fit),
    ours refuses too."""
    where = f"on {text!r}" + ("" if pair is None else f" + {pair!r}")
    try:
        theirs = hf.encode(text) if pair is None else hf.encode(text, pair)
    except Exception:  # noqa: BLE001 (HF raises a bare Exception)
        with pytest.raises(ValueError):
            tok.encode(text, pair)
        return
    same_encoding(tok.encode(text, pair), theirs, where)


@pytest.mark.parametrize("name", NAMES)
def test_kernels(tmp_path_factory, name):
    """Each file runs on the kernel meant to be tested through it."""
    _, tok = pair_of(name, tmp_path_factory)
    assert tok.kernel == (DOCS[name][1] if name in DOCS else "byte_level_bpe")


@pytest.mark.parametrize("name", NAMES)
def test_accessors_on_samples(tmp_path_factory, name):
    hf, tok = pair_of(name, tmp_path_factory)
    for i, text in enumerate(SAMPLES):
        check(hf, tok, text)
        check(hf, tok, text, SAMPLES[(i + 5) % len(SAMPLES)])
    check(hf, tok, "one", "")
    check(hf, tok, "", "")


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(text=TEXT, pair=st.none() | TEXT)
def test_accessors_on_any_text(tmp_path_factory, name, text, pair):
    hf, tok = pair_of(name, tmp_path_factory)
    check(hf, tok, text, pair)


@pytest.mark.parametrize("name", ["bert", "whitespace", "byte_level", "byte_level_trim", "roberta"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_stride_padding(tmp_path_factory, name, direction):
    """Overflowing parts and padding keep words and sequences as HF's, one text and pairs, each
    truncation strategy (the texts made long enough to overflow)."""
    hf, tok = pair_of(name, tmp_path_factory)
    try:
        for strategy in ("longest_first", "only_first", "only_second"):
            for t in (hf, tok):
                t.enable_truncation(12, stride=3, strategy=strategy, direction=direction)
                t.enable_padding(direction=direction, pad_id=1, pad_token="[PAD]", length=16)
            for i, text in enumerate(SAMPLES[:12]):
                pair = SAMPLES[(i + 3) % len(SAMPLES)]
                if strategy != "only_second":
                    check(hf, tok, text)
                if len(text) > 40 and len(pair) > 40:
                    check(hf, tok, text, pair)
    finally:
        for t in (hf, tok):
            t.no_truncation()
            t.no_padding()


def test_batches_and_add_special_tokens(tmp_path_factory):
    hf, tok = pair_of("bert", tmp_path_factory)
    texts = SAMPLES[:6]
    for ours, theirs in zip(tok.encode_batch(texts), hf.encode_batch(texts)):
        same_encoding(ours, theirs, "batch")
    same_encoding(
        tok.encode("a b, c", "d", add_special_tokens=False), hf.encode("a b, c", "d", add_special_tokens=False), ""
    )


def test_out_of_range_and_bad_arguments(tmp_path_factory):
    hf, tok = pair_of("bert", tmp_path_factory)
    ours, theirs = tok.encode("hello world", "again"), hf.encode("hello world", "again")
    for big in (10**6, 2**40):
        assert ours.token_to_word(big) is None is theirs.token_to_word(big)
        assert ours.char_to_token(big, 1) is None is theirs.char_to_token(big, 1)
        assert ours.char_to_word(0, big) == theirs.char_to_word(0, big)
    assert ours.word_to_tokens(10**6) is None is theirs.word_to_tokens(10**6)
    for call in (
        lambda e: e.token_to_word(-1),
        lambda e: e.char_to_token(-1),
        lambda e: e.word_to_tokens(2**32),
        lambda e: e.word_to_chars(0, -2),
    ):
        with pytest.raises(OverflowError):
            call(theirs)
        with pytest.raises(OverflowError):
            call(ours)
    with pytest.raises(TypeError):
        ours.token_to_word("0")
    with pytest.warns(DeprecationWarning):
        assert ours.words == ours.word_ids


# --- DecodeStream ----------------------------------------------------------------------------


def same_stream(hf: Any, tok: Tokenizer, ids: list[int], skip: bool, where: str) -> None:
    """Ours and HF's DecodeStream give the same chunk after every id of ids."""
    theirs = decoders.DecodeStream(skip_special_tokens=skip)
    ours = tok.decode_stream(skip_special_tokens=skip)

    def outcome(step: Any) -> Any:
        try:
            return step()
        except Exception as e:  # noqa: BLE001 (HF raises a bare Exception for InvalidPrefix)
            assert "Invalid prefix" in str(e), e
            return "error"

    for k, i in enumerate(ids):
        got = outcome(lambda: ours.step(i))
        assert got == outcome(lambda: theirs.step(hf, i)), (where, k)
        if got == "error":
            return


@pytest.mark.parametrize("name", NAMES)
def test_decode_stream_on_samples(tmp_path_factory, name):
    hf, tok = pair_of(name, tmp_path_factory)
    for text in [*SAMPLES[:40], "héllo 👋 日本語 xyz", "a  b\n\n c"]:
        ids = hf.encode(text).ids
        for skip in (True, False):
            same_stream(hf, tok, ids, skip, f"{text!r} skip={skip}")


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=30, deadline=None)
@given(text=TEXT, data=st.data())
def test_decode_stream_on_any_ids(tmp_path_factory, name, text, data):
    """Encoded texts, and ids in any order (pieces of characters, special tokens among them)."""
    hf, tok = pair_of(name, tmp_path_factory)
    same_stream(hf, tok, hf.encode(text).ids, True, repr(text))
    size = min(hf.get_vocab_size(), 100_000)
    ids = data.draw(st.lists(st.integers(0, size - 1), max_size=12))
    ids = [i for i in ids if hf.id_to_token(i) is not None]
    same_stream(hf, tok, ids, data.draw(st.booleans()), repr(ids))


def test_decode_stream_cost_stays_in_the_window(tmp_path_factory):
    """A long stream decodes only its window per step: each decode call sees a few ids."""
    hf, tok = pair_of("byte_level", tmp_path_factory)
    ids = hf.encode(" ".join(SAMPLES[:30])).ids
    seen: list[int] = []
    from tokenforge.decoders.streaming import DecodeStream

    def decode(window: list[int], skip: bool) -> str:
        seen.append(len(window))
        return tok.decode(window, skip)

    stream = DecodeStream(decode, True)
    text = "".join(stream.step(i) or "" for i in ids)
    assert text == hf.decode(ids)
    assert max(seen) <= 8


# --- the sentencepiece kernel ----------------------------------------------------------------


def test_sentencepiece_kernel_words_and_stream():
    """A Llama-style BPE .model: transformers converts it to Metaspace(split=False) with no other
    splitting, so each stretch between added tokens is one word and each added token one more;
    the stream's chunks join to the decode of the whole (sentencepiece's decoder)."""
    from conftest import SHARED

    tok = Tokenizer.from_file(SHARED / "vocab" / "mistral-7b-v0.1.model")
    assert tok.kernel == "sentencepiece"
    for text in SAMPLES[:30]:
        e = tok.encode(f"{text}</s>{text[::-1]}", f"b {text}", allowed_special={"</s>"})
        eos = tok.token_to_id("</s>")
        expected: list[int | None] = []
        word, previous, sequence = -1, None, None
        for i, s in zip(e.ids, e.sequence_ids):
            if s is None:
                expected.append(None)
                continue
            if s != sequence:
                word, previous, sequence = -1, None, s
            kind = "added" if i == eos else "text"
            word += kind == "added" or previous != "text"
            expected.append(word)
            previous = kind
        assert e.word_ids == expected, text
        assert e.n_sequences == 2 and set(e.sequence_ids) <= {None, 0, 1}
        for skip in (True, False):
            ids = tok.encode(text).ids
            stream = tok.decode_stream(skip_special_tokens=skip)
            assert "".join(stream.step(i) or "" for i in ids) == tok.decode(ids, skip), text
