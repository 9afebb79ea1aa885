"""CLIP's tokenizer.json files (transformers' CLIPConverter: NFC, Replace(\\s+ -> " "), Lowercase;
Split(CLIP's pattern, Removed, invert) then ByteLevel(use_regex); BPE with end_of_word_suffix
"</w>"; RobertaProcessing) on the fused byte-level kernel (pipeline/fused_hf_bpe.py `clip`,
native pipelines/byte_level_hf_bpe.h, pre_tokenizers/scanner.h's Scanner::clip) against HF
tokenizers 0.23.3 and the staged pipeline.

The split (CLIP's pattern, then ByteLevel's own regex on each piece) against HF's pre-tokenizer
on every code point; the whole pipeline (the native Lowercase, the dropped whitespace runs that
make the Replace moot) on every code point; files trained here with HF's trainer (with and
without a token for every byte with the suffix: the unk token otherwise), compared on the
corpus samples, edge strings, hypothesis strings, pairs, added tokens and truncation; the
shapes that are not CLIP's exactly stay staged."""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files, read_sample
from hf_trio import Trio
from tokenforge import Tokenizer, _core
from tokenforge.pipeline.compile import kernel_of
from tokenforge.pipeline.fused_hf_bpe import BYTE_CHARS, CLIP_SPLIT, CLIP_SPLIT_SPECIALS, fused_description

tokenizers = pytest.importorskip("tokenizers")

SAMPLE_TEXTS = [read_sample(p, 30_000) for p in corpus_files()]
LINES = [line for text in SAMPLE_TEXTS for line in text.splitlines(keepends=True)]

EDGE = [
    "",
    " ",
    "  \n  ",
    "\r\n\r\n",
    "a",
    "A",
    "a\n \n  b",
    "x  \r\n\t y",
    "Hello World!  It's  'S 'LL 'll 'Ve I'D ſ 'ſ don'T",
    "''s ''' 'x -'s !'re",
    "1234567 ١٢٣٤ 12a34 ²³ Ⅻ",
    "e\u0301 cafe\u0301 caf\u00e9 \u1e9b\u0323",  # NFC changes the first ones
    "İstanbul İ KELVIN \u212a Ω\u2126 ẞ",  # lowercases of another length: staged
    "ΣΑΣ ǅ ǈ Ⓐ ⅰⅠ 𐐀𐐨 ＡＢＣ",  # (one character each, some of another length)
    "日本語のテキスト、です。 Привет МИР",
    "tab\there  \u3000 \u00a0nbsp\u2028x\u0085y\u1680z\u202f\u205f",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🙂🙂!!",
    "<|endoftext|>hello world<|endoftext|>  Hello World  <|startoftext|>",
    "a<|endoftext|> <|endoftext|>\n<|ENDOFTEXT|>",
    "a" * 700 + " " + "日本" * 300 + " " * 300 + "x" + "1" * 50 + "\n" * 40 + "  ",
    "Ω" * 40 + " " + "AB" * 20 + " \u0301" * 30,
    "ÀÉÎÕÜ" * 30 + " " + "ä" * 200,
]

TEXT = st.lists(
    st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(
            [
                *" \t\n\r  ,.!'-_abSLVEDTM12٣é日本かカ\u0301\u0323\u00a0\u3000\u2003\u0085👍İ\u212aΣ",
                "'s",
                "'S",
                "'LL",
                "\r\n",
                "  \t ",
                "<|endoftext|>",
                "<|EndOfText|>",
                "<|STARTOFTEXT|>",
                "|>",
                "xYz",
                "hello world",
                "Hello WORLD",
            ]
        ),
    ),
    max_size=30,
).map("".join)


# -- the trained files ------------------------------------------------------------------------


