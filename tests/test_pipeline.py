"""Pipelines as data: format readers return descriptions (never a surface), one compile step
picks the native pipeline, and every tokenizer is rebuilt from its own description."""

from __future__ import annotations

import ast
import pathlib
import pickle

import pytest

import tokenforge
from conftest import DATA, REPO, SHARED, corpus_files, read_sample
from tokenforge.formats import detect, read_tokenizer_file
from tokenforge.pipeline.compile import build_kernel, kernel_of
from tokenforge.pipeline.spec import PipelineSpec
from tokenforge.processors.template import TemplateProcessing

PACKAGE = REPO / "src" / "tokenforge"
SURFACES = {"tokenizer", "registry", "cli"}


def imported_modules(path: pathlib.Path, source: str | None = None) -> set[str]:
    """The tokenforge modules a file of the package imports (relative imports resolved), at any
    depth; `source` stands in for the file's text."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = [*base, *(node.module.split(".") if node.module else [])]
            names = [[*module, a.name] for a in node.names] if not node.module else [module]
            found.update(".".join(m) for m in names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m.startswith("tokenforge")}


@pytest.mark.parametrize(
    "layer",
    [
        "formats",
        "pipeline/spec.py",
        "pipeline/presets.py",
        "pipeline/compile.py",
        "models",
        "normalizers",
        "pre_tokenizers",
        "processors",
    ],
)
def test_formats_and_components_never_import_a_surface(layer):
    files = [PACKAGE / layer] if layer.endswith(".py") else sorted((PACKAGE / layer).glob("*.py"))
    assert files
    for path in files:
        for module in imported_modules(path):
            parts = module.split(".")
            assert len(parts) < 2 or parts[1] not in SURFACES, f"{path.relative_to(REPO)} imports {module}"


def test_the_import_check_sees_a_surface_import():
    """The check above can fail: surface imports, relative or not, nested in a function, are found."""
    source = "def f():\n    from ..tokenizer import Tokenizer\n    from .. import registry\n    import tokenforge.cli\n"
    found = imported_modules(PACKAGE / "formats" / "gguf.py", source)
    assert {"tokenforge.tokenizer", "tokenforge.registry", "tokenforge.cli"} <= found


@pytest.mark.parametrize(
    "path, kind, kernel",
    [
        (SHARED / "vocab" / "bert" / "tokenizer.json", "tokenizer.json", "wordpiece"),
        (SHARED / "vocab" / "bert" / "vocab.txt", "vocab.txt", "wordpiece"),
        (SHARED / "vocab" / "mistral-7b-v0.1.model", "sentencepiece", "sentencepiece"),
        (DATA / "cl100k_base.tiktoken", "byte_level_bpe", "byte_level_bpe"),
    ],
)
def test_each_file_gets_its_native_pipeline(path, kind, kernel):
    assert detect(str(path)) == kind
    spec = read_tokenizer_file(path)
    assert isinstance(spec, PipelineSpec) and kernel_of(spec) == kernel
    tok = tokenforge.Tokenizer.from_file(path)
    assert type(tok) is tokenforge.Tokenizer and tok.kernel == kernel
    assert tokenforge.Tokenizer.from_spec(spec).kernel == kernel


def test_a_description_no_pipeline_runs_is_refused_by_name():
    with pytest.raises(ValueError, match=r"no native pipeline runs this tokenizer \(model object\)"):
        build_kernel(PipelineSpec(object()))
    with pytest.raises(ValueError, match=r"the model needs a 'type' and a 'vocab'"):
        build_kernel(PipelineSpec({"type": "Unigram"}))
    with pytest.raises(ValueError, match=r"Nonesuch"):
        build_kernel(PipelineSpec({"type": "Nonesuch", "vocab": {"a": 0}}))


def test_unknown_files_are_refused_with_the_kinds_there_are(tmp_path):
    path = tmp_path / "vocab.bin"
    path.write_bytes(b"\x00\x01 not a tokenizer")
    with pytest.raises(ValueError, match=r"unknown vocabulary format; give an HF tokenizer\.json"):
        detect(str(path))


@pytest.mark.parametrize(
    "make",
    [
        lambda: tokenforge.get_tokenizer("bert-base-uncased"),
        lambda: tokenforge.get_tokenizer("o200k_base"),
        lambda: tokenforge.Tokenizer.from_file(SHARED / "vocab" / "mistral-7b-v0.1.model", add_eos=True),
        lambda: tokenforge.Tokenizer.wpm_from_vocab_txt(str(SHARED / "vocab" / "bert" / "vocab.txt")),
    ],
    ids=["bert", "o200k", "sentencepiece", "wpm"],
)
def test_every_tokenizer_is_rebuilt_from_its_description(make):
    tok = make()
    tok.enable_truncation(6)
    again = tokenforge.Tokenizer.from_spec(tok.spec)
    text = "Hello, world! Une phrase de plus, 日本語も。"
    assert again.kernel == tok.kernel and again.spec == tok.spec
    assert again.truncation == tok.truncation
    assert again.encode(text).ids == tok.encode(text).ids
    assert again.encode(text, "a pair").ids == tok.encode(text, "a pair").ids


def test_byte_level_tokenizer_json_keeps_its_template_for_hf(tmp_path):
    hf_tokenizers = pytest.importorskip("tokenizers")
    enc = tokenforge.get_encoding("cl100k_base")
    post = TemplateProcessing.from_templates(
        "$A <|endoftext|>", "$A <|endoftext|> $B:1 <|endoftext|>:1", [("<|endoftext|>", enc.eot_token)]
    )
    tok = tokenforge.Tokenizer(enc, post_processor=post)
    tok.save(tmp_path / "tokenizer.json")
    hf = hf_tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    ours = tok.encode("some text", "and a pair")
    theirs = hf.encode("some text", "and a pair")
    assert (ours.ids, ours.type_ids, ours.special_tokens_mask) == (
        theirs.ids,
        theirs.type_ids,
        theirs.special_tokens_mask,
    )


def test_one_tokenizer_saves_in_the_format_its_path_names(tmp_path):
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    cl100k = tokenforge.Tokenizer.from_file(DATA / "cl100k_base.tiktoken")
    text = "hello, world! une phrase de plus, 日本語も。"
    for tok, name, options in (
        (bert, "bert.json", {}),
        (bert, "vocab.txt", {}),
        (cl100k, "cl100k.tokenforge", {}),
        (cl100k, "cl100k.tiktoken", {"pat_str": cl100k.encoding._pat_str}),
    ):
        tok.save(tmp_path / name)
        again = tokenforge.Tokenizer.from_file(tmp_path / name, **options)
        assert type(again) is tokenforge.Tokenizer and again.kernel == tok.kernel, name
        assert again.encode(text).ids == tok.encode(text).ids, name
    with pytest.raises(ValueError, match=r"\.tiktoken and \.tokenforge files hold byte-level BPEs, not a WordPiece"):
        bert.save(tmp_path / "bert.tiktoken")
    with pytest.raises(ValueError, match=r"give a path ending in \.json, \.tiktoken or \.tokenforge"):
        cl100k.save(tmp_path / "cl100k.bin")
    assert not (tmp_path / "bert.tiktoken").exists() and not (tmp_path / "cl100k.bin").exists()


def test_options_belong_to_their_pipeline_and_change_all_or_nothing():
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    bert.enable_truncation(5)
    with pytest.raises(AttributeError, match="add_bos is not an option of a wordpiece tokenizer"):
        bert.add_bos = True
    with pytest.raises(TypeError, match="split_special_tokens"):
        bert.split_special_tokens = "yes"
    assert bert.split_special_tokens is False and bert.truncation["max_length"] == 5
    assert bert.encode("a [MASK] b").tokens == ["[CLS]", "a", "[MASK]", "b", "[SEP]"]
    bert.split_special_tokens = True  # compiled again, settings kept
    assert bert.encode("a [MASK] b").tokens == ["[CLS]", "a", "[", "mask", "[SEP]"]
    with pytest.raises(TypeError, match="split_special_tokens: not options of a byte_level_bpe tokenizer"):
        tokenforge.Tokenizer(tokenforge.get_encoding("cl100k_base"), split_special_tokens=True)
    with pytest.raises(AttributeError, match=r"Tokenizer\.model is fixed once the tokenizer is built"):
        bert.model = None


BERT_SAMPLES = [
    "Hello, world! Une phrase de plus, 日本語も。",
    "  [CLS] spaced\tout\u00a0text [MASK]x [SEP]",
    "Ünïcödé accents, ﬁ ligatures, e\u0301 and 한국어 and ру́сский",
]


def _rows(tok: tokenforge.Tokenizer, *texts: str) -> tuple:
    e = tok.encode(*texts)
    return e.ids, e.tokens, e.offsets, e.type_ids, e.special_tokens_mask, e.attention_mask


@pytest.mark.parametrize("name", ["bert-base-uncased", "cased"])
def test_fused_and_staged_kernels_agree(name):
    """The general staged pipeline runs what the fused WordPiece kernel runs, row for row, and
    decodes the same; a hypothesis version is in tests/test_staged.py."""
    from dataclasses import replace

    from tokenforge.formats.bert_vocab import read_bert

    if name == "cased":
        spec = read_bert(str(SHARED / "vocab" / "bert" / "vocab.txt"), do_lower_case=False)
    else:
        spec = tokenforge.get_tokenizer(name).spec
    fused = tokenforge.Tokenizer.from_spec(spec)
    staged = tokenforge.Tokenizer.from_spec(replace(spec, kernel="staged"))
    assert (fused.kernel, staged.kernel) == ("wordpiece", "staged")
    lines = [line for path in corpus_files() for line in read_sample(path, 4000).splitlines()[:30]]
    for text in BERT_SAMPLES + lines:
        assert _rows(staged, text) == _rows(fused, text), text
        ids = fused.encode(text).ids
        assert staged.decode(ids) == fused.decode(ids), text
        assert staged.pre_tokenize(text) == fused.pre_tokenize(text), text
    assert _rows(staged, BERT_SAMPLES[0], BERT_SAMPLES[1]) == _rows(fused, BERT_SAMPLES[0], BERT_SAMPLES[1])
    staged.enable_truncation(7)
    fused.enable_truncation(7)
    assert _rows(staged, BERT_SAMPLES[2]) == _rows(fused, BERT_SAMPLES[2])
    again = pickle.loads(pickle.dumps(staged))
    assert again.kernel == "staged" and _rows(again, BERT_SAMPLES[2]) == _rows(fused, BERT_SAMPLES[2])


@pytest.mark.parametrize(
    ("name", "end"), [("bert-base-uncased", "[SEP]"), ("o200k_base", "<|endoftext|>")], ids=["wordpiece", "byte-level"]
)
def test_template_that_skips_a_present_end(name, end):
    """skip_present_special (SiglipTokenizer's _add_eos_if_not_present): the special token after
    a sequence is left out where the sequence ends with it, in every path: one text (ids first
    or rows), pairs, batches, truncation (which still keeps its room)."""
    import dataclasses

    base = tokenforge.get_tokenizer(name)
    end_id = base.token_to_id(end)
    template = TemplateProcessing.from_templates(f"$A {end}", f"$A {end} $B:1 {end}:1", [(end, end_id)])
    tok = tokenforge.Tokenizer.from_spec(
        dataclasses.replace(base.spec, post_processor=dataclasses.replace(template, skip_present_special=True))
    )
    plain = base.encode("hello world", add_special_tokens=False, allowed_special="all").ids
    for text, want in [("hello world", [*plain, end_id]), (f"hello world{end}", [*plain, end_id])]:
        got = tok.encode(text, allowed_special="all")
        assert got.ids == want and len(got.offsets) == len(want), text
        assert tok.encode_batch([text, "x"], allowed_special="all")[0].ids == want
    assert tok.encode(f"hello world{end}", add_special_tokens=False, allowed_special="all").ids == [*plain, end_id]
    pair = tok.encode(f"hello{end}", f"world{end}", allowed_special="all").ids
    assert pair.count(end_id) == 2 and pair[-1] == end_id
    assert tok.encode(f"a{end}", "b", allowed_special="all").ids.count(end_id) == 2
    tok.enable_truncation(3)
    cut = tok.encode(f"hello world again{end}", allowed_special="all").ids
    assert len(cut) == 3 and cut[-1] == end_id and cut.count(end_id) == 1
