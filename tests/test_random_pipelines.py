"""Random tokenizer.json files against HF tokenizers: each file a random choice of normalizer,
pre-tokenizer, model (BPE with its options, WordPiece, Unigram, WordLevel, trained here by HF's
own trainers on the corpus samples), post-processor, decoder and added tokens (every flag),
written by HF, read back by both, then compared on mixed texts: ids, tokens, offsets (with
and without a pair), and decode with and without skipping special tokens. Components that no
real file combines are combined here on purpose: a file the tests never saw is what users
bring. Where HF itself panics on a text (its Strip decoder on short outputs, its added-token
split on some normalized tokens), that text is skipped.

The default run builds FUZZ_EXAMPLES files (conftest); more with TOKENFORGE_FUZZ_EXAMPLES=500."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from conftest import FUZZ_EXAMPLES, corpus_files, read_sample
from tokenforge import Tokenizer

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

LINES = [line for path in corpus_files() for line in read_sample(path, 30_000).splitlines() if line.strip()]
# Text pieces for mixed texts: whitespace runs, CRLF, case, digits, accents (composed and not),
# CJK, emoji with modifiers, compatibility forms, special-token text and its lookalikes, the
# markers of other models ("▁", "Ġ", "##").
ATOMS = ["a", "Hello", "WORLD", " ", "  ", "\n", "\r\n", "\t", "1", "12345", ".", "/", "'", "'s", "é", "É", "e\u0301"]
ATOMS += ["Дом", "ß", "世界", "ー", "😀", "👍🏽", "\u00a0", "\u3000", "ﬁ", "Ⅻ", "²", "٣", "<s>", "</s>", "[MASK]"]
ATOMS += ["<mask>", "▁", "##", "Ġ", "<unk>", "<|endoftext|>", "  \n ", "a\u200db", "ǅ", "İ", "ſ", "hello", " world"]
SPECIALS = ["<s>", "</s>", "<unk>", "[CLS]", "[SEP]", "<pad>", "[MASK]"]
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
REGEXES = [
    r"\s+",
    r"\p{L}+|\p{N}|[^\s\p{L}\p{N}]+",
    r"'s|'t|\w+",
    r"\d{1,3}",
    r"(?i:hello)",
    r"[^\r\n\p{L}\p{N}]?\p{L}+",
    # GPT-2's and cl100k's patterns (lookahead, case-insensitive groups), scripts, possessive
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"\p{Han}+|\p{Hiragana}+|[a-z]++",
]


def text_of(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(LINES)[: rng.randint(0, 200)]
    return "".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 30)))


def normalizer_of(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.choice(["NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip", "StripAccents", "Replace", "Regex"] * 2)
    kind = rng.choice([kind, "Prepend", "Bert", "Sequence" if depth == 0 else "ByteLevel", "none"])
    if kind == "Strip":
        return normalizers.Strip(left=rng.random() < 0.5, right=rng.random() < 0.5)
    if kind == "Replace":
        return normalizers.Replace(rng.choice([" ", "a", "é", "  "]), rng.choice(["▁", "", "XY", " "]))
    if kind == "Regex":
        pattern = rng.choice([r"\s+", r"[0-9]", r"(?i)hello", r" {2,}", r"\p{P}"])
        return normalizers.Replace(Regex(pattern), rng.choice(["▁", "", " ", "#"]))
    if kind == "Prepend":
        return normalizers.Prepend(rng.choice(["▁", " ", "X"]))
    if kind == "Bert":
        return normalizers.BertNormalizer(
            clean_text=rng.random() < 0.5,
            handle_chinese_chars=rng.random() < 0.5,
            strip_accents=rng.choice([None, True, False]),
            lowercase=rng.random() < 0.5,
        )
    if kind == "Sequence":
        return normalizers.Sequence(
            [n for n in (normalizer_of(rng, 1) for _ in range(rng.randint(1, 3))) if n is not None]
        )
    if kind == "none":
        return None
    return getattr(normalizers, kind)()


def pre_tokenizer_of(rng: random.Random, depth: int = 0) -> Any:
    kinds = ["ByteLevel", "Split", "Regex", "Whitespace", "WhitespaceSplit", "Punctuation", "Digits", "Metaspace"]
    kind = rng.choice(
        [*kinds, "CharDelimiterSplit", "BertPreTokenizer", "UnicodeScripts", "FixedLength", "Sequence", "none"]
    )
    if kind == "ByteLevel":
        return pre_tokenizers.ByteLevel(
            add_prefix_space=rng.random() < 0.5, use_regex=rng.random() < 0.7, trim_offsets=rng.random() < 0.5
        )
    if kind in ("Split", "Regex"):
        pattern = rng.choice([" ", "a", "\n", ".", "é"]) if kind == "Split" else Regex(rng.choice(REGEXES))
        return pre_tokenizers.Split(pattern, rng.choice(BEHAVIORS), invert=rng.random() < 0.3)
    if kind == "Punctuation":
        return pre_tokenizers.Punctuation(rng.choice(BEHAVIORS))
    if kind == "Digits":
        return pre_tokenizers.Digits(individual_digits=rng.random() < 0.5)
    if kind == "Metaspace":
        scheme = rng.choice(["first", "always", "never"])
        return pre_tokenizers.Metaspace(
            replacement=rng.choice(["▁", "_"]), prepend_scheme=scheme, split=rng.random() < 0.5
        )
    if kind == "CharDelimiterSplit":
        return pre_tokenizers.CharDelimiterSplit(rng.choice([" ", "e", "\n"]))
    if kind == "FixedLength":
        return pre_tokenizers.FixedLength(length=rng.randint(1, 8))
    if kind == "Sequence" and depth == 0:
        return pre_tokenizers.Sequence([p for p in (pre_tokenizer_of(rng, 1) for _ in range(3)) if p is not None])
    if kind in ("Sequence", "none"):
        return None
    return getattr(pre_tokenizers, kind)()


def trained(rng: random.Random) -> tuple[str, Any]:
    """A tokenizer with a random normalizer and pre-tokenizer, its model trained on some lines."""
    kind = rng.choice(["BPE", "BPE", "WordPiece", "Unigram", "WordLevel"])
    alphabet = pre_tokenizers.ByteLevel.alphabet() if rng.random() < 0.3 else []
    size = rng.randint(100, 600)
    if kind == "BPE":
        affixes: dict[str, str] = {}
        if rng.random() < 0.3:
            affixes["continuing_subword_prefix"] = "##"
        if rng.random() < 0.3:
            affixes["end_of_word_suffix"] = "</w>"
        model = models.BPE(
            unk_token="<unk>" if rng.random() < 0.7 else None,
            byte_fallback=rng.random() < 0.3,
            fuse_unk=rng.random() < 0.5,
            ignore_merges=rng.random() < 0.3,
            **affixes,
        )
        trainer = trainers.BpeTrainer(vocab_size=size, special_tokens=SPECIALS, initial_alphabet=alphabet, **affixes)
    elif kind == "WordPiece":
        model = models.WordPiece(unk_token="<unk>", max_input_chars_per_word=rng.choice([5, 100]))
        trainer = trainers.WordPieceTrainer(vocab_size=size, special_tokens=SPECIALS, initial_alphabet=alphabet)
    elif kind == "Unigram":
        model = models.Unigram()
        trainer = trainers.UnigramTrainer(  # (smaller vocabularies cannot hold every character of the lines)
            vocab_size=size + 2000, special_tokens=SPECIALS, unk_token="<unk>", initial_alphabet=alphabet
        )
    else:
        model = models.WordLevel(unk_token="<unk>")
        trainer = trainers.WordLevelTrainer(vocab_size=size, special_tokens=SPECIALS)
    tok = tokenizers.Tokenizer(model)
    normalizer, pre_tokenizer = normalizer_of(rng), pre_tokenizer_of(rng)
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    tok.train_from_iterator(LINES[: rng.randint(50, 600)], trainer=trainer)
    return kind, tok


def post_processor_of(rng: random.Random, tok: Any) -> Any:
    kind = rng.choice(["Template", "Bert", "Roberta", "ByteLevel", "Sequence", "none", "none"])
    cls, sep = ("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))
    if kind == "Template":
        return processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[cls, sep]
        )
    if kind == "Bert":
        return processors.BertProcessing(sep, cls)
    if kind == "Roberta":
        return processors.RobertaProcessing(
            sep, cls, trim_offsets=rng.random() < 0.5, add_prefix_space=rng.random() < 0.5
        )
    if kind == "ByteLevel":
        return processors.ByteLevel(trim_offsets=rng.random() < 0.5)
    if kind == "Sequence":
        template = processors.TemplateProcessing(single="$A [SEP]", pair="$A [SEP] $B:1", special_tokens=[sep])
        return processors.Sequence([processors.ByteLevel(trim_offsets=rng.random() < 0.5), template])
    return None


def decoder_of(rng: random.Random) -> Any:
    kind = rng.choice(["ByteLevel", "Metaspace", "WordPiece", "ByteFallback", "Fuse", "Strip", "Replace"])
    kind = rng.choice([kind, "BPEDecoder", "CTC", "Sequence", "none"])
    if kind == "Metaspace":
        return decoders.Metaspace(replacement="▁", prepend_scheme=rng.choice(["first", "always", "never"]))
    if kind in ("WordPiece", "CTC"):
        return getattr(decoders, kind)(cleanup=rng.random() < 0.5)
    if kind == "Strip":
        return decoders.Strip(content=" ", left=rng.randint(0, 2), right=rng.randint(0, 2))
    if kind == "Replace":
        return decoders.Replace("▁", " ")
    if kind == "BPEDecoder":
        return decoders.BPEDecoder(suffix="</w>")
    if kind == "Sequence":
        return decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
        )
    if kind == "none":
        return None
    return getattr(decoders, kind)()


def random_file(seed: int) -> tuple[str, dict[str, Any]]:
    rng = random.Random(f"random-pipeline-{seed}")
    kind, tok = trained(rng)
    post, decoder = post_processor_of(rng, tok), decoder_of(rng)
    if post is not None:
        tok.post_processor = post
    if decoder is not None:
        tok.decoder = decoder
    if rng.random() < 0.3:
        longest = rng.randint(4, 40)
        tok.enable_truncation(
            longest,
            stride=rng.choice([0, 0, 1, 3]) if longest > 8 else 0,
            strategy=rng.choice(["longest_first", "only_first", "only_second"]),
            direction=rng.choice(["right", "left"]),
        )
    if rng.random() < 0.3:
        tok.enable_padding(
            direction=rng.choice(["right", "left"]),
            pad_id=5,
            pad_token="<pad>",
            length=rng.choice([None, 50]),
            pad_to_multiple_of=rng.choice([None, 8]),
        )
    if kind in ("BPE", "Unigram") and rng.random() < 0.3:  # byte_fallback, with the 256 byte tokens
        doc = json.loads(tok.to_str())
        model = doc["model"]
        byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
        if kind == "Unigram":
            model["vocab"] += [[b, -30.0] for b in byte_tokens]
        else:
            for b in byte_tokens:
                model["vocab"].setdefault(b, max(model["vocab"].values()) + 1)
        model["byte_fallback"] = True
        tok = tokenizers.Tokenizer.from_str(json.dumps(doc))
    added = []
    for _ in range(rng.randint(0, 4)):
        content = rng.choice(["<s>", "[MASK]", "hello", " world", "é", "<|x|>", "ab", "Дом", "\n", "▁x"])
        flags = {k: rng.random() < 0.3 for k in ("single_word", "lstrip", "rstrip")}
        added.append(tokenizers.AddedToken(content, normalized=rng.random() < 0.5, special=rng.random() < 0.5, **flags))
    # An added token its own normalizer empties makes HF cut every character apart, and panic
    # on text that is not ASCII: not a file anyone can use, so not made here.
    if tok.normalizer is not None:
        added = [a for a in added if not a.normalized or tok.normalizer.normalize_str(a.content)]
    tok.add_tokens([a for a in added if not a.special])
    tok.add_special_tokens([a for a in added if a.special])
    return kind, json.loads(tok.to_str())


# Files past the default count that the base build of this session (bb8ffb5) gets wrong:
# unknown Unigram pieces in pairs' overflowing parts, with padding, BPE byte-fallback offsets.
FOUND = (46, 1681, 2536, 2926, 2961, 3579)


@pytest.mark.parametrize("seed", sorted({*range(FUZZ_EXAMPLES), *FOUND}))
def test_random_file_runs_as_hf(seed, tmp_path):
    kind, doc = random_file(seed)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    try:
        hf = tokenizers.Tokenizer.from_file(str(path))
    except Exception as e:
        # HF tokenizers writes a trained Unigram's score it cannot read back (null for a
        # non-finite one): its from_file fails on its own to_str
        if "invalid type: null, expected f64" not in str(e):
            raise
        pytest.skip(f"random file {seed}: HF cannot read its own file back ({e})")
    ours = Tokenizer.from_file(path)
    rng = random.Random(f"random-pipeline-texts-{seed}")
    inputs: list[str | tuple[str, str]] = []
    for _ in range(25):
        text = text_of(rng)
        pair = text_of(rng) if rng.random() < 0.2 else None
        try:
            want = hf.encode(text, pair)
        except BaseException as e:  # noqa: BLE001 (HF panicked: pyo3's PanicException is a BaseException)
            if not type(e).__name__.endswith("PanicException"):  # HF refused (truncation): so must we
                with pytest.raises(ValueError):
                    ours.encode(text, pair)
            continue
        got = ours.encode(text, pair)
        where = f"{kind} file {seed} on {text!r}" + ("" if pair is None else f" + {pair!r}")
        assert list(got.ids) == want.ids, where
        assert list(got.tokens) == want.tokens, where
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], where
        assert (got.type_ids, got.attention_mask) == (want.type_ids, want.attention_mask), where
        assert (got.special_tokens_mask, got.word_ids) == (want.special_tokens_mask, want.word_ids), where
        assert [(list(o.ids), list(o.tokens)) for o in got.overflowing] == [
            (o.ids, o.tokens) for o in want.overflowing
        ], where
        try:
            plain = hf.encode(text, pair, add_special_tokens=False).ids
        except Exception:  # noqa: BLE001 (HF cannot truncate so: ours must refuse too)
            with pytest.raises(ValueError):
                ours.encode(text, pair, add_special_tokens=False)
        else:
            assert list(ours.encode(text, pair, add_special_tokens=False).ids) == plain, where
        for skip in (False, True):
            try:
                decoded = hf.decode(want.ids, skip_special_tokens=skip)
            except BaseException:  # noqa: BLE001 (as above)
                continue
            assert ours.decode(got.ids, skip_special_tokens=skip) == decoded, (where, skip)
            assert _streamed(ours.decode_stream(skip), got.ids) == _streamed(
                decoders.DecodeStream(skip_special_tokens=skip), want.ids, hf
            ), (where, skip)
        inputs.append(text if pair is None else (text, pair))
    # A batch on threads, and the file tokenforge writes, read back by HF.
    want_batch = [e.ids for e in hf.encode_batch(inputs)]
    assert [list(e.ids) for e in ours.encode_batch(inputs)] == want_batch
    ours.save(tmp_path / "saved.json")
    assert [
        e.ids for e in tokenizers.Tokenizer.from_file(str(tmp_path / "saved.json")).encode_batch(inputs)
    ] == want_batch


def _streamed(stream: Any, ids: list[int], hf: Any = None) -> list[str | None] | str:
    """What a decode stream gives id by id, or "error" where it raised (both refuse a stream
    whose text went back on what it gave: HF with a bare Exception)."""
    try:
        return [stream.step(hf, i) if hf is not None else stream.step(i) for i in ids]
    except BaseException:  # noqa: BLE001 (see above)
        return "error"


# Cases the random files found, each its own small file (every one failed before its fix).


def _unigram(pieces: list[str], **kw: Any) -> Any:
    vocab = [("<unk>", 0.0), *[(p, -1.0 - i / 100) for i, p in enumerate(pieces)]]
    return tokenizers.Tokenizer(models.Unigram(vocab, unk_id=0, **kw))


def _same(tok: Any, tmp_path: Any, texts: list[str], pair: str | None = None) -> None:
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = Tokenizer.from_file(path)
    for text in texts:
        want, got = hf.encode(text, pair), ours.encode(text, pair)
        assert (list(got.ids), list(got.tokens)) == (want.ids, want.tokens), text
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], text
        assert ours.decode(got.ids) == hf.decode(want.ids), text
        assert [list(o.tokens) for o in got.overflowing] == [o.tokens for o in want.overflowing], text


def test_trim_offsets_of_unknown_pieces(tmp_path):
    """The ByteLevel post-processor trims the spaces of the text an unknown Unigram token shows."""
    tok = _unigram(["a", "b", "ab"])
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    _same(tok, tmp_path, ["Ġa b", "a Ġ", "ĠĠab Ġx", "\u3000a"])
    tok.pre_tokenizer = pre_tokenizers.Split("x", "removed")
    _same(tok, tmp_path, ["a \n", " \t b x a\u3000", "  ab  "])


def test_lstrip_after_rstrip_leaves_no_empty_token(tmp_path):
    """An lstrip token right after an rstrip one that took its whitespace: HF's split is empty."""
    tok = tokenizers.Tokenizer(models.WordLevel({"<unk>": 0, "a": 1}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_tokens([tokenizers.AddedToken("\n", lstrip=True, rstrip=True, normalized=False)])
    _same(tok, tmp_path, ["\n\na", "a\n\n", "a \n \n \n a", "\n"])


def test_unigram_piece_named_by_a_normalized_added_token(tmp_path):
    """The model's own token of an id an added token renames still shows the model's piece."""
    tok = _unigram(["[MASK]", " ", "x"])
    tok.normalizer = normalizers.Prepend(" ")
    tok.add_special_tokens([tokenizers.AddedToken("[MASK]", single_word=True, normalized=True)])
    _same(tok, tmp_path, ["[MASK]世", "x [MASK]世", "[MASK]", "x[MASK] x"])


@pytest.mark.parametrize("replacement", ["_", "▁"])
def test_metaspace_first_after_a_stripped_start(tmp_path, replacement):
    """prepend_scheme "first" prefixes only a text whose normalized start is the input's start."""
    tok = _unigram([replacement, "a", "b", replacement + "a", "ab"])
    tok.normalizer = normalizers.Strip(left=True, right=False)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=replacement, prepend_scheme="first", split=False)
    _same(tok, tmp_path, [" ab", "ab", "  a b", " 世a"])
    _same(tok, tmp_path, ["a"], pair=" ab")


def test_wordpiece_file_without_a_decoder(tmp_path):
    """No decoder: HF joins the tokens with spaces, "##" and all."""
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "ma": 3, "##s": 4, "##k": 5, "h": 6, "##ello": 7}
    tok = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    _same(tok, tmp_path, ["mask hello", "masks"])


