"""HF tokenizers' `tokenizer.json`: any tokenizer.json read into a pipeline description, and any
pipeline written (`document`): byte-level BPE vocabularies, sentencepiece models (their own
module, spm_tokenizer_json.py), and pipelines of tokenizer.json components written back as read.

Reading: BERT's components (BertNormalizer, BertPreTokenizer, WordPiece, its decoder, its
templates) become tokenforge's records, which the fused WordPiece kernel runs; every other
component stays the tokenizer.json dict it is (components as data), which the staged pipeline
builds natively and checks (an unknown type or option is an error naming it). The model's
vocabulary, the added tokens, the post-processor's tokens, truncation and padding are checked
here, field by field.

For byte-level BPE, the file holds the vocabulary in GPT-2's byte-to-unicode spelling, the merges recovered from
the ranks, the split pattern as a `Split` pre-tokenizer followed by `ByteLevel`, and the
special tokens as added tokens. HF's BPE then gives tiktoken's ids: `ignore_merges` makes it
look a whole piece up first, as tiktoken does. A pipeline read from a tokenizer.json is written
with its components as they were read (BERT's records through their to_json), its added
tokens, template and trimming post-processor, and the truncation and padding set now.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from .. import _core
from ..arguments import MAX_PAD_LENGTH
from .atomic import write_files_atomically
from .gpt2_files import bytes_to_unicode, split_for_merge
from .validation import Fields, id_limit, key_path, read_json

if TYPE_CHECKING:
    from ..pipeline.spec import PipelineSpec


def hf_split_pattern(pattern: str) -> str:
    r"""`pattern` rewritten so HF's regex engine (Oniguruma, Ruby syntax) reads it as tiktoken's does.

    * ``\p{N}{1,3}+`` is possessive in tiktoken's engine, but Oniguruma reads it as
      ``(\p{N}{1,3})+`` (unbounded digit runs). The plain ``\p{N}{1,3}`` matches the same,
      since nothing follows it in its alternative.
    * ``?+``, ``++`` and ``*+`` are possessive in Oniguruma too, so they stay. ``\s++$`` must stay
      possessive: Oniguruma's ``$`` also matches before any ``\n``, and a greedy ``\s+$`` would
      stop before a newline inside the text.
    """
    return pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")


def tokenizer_json(
    mergeable_ranks: dict[bytes, int],
    pattern: str,
    special_tokens: dict[str, int] | None = None,
    *,
    gpt2_style: bool = False,
) -> dict:
    """The tokenizer.json document. `gpt2_style` uses GPT-2's own form (the ByteLevel
    pre-tokenizer with its built-in regex) instead of an explicit Split with `pattern`."""
    b2u = bytes_to_unicode()

    def spell(token: bytes) -> str:
        return "".join(b2u[b] for b in token)

    merges = []
    for token, rank in sorted(mergeable_ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = split_for_merge(mergeable_ranks, token, rank)
        if len(parts) == 2:  # a token no merge reaches is still found whole (ignore_merges)
            merges.append(f"{spell(parts[0])} {spell(parts[1])}")
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
    if gpt2_style:
        pre_tokenizer = {**byte_level, "use_regex": True}
    else:
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": hf_split_pattern(pattern)},
                    "behavior": "Isolated",
                    "invert": False,
                },
                {**byte_level, "use_regex": False},
            ],
        }
    added = [
        {
            "id": i,
            "content": text,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for text, i in sorted((special_tokens or {}).items(), key=lambda kv: kv[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": {**byte_level, "add_prefix_space": True, "use_regex": True},
        # Special tokens are in the vocabulary too: HF keeps an added token's own id only then.
        "model": bpe_model_json(
            {
                **{spell(token): rank for token, rank in mergeable_ranks.items()},
                **{spell(text.encode("utf-8")): i for text, i in (special_tokens or {}).items()},
            },
            merges,
            ignore_merges=True,
        ),
    }


def save_tokenizer_json(tokenizer: Any, path: str | os.PathLike[str]) -> None:
    """Write `tokenizer` (a `Tokenizer`, a `PipelineSpec`, a byte-level BPE `Encoding`, or a
    `SentencePieceModel` as read or trained) as an HF tokenizer.json, atomically."""
    from ..encoding import Encoding
    from ..pipeline.spec import PipelineSpec
    from .sentencepiece_model import SentencePieceModel

    if isinstance(tokenizer, PipelineSpec):
        spec = tokenizer
    elif isinstance(tokenizer, (Encoding, SentencePieceModel)):
        spec = PipelineSpec(tokenizer)
    else:
        spec = tokenizer.spec
    write_files_atomically([(os.fspath(path), json.dumps(document(spec), ensure_ascii=False).encode("utf-8"))])


_DIRECTION = {"left": "Left", "right": "Right"}
_STRATEGY = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}


def document(spec: PipelineSpec) -> dict[str, Any]:
    """The tokenizer.json document of a pipeline: a byte-level BPE `Encoding` (or a tekken model in
    that form), a sentencepiece
    model (formats.spm_tokenizer_json), or a pipeline of tokenizer.json components (WordPiece's
    records, or the dicts a tokenizer.json was read into: the staged and fused kernels'
    descriptions), with its added tokens, template, truncation and padding as set. HF tokenizers
    reloads it to the same ids. ValueError for what the format cannot hold."""
    from ..encoding import Encoding
    from ..models.tekken import Tekken
    from .sentencepiece_model import SentencePieceModel

    if isinstance(spec.model, Tekken):  # its byte-level BPE form (see tekken.as_encoding_spec)
        from .tekken import as_encoding_spec

        spec = as_encoding_spec(spec)
    model = spec.model
    names: dict[int, str]
    if isinstance(model, Encoding):
        doc = tokenizer_json(model._mergeable_ranks, model._pat_str, model._special_tokens)
        names = {i: t for t, i in model._special_tokens.items()}
    elif isinstance(model, SentencePieceModel):
        from .spm_tokenizer_json import spm_document

        if "vocabulary" in spec.options:
            raise ValueError(
                "a sentencepiece model behind a vocabulary of its own (a Python class's: Marian's or M2M100's "
                "vocab.json ids, with the unknown id for the pieces it lacks, its own decode) has no tokenizer.json "
                "form: HF tokenizers' models give each piece an id of its own; keep the model folder"
            )

        if spec.post_processor is not None:
            raise ValueError("a sentencepiece tokenizer's template comes from its add_bos and add_eos options")
        doc = spm_document(model, spec.options)
        names = {i: p.piece for i, p in enumerate(model.pieces)}
    else:
        doc = _pipeline_json(spec)
        names = {**_model_names(doc["model"]), **{a.id: a.content for a in spec.added_tokens}}
    if spec.options.get("split_special_tokens"):
        raise ValueError(
            "split_special_tokens: tokenizer.json has no field for it (it is a setting of the tokenizer that "
            "loads the file); save with split_special_tokens off"
        )
    if spec.post_processor is not None:
        doc["post_processor"] = spec.post_processor.to_json(names)
    trim = spec.options.get("trim_offsets")
    if trim is not None:  # read from a ByteLevel or RobertaProcessing post-processor: written back as ByteLevel
        byte_level = {
            "type": "ByteLevel",
            "add_prefix_space": bool(trim["add_prefix_space"]),
            "trim_offsets": True,
            "use_regex": True,
        }
        template = doc["post_processor"]
        doc["post_processor"] = (
            byte_level if template is None else {"type": "Sequence", "processors": [byte_level, template]}
        )
    t, p = spec.truncation, spec.padding
    doc["truncation"] = t and {
        "direction": _DIRECTION[t["direction"]],
        "max_length": t["max_length"],
        "strategy": _STRATEGY[t["strategy"]],
        "stride": t["stride"],
    }
    doc["padding"] = p and {
        "strategy": {"Fixed": p["length"]} if p["length"] else "BatchLongest",
        "direction": _DIRECTION[p["direction"]],
        "pad_to_multiple_of": p["pad_to_multiple_of"],
        "pad_id": p["pad_id"],
        "pad_type_id": p["pad_type_id"],
        "pad_token": p["pad_token"],
    }
    _keep_added_ids(doc)
    return doc


def _keep_added_ids(doc: dict[str, Any]) -> None:
    """HF gives the added tokens its model lacks the ids after the vocabulary's size, in the order
    listed, whatever ids the file says (see _TokenizerJson.added_tokens). Where that would change
    an id (added tokens beyond a vocabulary with an id gap, like cl100k's), every such token is
    written into a BPE or WordLevel vocabulary too, where HF keeps a token's id."""
    model = doc["model"]
    vocab = model.get("vocab")
    if model.get("type") not in ("BPE", "WordLevel") or not isinstance(vocab, dict):
        return
    lacking = [a for a in doc["added_tokens"] if a["content"] not in vocab]
    if any(a["id"] != i for i, a in enumerate(lacking, len(vocab))):
        model["vocab"] = {**vocab, **{a["content"]: a["id"] for a in lacking}}


def _component_json(component: Any, stage: str) -> dict[str, Any] | None:
    """One stage as tokenizer.json holds it: a tokenforge record's to_json(), or the dict it was
    read as; None for none."""
    if component is None:
        return None
    if isinstance(component, Mapping):
        return dict(component)
    to_json = getattr(component, "to_json", None)
    if to_json is None:
        raise ValueError(
            f"the {stage} {type(component).__name__} has no tokenizer.json form "
            "(llama.cpp's WPM preprocessing: save it as vocab.txt)"
        )
    return dict(to_json())


# The staged pipeline's models that HF tokenizers has none of, and what keeps them instead
_NOT_HF_MODELS = {
    "FastBPE": "fastBPE's pieces (PhoBERT's, CTRL's), named with '@@', which HF's BPE cannot name so: keep the model folder",
    "GgufPlamo2": "llama.cpp's PLaMo-2 least-cost cut: keep the GGUF file",
}


def _pipeline_json(spec: PipelineSpec) -> dict[str, Any]:
    """A pipeline of tokenizer.json components written back as they are."""
    normalizer = _component_json(spec.normalizer, "normalizer")
    pre_tokenizer = _component_json(spec.pre_tokenizer, "pre-tokenizer")
    decoder = _component_json(spec.decoder, "decoder")
    model = _component_json(spec.model, "model")
    if model is None or not isinstance(model.get("type"), str):
        raise ValueError("the pipeline has no model with a tokenizer.json form")
    if model["type"] in _NOT_HF_MODELS:
        raise ValueError(f"the {model['type']} model has no tokenizer.json form ({_NOT_HF_MODELS[model['type']]})")
    # tokenforge's own option (scores read as their nearest doubles, as transformers' rebuilt
    # Unigram classes have them): the file holds the scores' text, which HF reads its own way
    model.pop("nearest_scores", None)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [a.to_json() for a in spec.added_tokens],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }


