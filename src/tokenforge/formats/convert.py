"""Converting a tokenizer file from one format to another (`tokenforge convert`): read it into a
pipeline description, put the model in the form the target holds, write it, and read the
written file back to check that it describes the same tokenizer; a target that cannot express
the model is refused with the reason (what it would lose), and nothing is written then.

Formats (FORMATS): tokenizer.json (any pipeline: formats/hf_tokenizer_json.py `document`),
sentencepiece (.model, sentencepiece models only), tiktoken (.tiktoken: a byte-level BPE's
ranks; its pattern and special tokens come back only for OpenAI's own files), tokenforge
(.tokenforge: a byte-level BPE whole), vocab.txt (a WordPiece vocabulary, BERT's pipeline),
gguf (llama.cpp's tokenizer metadata: formats/gguf_write.py says which models; checked by
encoding probe texts, as GGUF has no tokenizer.json form to compare).
A tokenizer.json holding a byte-level BPE of tiktoken's form (as tokenforge writes an
`Encoding`) goes back to an `Encoding`, and one of the form spm_tokenizer_json writes for a
sentencepiece model goes back to that model, so .tiktoken -> tokenizer.json -> .tiktoken and
.model -> tokenizer.json -> .model give the same ids. The CLI's convert also takes a model folder
(is_model_folder), read as Tokenizer.from_pretrained reads it (a surface, which this module does
not import) and handed to convert_spec.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..pipeline.spec import PipelineSpec

# format name -> the suffix a path of that format ends with
FORMATS = {
    "tokenizer.json": ".json",
    "sentencepiece": ".model",
    "tiktoken": ".tiktoken",
    "tokenforge": ".tokenforge",
    "vocab.txt": ".txt",
    "gguf": ".gguf",
}
# The files that make a folder a model folder (Tokenizer.from_pretrained reads it)
MODEL_FOLDER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
    "vocab.json",
    "vocab.txt",
)
# Texts a GGUF file written must encode as its source does (GGUF has no tokenizer.json form to
# compare): words, spaces, digits, punctuation, code and several scripts.
_PROBES = (
    "Hello world! It's 12345 o'clock,  isn't it?\n\n\tdef f(x): return x**2  # done",
    "Größe überall, façade; Привет мир; Γειά σου; 日本語のテキスト。中文，标点！한국어 문장 🤗 ☃",
    "  leading and trailing spaces   \r\n\u00a0nbsp, ﬁ ligature, ｆｕｌｌ width, e\u0301 combining",
)


@dataclass(frozen=True)
class Converted:
    """What `convert` did: the files, the formats, the model written and its vocabulary size."""

    source: str
    destination: str
    source_format: str
    format: str
    model: str
    vocab_size: int

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def format_of(path: str) -> str:
    """The format a path's name says (FORMATS); ValueError naming the suffixes otherwise."""
    for name, suffix in FORMATS.items():
        if path.endswith(suffix):
            return name
    raise ValueError(f"{path}: its name does not say a format; end it in {_suffixes()}, or give the format (--to)")


def _suffixes() -> str:
    return ", ".join(FORMATS.values())


def convert(src: str | os.PathLike[str], dst: str | os.PathLike[str], *, to: str | None = None) -> Converted:
    """Convert the tokenizer file `src` into `dst` in format `to` (default: the one dst's name
    says). The written file is read back and must describe the same tokenizer; ValueError
    (nothing written) where the target format cannot express the model, saying why."""
    from . import detect, read_tokenizer_file

    src = os.fspath(src)
    return convert_spec(read_tokenizer_file(src), src, detect(src), dst, to=to)


def convert_spec(
    spec: PipelineSpec, source: str, source_format: str, dst: str | os.PathLike[str], *, to: str | None = None
) -> Converted:
    """`convert` for a pipeline already read (from `source`, of `source_format`): the CLI's
    convert gives it a model folder's, as Tokenizer.from_pretrained builds it."""
    dst = os.fspath(dst)
    fmt = format_of(dst) if to is None else to
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if os.path.isdir(dst):
        raise ValueError(f"{dst}: is a folder; give the file to write (e.g. {os.path.join(dst, 'tokenizer.json')})")
    if "split_special_tokens" in spec.options and source_format == "gguf":
        # llama.cpp's parse_special is a choice of each call, no part of the file: the tokenizer
        # written matches special tokens in text as its format's own readers do.
        spec = replace(spec, options={k: v for k, v in spec.options.items() if k != "split_special_tokens"})
    target = for_format(spec, fmt)
    written = _write_checked(target, spec, dst, fmt)
    model = target.model
    name = str(model.get("type")) if isinstance(model, Mapping) else type(model).__name__
    return Converted(source, dst, source_format, fmt, name, written)


def is_model_folder(path: str) -> bool:
    """Whether `path` is a model folder (one of MODEL_FOLDER_FILES in it) and no GPT-2 folder
    (encoder.json and vocab.bpe, a byte-level BPE file of its own)."""
    return (
        os.path.isdir(path)
        and not os.path.isfile(os.path.join(path, "encoder.json"))
        and any(os.path.isfile(os.path.join(path, n)) for n in MODEL_FOLDER_FILES)
    )