def clip_doc(
    every_suffixed_byte: bool, processor: str = "roberta", normalized: bool = False, specials: bool = False
) -> dict[str, Any]:
    """A CLIP-shaped file as CLIPConverter writes one, its BPE trained on the sample lines;
    every_suffixed_byte: each byte's character with "</w>" added to the vocabulary (as CLIP's
    own), else only those the trainer made (the unk token for the others); normalized: the
    special tokens and an added "xyz" matched by their normalized form (as CLIP's own files
    have them), else as they are; specials: the Split's pattern with the special tokens first
    (as transformers' CLIPTokenizer writes it)."""
    from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = tokenizers.Tokenizer(
        models.BPE(unk_token="<|endoftext|>", end_of_word_suffix="</w>", continuing_subword_prefix="")
    )
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()]
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(
                Regex(CLIP_SPLIT_SPECIALS if specials else CLIP_SPLIT), behavior="removed", invert=True
            ),
            pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1500,
        special_tokens=["<|startoftext|>", "<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        end_of_word_suffix="</w>",
        show_progress=False,
    )
    tok.train_from_iterator(LINES[::3], trainer)
    if processor == "roberta":
        tok.post_processor = processors.RobertaProcessing(
            ("<|endoftext|>", 1), ("<|startoftext|>", 0), trim_offsets=False, add_prefix_space=False
        )
    elif processor == "roberta-trim":
        tok.post_processor = processors.RobertaProcessing(("<|endoftext|>", 1), ("<|startoftext|>", 0))
    tok.add_tokens([AddedToken("hello world", normalized=False), AddedToken("Xyz", normalized=False)])
    if normalized:
        tok.add_tokens([AddedToken("xyz", normalized=True)])
    doc = json.loads(tok.to_str())
    for a in doc["added_tokens"]:
        if a["content"].startswith("<|"):
            a["normalized"] = normalized
    if every_suffixed_byte:  # (the added tokens after the vocabulary move up)
        vocab = doc["model"]["vocab"]
        extra = [a for a in doc["added_tokens"] if a["content"] not in vocab]
        for c in BYTE_CHARS:
            vocab.setdefault(c + "</w>", max(vocab.values()) + 1)
        for k, a in enumerate(extra):
            a["id"] = max(vocab.values()) + 1 + k
    return doc


_TRIOS: dict[tuple, Trio] = {}
# (every_suffixed_byte, normalized, specials)
CASES = [(False, False, False), (True, False, False), (True, True, False), (False, False, True), (True, True, True)]


def trio(
    tmp_path_factory, every_suffixed_byte: bool, processor: str = "roberta", normalized: bool = False, specials=False
) -> Trio:
    key = (every_suffixed_byte, processor, normalized, specials)
    if key not in _TRIOS:
        doc = clip_doc(every_suffixed_byte, processor, normalized, specials)
        _TRIOS[key] = Trio(doc, tmp_path_factory.mktemp("clip") / "tokenizer.json")
    return _TRIOS[key]


def test_a_converter_file_runs_fused(tmp_path_factory):
    for full, normalized, specials in CASES:
        t = trio(tmp_path_factory, full, normalized=normalized, specials=specials)
        d = fused_description(t.spec)
        assert d is not None and d["clip"] is True and d["split"] == 6 + specials and d["nfc"] is True
        assert kernel_of(t.spec) == "byte_level_hf_bpe" and t.kernel.name == "byte_level_hf_bpe"
    vocab = trio(tmp_path_factory, True).spec.model["vocab"]
    assert all(c + "</w>" in vocab for c in BYTE_CHARS)
    assert not all(c + "</w>" in trio(tmp_path_factory, False).spec.model["vocab"] for c in BYTE_CHARS)


