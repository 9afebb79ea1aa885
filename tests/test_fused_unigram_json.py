"""The fused Unigram of tokenizer.json files (pipeline/fused_unigram.py, native
pipelines/unigram_hf.h) against HF tokenizers 0.23.3 and the staged pipeline.

Files made here as transformers' converters make them: tiny sentencepiece Unigram models trained
on the corpus samples (nmt_nfkc's Precompiled map; one with byte_fallback), converted by
T5Converter (Precompiled, Strip, Replace " {2,}" -> "▁"; Metaspace always or first; the
"$A </s>" template), AlbertConverter (Replace, NFKD, StripAccents, Lowercase, Precompiled,
Replace " {2,}" -> " "; the [CLS] / [SEP] template) and XLNetConverter; and files built with HF
tokenizers directly (no normalizer, Metaspace never / split off, holes in the vocabulary so that
unknown runs fuse, byte_fallback with and without every byte, no unk_id). Added tokens, special
and not, with lstrip / rstrip. fused == staged == HF on ids, tokens (an unknown piece shows the
text it covers, as HF's), offsets, word ids, type ids and decode, on the corpus samples in every
language and on hypothesis strings.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files, read_sample
from hf_trio import Trio
from tokenforge import Tokenizer
from tokenforge.pipeline.compile import build_kernel, kernel_of
from tokenforge.pipeline.fused_unigram import fused_unigram_description

tokenizers = pytest.importorskip("tokenizers")
spm = pytest.importorskip("sentencepiece")
converters = pytest.importorskip("transformers.convert_slow_tokenizer")

SPACE = "\u2581"
SAMPLE_TEXTS = [read_sample(p, 30_000) for p in corpus_files()]
LINES = [line for text in SAMPLE_TEXTS for line in text.splitlines(keepends=True)]

EDGE = [
    "",
    " ",
    "  ",
    "  \n  ",
    "a",
    " a",
    "a ",
    "a  b   c    d",
    "\u2581",
    "\u2581a \u2581\u2581b",
    "x\u2581 y",
    "Hello world!  It's  a test.\n",
    "``quoted'' text",
    "1234567 ١٢٣٤ 12a34 ①②",
    "日本語のテキスト、です。 Привет мир",
    "ＡＢＣ ｶﾀｶﾅ ﬁ ﬃ ㍿ Å Å é é",
    "全角，标点：（测试）！ｶﾞｷﾞ Ａ\u0301 ，\u0301，\n，a，日，",
    "tab\there  \u3000 \u00a0nbsp\u2028x\r\n",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U0010ffff \ue000 \x01\x7f",
    "</s>hello world</s>  hello <extra> world  <extra>",
    "a</s> </s>\n<pad>",
    " </s> a",
    "ÀÉÎõü ÆØ ß ΣΑΣ İ",
    "a" * 700 + " " + "日本" * 300 + " " * 300 + "x" + "1" * 50 + "\n" * 40 + "  ",
    "Ω" * 40 + " " + "ab" * 20 + " \u0301" * 30,
]

TEXT = st.text(
    alphabet=st.sampled_from(list("ab é日本Ω\u2581\n\t<>s/|x0ＡﬁÅ`'\u0301 ，ｶﾞ\r")) | st.characters(codec="utf-8"),
    max_size=60,
)


class _Original:
    """What transformers' sentencepiece converters read of a slow tokenizer."""

    def __init__(self, model_file: str, **attributes: Any) -> None:
        self.vocab_file = model_file
        self._extra_ids = 3
        self.keep_accents = False
        self.do_lower_case = True
        self.legacy = True
        self.__dict__.update(attributes)
        self._sp = spm.SentencePieceProcessor(model_file=model_file)

    def convert_tokens_to_ids(self, token: str) -> int:
        return self._sp.piece_to_id(token)


@functools.cache
def _spm_model(byte_fallback: bool, folder: str) -> str:
    """A sentencepiece Unigram model trained on the samples (nmt_nfkc), as a file."""
    prefix = f"{folder}/unigram_{int(byte_fallback)}"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([line[:400] for line in LINES[::2] if line.strip()]),
        model_prefix=prefix,
        vocab_size=1200,
        model_type="unigram",
        byte_fallback=byte_fallback,
        character_coverage=0.98,
        user_defined_symbols=["[CLS]", "[SEP]", "<cls>", "<sep>"],
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        minloglevel=2,
    )
    return prefix + ".model"