def for_format(spec: PipelineSpec, fmt: str) -> PipelineSpec:
    """`spec` with its model in the form format `fmt` holds; ValueError where it has none."""
    from ..encoding import Encoding
    from ..models.wordpiece import WordPiece
    from .sentencepiece_model import SentencePieceModel

    model = spec.model
    kind = _kind(spec)
    if fmt in ("tokenizer.json", "gguf"):
        return spec  # a GGUF writer refuses what it cannot hold (formats/gguf_write.py)
    if fmt == "sentencepiece":
        if isinstance(model, SentencePieceModel):
            return spec
        from .spm_tokenizer_json import sentencepiece_of

        found = sentencepiece_of(spec)
        if found is None:
            raise ValueError(
                f"a sentencepiece .model holds sentencepiece models only; this is {kind} (a tokenizer.json converts "
                "back to a .model only in the form tokenforge writes for one)"
            )
        candidate, options = found
        return replace(
            spec,
            model=candidate,
            options=options,
            normalizer=None,
            pre_tokenizer=None,
            post_processor=None,
            decoder=None,
            added_tokens=(),
        )
    if fmt in ("tiktoken", "tokenforge"):
        if isinstance(model, Encoding):
            return spec
        encoding = encoding_of(spec)
        if encoding is None:
            raise ValueError(
                f"a .{fmt} file holds a byte-level BPE of tiktoken's form (ranks, a split pattern, special tokens); "
                f"this is {kind}"
            )
        return replace(spec, model=encoding, normalizer=None, pre_tokenizer=None, decoder=None, added_tokens=())
    if not isinstance(model, WordPiece):
        raise ValueError(f"a vocab.txt holds a WordPiece vocabulary; this is {kind}")
    return spec


def tokenizer_json_form(spec: PipelineSpec) -> PipelineSpec:
    """`spec` as the pipeline of the tokenizer.json tokenforge writes for it (`document`, read
    back as HF tokenizers would load the file): a byte-level BPE `Encoding` becomes HF's BPE
    behind Split and ByteLevel with its special tokens as special added tokens, a sentencepiece
    model HF's form of it (spm_tokenizer_json); any other pipeline stays as it is. Its
    truncation, padding and model folder settings are kept. This is how a
    tokenizer whose model carries its own split and special tokens takes added tokens: as HF
    tokenizers does, on the converted file."""
    from ..encoding import Encoding
    from .hf_tokenizer_json import _TokenizerJson, document
    from .sentencepiece_model import SentencePieceModel

    if not isinstance(spec.model, (Encoding, SentencePieceModel)) or "vocabulary" in spec.options:
        return spec  # (a sentencepiece model behind a vocabulary of its own takes added tokens as it is)
    doc = document(replace(spec, truncation=None, padding=None))
    name = f"<the tokenizer.json form of {_kind(spec)}>"
    read = _TokenizerJson(name, json.loads(json.dumps(doc))).read()
    return replace(read, truncation=spec.truncation, padding=spec.padding, config=spec.config)


def _kind(spec: PipelineSpec) -> str:
    """The kind of tokenizer spec is, in words."""
    model = spec.model
    if isinstance(model, Mapping):
        return f"a {model.get('type')} tokenizer.json pipeline"
    names = {
        "Encoding": "a byte-level BPE (tiktoken's form)",
        "SentencePieceModel": "a sentencepiece model",
        "WordPiece": "a WordPiece model",
    }
    return names.get(type(model).__name__, f"a {type(model).__name__} model")