@pytest.mark.parametrize(("full", "normalized", "specials"), CASES)
def test_fused_equals_hf_on_samples(tmp_path_factory, full, normalized, specials):
    t = trio(tmp_path_factory, full, normalized=normalized, specials=specials)
    for text in EDGE:
        t.check(text)
    for line in LINES[::5]:
        t.check(line)
        t.check(line.upper())
    for text in SAMPLE_TEXTS:
        t.check(text[:4000])
        t.check(text[:4000].upper())
        decomposed = unicodedata.normalize("NFD", text[:2000])  # (NFC composes it here, a stretch at a time)
        t.check(decomposed)
        t.check(f"{decomposed[:300].upper()}<|endoftext|>E\u0301\u0130<|startoftext|>e\u0301")
        if not normalized:  # (ids first; with normalized specials, the staged pipeline)
            assert "ids first" in repr(t.fused.encode(decomposed)) or decomposed.isascii()
    t.check(EDGE[8], EDGE[14])
    t.check(LINES[1], "<|endoftext|> x")
    t.check("", "")
    t.check("XYZ xyz Xyz <|ENDOFTEXT|> <|EndOfText|>xYz<|startoftext|>", "xyzXYZ")
    t.check("<|STARTOFTEXT|>!! a<|EndOfText|>|>x !<|endoftext|>. <|endoftext|<|startoftext|>>'s <|startoftext|")


@pytest.mark.parametrize(("full", "normalized", "specials"), CASES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, full, normalized, specials, text, pair):
    trio(tmp_path_factory, full, normalized=normalized, specials=specials).check(text, pair)


def _code_point_texts(per_text: int, short: bool = False, specials: bool = False):
    """Each code point alone, doubled, capitalised-looking, between letters, after a space, an
    apostrophe, a digit and a newline, and before whitespace, per_text code points a text
    (short: fewer of those)."""
    chunk: list[str] = []
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        chunk.append(f"{c}A{c} {c}'S{c}1{c}\u3000" if short else f"{c}{c}a{c}A {c}'{c}1{c}\n{c}\u3000 {c}'S{c}")
        if specials:
            chunk.append(f"<|endoftext|>{c}{c}<|startoftext|>")
        if len(chunk) == per_text:
            yield "".join(chunk)
            chunk = []
    if chunk:
        yield "".join(chunk)


@pytest.mark.parametrize("specials", [False, True])
def test_split_equals_hf_pre_tokenizer_on_every_code_point(tmp_path_factory, specials):
    # CLIP's pattern by the built-in scanner, and ByteLevel's regex (use_regex) the identity on
    # its pieces: the pieces and their spans are HF's pre-tokenizer's (before the normalizer).
    t = trio(tmp_path_factory, True, specials=specials)
    for text in _code_point_texts(4096, specials=specials):
        want = t.hf.pre_tokenizer.pre_tokenize_str(text)
        got = pieces_with_spans(t.fused, text)
        if got != want:
            k = next(i for i, (a, b) in enumerate(zip([*got, None], [*want, None])) if a != b)
            raise AssertionError(f"piece {k}: {got[k : k + 2]} != {want[k : k + 2]}")


def test_split_equals_oniguruma_on_any_text(tmp_path_factory):
    t = trio(tmp_path_factory, True)
    regex = _core.Regex(CLIP_SPLIT)
    for text in [*EDGE, *LINES[::7]]:
        want = [(a, b) for a, b, matched in regex.find_matches(text) if matched]
        assert [span for _, span in pieces_with_spans(t.fused, text)] == want, text


def test_fused_equals_hf_on_every_code_point(tmp_path_factory):
    # The whole pipeline, the native Lowercase included. A text with a character whose lowercase
    # is not one character of its length, or that NFC's quick check stops at, runs staged whole:
    # those characters go in texts of their own, so that the others' texts run fused.
    t = trio(tmp_path_factory, True)
    fused, staged = [], []
    for text in _code_point_texts(1, short=True):
        c = text[0]
        lower = c.lower()
        same = len(lower) == 1 and len(lower.encode()) == len(c.encode())
        quick = same and not unicodedata.combining(c) and unicodedata.is_normalized("NFC", c)
        (fused if quick else staged).append(text)
    texts = ["".join(fused[i : i + 512]) for i in range(0, len(fused), 512)]
    texts += ["".join(staged[i : i + 8]) for i in range(0, len(staged), 8)]
    for text in texts:
        h = t.hf.encode(text, add_special_tokens=False)
        f = t.fused.encode(text, None, False)
        assert f.ids == h.ids, text
        assert [tuple(o) for o in f.offsets] == [tuple(o) for o in h.offsets], text