def _holes(vocab: list[list[Any]]) -> list[list[Any]]:
    """vocab with every third piece of one non-ASCII character renamed away (unknown characters,
    fused; the ids stay, so the added tokens keep theirs)."""
    out, k = [], 0
    for piece, score in vocab:
        if len(piece) == 1 and ord(piece) > 127:
            k += 1
            if k % 3 == 0:
                piece = f"<hole {k}>"
        out.append([piece, score])
    return out


def _bytes(vocab: list[list[Any]], skip: set[int] = frozenset()) -> list[list[Any]]:  # type: ignore[assignment]
    """vocab with the <0xAB> pieces (but those of `skip`) in place of its last pieces (ids stay)."""
    have = {p for p, _ in vocab}
    new = [[f"<0x{b:02X}>", -20.0] for b in range(256) if b not in skip and f"<0x{b:02X}>" not in have]
    return vocab[: len(vocab) - len(new) - 8] + new + vocab[len(vocab) - 8 :]


def unigram_doc(name: str, folder: str) -> dict[str, Any]:
    """One file of the cases."""
    from tokenizers import AddedToken

    byte_fallback = name in ("t5-bytes", "bare-bytes", "bare-bytes-gaps")
    model_file = _spm_model(byte_fallback, folder)
    if name.startswith("albert"):
        tok = converters.AlbertConverter(_Original(model_file)).converted()
    elif name.startswith("xlnet"):
        tok = converters.XLNetConverter(_Original(model_file, do_lower_case=False)).converted()
    else:
        tok = converters.T5Converter(_Original(model_file, legacy=name != "t5-first")).converted()
    tok.add_special_tokens([AddedToken("<extra>", special=True, normalized=False)])
    tok.add_tokens(
        [AddedToken(" hello", lstrip=True, normalized=False), AddedToken("ab", rstrip=True, normalized=False)]
    )
    doc = json.loads(tok.to_str())
    model = doc["model"]
    if name == "t5-bytes":
        model["byte_fallback"] = True
    if name.startswith("bare"):
        doc["normalizer"] = None
        doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "never", "split": True}
        model["vocab"] = _holes(model["vocab"])
        if name == "bare-bytes":
            model["vocab"] = _bytes(model["vocab"])
        if name == "bare-bytes-gaps":  # no <0xE5>: some CJK characters fall back to <unk>
            model["vocab"] = _bytes(model["vocab"], {0xE5, 0xF0})
            model["byte_fallback"] = True
    if name == "t5-holes":
        model["vocab"] = _holes(model["vocab"])
    if name == "t5-nosplit":
        doc["pre_tokenizer"]["split"] = False
        model["vocab"] = _holes(model["vocab"])
    if name == "bare-no-unk":  # characters no piece covers raise, in HF and here: only covered texts
        model["unk_id"] = None
    return doc


CASES = [
    "t5",
    "t5-first",
    "t5-bytes",
    "t5-holes",
    "t5-nosplit",
    "albert",
    "xlnet",
    "bare",
    "bare-bytes",
    "bare-bytes-gaps",
]


_TRIOS: dict[str, Trio] = {}


def trio(tmp_path_factory, case: str) -> Trio:
    if case not in _TRIOS:
        folder = str(tmp_path_factory.getbasetemp())
        # (an added token with lstrip / rstrip shows the text it matched in HF, its content on this
        # kernel: a gap, left out)
        _TRIOS[case] = Trio(
            unigram_doc(case, folder), tmp_path_factory.mktemp("fused_unigram") / "tokenizer.json", (" hello", "ab")
        )
    return _TRIOS[case]


@pytest.mark.parametrize("case", CASES)
def test_files_choose_the_fused_kernel(tmp_path_factory, case):
    t = trio(tmp_path_factory, case)
    assert kernel_of(t.spec) == "unigram_hf" and t.kernel.name == "unigram_hf"
    assert fused_unigram_description(t.spec) is not None


@pytest.mark.parametrize("case", CASES)
def test_fused_equals_hf_on_samples(tmp_path_factory, case):
    t = trio(tmp_path_factory, case)
    for text in EDGE:
        t.check(text)
    for line in LINES[::5]:
        t.check(line)
    for text in SAMPLE_TEXTS:
        t.check(text[:4000])
        # (clusters the map composes: ids from the map's text alone where Strip and the collapse
        # of spaces are all that follow it)
        t.check(unicodedata.normalize("NFD", text[:1500]) + " \x08\u3000 \r\n ")
        t.check("\x08\u0301 " + unicodedata.normalize("NFKD", text[:300]))
    t.check(EDGE[7], EDGE[12])
    t.check(LINES[1], "</s> x")


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pair=st.none() | TEXT)
def test_fused_equals_hf_on_any_text(tmp_path_factory, case, text, pair):
    trio(tmp_path_factory, case).check(text, pair)


