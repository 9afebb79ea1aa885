"""File formats: read and write vocabularies in the forms other tools use.

`detect` is the one place that tells tokenizer files apart; `read_tokenizer_file` reads any of
them into a pipeline description (tokenforge.pipeline.spec.PipelineSpec), which a `Tokenizer`
compiles, and `write_tokenizer_file` writes a description in the format a path names;
`convert` (convert.py) turns one file into another format, or says why it cannot. The modules
here never import the tokenizer surface.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..pipeline.spec import PipelineSpec

# What each kind of tokenizer file is called in messages.
KINDS = (
    "an HF tokenizer.json (*.json), Mistral's tekken.json, a BERT vocab.txt (*.txt), a GGUF file (*.gguf), a sentencepiece model "
    "(*.model), a .tiktoken or .tokenforge file, or GPT-2's encoder.json with vocab.bpe beside it"
)


def detect(path: str) -> str:
    """The kind of tokenizer file at `path`: "byte_level_bpe" (.tiktoken, .tokenforge, GPT-2's
    encoder.json or its folder), "sentencepiece" (.model, or any file that starts as one),
    "tekken" (a .json named *tekken* or starting as one: tekken.detect_tekken), "tokenizer.json",
    "vocab.txt" or "gguf"; ValueError for anything else."""
    from .sentencepiece_model import is_sentencepiece_model

    if (
        path.endswith((".tiktoken", ".tokenforge", f"{os.sep}encoder.json"))
        or path == "encoder.json"
        or os.path.isfile(os.path.join(path, "encoder.json"))
    ):
        return "byte_level_bpe"
    if path.endswith(".model") or (not path.endswith((".json", ".txt", ".gguf")) and is_sentencepiece_model(path)):
        return "sentencepiece"
    if path.endswith(".json"):
        from .tekken import detect_tekken

        if detect_tekken(path):
            return "tekken"
    for suffix, kind in ((".json", "tokenizer.json"), (".txt", "vocab.txt"), (".gguf", "gguf")):
        if path.endswith(suffix):
            return kind
    raise ValueError(f"{path}: unknown vocabulary format; give {KINDS}")


def read_tokenizer_file(path: str | os.PathLike[str], *, wpm: bool = False, **options: Any) -> PipelineSpec:
    """The pipeline a tokenizer file holds (see detect). Options: add_bos, add_eos for
    sentencepiece models; pat_str, special_tokens, name for .tiktoken files; wpm=True reads a
    BERT vocab.txt as llama.cpp's WPM tokenizer does."""
    path = os.fspath(path)
    if wpm and not options:
        from .bert_vocab import read_wpm

        return read_wpm(path)
    kind = detect(path)
    if kind == "byte_level_bpe":
        return read_byte_level_bpe(path, **options)
    if kind == "sentencepiece":
        return read_sentencepiece(path, **options)
    if options:
        raise TypeError(
            f"{', '.join(options)}: not options of {kind}; options are add_bos, add_eos (sentencepiece .model) "
            "and pat_str, special_tokens, name (.tiktoken)"
        )
    if kind == "tokenizer.json":
        from .hf_tokenizer_json import read_tokenizer_json

        return read_tokenizer_json(path)
    if kind == "tekken":
        from .tekken import read_tekken

        return read_tekken(path)
    if kind == "gguf":
        from .gguf import read_gguf_tokenizer

        return read_gguf_tokenizer(path)
    from .bert_vocab import read_bert

    return read_bert(path)


def convert(src: str | os.PathLike[str], dst: str | os.PathLike[str], *, to: str | None = None) -> Any:
    """Convert tokenizer file `src` into `dst` (format `to`, or the one dst's name says); see
    convert.convert. Returns a convert.Converted summary; ValueError where the target format
    cannot express the model."""
    from .convert import convert as _convert

    return _convert(src, dst, to=to)