# The WordPiece pipeline's document (BERT's form) is the general one.
_wordpiece_json = _pipeline_json


def _model_names(model: Mapping[str, Any]) -> dict[int, str]:
    """Token text by id of a tokenizer.json model."""
    vocab = model.get("vocab")
    if isinstance(vocab, Mapping):
        return {i: t for t, i in vocab.items()}
    if isinstance(vocab, (list, tuple)):  # Unigram: [[piece, score], ...]
        return {i: entry[0] for i, entry in enumerate(vocab)}
    return {}


# ---------------------------------------------------------------------------- loading

_STRATEGY_NAMES = {v: k for k, v in _STRATEGY.items()}
_MAX_LENGTH = 2**63 - 1  # truncation lengths: what the native pipeline holds
_UINT32_MAX = 2**32 - 1  # token ids
_MAX_TYPE_ID = _core.MAX_TYPE_ID  # type ids: what the native pipeline holds (HF's files use 0 and 1)


def _plain_template() -> Any:
    """The template of a post-processor that adds no tokens: "$A", "$A $B:1"."""
    from ..processors.template import TemplateProcessing

    return TemplateProcessing.from_templates("$A", "$A $B:1", [])


def bpe_model_json(vocab: Any, merges: Any, **options: Any) -> dict[str, Any]:
    """A BPE "model" object as tokenizers writes one (every field, its defaults), `options`
    (unk_token, fuse_unk, byte_fallback, ignore_merges, ...) over them."""
    model: dict[str, Any] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": vocab,
        "merges": merges,
    }
    model.update(options)
    return model