def test_unknown_pieces_show_the_text_they_cover(tmp_path_factory):
    t = trio(tmp_path_factory, "t5-holes")
    unk = t.spec.model["unk_id"]
    text = "".join(p for p, _ in t.spec.model["vocab"] if len(p) == 1 and ord(p) > 127)[:20] + " 𝔘𝔫"
    missing = next(ch for ch in "".join(LINES) if ord(ch) > 127 and t.hf.encode(ch).ids.count(unk))
    for kernel in (t.fused, t.staged):
        enc = kernel.encode(f"x {missing}{missing} y {missing}", None)
        hf = t.hf.encode(f"x {missing}{missing} y {missing}")
        assert enc.tokens == hf.tokens and unk in enc.ids
        assert any(tok != "<unk>" for i, tok in zip(enc.ids, enc.tokens) if i == unk)
    t.check(text)
    t.check(missing, missing + "a")  # the pair's unknown pieces too
    # truncation's overflowing parts and padding keep the texts
    tok = Tokenizer.from_spec(t.spec)
    tok.enable_truncation(4, stride=1)
    tok.enable_padding(length=6, pad_token="<pad>")
    t.hf.enable_truncation(4, stride=1)
    t.hf.enable_padding(length=6, pad_token="<pad>")
    try:
        text = f"{missing} x {missing}{missing} yy {missing}"
        a, b = tok.encode(text), t.hf.encode(text)
        assert a.tokens == b.tokens
        assert [o.tokens for o in a.overflowing] == [o.tokens for o in b.overflowing]
    finally:
        t.hf.no_truncation()
        t.hf.no_padding()


def test_batches_equal_single_encodes(tmp_path_factory):
    t = trio(tmp_path_factory, "t5")
    texts = [*EDGE, *LINES[:200]]
    batch = t.fused.encode_batch(texts, None, True, t.staged._kernel.default_added, 2)
    assert [e.ids for e in batch] == [t.fused.encode(x).ids for x in texts]
    assert [e.offsets for e in batch] == [t.fused.encode(x).offsets for x in texts]
    assert [e.tokens for e in batch] == [t.fused.encode(x).tokens for x in texts]


def test_hooks_are_the_staged_pipelines(tmp_path_factory):
    t = trio(tmp_path_factory, "albert")
    staged = t.staged._native
    for text in EDGE[:16]:
        assert t.fused.pre_tokenize(text) == staged.pre_tokenize(text)
        assert t.fused.normalize(text) == staged.normalize(text)


def test_probes_let_plain_text_skip_the_normalizer(tmp_path_factory):
    t5, albert = trio(tmp_path_factory, "t5"), trio(tmp_path_factory, "albert")
    for text in ("Hello world.", "日本語のテキスト", "Привет\tмир\n", "  lead", "a  b"):  # (spaces: read as such)
        assert t5.fused.untouched(text)
    assert t5.fused.untouched("全角，标点：（测试）！ ＡＢＣ")  # alone in their clusters: written by the kernel
    assert t5.fused.untouched("ﬁ … ½ ㎏")  # made several characters: written by the kernel too
    assert t5.fused.untouched("a\u00a0b \u3000x\u2002")  # spaces the map makes of them: read as spaces
    assert t5.fused.untouched("a\r\nb\rc\r\n")
    for text in ("e\u0301", "\x01", "ｶﾞ", "，\u0301", "…\u0301", "\u00a0\u0301", "a\u3000\ufe0f"):
        assert not t5.fused.untouched(text)
    assert albert.fused.untouched("hello world") and not albert.fused.untouched("Hello")
    assert not albert.fused.untouched("é") and not albert.fused.untouched("a``b")


@pytest.mark.parametrize("case", ["t5", "t5-bytes", "t5-nosplit", "xlnet"])
def test_characters_the_map_makes_several_as_hf(tmp_path_factory, case):
    """Characters Precompiled turns into several ("…" -> "...", "ﬁ" -> "fi", "½" -> "1⁄2", "㎏" ->
    "kg"), written by the kernel: ids, tokens, offsets (each output character spans the input
    character) and decode as HF's, next to spaces, newlines, other such characters, marks and the
    text's ends."""
    t = trio(tmp_path_factory, case)
    for c in ("…", "ﬁ", "½", "㎏", "㈱", "ǆ", "ﬀ", "№"):
        for text in (
            c,
            f"a{c}b",
            f" {c} ",
            f"x{c}\n",
            f"{c}{c}  {c}",
            f"{c}\u0301",
            f"日{c}日",
            f"Привет{c}мир",
            f"{c}，",
        ):
            t.check(text)