def encoding_of(spec: PipelineSpec) -> Any:
    """The byte-level BPE `Encoding` a tokenizer.json pipeline is, where it is exactly the
    document tokenforge writes for that Encoding (its merges tiktoken's rank order, its split
    a Split then ByteLevel, no normalizer, its added tokens special); else None."""
    from ..encoding import Encoding
    from ..pipeline.fused_hf_bpe import BYTE_CHARS
    from ..pre_tokenizers.patterns import CL100K, GPT2, O200K
    from .hf_tokenizer_json import hf_split_pattern, tokenizer_json

    model = spec.model
    if not isinstance(model, Mapping) or model.get("type") != "BPE" or not isinstance(model.get("vocab"), Mapping):
        return None
    if spec.normalizer is not None or not isinstance(spec.pre_tokenizer, Mapping):
        return None
    if spec.post_processor is not None or spec.options.get("trim_offsets") is not None:
        return None
    parts = spec.pre_tokenizer.get("pretokenizers")
    if not isinstance(parts, list) or len(parts) != 2 or not isinstance(parts[0], Mapping):
        return None
    regex = (parts[0].get("pattern") or {}).get("Regex")
    if not isinstance(regex, str):
        return None
    pattern = {hf_split_pattern(p): p for p in (CL100K, O200K, GPT2)}.get(regex, regex)
    byte_of = {c: b for b, c in enumerate(BYTE_CHARS)}
    if not all(a.special for a in spec.added_tokens):
        return None
    specials = {a.content: a.id for a in spec.added_tokens}
    special_ids = set(specials.values())
    ranks: dict[bytes, int] = {}
    for token, i in model["vocab"].items():
        if i in special_ids:
            continue
        if not all(c in byte_of for c in token):
            return None
        ranks[bytes(byte_of[c] for c in token)] = i
    try:
        expected = tokenizer_json(ranks, pattern, specials)
    except (ValueError, KeyError):
        return None
    got = {
        "model": dict(model),
        "pre_tokenizer": dict(spec.pre_tokenizer),
        "decoder": spec.decoder,
        "added_tokens": [
            {"id": a.id, "content": a.content, **dict.fromkeys(("single_word", "lstrip", "rstrip", "normalized"))}
            for a in spec.added_tokens
        ],
    }
    want = {
        "model": expected["model"],
        "pre_tokenizer": expected["pre_tokenizer"],
        "decoder": expected["decoder"],
        "added_tokens": [
            {"id": a["id"], "content": a["content"], **dict.fromkeys(("single_word", "lstrip", "rstrip", "normalized"))}
            for a in expected["added_tokens"]
        ],
    }
    if _canonical(got) != _canonical(want):
        return None
    try:
        return Encoding("converted", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    except (ValueError, TypeError):
        return None


def _canonical(value: Any) -> Any:
    """A JSON value with its tuples as lists and floats as JSON writes them, to compare."""
    return json.loads(json.dumps(value, sort_keys=True, default=list))


def _describe(spec: PipelineSpec) -> Any:
    """What must survive a conversion: the tokenizer.json document of the pipeline (its
    settings included), or the description itself where it has none."""
    from .hf_tokenizer_json import document

    try:
        return _canonical(document(spec))
    except ValueError:
        return spec


def _write_checked(target: PipelineSpec, original: PipelineSpec, dst: str, fmt: str) -> int:
    """Write `target` to a scratch file named as dst is, read it back, compare, then move it
    into place (atomically); the vocabulary size written."""
    from . import read_tokenizer_file, write_tokenizer_file

    folder = os.path.dirname(os.path.abspath(dst))
    if not os.path.isdir(folder):
        raise ValueError(f"{dst}: folder {folder} does not exist; make it first")
    name = os.path.basename(dst)
    if not name.endswith(FORMATS[fmt]):
        name += FORMATS[fmt]  # the scratch file's name says the format (its reader goes by it)
    scratch = tempfile.mkdtemp(prefix=".tokenforge-convert-", dir=folder)
    try:
        path = os.path.join(scratch, name)
        write_tokenizer_file(target, path)
        try:
            back = read_tokenizer_file(path)
        except (ValueError, TypeError) as e:
            raise ValueError(f"a {fmt} file cannot hold this tokenizer whole: read back, it fails ({e})") from None
        if fmt == "gguf":
            _check_same_ids(original, back)
            os.replace(path, dst)
            return _vocab_size(back)
        before, after = _describe(original), _describe(back)
        if before != after:
            raise ValueError(f"a {fmt} file cannot hold this tokenizer whole: {_lost(before, after)}")
        os.replace(path, dst)
        return _vocab_size(back)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _check_same_ids(original: PipelineSpec, back: PipelineSpec) -> None:
    """The GGUF file read back encodes the probe texts (special tokens added) as the source."""
    from ..pipeline.compile import build_kernel

    def encoder(spec: PipelineSpec) -> Any:
        kernel = build_kernel(spec)
        return lambda text: (
            kernel.native.encode(
                text, None, True, allowed_special=kernel.default_allowed, disallowed_special=kernel.default_disallowed
            ).ids
        )

    source, written = encoder(original), encoder(back)
    for text in _PROBES:
        want, got = source(text), written(text)
        if want != got:
            raise ValueError(
                f"a gguf file cannot hold this tokenizer whole: read back, it encodes {text[:30]!r}... differently "
                "(llama.cpp's reading of the file differs from the source's)"
            )


def _lost(before: Any, after: Any) -> str:
    """What differs between two descriptions, in words."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = [k for k in before if before.get(k) != after.get(k)]
        names = {
            "added_tokens": "its added (special) tokens",
            "pre_tokenizer": "its split pattern (pre-tokenizer)",
            "normalizer": "its normalizer",
            "post_processor": "its template (post-processor)",
            "decoder": "its decoder",
            "model": "its model",
            "truncation": "its truncation setting",
            "padding": "its padding setting",
        }
        return "it would lose " + ", ".join(names.get(k, k) for k in keys) + " (read back, the file differs there)"
    return "read back, the file describes a different tokenizer"


def _vocab_size(spec: PipelineSpec) -> int:
    from ..encoding import Encoding
    from ..models.wordpiece import WordPiece
    from .sentencepiece_model import SentencePieceModel

    model = spec.model
    if isinstance(model, Encoding):
        return int(model.n_vocab)
    if isinstance(model, SentencePieceModel):
        return len(model.pieces)
    if isinstance(model, WordPiece):
        return len(model.tokens)
    vocab = model.get("vocab") if isinstance(model, Mapping) else None
    ids = [a.id for a in spec.added_tokens]
    size = len(vocab) if vocab is not None else 0
    return max([size - 1, *ids], default=-1) + 1