def pieces_with_spans(fused: _core.ByteLevelHfBpe, text: str) -> list[tuple[str, tuple[int, int]]]:
    """The kernel's pieces of text (in the byte alphabet) with their spans in code points."""
    data = text.encode()
    char_of = [0] * (len(data) + 1)
    chars = 0
    for i, b in enumerate(data):
        char_of[i] = chars
        chars += (b & 0xC0) != 0x80
    char_of[len(data)] = chars
    out = []
    for piece, start in fused.pieces(text):
        end = start + len(piece)
        out.append(("".join(BYTE_CHARS[b] for b in piece), (char_of[start], char_of[end])))
    return out


def test_batches_equal_hf(tmp_path_factory):
    t = trio(tmp_path_factory, False)
    ours = Tokenizer.from_spec(t.spec)
    texts = [*EDGE, *LINES[:200], *(unicodedata.normalize("NFD", line) for line in LINES[:200])]
    for special in (False, True):
        want = [e.ids for e in t.hf.encode_batch(texts, add_special_tokens=special)]
        assert [e.ids for e in ours.encode_batch(texts, add_special_tokens=special)] == want
        assert [ours.encode(x, add_special_tokens=special).ids for x in texts] == want


def test_truncation_and_pairs(tmp_path):
    doc = clip_doc(False)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ours, theirs = Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    assert ours.kernel == "byte_level_hf_bpe"
    for stride in (0, 2):
        ours.enable_truncation(12, stride=stride)
        theirs.enable_truncation(12, stride=stride)
        for text, pair in [
            (LINES[3], None),
            ("  A  b  <|endoftext|>  C d  e f  g h  ", " x  Y z  w "),
            (" Hello " * 9, None),
        ]:
            a, b = ours.encode(text, pair), theirs.encode(text, pair)
            for x, y in zip([a, *a.overflowing], [b, *b.overflowing], strict=True):
                assert x.ids == y.ids and x.tokens == y.tokens, (text, stride)
                assert [tuple(o) for o in x.offsets] == [tuple(o) for o in y.offsets], (text, stride)
                assert x.type_ids == y.type_ids and x.special_tokens_mask == y.special_tokens_mask


# -- the shapes that are not CLIP's exactly ----------------------------------------------------


def test_other_shapes_stay_staged(tmp_path_factory):
    t = trio(tmp_path_factory, False)
    spec = t.spec
    model = dict(spec.model)
    pre = json.loads(json.dumps(spec.pre_tokenizer))
    norm = json.loads(json.dumps(spec.normalizer))
    assert fused_description(dataclasses.replace(spec, model={**model, "end_of_word_suffix": "</x>"})) is None
    assert fused_description(dataclasses.replace(spec, model={**model, "ignore_merges": True})) is None
    assert fused_description(dataclasses.replace(spec, model={**model, "unk_token": None})) is None
    assert fused_description(dataclasses.replace(spec, model={**model, "continuing_subword_prefix": "##"})) is None
    other = json.loads(json.dumps(pre))
    other["pretokenizers"][0]["pattern"]["Regex"] = CLIP_SPLIT.replace("[\\p{N}]", "\\p{N}+")
    assert fused_description(dataclasses.replace(spec, pre_tokenizer=other)) is None
    isolated = json.loads(json.dumps(pre))
    isolated["pretokenizers"][0]["behavior"] = "Isolated"
    assert fused_description(dataclasses.replace(spec, pre_tokenizer=isolated)) is None
    prefixed = json.loads(json.dumps(pre))
    prefixed["pretokenizers"][1]["add_prefix_space"] = True
    assert fused_description(dataclasses.replace(spec, pre_tokenizer=prefixed)) is None
    no_lower = {**norm, "normalizers": norm["normalizers"][:2]}
    assert fused_description(dataclasses.replace(spec, normalizer=no_lower)) is None
    assert fused_description(dataclasses.replace(spec, normalizer={"type": "Lowercase"})) is None
    assert fused_description(dataclasses.replace(spec, normalizer=None)) is None
    # the suffix without CLIP's normalizer and split: not this kernel's
    gpt2_pre = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True, "trim_offsets": True}
    assert fused_description(dataclasses.replace(spec, normalizer=None, pre_tokenizer=gpt2_pre)) is None