def read_byte_level_bpe(path: str | os.PathLike[str], **options: Any) -> PipelineSpec:
    """A byte-level BPE: a .tiktoken file (options of load_tiktoken: pat_str, special_tokens,
    name), a .tokenforge file, or GPT-2's encoder.json (vocab.bpe beside it) or their folder."""
    from ..loaders import load_gpt2, load_tiktoken
    from ..pipeline.spec import PipelineSpec
    from .tokenforge_file import load_encoding

    path = os.fspath(path)
    if path.endswith(".tiktoken"):
        return PipelineSpec(load_tiktoken(path, **options))
    if options:
        raise TypeError(f"{', '.join(options)}: options for .tiktoken files only")
    if path.endswith(".tokenforge"):
        return PipelineSpec(load_encoding(path))
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    return PipelineSpec(load_gpt2(os.path.join(folder, "encoder.json"), os.path.join(folder, "vocab.bpe")))


def read_sentencepiece(
    path: str | os.PathLike[str], *, add_bos: bool | None = None, add_eos: bool = False
) -> PipelineSpec:
    """A sentencepiece .model file, with bos/eos around each text as asked (add_bos None: when
    the model has a bos piece)."""
    from ..pipeline.spec import PipelineSpec
    from .sentencepiece_model import SentencePieceModel
    from .validation import FormatError

    path = os.fspath(path)
    with open(path, "rb") as f:
        if f.read(9) == b"minbpe v1":
            raise FormatError(path, "", "a minbpe model, not a sentencepiece one")
    return PipelineSpec(SentencePieceModel.read(path), options={"add_bos": add_bos, "add_eos": add_eos})


def write_tokenizer_file(spec: PipelineSpec, path: str | os.PathLike[str]) -> None:
    """Write `spec` (atomically) in the format `path` names: .json (HF tokenizer.json, any
    tokenizer: see hf_tokenizer_json.document; a tekken model: a tekken.json where the name has
    "tekken" in it, else tokenizer.json, see tekken.as_encoding_spec), .model (sentencepiece), .tiktoken (a byte-level BPE's ranks only: its pattern and special tokens
    are not in that format), .tokenforge (a byte-level BPE, whole), .txt (a WordPiece
    vocab.txt). Any other name gets the model's own format: tokenizer.json for WordPiece and
    pipelines read from one, .model for sentencepiece. ValueError where the format cannot hold the model."""
    from ..encoding import Encoding
    from ..models.tekken import Tekken
    from ..models.wordpiece import WordPiece
    from .sentencepiece_model import SentencePieceModel

    name = os.fspath(path)
    model = spec.model
    kind = type(model).__name__
    if isinstance(model, Tekken):
        if not name.endswith(".json"):
            raise ValueError(
                f"{name}: a tekken model is written as a tekken.json or a tokenizer.json; end the name in .json"
            )
        from .tekken import as_encoding_spec, write_tekken

        if "tekken" in os.path.basename(name):
            write_tekken(model, path)
        else:
            from .hf_tokenizer_json import save_tokenizer_json

            save_tokenizer_json(as_encoding_spec(spec), path)
    elif name.endswith(".json"):
        from .hf_tokenizer_json import save_tokenizer_json

        save_tokenizer_json(spec, path)
    elif name.endswith((".tiktoken", ".tokenforge")):
        if not isinstance(model, Encoding):
            raise ValueError(f"{name}: .tiktoken and .tokenforge files hold byte-level BPEs, not a {kind} model")
        if name.endswith(".tiktoken"):
            from .tiktoken_file import dump_tiktoken_bpe

            dump_tiktoken_bpe(model._mergeable_ranks, path)
        else:
            from .tokenforge_file import save_encoding

            save_encoding(model, path)
    elif name.endswith(".gguf"):
        from .gguf_write import write_gguf_tokenizer

        write_gguf_tokenizer(spec, path)
    elif name.endswith(".model") and not isinstance(model, SentencePieceModel):
        raise ValueError(f"{name}: a .model file holds sentencepiece models, not a {kind} model")
    elif name.endswith(".txt") and isinstance(model, WordPiece):
        from .bert_vocab import write_vocab_txt

        write_vocab_txt(model.tokens, path)
    elif isinstance(model, SentencePieceModel):
        model.write(path)
    elif isinstance(model, (WordPiece, Mapping)):  # WordPiece, or a pipeline read from a tokenizer.json
        from .hf_tokenizer_json import save_tokenizer_json

        save_tokenizer_json(spec, path)
    else:
        raise ValueError(f"{name}: give a path ending in .json, .tiktoken or .tokenforge")
