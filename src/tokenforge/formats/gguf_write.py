"""Writing a tokenizer as GGUF tokenizer metadata (the `tokenizer.ggml.*` keys llama.cpp reads,
no tensors), with the gguf package's writer, atomically; gguf.py reads it back to the same ids.

What GGUF can hold (anything else is refused with the reason, nothing written):
- a byte-level BPE tokenizer.json pipeline (no normalizer; ByteLevel's own split, or Split
  regexes then ByteLevel without a prefix space) whose split is one of llama.cpp's pre-tokenizer
  types (gguf_pre.SPLITS) -> `gpt2` with that type's `tokenizer.ggml.pre` name; its added tokens
  control (special) or user-defined tokens, without lstrip/rstrip/single_word; its template at
  most a BOS before and an EOS after the text;
- a sentencepiece Unigram model without byte fallback -> `t5` (the precompiled charsmap, the
  dummy prefix and extra-whitespace flags);
- a sentencepiece BPE model with byte fallback and no normalization (identity, no
  extra-whitespace removal) -> `llama` (llama.cpp's SPM merges by these scores);
- an uncased BERT WordPiece (BertNormalizer lowercasing, BertPreTokenizer, "##" continuations,
  a [CLS] $A [SEP] template), or llama.cpp's WPM itself -> `bert`, the vocabulary in WPM's form
  ("▁" before word-initial pieces, "##" dropped). A cased BERT, another normalizer or split, or a
  vocabulary two of whose tokens have one WPM form, is refused: llama.cpp's WPM lowercases and
  has no other settings.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..pipeline.spec import PipelineSpec

# sentencepiece piece types are llama.cpp's token types (1 normal ... 6 byte).


def write_gguf_tokenizer(spec: PipelineSpec, path: str | os.PathLike[str]) -> None:
    """Write `spec` as a vocabulary-only GGUF file at `path` (atomically); ValueError saying what
    GGUF cannot hold."""
    from ..models.wordpiece import WordPiece
    from .sentencepiece_model import SentencePieceModel

    if isinstance(spec.model, SentencePieceModel):
        arch, fields = _sentencepiece_fields(spec)
    elif isinstance(spec.model, WordPiece):
        arch, fields = _wordpiece_fields(spec)
    elif isinstance(spec.model, Mapping) and spec.model.get("type") == "BPE":
        arch, fields = _bpe_fields(spec)
    else:
        raise ValueError(
            f"GGUF holds llama.cpp's tokenizers: a byte-level BPE, a sentencepiece BPE or Unigram, a WordPiece; "
            f"not a {type(spec.model).__name__} model"
        )
    _write(os.fspath(path), arch, fields)


def _write(path: str, arch: str, fields: list[tuple[str, Any]]) -> None:
    import gguf

    folder = os.path.dirname(os.path.abspath(path))
    fd, scratch = tempfile.mkstemp(prefix=".tokenforge-", suffix=".gguf", dir=folder)
    os.close(fd)
    try:
        writer = gguf.GGUFWriter(scratch, arch)
        for method, value in fields:
            getattr(writer, method)(value)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(scratch, path)
    finally:
        if os.path.exists(scratch):
            os.remove(scratch)


def _sentencepiece_fields(spec: PipelineSpec) -> tuple[str, list[tuple[str, Any]]]:
    from .sentencepiece_model import ModelType, PieceType

    model = spec.model
    trainer, normalizer = model.trainer_spec, model.normalizer_spec
    kind = trainer["model_type"]
    if normalizer["escape_whitespaces"] is False or trainer["treat_whitespace_as_suffix"]:
        raise ValueError("GGUF's tokenizers escape whitespace as a prefix '▁': this model does otherwise")
    pieces = model.pieces
    fields: list[tuple[str, Any]] = []
    if kind == ModelType.UNIGRAM:
        if trainer["byte_fallback"]:
            raise ValueError("llama.cpp's Unigram (t5) has no byte fallback: this model has")
        fields += [("add_tokenizer_model", "t5")]
        charsmap = normalizer["precompiled_charsmap"]
        if charsmap:
            fields.append(("add_precompiled_charsmap", bytes(charsmap)))
        fields.append(("add_remove_extra_whitespaces", bool(normalizer["remove_extra_whitespaces"])))
        arch = "t5"
    elif kind == ModelType.BPE:
        if not trainer["byte_fallback"]:
            raise ValueError("llama.cpp's SPM falls back to byte tokens: this BPE model has no byte fallback")
        if normalizer["precompiled_charsmap"] or normalizer["remove_extra_whitespaces"]:
            raise ValueError(
                "llama.cpp's SPM does not normalize text: this model has a normalization rule or removes extra spaces"
            )
        fields += [("add_tokenizer_model", "llama")]
        arch = "llama"
    else:
        raise ValueError(f"GGUF holds sentencepiece BPE and Unigram models, not {ModelType(kind).name}")
    ids = {p.piece: i for i, p in enumerate(pieces)}

    def control(name: str) -> int | None:
        i = ids.get(trainer[f"{name}_piece"])
        return i if i is not None and pieces[i].type == PieceType.CONTROL else None

    bos, eos = control("bos"), control("eos")
    add_bos = spec.options.get("add_bos")
    add_bos = bos is not None if add_bos is None else bool(add_bos)
    add_eos = bool(spec.options.get("add_eos", False))
    fields += [
        ("add_token_list", [p.piece for p in pieces]),
        ("add_token_scores", [float(p.score) for p in pieces]),
        ("add_token_types", [int(p.type) for p in pieces]),
        ("add_unk_token_id", int(trainer["unk_id"])),
        ("add_add_space_prefix", bool(normalizer["add_dummy_prefix"])),
        ("add_add_bos_token", add_bos),
        ("add_add_eos_token", add_eos),
    ]
    if bos is not None:
        fields.append(("add_bos_token_id", bos))
    if eos is not None:
        fields.append(("add_eos_token_id", eos))
    return arch, fields


def _wordpiece_fields(spec: PipelineSpec) -> tuple[str, list[tuple[str, Any]]]:
    from ..models.wordpiece import WPM_WORD_PREFIX, to_wpm_vocab
    from ..normalizers.bert import BertNormalizer, WpmNormalizer
    from ..pre_tokenizers.bert import BertPreTokenizer, WpmPreTokenizer
    from ..processors.template import TemplateProcessing

    model, norm, pre = spec.model, spec.normalizer, spec.pre_tokenizer
    if model.word_prefix == WPM_WORD_PREFIX and model.continuing_subword_prefix == "":
        if not isinstance(norm, WpmNormalizer) or not isinstance(pre, WpmPreTokenizer):
            raise ValueError("llama.cpp's WPM has its own normalizer and split: this WPM model has others")
        tokens = list(model.tokens)
    else:
        if model.word_prefix or model.continuing_subword_prefix != "##":
            raise ValueError("llama.cpp's WPM reads BERT's '##' continuation prefix: this WordPiece has another")
        if not (
            isinstance(norm, BertNormalizer)
            and norm.lowercase
            and norm.clean_text
            and norm.handle_chinese_chars
            and norm.strip_accents in (None, True)
        ):
            raise ValueError(
                "llama.cpp's WPM lowercases and strips accents as an uncased BERT does: this normalizer does otherwise"
            )
        if not isinstance(pre, BertPreTokenizer):
            raise ValueError("llama.cpp's WPM splits words as BERT's pre-tokenizer: this tokenizer splits otherwise")
        tokens = to_wpm_vocab(model.tokens)
        if len(set(tokens)) != len(tokens):
            raise ValueError("two tokens of this vocabulary have one form in llama.cpp's WPM ('##x' and '▁x')")
    post = spec.post_processor
    single = post.single if isinstance(post, TemplateProcessing) else ()
    if len(single) != 3 or single[0][0] or not single[1][0] or single[2][0]:
        raise ValueError("llama.cpp's WPM frames a text as CLS text SEP: this template does otherwise")
    ids = {t: i for i, t in enumerate(model.tokens)}
    cls, sep = ids.get(single[0][3]), ids.get(single[2][3])
    if cls is None or sep is None:
        raise ValueError("the template's CLS and SEP tokens must be in the vocabulary")
    special = {a.id for a in spec.added_tokens if a.special}
    for a in spec.added_tokens:
        if a.id >= len(tokens) or model.tokens[a.id] != a.content:
            raise ValueError(f"added token {a.content!r} is not in the WordPiece vocabulary, which GGUF's WPM needs")
    unk = ids[model.unk_token]
    types = [2 if i == unk else 3 if i in special else 1 for i in range(len(tokens))]
    return "bert", [
        ("add_tokenizer_model", "bert"),
        ("add_token_list", tokens),
        ("add_token_types", types),
        ("add_unk_token_id", unk),
        ("add_bos_token_id", cls),
        ("add_sep_token_id", sep),
    ]


def _stages(part: Any) -> list[dict[str, Any]]:
    if part is None:
        return []
    if not isinstance(part, Mapping):
        to_json = getattr(part, "to_json", None)
        if to_json is None:
            raise ValueError(f"GGUF cannot hold a {type(part).__name__} stage")
        part = to_json()
    if part.get("type") == "Sequence":
        inner = part.get("pretokenizers", part.get("normalizers", part.get("decoders", [])))
        return [s for p in inner for s in _stages(p)]
    return [dict(part)]


def _bpe_fields(spec: PipelineSpec) -> tuple[str, list[tuple[str, Any]]]:
    from .gguf_pre import PRE_NAMES, SPLITS

    model = dict(spec.model)
    if model.get("byte_fallback") or model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        raise ValueError("GGUF's gpt2 tokenizer is a plain byte-level BPE: this one has byte fallback or affixes")
    if model.get("dropout") not in (None, 0, 0.0):
        raise ValueError("GGUF holds no BPE dropout")
    if _stages(spec.normalizer):
        raise ValueError("GGUF's gpt2 tokenizer has no normalizer: this one has")
    stages = _stages(spec.pre_tokenizer)
    if not stages or stages[-1].get("type") != "ByteLevel" or stages[-1].get("add_prefix_space", True):
        raise ValueError("GGUF's gpt2 tokenizer splits then maps bytes (ByteLevel without a prefix space) last")
    regexes: list[str] = []
    for s in stages[:-1]:
        pattern = s.get("pattern") or {}
        if s.get("type") != "Split" or s.get("behavior") != "Isolated" or s.get("invert") or "Regex" not in pattern:
            raise ValueError(f"GGUF's splits are regexes, each match isolated: not {s.get('type')} {s!r:.80}")
        regexes.append(pattern["Regex"])
    if stages[-1].get("use_regex", True):
        if regexes:
            raise ValueError("a ByteLevel split after Split regexes is no llama.cpp pre-tokenizer")
        regexes = [SPLITS["gpt2"][0]]
    kinds = [k for k, r in SPLITS.items() if list(r) == regexes and k != "gemma4"]
    ignore_merges = bool(model.get("ignore_merges", False))
    names = [
        n
        for n, (k, flags) in PRE_NAMES.items()
        if k in kinds
        and bool(flags.get("ignore_merges", False)) == ignore_merges
        and not (set(flags) - {"ignore_merges", "add_bos", "clean_spaces"})
    ]
    if not names:
        raise ValueError(
            "its split is none of llama.cpp's pre-tokenizers (formats/gguf_pre.py) with ignore_merges="
            f"{ignore_merges}: {regexes!r:.200}"
        )
    vocab: dict[str, int] = dict(model["vocab"])
    for a in spec.added_tokens:
        if a.lstrip or a.rstrip or a.single_word:
            raise ValueError(f"added token {a.content!r}: GGUF holds no lstrip/rstrip/single_word flags")
        if vocab.setdefault(a.content, a.id) != a.id:
            raise ValueError(f"added token {a.content!r} has id {a.id}, the vocabulary another")
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    if [i for _, i in by_id] != list(range(len(by_id))):
        raise ValueError("GGUF's token list has no gaps: this vocabulary skips ids")
    tokens = [t for t, _ in by_id]
    kind_of = {a.content: 3 if a.special else 4 for a in spec.added_tokens}
    merges = [m if isinstance(m, str) else f"{m[0]} {m[1]}" for m in model.get("merges", [])]
    if not merges:
        raise ValueError("GGUF's gpt2 tokenizer needs merges (llama.cpp refuses a file without)")
    bos, eos = _template_ids(spec)
    fields: list[tuple[str, Any]] = [
        ("add_tokenizer_model", "gpt2"),
        ("add_tokenizer_pre", names[0]),
        ("add_token_list", tokens),
        ("add_token_types", [kind_of.get(t, 1) for t in tokens]),
        ("add_token_merges", merges),
        ("add_add_bos_token", bos is not None),
        ("add_add_eos_token", eos is not None),
    ]
    if bos is not None:
        fields.append(("add_bos_token_id", bos))
    if eos is not None:
        fields.append(("add_eos_token_id", eos))
    return "gpt2", fields


def _template_ids(spec: PipelineSpec) -> tuple[int | None, int | None]:
    """(BOS, EOS) of a template that is at most a token before and one after the text."""
    post = spec.post_processor
    if post is None:
        return None, None
    single = list(getattr(post, "single", ()))
    seq = [i for i, p in enumerate(single) if p[0]]
    if len(seq) != 1 or len(single) > 3 or seq[0] > 1 or len(single) - seq[0] > 2:
        raise ValueError("GGUF's template is a BOS before and an EOS after the text, nothing else")

    def token_id(piece: Any) -> int:
        ids = post.special_tokens.get(piece[3], [])
        if len(ids) != 1:
            raise ValueError(f"template token {piece[3]!r} is not one token")
        return int(ids[0])

    bos = token_id(single[0]) if seq[0] == 1 else None
    eos = token_id(single[-1]) if len(single) - seq[0] == 2 else None
    return bos, eos