def test_trimmed_offsets_are_exact(tmp_path_factory):
    # RobertaProcessing's default trims offsets: CLIP's pieces hold no spaces, whichever kernel
    # runs it must still be HF's.
    t = trio(tmp_path_factory, False, "roberta-trim")
    for text in EDGE:
        t.check(text)
    for line in LINES[:300:3]:
        t.check(line, LINES[1])


@pytest.mark.parametrize(
    "variant",
    ["other suffix", "no lowercase", "other split", "normalized capitals", "normalized lstrip", "missing unk"],
)
def test_variants_are_exact_to_hf(tmp_path, variant):
    from tokenforge import Tokenizer as TfTokenizer

    doc = clip_doc(False)
    if variant == "other suffix":
        doc["model"]["end_of_word_suffix"] = "</x>"
        doc["model"]["vocab"] = {
            (k[:-4] + "</x>" if k.endswith("</w>") else k): v for k, v in doc["model"]["vocab"].items()
        }
        doc["model"]["merges"] = [
            [a[:-4] + "</x>" if a.endswith("</w>") else a, b[:-4] + "</x>" if b.endswith("</w>") else b]
            for a, b in doc["model"]["merges"]
        ]
    elif variant == "no lowercase":
        doc["normalizer"]["normalizers"] = doc["normalizer"]["normalizers"][:2]
    elif variant == "other split":
        doc["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = r"[\p{L}]+|[\p{N}]+|[^\s\p{L}\p{N}]+"
    elif variant == "normalized capitals":
        doc["added_tokens"][-1]["normalized"] = True
    elif variant == "normalized lstrip":
        doc["added_tokens"][1].update(normalized=True, lstrip=True)
    else:
        doc["model"]["unk_token"] = None
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ours, theirs = TfTokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    assert ours.kernel == "staged"
    for text in [*EDGE, *LINES[:200:4], "XYZ xyz Xyz a  <|ENDOFTEXT|>  b"]:
        a, b = ours.encode(text), theirs.encode(text)
        assert a.ids == b.ids and [tuple(o) for o in a.offsets] == [tuple(o) for o in b.offsets], text


def test_a_clip_tokenizer_folder_runs_fused(tmp_path):
    # transformers' CLIPTokenizer over the trained vocabulary and merges, saved: its own
    # tokenizer.json (the Split with the special tokens first).
    transformers = pytest.importorskip("transformers")
    doc = clip_doc(True)
    (tmp_path / "vocab.json").write_text(json.dumps(doc["model"]["vocab"]), encoding="utf-8")
    merges = [" ".join(m) if isinstance(m, list) else m for m in doc["model"]["merges"]]
    (tmp_path / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    slow = transformers.CLIPTokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    slow.save_pretrained(str(tmp_path / "saved"))
    path = tmp_path / "saved" / "tokenizer.json"
    ours, theirs = Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    assert ours.kernel == "byte_level_hf_bpe"
    for text in [*EDGE, *LINES[:300:3], "<|endoftext|>!!<|STARTOFTEXT|>.."]:
        a, b = ours.encode(text), theirs.encode(text)
        assert a.ids == b.ids and [tuple(o) for o in a.offsets] == [tuple(o) for o in b.offsets], text