@pytest.mark.parametrize("case", ["t5", "t5-first", "t5-nosplit", "albert", "xlnet"])
def test_spaces_outside_ascii_as_hf(tmp_path_factory, case):
    """Whitespace Precompiled makes a space (NBSP, U+3000, the en and thin spaces; "\r", and
    "\r\n" as one cluster), read by the kernel as spaces: ids, tokens, offsets (a run's "▁" spans its last space) and decode as HF's,
    in runs with spaces, tabs and newlines, at the text's ends, before marks and CJK."""
    t = trio(tmp_path_factory, case)
    for c in ("\u00a0", "\u3000", "\u2002", "\u2009", "\u202f", "\u205f", "\r\n", "\r", "\n\r"):
        for text in (
            c,
            c * 3,
            f"a{c}b",
            f"{c}a",
            f"a{c}",
            f" {c} x {c}{c}\t{c}\n",
            f"{c}\u0301 a{c}\u0301",
            f"{c}\ufe0f x{c}\u20d0 {c}\u200d",  # (marks HF's cluster lookup drops with the space)
            f"日{c}本{c} {c}語",
            f"x{c}…{c}，{c}ﬁ",
            f"a  {c}  b",
        ):
            t.check(text)


def test_other_shapes_are_left_to_the_staged_pipeline(tmp_path_factory):
    spec = trio(tmp_path_factory, "t5").spec
    model = dict(spec.model)
    replace = dataclasses.replace
    metaspace = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "always", "split": True}

    def staged(**changes: Any) -> bool:
        s = replace(spec, **changes)
        return fused_unigram_description(s) is None and kernel_of(s) == "staged"

    assert staged(model={**model, "unk_id": len(model["vocab"])})
    assert staged(model={**model, "extra": 1})
    assert staged(normalizer={"type": "Replace", "pattern": {"Regex": " +"}, "content": SPACE})
    assert staged(normalizer={"type": "Prepend", "prepend": SPACE})
    assert staged(normalizer={"type": "Strip", "strip_left": False, "strip_right": False})
    assert staged(normalizer={"type": "BertNormalizer"})
    assert staged(pre_tokenizer={"type": "Whitespace"})
    assert staged(pre_tokenizer={"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]})
    assert staged(pre_tokenizer={**metaspace, "replacement": "_"})
    assert staged(pre_tokenizer=None)
    # a normalized added token behind a normalizer is matched in the normalized text: staged
    from tokenforge.added_tokens import AddedToken

    added = (*spec.added_tokens, AddedToken("zz", id=len(model["vocab"]) + 10, normalized=True))
    assert kernel_of(replace(spec, added_tokens=added)) == "staged"
    with pytest.raises(ValueError):
        build_kernel(replace(spec, kernel="unigram_hf", pre_tokenizer={"type": "Whitespace"}))


def test_forcing_either_kernel_gives_the_same_rows(tmp_path_factory):
    t = trio(tmp_path_factory, "xlnet")
    fused = Tokenizer.from_spec(dataclasses.replace(t.spec, kernel="unigram_hf"))
    staged = Tokenizer.from_spec(dataclasses.replace(t.spec, kernel="staged"))
    assert fused.kernel == "unigram_hf" and staged.kernel == "staged"
    for text in LINES[:100]:
        a, b = fused.encode(text), staged.encode(text)
        assert a.ids == b.ids and a.offsets == b.offsets and a.tokens == b.tokens
    assert fused.decode(fused.encode(LINES[0]).ids) == staged.decode(staged.encode(LINES[0]).ids)


def test_a_missing_unk_id_raises_as_hf(tmp_path_factory, tmp_path):
    doc = unigram_doc("bare", str(tmp_path_factory.getbasetemp()))
    doc["model"]["unk_id"] = None
    t = Trio(doc, tmp_path / "tokenizer.json", (" hello", "ab"))
    assert t.kernel.name == "unigram_hf"
    t.check("hello world")
    missing = next(ch for ch in "".join(LINES) if ord(ch) > 127 and ch not in {p for p, _ in doc["model"]["vocab"]})
    with pytest.raises(Exception, match="unk_id"):
        t.hf.encode(missing)
    with pytest.raises(RuntimeError, match="unk_id"):
        t.fused.encode(missing)