def read_tokenizer_json(
    path: str | os.PathLike[str], rebuild: Callable[[Any, bytes], Any] | None = None
) -> PipelineSpec:
    """The pipeline of an HF tokenizer.json with a WordPiece model (BERT's form).

    Every field is checked before it is used: a value of the wrong kind, an id that is not one
    of the vocabulary's (or its added tokens'), an added token or post-processor token whose id
    disagrees with the vocabulary, or an id beyond `validation.id_limit` raises FormatError
    naming the file and the field (e.g. `post_processor.special_tokens['[CLS]'].ids[0]`).
    `rebuild(doc, data)`, where given, may rewrite the parsed document (from its bytes) first."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    doc = read_json(path, data, "a tokenizer.json")
    if isinstance(doc, dict) and isinstance(doc.get("model"), dict) and "nearest_scores" in doc["model"]:
        # tokenforge's own option, which only transformers' class rebuild sets: a file's is not
        # HF's (HF ignores the key), so it is refused as other unknown options are
        Fields(path).fail("model.nearest_scores", "unknown option (not one of HF's)")
    if rebuild is not None:  # the document as a loader rewrites it (transformers' class rebuild)
        doc = rebuild(doc, data)
    return _TokenizerJson(path, doc).read()


def read_tokenizer_document(path: str, doc: Any) -> PipelineSpec:
    """The pipeline of a tokenizer.json document built in memory (from a model folder's other
    files, formats/slow_files.py); errors name `path`, the file it was built from."""
    return _TokenizerJson(path, doc).read()


class _TokenizerJson:
    """One tokenizer.json document read into a WordPiece pipeline description, field by field."""

    def __init__(self, path: str, doc: Any) -> None:
        self.path = path
        self.doc = doc
        self.f = Fields(path)

    def unsupported(self, where: str, kind: Any, supported: str) -> NoReturn:
        self.f.fail(where, f"{kind!r} is not supported here (supported: {supported})")

    def read(self) -> PipelineSpec:
        from ..pipeline.spec import PipelineSpec

        f, doc = self.f, self.doc
        if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
            f.fail("model" if isinstance(doc, dict) else "", 'not a tokenizer.json (no "model" object)')
        model = self.model(doc["model"])  # sets self.tokens, the vocabulary by id
        added = self.added_tokens(doc.get("added_tokens", []))
        # What each id shows (the vocabulary's token, an added token's content over it), as the
        # tokenizer builds it: token_id reads the two (no 150,000-entry map is made for a check).
        self.added_of: dict[int, str] = {a.id: a.content for a in added}
        self.trim_offsets: dict[str, bool] | None = None  # set by a post-processor that trims offsets
        normalizer = self.normalizer(doc.get("normalizer"))
        pre = self.pre_tokenizer(doc.get("pre_tokenizer"))
        post = self.post_processor(doc.get("post_processor"))
        decoder = self.decoder(doc.get("decoder"))
        return PipelineSpec(
            model,
            normalizer,
            pre,
            post,
            decoder,
            tuple(added),
            added_extras=self.added_extras,
            options={} if self.trim_offsets is None else {"trim_offsets": self.trim_offsets},
            truncation=self.truncation(doc.get("truncation")),
            padding=self.padding(doc.get("padding")),
        )

    # -- the model -----------------------------------------------------------------------

    def model(self, m: dict[str, Any]) -> Any:
        """The model: a WordPiece record, or the model's dict (BPE, WordLevel, Unigram) after its
        vocabulary is checked; sets self.tokens, the token text by id."""
        f = self.f
        kind = m.get("type", "WordPiece")
        self.vocab_map: dict[str, Any] | None = None  # token -> id, where the model has that map
        if kind == "Unigram":
            self.tokens = self.unigram_vocab(m.get("vocab"))
            self.model_size = len(self.tokens)  # HF's get_vocab_size: its entries, a repeated piece too
            unk = m.get("unk_id")
            if unk is not None:
                f.integer(unk, "model.unk_id", 0, len(self.tokens) - 1, what=" (an index of model.vocab)")
            return dict(m)
        if kind not in ("WordPiece", "BPE", "WordLevel"):
            self.unsupported("model.type", kind, "WordPiece, BPE, WordLevel, Unigram")
        vocab = f.obj(m.get("vocab"), "model.vocab")
        self.tokens = self.vocab_tokens(vocab, gaps=True)
        self.model_size = len(vocab)  # HF's get_vocab_size: the entries, not the top id
        self.vocab_map = vocab
        # An unknown token the vocabulary lacks is HF's error only on a text that needs it
        # ("Missing [UNK] token from the vocabulary"): the staged models raise it there.
        if kind != "WordPiece":
            unk = m.get("unk_token")
            if unk is not None:
                f.text(unk, "model.unk_token")
            if kind == "BPE":
                f.array(m.get("merges", []), "model.merges")
            return dict(m)
        from ..models.wordpiece import WordPiece

        unk = f.text(m.get("unk_token", "[UNK]"), "model.unk_token")
        prefix = f.text(m.get("continuing_subword_prefix", "##"), "model.continuing_subword_prefix")
        limit = m.get("max_input_chars_per_word", 100)
        if limit is not None:
            f.integer(limit, "model.max_input_chars_per_word", 0, _UINT32_MAX - 1)
        # The fused kernel needs the unknown token's id and an id for every number below the top
        # one: the staged WordPiece model runs the rest (HF allows both).
        if unk not in vocab or len(vocab) < len(self.tokens):
            return {**m, "type": "WordPiece"}
        return WordPiece(self.tokens, unk, prefix, limit)

    def vocab_tokens(self, vocab: dict[str, Any], gaps: bool = False) -> list[str]:
        """The tokens of a {token: id} vocabulary by id, every id 0..n-1 given once; with `gaps`
        (HF's maps allow them, e.g. tiktoken's cl100k special-token ids), ids may
        skip numbers, up to validation.id_limit, and a skipped id shows as ""."""
        f = self.f
        if not vocab:
            f.fail("model.vocab", "the vocabulary is empty")
        n = len(vocab)
        ids = list(vocab.values())
        all_int = set(map(type, ids)) == {int}
        if all_int and ids == list(range(n)) and "" not in vocab:
            # The usual file (HF writes its vocabularies by id): whole-list checks only.
            try:
                "".join(vocab).encode("utf-8")
                return list(vocab)
            except UnicodeEncodeError:
                pass  # named below
        if gaps:
            limit = id_limit(n)
            if all_int and min(ids) >= 0 and max(ids) < limit:
                top = max(ids)
            else:
                top = max((i for i in ids if type(i) is int and 0 <= i < limit), default=-1)
            n = max(n, top + 1)
            what = f" (ids are below {id_limit(len(vocab))}: twice the {len(vocab)} tokens, plus 65536)"
        else:
            what = f" (ids are 0..{n - 1}, one per token)"
        tokens: list[str | None] = [None] * n
        try:
            "".join(vocab).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate ("\ud800" in the JSON): name the token
            for token in vocab:
                f.utf8(token, key_path("model.vocab", token))
        # The common case with whole-list operations (a vocabulary has 150,000 tokens): integer
        # ids in range, each once, no empty token; else the loop below names the first problem.
        if all_int and min(ids) >= 0 and max(ids) < n and len(set(ids)) == len(ids) and "" not in vocab:
            if len(vocab) == n:
                return sorted(vocab, key=vocab.__getitem__)
            by_id = dict(zip(ids, vocab))
            return [by_id.get(i, "") for i in range(n)]
        for token, i in vocab.items():  # the checks inline: a vocabulary has tens of thousands of tokens
            if type(i) is not int or not 0 <= i < n or not token:
                where = key_path("model.vocab", token)
                if not token:
                    f.fail(where, "a token must not be empty")
                f.integer(i, where, 0, n - 1, what=what)
            if tokens[i] is not None:
                f.fail("model.vocab", f"id {i} is given to both {tokens[i]!r} and {token!r}")
            tokens[i] = token
        if gaps and len(vocab) < n:
            return [t or "" for t in tokens]
        return tokens  # type: ignore[return-value]  # every id filled above

    def unigram_vocab(self, vocab: Any) -> list[str]:
        """The pieces of a Unigram vocabulary ([[piece, score], ...]) by id."""
        f = self.f
        items = f.array(vocab, "model.vocab")
        if not items:
            f.fail("model.vocab", "the vocabulary is empty")
        pieces = []
        for k, item in enumerate(items):
            where = f"model.vocab[{k}]"
            if not isinstance(item, list) or len(item) != 2:
                f.fail(where, "must be [piece, score]")
            piece = f.text(item[0], f"{where}[0]")
            if type(item[1]) not in (int, float):
                f.fail(f"{where}[1]", f"a score must be a number, got {type(item[1]).__name__}")
            pieces.append(piece)
        return pieces

    def added_tokens(self, items: Any) -> list[Any]:
        """The added tokens as HF tokenizers holds them once it has read `items` (its
        TokenizerImpl deserializer: one add_tokens call over the list, tokenizer/added_vocabulary.rs),
        one token per id, by id. HF ignores a token's "id" (it only warns where it differs):
        in the order listed, a token takes the id its content already has (as an added token, or
        else in the model's vocabulary), or else the next id from the model's vocabulary size (its
        count of entries, not its top id: below an id gap of a BPE or WordLevel vocabulary that
        id may be a vocabulary token's, which the added token then names). A content listed again with other flags replaces the earlier entry (the
        last one's flags hold); a token whose content got the id of another replaces that one;
        an empty content is skipped. What HF keeps beyond the tokens by id (added_tokens.AddedExtras)
        is set in self.added_extras. Warns where a
        token's id is not the file's, as HF does. Each entry must give every field HF's
        AddedTokenWithId requires (id, content and the five flags: serde gives them no
        defaults); a key missing or of the wrong kind is a FormatError naming it."""
        from ..added_tokens import FLAGS, AddedVocabulary

        f = self.f
        self.added_extras = None
        f.array(items, "added_tokens")  # HF: a list, or no key (null is refused)
        if not items:
            return []
        tokens = self.tokens
        # token -> id: the model's own map where it has one (its tokens are distinct), without a
        # pass over the vocabulary; else from the token list (a repeated Unigram piece: its last
        # id, as HF's)
        model_id: dict[str, Any] = (
            self.vocab_map if self.vocab_map is not None else {t: i for i, t in enumerate(tokens) if t}
        )
        vocabulary = AddedVocabulary(
            (), None, model_id.get, lambda i: tokens[i] if i < len(tokens) else None, self.model_size
        )
        warned: set[str] = set()
        for k, a in enumerate(items):
            where = f"added_tokens[{k}]"
            f.obj(a, where)
            # the kinds of the fields given first (as serde meets them), then any left out
            if "content" in a:
                f.text(a["content"], f"{where}.content")
            if "id" in a:
                f.integer(a["id"], f"{where}.id", 0, _UINT32_MAX)  # any u32: HF ignores it
            for flag in (*FLAGS, "special"):
                if flag in a:
                    f.boolean(a[flag], f"{where}.{flag}")
            for key in ("id", "content", *FLAGS, "special"):
                if key not in a:
                    f.fail(f"{where}.{key}", f"missing: HF tokenizers requires every field of an added token ({key!r})")
            content, listed, special = a["content"], a["id"], a["special"]
            flags = {flag: a[flag] for flag in FLAGS}
            vocabulary.add(content, special, **flags)
            i = vocabulary.by_content.get(content)
            if i is not None and i != listed and content not in warned:
                warned.add(content)
                why = (
                    "its id in the vocabulary"
                    if model_id.get(content) == i
                    else "the next id after the vocabulary and the added tokens before it"
                )
                warnings.warn(
                    f"{self.path}: {where}.id: added token {content!r} is listed with id {listed}, but it "
                    f"takes id {i}, {why} (as HF tokenizers renumbers it)",
                    stacklevel=3,
                )
        self.added_extras = vocabulary.extras()
        return list(vocabulary.tokens())

    # -- the pipeline around it ------------------------------------------------------------

    def component(self, part: Any, key: str) -> dict[str, Any] | None:
        """A stage's dict (None for none); its type must be a string (the staged pipeline checks
        the type and options themselves)."""
        if part is None:
            return None
        f = self.f
        f.obj(part, key)
        f.text(part.get("type"), f"{key}.type", nonempty=True)
        return part

    def normalizer(self, part: Any) -> Any:
        from ..normalizers.bert import BertNormalizer

        d = self.component(part, "normalizer")
        if d is None or d["type"] != "BertNormalizer":
            return d
        f = self.f
        strip = d.get("strip_accents")
        return BertNormalizer(
            f.boolean(d.get("clean_text", True), "normalizer.clean_text"),
            f.boolean(d.get("handle_chinese_chars", True), "normalizer.handle_chinese_chars"),
            None if strip is None else f.boolean(strip, "normalizer.strip_accents"),
            f.boolean(d.get("lowercase", True), "normalizer.lowercase"),
        )

    def pre_tokenizer(self, part: Any) -> Any:
        from ..pre_tokenizers.bert import BertPreTokenizer

        d = self.component(part, "pre_tokenizer")
        return BertPreTokenizer() if d is not None and d["type"] == "BertPreTokenizer" else d

    def decoder(self, part: Any) -> Any:
        from ..decoders.wordpiece import WordPieceDecoder

        d = self.component(part, "decoder")
        if d is None or d["type"] != "WordPiece":
            return d
        return WordPieceDecoder(
            self.f.text(d.get("prefix", "##"), "decoder.prefix"),
            self.f.boolean(d.get("cleanup", True), "decoder.cleanup"),
        )

    def token_id(self, value: Any, where: str, token: str | None = None) -> int:
        """An id of one of the tokenizer's tokens (vocabulary or added); with `token`, the id
        must be that token's."""
        f, added_of, n = self.f, self.added_of, len(self.tokens)
        i = f.integer(value, where, 0, _UINT32_MAX)
        if i >= n and i not in added_of:
            beyond = any(j >= n for j in added_of)
            f.fail(
                where,
                f"id {i} is not a token of this tokenizer (its vocabulary has ids 0..{n - 1}"
                f"{', plus its added tokens' if beyond else ''})",
            )
        shown = added_of.get(i) if i in added_of else self.tokens[i]
        if token is not None and shown != token:
            f.fail(where, f"id {i} is {shown!r} in the vocabulary, not {token!r}")
        return i

    def post_processor(self, part: Any, at: str = "post_processor") -> Any:
        """A TemplateProcessing record, or None where there is no post-processor. ByteLevel
        without trim_offsets changes nothing HF reports but the sequence ranges any post-processor
        sets: it is the plain template "$A" / "$A $B:1" (a Sequence of it and a template is the
        template); with trim_offsets, the offsets of the tokens lose their spaces (the staged
        pipeline's trim_offsets option). RobertaProcessing is BERT's template with </s> </s>
        between the texts, every type id 0, and ByteLevel's trimming."""
        from ..processors.template import TemplateProcessing

        d = self.component(part, at)
        if d is None:
            return None
        f = self.f
        kind = d["type"]
        if kind in ("ByteLevel", "RobertaProcessing"):
            if f.boolean(d.get("trim_offsets", True), f"{at}.trim_offsets"):
                if self.trim_offsets is not None:
                    f.fail(f"{at}.trim_offsets", "offsets are trimmed by two post-processors")
                self.trim_offsets = {
                    "add_prefix_space": f.boolean(d.get("add_prefix_space", True), f"{at}.add_prefix_space")
                }
            if kind == "ByteLevel":  # adds nothing, but gives HF's sequence ranges, as this template
                return _plain_template()
        if kind == "Sequence":
            parts = [
                self.post_processor(p, f"{at}.processors[{k}]")
                for k, p in enumerate(f.array(d.get("processors"), f"{at}.processors"))
            ]
            plain = _plain_template()
            templates = [p for p in parts if p is not None and p != plain]
            if len(templates) > 1:
                f.fail(f"{at}.processors", "more than one template in a Sequence is not supported")
            return templates[0] if templates else plain if parts else None
        if kind not in ("TemplateProcessing", "BertProcessing", "RobertaProcessing"):
            self.unsupported(
                f"{at}.type", kind, "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence"
            )
        if d["type"] in ("BertProcessing", "RobertaProcessing"):
            pairs = []
            for key in ("cls", "sep"):
                where = f"{at}.{key}"
                item = f.array(d.get(key), where)
                if len(item) != 2:
                    f.fail(where, f"must be [token, id], got an array of {len(item)}")
                token = f.text(item[0], f"{where}[0]", nonempty=True)
                pairs.append((token, self.token_id(item[1], f"{where}[1]")))
            (cls_token, cls_id), (sep_token, sep_id) = pairs
            return TemplateProcessing.processing(d["type"], cls_token, cls_id, sep_token, sep_id)

        specials: dict[str, list[int]] = {}
        texts: dict[str, list[str]] = {}  # what each id shows in the tokens (any text, as HF)
        entries = f.obj(d.get("special_tokens", {}), f"{at}.special_tokens")
        for name, entry in entries.items():
            where = key_path(f"{at}.special_tokens", name)
            f.utf8(name, where)
            f.obj(entry, where)
            if f.text(entry.get("id", name), f"{where}.id") != name:
                f.fail(f"{where}.id", f"must be the key it is listed under, {name!r}")
            ids = f.array(entry.get("ids"), f"{where}.ids")
            shown = entry.get("tokens")
            if shown is not None and len(f.array(shown, f"{where}.tokens")) != len(ids):
                f.fail(f"{where}.tokens", f"lists {len(shown)} tokens for {len(ids)} ids")
            specials[name] = [self.token_id(i, f"{where}.ids[{k}]") for k, i in enumerate(ids)]
            if shown is not None:
                texts[name] = [f.text(t, f"{where}.tokens[{k}]") for k, t in enumerate(shown)]

        def pieces(key: str) -> tuple[Any, ...]:
            out = []
            for k, item in enumerate(f.array(d.get(key), f"{at}.{key}")):
                where = f"{at}.{key}[{k}]"
                f.obj(item, where)
                if len(item) != 1 or not ({"Sequence", "SpecialToken"} & set(item)):
                    f.fail(where, 'must be {"Sequence": ...} or {"SpecialToken": ...}')
                ((kind, body),) = item.items()
                where = f"{where}.{kind}"
                f.obj(body, where)
                type_id = f.integer(body.get("type_id", 0), f"{where}.type_id", 0, _MAX_TYPE_ID)
                if kind == "Sequence":
                    seq = f.choice(body.get("id"), f"{where}.id", ("A", "B"))
                    if key == "single" and seq == "B":
                        f.fail(f"{where}.id", "the single template has one sequence, $A")
                    out.append((True, "AB".index(seq), type_id, ""))
                else:
                    name = f.text(body.get("id"), f"{where}.id")
                    if name not in specials:
                        f.fail(f"{where}.id", f"special token {name!r} has no ids in post_processor.special_tokens")
                    out.append((False, 0, type_id, name))
            return tuple(out)

        single, pair = pieces("single"), pieces("pair")
        if {p[1] for p in pair if p[0]} != {0, 1}:
            f.fail(f"{at}.pair", "the pair template must use both sequences ($A and $B)")
        return TemplateProcessing(single, pair, specials, texts)

    # -- settings ------------------------------------------------------------------------

    def truncation(self, t: Any) -> dict[str, Any] | None:
        """The truncation settings as enable_truncation takes them (which checks them again
        against the template when the tokenizer is made)."""
        if t is None:
            return None
        f = self.f
        f.obj(t, "truncation")
        max_length = f.integer(t.get("max_length"), "truncation.max_length", 0, _MAX_LENGTH)
        stride = f.integer(t.get("stride", 0), "truncation.stride", 0, _MAX_LENGTH)
        strategy = f.choice(t.get("strategy", "LongestFirst"), "truncation.strategy", tuple(_STRATEGY_NAMES))
        direction = f.choice(t.get("direction", "Right"), "truncation.direction", ("Left", "Right"))
        return {
            "max_length": max_length,
            "stride": stride,
            "strategy": _STRATEGY_NAMES[strategy],
            "direction": direction.lower(),
        }

    def padding(self, p: Any) -> dict[str, Any] | None:
        """The padding settings as enable_padding takes them."""
        if p is None:
            return None
        f = self.f
        f.obj(p, "padding")
        strategy = p.get("strategy", "BatchLongest")
        length = None
        if isinstance(strategy, dict) and set(strategy) == {"Fixed"}:
            length = f.integer(strategy["Fixed"], "padding.strategy.Fixed", 0, MAX_PAD_LENGTH) or None
        elif strategy != "BatchLongest":
            f.fail("padding.strategy", f'must be "BatchLongest" or {{"Fixed": length}}, got {strategy!r}')
        direction = f.choice(p.get("direction", "Right"), "padding.direction", ("Left", "Right"))
        multiple = p.get("pad_to_multiple_of")
        if multiple is not None:
            multiple = f.integer(multiple, "padding.pad_to_multiple_of", 0, MAX_PAD_LENGTH)
        pad_token = f.text(p.get("pad_token", "[PAD]"), "padding.pad_token")
        # Any token's id, as HF takes it: pad_id need not be pad_token's (pad_token only names the rows).
        pad_id = self.token_id(p.get("pad_id", 0), "padding.pad_id")
        pad_type_id = f.integer(p.get("pad_type_id", 0), "padding.pad_type_id", 0, _MAX_TYPE_ID)
        return {
            "direction": direction.lower(),
            "pad_id": pad_id,
            "pad_type_id": pad_type_id,
            "pad_token": pad_token,
            "length": length,
            "pad_to_multiple_of": multiple,
        }