def _byte_level_bpe() -> Any:
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    tok.train_from_iterator(LINES[:300], trainers.BpeTrainer(vocab_size=400, initial_alphabet=alphabet))
    return tok


def _metaspace_bpe() -> Any:
    tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(LINES[:300], trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>"]))
    return tok


def _metaspace_unigram() -> Any:
    tok = tokenizers.Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=2500, special_tokens=["<unk>"], unk_token="<unk>")
    tok.train_from_iterator(LINES[:300], trainer)
    return tok


def _whitespace_wordlevel() -> Any:
    tok = tokenizers.Tokenizer(models.WordLevel({"<unk>": 0, "x": 1, "y": 2}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tok


@pytest.mark.parametrize("make", [_byte_level_bpe, _metaspace_bpe, _metaspace_unigram, _whitespace_wordlevel])
def test_rstrip_match_reaching_past_the_next_one(tmp_path, make):
    """A whitespace token with rstrip takes the whitespace after it, where the next match of it
    starts: HF's spans overlap. Offsets count characters, which the fused kernels count forward
    (each kernel's case; the last file runs staged)."""
    tok = make()
    tok.add_tokens([tokenizers.AddedToken("\n", rstrip=True, normalized=False)])
    tok.add_special_tokens([tokenizers.AddedToken(" world", rstrip=True, normalized=False)])
    texts = ["x\n\n\u3000\n y", "x world\n\u3000y", "é\n\u3000\n\u00a0\n é", "\n\n\n", "\u3000\n\u3000\nx"]
    _same(tok, tmp_path, texts)


@pytest.mark.parametrize("direction", ["left", "right"])
def test_unknown_pieces_keep_their_text_when_trimmed_parts_are_cut(tmp_path, direction):
    """Truncation before trim_offsets (HF trims each part): the parts' unknown Unigram tokens
    still show the text they cover."""
    tok = _unigram(["a", "b", "ab", " "])
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.enable_truncation(4, stride=1, direction=direction)
    _same(tok, tmp_path, ["a ż b ab ż a b ż", "żżż a", "a b"])
    tok.enable_truncation(1, stride=0, direction=direction)
    _same(tok, tmp_path, ["ż a", "a ż"])


@pytest.mark.parametrize("affix", [{"continuing_subword_prefix": "##"}, {"end_of_word_suffix": "</w>"}])
def test_byte_fallback_tokens_of_an_affix(tmp_path, affix):
    """byte_fallback writes the affix's bytes as tokens too, one byte each: offsets run past the
    word and past the text, where HF keeps them as the model gave them."""
    vocab = {"<unk>": 0, "w": 1, "r": 2, "##y": 3, "y</w>": 4, **{f"<0x{b:02X}>": 5 + b for b in range(256)}}
    tok = tokenizers.Tokenizer(models.BPE(vocab, [], unk_token="<unk>", byte_fallback=True, **affix))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    _same(tok, tmp_path, ["wyjście r", "wś", "\\c", "ś", "r ś w", "wyy"])
