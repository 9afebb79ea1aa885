"""transformers 5's per-class rebuild of a model folder's tokenizer.json.

`transformers.AutoTokenizer.from_pretrained(folder)` (5.x) does not always run the folder's
tokenizer.json as written. When tokenizer_config.json names a class with its own constructor
(LlamaTokenizer, GemmaTokenizer, Qwen2Tokenizer, GPT2Tokenizer, T5Tokenizer, ...), it takes only
the vocabulary (and merges) from the file, keeps the file's post-processor, padding, truncation
and added tokens, and builds the normalizer, pre-tokenizer, decoder and model options the class
hard-codes, from the config's settings (`legacy`, `add_prefix_space`, `do_lower_case`, ...).
A Llama-2 folder whose file spells the dummy prefix as a Prepend normalizer thus runs with
Metaspace, which does not prefix a text that already starts with a space: " hi" gives "▁hi",
not "▁▁hi". Two routing rules come first: a folder whose class is LlamaTokenizer but whose
tokenizer.json is byte-level (Llama 3 and DeepSeek declare it so) keeps its file, and classes
without a constructor of their own (PreTrainedTokenizerFast, TokenizersBackend) keep it too.

`rebuild_for_class` applies that to the parsed document, so `Tokenizer.from_pretrained` gives
the ids transformers gives. Classes are a table (`_CLASSES`): each entry says, in tokenizer.json
terms, what that class's constructor builds. Which class a folder gets follows AutoTokenizer's routing
(`transformers_class`): config.json's model_type, the hub ids and model types transformers
singles out (data/transformers_routing.json, dumped from transformers by
tools/dump_transformers_routing.py). A class missing from `_CLASSES` keeps its file (the
documented limit). Some constructors set their post-processor only after their tokens are
added, from ids the file may lack (MBart's, MBart50's and NLLB's src_lang code, Splinter's
question token, mLUKE's template): `class_post_processor` gives it, and from_pretrained sets it
on the finished tokenizer.
The neighbours: chat_template.py reads the rest of the folder (ModelConfig), tokenizer.py's
`from_pretrained` calls this, hf_tokenizer_json.py reads the rebuilt document.
"""

from __future__ import annotations

import base64
import fnmatch
import functools
import importlib.resources
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .hf_tokenizer_json import bpe_model_json

SPACE = "\u2581"
_QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _text(value: Any, default: str | None) -> str | None:
    """A config token value (a string or an AddedToken object) as its text."""
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    if isinstance(value, str):
        return value
    return default


def _flag(config: Mapping[str, Any], name: str, default: Any) -> Any:
    value = config.get(name)
    return default if value is None else value


def _bpe(doc: Mapping[str, Any], **options: Any) -> dict[str, Any]:
    """tokenizers' BPE(vocab=, merges=, **options) over the file's vocabulary and merges."""
    model = doc["model"]
    return bpe_model_json(model["vocab"], model.get("merges", []), **options)


def _metaspace(prepend_scheme: str, split: bool = True) -> dict[str, Any]:
    return {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": prepend_scheme, "split": split}


def _byte_level(add_prefix_space: bool, trim_offsets: bool = True, use_regex: bool = True) -> dict[str, Any]:
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": trim_offsets,
        "use_regex": use_regex,
    }


_BYTE_LEVEL_DECODER = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
_SPM_DECODERS = [
    {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
    {"type": "ByteFallback"},
    {"type": "Fuse"},
]
_STRIP_ONE = {"type": "Strip", "content": " ", "start": 1, "stop": 0}


def _charsmap(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file's Precompiled normalizer (transformers passes its charsmap to Unigram classes)."""
    normalizer = doc.get("normalizer")
    items = (
        normalizer.get("normalizers", [])
        if isinstance(normalizer, dict) and normalizer.get("type") == "Sequence"
        else [normalizer]
    )
    for item in items:
        if isinstance(item, dict) and item.get("type") == "Precompiled" and "precompiled_charsmap" in item:
            charsmap = item["precompiled_charsmap"]
            if isinstance(charsmap, str) and base64.b64decode(charsmap):
                return {"type": "Precompiled", "precompiled_charsmap": charsmap}
    return None


def _token_id(doc: Mapping[str, Any], token: str | None) -> int | None:
    """The id `token` gets in the rebuilt tokenizer (its added token's, else the vocabulary's)."""
    if token is None:
        return None
    for added in doc.get("added_tokens") or ():
        if isinstance(added, dict) and added.get("content") == token and isinstance(added.get("id"), int):
            return int(added["id"])
    vocab = doc["model"].get("vocab")
    if isinstance(vocab, dict):
        i = vocab.get(token)
        return i if isinstance(i, int) else None
    if isinstance(vocab, list):
        for i, entry in enumerate(vocab):
            if isinstance(entry, list) and entry and entry[0] == token:
                return i
    return None


def _vocab_id(doc: Mapping[str, Any], token: str | None) -> int | None:
    """The id of `token` in the file's model vocabulary: a class that adds the file's added tokens
    anew (at ids of their own) and sets its template once they are added
    (_TEMPLATE_ALWAYS_LATE) takes no id from the file's list."""
    return _token_id({**doc, "added_tokens": []}, token)


def _template(doc: Mapping[str, Any], single: str, pair: str, specials: dict[str, int | None]) -> dict[str, Any] | None:
    """tokenizers' TemplateProcessing(single=, pair=, special_tokens=) as tokenizer.json spells
    it; None where a special token has no id (the class would fail; the file's stays)."""
    if any(i is None for i in specials.values()):
        return None

    def pieces(template: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for word in template.split():
            name, _, type_id = word.rpartition(":") if ":" in word else (word, "", "0")
            if name in ("$A", "$B"):
                out.append({"Sequence": {"id": name[1], "type_id": int(type_id)}})
            else:
                out.append({"SpecialToken": {"id": name, "type_id": int(type_id)}})
        return out

    return {
        "type": "TemplateProcessing",
        "single": pieces(single),
        "pair": pieces(pair),
        "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in specials.items()},
    }


def _unigram(doc: Mapping[str, Any], unk_id: int) -> dict[str, Any]:
    """tokenizers' Unigram(vocab, unk_id, byte_fallback=False) over the file's vocabulary as
    Python's json reads it: its scores are the nearest doubles of their text ("nearest_scores"),
    not serde_json's reading that Tokenizer.from_file has (the two differ in the last place for
    about one score in ten, enough to flip a tie of sums)."""
    vocab = doc["model"]["vocab"]
    return {"type": "Unigram", "unk_id": unk_id, "vocab": vocab, "byte_fallback": False, "nearest_scores": True}


def _llama(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    add_prefix_space = bool(_flag(config, "add_prefix_space", True))
    scheme = ("always" if config.get("legacy", False) else "first") if add_prefix_space else "never"
    return {
        "model": _bpe(doc, fuse_unk=True, byte_fallback=True),
        "normalizer": None,
        "pre_tokenizer": _metaspace(scheme, split=False),
        "decoder": {"type": "Sequence", "decoders": _SPM_DECODERS + ([_STRIP_ONE] if add_prefix_space else [])},
    }


def _code_llama(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    add_prefix_space = bool(_flag(config, "add_prefix_space", True))
    unk = _str_token(config, "unk_token", "<unk>")  # ("None" for a null: str() of it)
    # CodeLlamaTokenizer passes add_bos_token (its default true: the config's never reaches it
    # where tokenizer.json exists, nor add_eos_token) to TokenizersBackend, which then writes its
    # bos template over the file's (update_post_processor; no bos token: the bare template)
    bos = _text(config.get("bos_token"), None) if "bos_token" in config else "<s>"
    if bos is not None:
        post = _template(doc, f"{bos}:0 $A:0", f"{bos}:0 $A:0 {bos}:1 $B:1", {bos: _vocab_id(doc, bos)})
    else:
        post = _template(doc, "$A:0", "$A:0 $B:1", {})
    return {
        "model": _bpe(doc, fuse_unk=True, byte_fallback=True, unk_token=unk),
        "pre_tokenizer": _metaspace("first" if add_prefix_space else "never", split=False),
        "decoder": {"type": "Sequence", "decoders": [*_SPM_DECODERS, _STRIP_ONE]},
        "post_processor": post,
    }


def _gemma(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    unk = _str_token(config, "unk_token", "<unk>")  # ("None" for a null: str() of it)
    return {
        "model": _bpe(doc, fuse_unk=True, byte_fallback=True, unk_token=unk),
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": SPACE},
        "pre_tokenizer": {
            "type": "Split",
            "pattern": {"String": " "},
            "behavior": "MergedWithPrevious",
            "invert": False,
        },
        "decoder": {"type": "Sequence", "decoders": _SPM_DECODERS},
    }


def _qwen2(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    split = {"type": "Split", "pattern": {"Regex": _QWEN2_PATTERN}, "behavior": "Isolated", "invert": False}
    level = _byte_level(bool(_flag(config, "add_prefix_space", False)), use_regex=False)
    return {
        "model": _bpe(doc, continuing_subword_prefix="", end_of_word_suffix=""),
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, level]},
        "decoder": _BYTE_LEVEL_DECODER,
    }


def _gpt2(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "model": _bpe(doc, continuing_subword_prefix="", end_of_word_suffix=""),
        "pre_tokenizer": _byte_level(bool(_flag(config, "add_prefix_space", False))),
        "decoder": _BYTE_LEVEL_DECODER,
    }


def _roberta(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    add_prefix_space = bool(_flag(config, "add_prefix_space", False))
    built = _gpt2(doc, config)
    sep, cls = _text(config.get("sep_token"), "</s>"), _text(config.get("cls_token"), "<s>")
    trim_offsets = bool(_flag(config, "trim_offsets", True))
    # (a sep or cls token only the file's added tokens hold: the class adds those anew, and its
    # template waits for the ids they get, class_post_processor)
    _set_roberta_processing(built, doc, sep, cls, trim_offsets, add_prefix_space, _vocab_id)
    return built


def _set_roberta_processing(
    built: dict[str, Any],
    doc: Mapping[str, Any],
    sep: str | None,
    cls: str | None,
    trim_offsets: bool,
    add_prefix_space: bool,
    token_id: Callable[[Mapping[str, Any], str | None], int | None] = _token_id,
) -> None:
    """RoBERTa's post-processor on `built`, where the file has both the sep and cls tokens (their
    ids as `token_id` finds them)."""
    sep_id, cls_id = token_id(doc, sep), token_id(doc, cls)
    if sep_id is not None and cls_id is not None:
        built["post_processor"] = {
            "type": "RobertaProcessing",
            "sep": [sep, sep_id],
            "cls": [cls, cls_id],
            "trim_offsets": trim_offsets,
            "add_prefix_space": add_prefix_space,
        }


def _gpt_neox(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    # add_bos_token / add_eos_token never reach the class where tokenizer.json exists, so its
    # update_post_processor() writes the bare template over the file's.
    return {
        "model": _bpe(doc, continuing_subword_prefix="", end_of_word_suffix=""),
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": _byte_level(
            bool(_flag(config, "add_prefix_space", False)), bool(_flag(config, "trim_offsets", True))
        ),
        "decoder": _BYTE_LEVEL_DECODER,
        "post_processor": _template(doc, "$A:0", "$A:0 $B:1", {}),
    }


def _bert(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    model = doc["model"]
    cls, sep = _text(config.get("cls_token"), "[CLS]") or "", _text(config.get("sep_token"), "[SEP]") or ""
    # (a token the model's vocabulary lacks: the template waits for its id, class_post_processor)
    cls_id, sep_id = _vocab_id(doc, cls), _vocab_id(doc, sep)
    return {
        "model": {
            "type": "WordPiece",
            "unk_token": _str_token(config, "unk_token", "[UNK]"),
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": model["vocab"],
        },
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": bool(_flag(config, "tokenize_chinese_chars", True)),
            "strip_accents": config.get("strip_accents"),
            "lowercase": bool(_flag(config, "do_lower_case", True)),
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "post_processor": _template(
            doc, f"{cls}:0 $A:0 {sep}:0", f"{cls}:0 $A:0 {sep}:0 $B:1 {sep}:1", {cls: cls_id, sep: sep_id}
        ),
    }


def _t5(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    eos = _text(config.get("eos_token"), "</s>")
    return {
        "model": _unigram(doc, 2),
        "normalizer": _charsmap(doc),
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace("always")]},
        "decoder": _metaspace("always"),
        "post_processor": _template(doc, "$A </s>", "$A </s> $B </s>", {"</s>": _vocab_id(doc, eos)}),
    }


def _xlm_roberta(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    scheme = "always" if _flag(config, "add_prefix_space", True) else "never"
    bos, eos = _text(config.get("bos_token"), "<s>") or "", _text(config.get("eos_token"), "</s>") or ""
    return {
        "model": _unigram(doc, 3),
        "normalizer": _charsmap(doc),
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace(scheme)]},
        "decoder": _metaspace(scheme),
        "post_processor": _template(
            doc,
            f"{bos} $A {eos}",
            f"{bos} $A {eos} {eos} $B {eos}",
            {bos: _vocab_id(doc, bos), eos: _vocab_id(doc, eos)},
        ),
    }


def _albert(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """AlbertTokenizer: `` and '' as ", NFKD and accents stripped (unless keep_accents),
    lowercase (do_lower_case), the file's charsmap; unk id 1; [CLS] $A [SEP]."""
    scheme = "always" if _flag(config, "add_prefix_space", True) else "never"
    steps: list[dict[str, Any]] = [
        {"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
        {"type": "Replace", "pattern": {"String": "''"}, "content": '"'},
    ]
    if not _flag(config, "keep_accents", False):
        steps += [{"type": "NFKD"}, {"type": "StripAccents"}]
    if _flag(config, "do_lower_case", True):
        steps.append({"type": "Lowercase"})
    charsmap = _charsmap(doc)
    if charsmap is not None:
        steps.append(charsmap)
    cls, sep = _str_token(config, "cls_token", "[CLS]"), _str_token(config, "sep_token", "[SEP]")
    return {
        "model": _unigram(doc, 1),
        "normalizer": {"type": "Sequence", "normalizers": steps},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace(scheme)]},
        "decoder": _metaspace(scheme),
        "post_processor": _template(
            doc,
            "[CLS]:0 $A:0 [SEP]:0",
            "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
            {"[CLS]": _token_id(doc, cls), "[SEP]": _token_id(doc, sep)},
        ),
    }


def _str_token(config: Mapping[str, Any], name: str, default: str) -> str:
    """str() of a token argument as a class's constructor applies it: the config's value (an
    AddedToken object's content), the default where the config leaves it out, "None" for a null."""
    if name not in config:
        return default
    value = config[name]
    return str(value["content"]) if isinstance(value, dict) and "content" in value else str(value)


def _spm_language_normalizer(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """MBart50's and NLLB's normalizers: the file's charsmap (where it has one), then runs of
    spaces made one."""
    charsmap = _charsmap(doc)
    spaces = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
    return [charsmap, spaces] if charsmap is not None else [spaces]


def _mbart(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """MBartTokenizer: no normalizer (the file's charsmap is dropped); the post-processor, which
    follows src_lang, is set once the tokenizer's tokens are added (class_post_processor)."""
    return {
        "model": _unigram(doc, 3),
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace("always")]},
        "decoder": _metaspace("always"),
        "post_processor": _template(doc, "$A:0", "$A:0 $B:1", {}),
    }


def _mbart50(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """MBart50Tokenizer: a vocabulary without any of its 52 language codes is rebuilt as
    <s> <pad> </s> <unk> (the config's cls, pad, eos and unk tokens), the file's pieces from the
    fourth on, the codes, then the mask token, every new piece scored 0."""
    vocab = doc["model"]["vocab"]
    codes = _routing()["language_codes"]["MBart50Tokenizer"]
    if isinstance(vocab, list) and not set(codes) & {e[0] for e in vocab if isinstance(e, list) and e}:
        head = [_str_token(config, k, d) for k, d in (("cls_token", "<s>"), ("pad_token", "<pad>"))]
        head += [_str_token(config, k, d) for k, d in (("eos_token", "</s>"), ("unk_token", "<unk>"))]
        mask = _str_token(config, "mask_token", "<mask>")
        vocab = [[t, 0.0] for t in head] + list(vocab[3:]) + [[c, 0.0] for c in codes] + [[mask, 0.0]]
    return {
        "model": _unigram({"model": {"vocab": vocab}}, 3),
        "normalizer": {"type": "Sequence", "normalizers": _spm_language_normalizer(doc)},
        "pre_tokenizer": _metaspace("always"),
        "decoder": _metaspace("always"),
        "post_processor": _template(doc, "$A:0", "$A:0 $B:1", {}),
    }


def _nllb(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """NllbTokenizer: a BPE over the file's vocabulary and merges, the charsmap normalizer only
    where the file has one."""
    charsmap = _charsmap(doc)
    unk = _str_token(config, "unk_token", "<unk>")
    return {
        "model": _bpe(doc, unk_token=unk, fuse_unk=True, byte_fallback=False),
        "normalizer": {"type": "Sequence", "normalizers": _spm_language_normalizer(doc)} if charsmap else None,
        "pre_tokenizer": _metaspace("always"),
        "decoder": _metaspace("always"),
        "post_processor": _template(doc, "$A:0", "$A:0 $B:1", {}),
    }


def _camembert(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """CamembertTokenizer: a Unigram whose unknown id is the first place of the unk token's text
    (0 without one), the file's charsmap, XLM-R's pre-tokenizer; its template (XLM-R's) is set
    once the tokens are added (class_post_processor)."""
    unk = _str_token(config, "unk_token", "<unk>")
    vocab = doc["model"]["vocab"]
    unk_id = next((i for i, e in enumerate(vocab) if isinstance(e, list) and e and e[0] == unk), 0)
    scheme = "always" if _flag(config, "add_prefix_space", True) else "never"
    return {
        "model": _unigram(doc, unk_id),
        "normalizer": _charsmap(doc),
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace(scheme)]},
        "decoder": _metaspace(scheme),
    }


def _xlnet(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """XLNetTokenizer: `` and '' as ", NFKD and accents stripped (whatever keep_accents says),
    lowercase (do_lower_case, default false), the file's charsmap; the unknown id the config's
    unk_id (0), or the sentencepiece model's where the folder has no tokenizer.json (SPM_UNK_ID);
    "$A <sep> <cls>" (the cls token of type id 2) set once the tokens are added."""
    steps: list[dict[str, Any]] = [
        {"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
        {"type": "Replace", "pattern": {"String": "''"}, "content": '"'},
        {"type": "NFKD"},
        {"type": "StripAccents"},
    ]
    if _flag(config, "do_lower_case", False):
        steps.append({"type": "Lowercase"})
    charsmap = _charsmap(doc)
    if charsmap is not None:
        steps.append(charsmap)
    unk_id = doc.get(SPM_UNK_ID, _flag(config, "unk_id", 0))
    return {
        "model": _unigram(doc, int(unk_id)),
        "normalizer": {"type": "Sequence", "normalizers": steps},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace("always")]},
        "decoder": _metaspace("always"),
    }


def _pegasus(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """PegasusTokenizer: a Unigram whose unknown id is the first place past 0 of the unk token
    scored 0 (ValueError without one, as the class's list.index), the file's charsmap (else
    newlines made spaces), runs of spaces made one; "$A </s>" set once the tokens are added."""
    unk = _str_token(config, "unk_token", "<unk>")
    vocab = doc["model"]["vocab"]
    found = [i for i, e in enumerate(vocab) if i >= 1 and isinstance(e, list) and e[:1] == [unk] and e[1] == 0.0]
    if not found:
        raise ValueError(f"PegasusTokenizer: the vocabulary has no {unk!r} scored 0 past id 0 (its unknown token)")
    charsmap = _charsmap(doc)
    spaces = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
    first = charsmap or {"type": "Replace", "pattern": {"Regex": "\\n"}, "content": " "}
    return {
        "model": _unigram(doc, found[0]),
        "normalizer": {"type": "Sequence", "normalizers": [first, spaces]},
        "pre_tokenizer": _metaspace("always"),
        "decoder": _metaspace("always"),
    }


_CLIP_PATTERN = r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"


def _clip(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """CLIPTokenizer: a BPE whose word-final pieces end in </w>, NFC, whitespace runs made one
    space, lowercase, its words split out (the rest removed) then byte-level; its decode drops
    the </w> (a space each) and strips the text (the option strip_word_suffix); RobertaProcessing
    without trimming set once the tokens are added."""
    unk = _str_token(config, "unk_token", "<|endoftext|>")
    split = {"type": "Split", "pattern": {"Regex": _CLIP_PATTERN}, "behavior": "Removed", "invert": True}
    return {
        "model": _bpe(doc, continuing_subword_prefix="", end_of_word_suffix="</w>", fuse_unk=False, unk_token=unk),
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
                {"type": "Lowercase"},
            ],
        },
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, _byte_level(False)]},
        "decoder": _BYTE_LEVEL_DECODER,
    }


def _luke(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """LukeTokenizer: GPT-2's byte-level BPE (no unknown token), RoBERTa's post-processor with
    tokenizers' defaults (trim_offsets and add_prefix_space true, whatever the config says)."""
    built = {
        "model": _bpe(doc, continuing_subword_prefix="", end_of_word_suffix="", fuse_unk=False),
        "pre_tokenizer": _byte_level(bool(_flag(config, "add_prefix_space", False))),
        "decoder": _BYTE_LEVEL_DECODER,
    }
    sep, cls = _str_token(config, "sep_token", "</s>"), _str_token(config, "cls_token", "<s>")
    _set_roberta_processing(built, doc, sep, cls, trim_offsets=True, add_prefix_space=True)
    return built


def _mluke(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """MLukeTokenizer: a Unigram (unknown id 0) after `` and '' made '"'."""
    quotes = [{"type": "Replace", "pattern": {"String": q}, "content": '"'} for q in ("``", "''")]
    return {
        "model": _unigram(doc, 0),
        "normalizer": {"type": "Sequence", "normalizers": quotes},
        "pre_tokenizer": _metaspace("always"),
        "decoder": _metaspace("always"),
        "post_processor": _template(doc, "$A:0", "$A:0 $B:1", {}),
    }


def _splinter(doc: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """SplinterTokenizer: BERT's WordPiece pipeline; its post-processor (with the question token
    and "." between the texts) is set once the question token is added."""
    return {
        "model": {
            "type": "WordPiece",
            "unk_token": _str_token(config, "unk_token", "[UNK]"),
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": doc["model"]["vocab"],
        },
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": _flag(config, "tokenize_chinese_chars", True),
            "strip_accents": config.get("strip_accents"),
            "lowercase": _flag(config, "do_lower_case", True),
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "post_processor": _template(doc, "$A:0", "$A:0 $B:1", {}),
    }


# class name (without "Fast") -> (the model type it needs in the file, its constructor's build)
_CLASSES: dict[str, tuple[str, Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]]] = {
    "LlamaTokenizer": ("BPE", _llama),
    "CodeLlamaTokenizer": ("BPE", _code_llama),
    "GemmaTokenizer": ("BPE", _gemma),
    "Qwen2Tokenizer": ("BPE", _qwen2),
    "GPT2Tokenizer": ("BPE", _gpt2),
    "RobertaTokenizer": ("BPE", _roberta),
    "GPTNeoXTokenizer": ("BPE", _gpt_neox),
    "BertTokenizer": ("WordPiece", _bert),
    "T5Tokenizer": ("Unigram", _t5),
    "XLMRobertaTokenizer": ("Unigram", _xlm_roberta),
    "AlbertTokenizer": ("Unigram", _albert),
    "MBartTokenizer": ("Unigram", _mbart),
    "MBart50Tokenizer": ("Unigram", _mbart50),
    "NllbTokenizer": ("BPE", _nllb),
    "LukeTokenizer": ("BPE", _luke),
    "MLukeTokenizer": ("Unigram", _mluke),
    "SplinterTokenizer": ("WordPiece", _splinter),
    "CamembertTokenizer": ("Unigram", _camembert),
    "XLNetTokenizer": ("Unigram", _xlnet),
    "PegasusTokenizer": ("Unigram", _pegasus),
    "CLIPTokenizer": ("BPE", _clip),
}
# A document key slow_files sets: the unknown id a sentencepiece model gives XLNetTokenizer
SPM_UNK_ID = "spm_unk_id"


# The classes that set their post-processor before calling TokenizersBackend.__init__
_TEMPLATE_BEFORE_INIT = frozenset(("AlbertTokenizer",))

# The classes that always set their template once their tokens are added (class_post_processor
# gives one for every folder): the file's post-processor, which may name ids of the file's added
# tokens that the class adds anew, never runs
_TEMPLATE_ALWAYS_LATE = frozenset(
    (
        "BertTokenizer",
        "T5Tokenizer",
        "XLMRobertaTokenizer",
        "CodeLlamaTokenizer",
        "CamembertTokenizer",
        "XLNetTokenizer",
        "PegasusTokenizer",
        "CLIPTokenizer",
    )
)

_BACKENDS = ("TokenizersBackend", "PythonBackend", "PreTrainedTokenizerFast", "PreTrainedTokenizer")


@functools.cache
def _routing() -> dict[str, Any]:
    """transformers' routing tables (tools/dump_transformers_routing.py wrote them)."""
    data = importlib.resources.files("tokenforge").joinpath("data", "transformers_routing.json").read_text("utf-8")
    table: dict[str, Any] = json.loads(data)
    return table


# Class names transformers 5 keeps as aliases of another class (BartTokenizer is RobertaTokenizer)
_ALIASES = {"BartTokenizer": "RobertaTokenizer"}


def _strip_fast(name: str) -> str:
    name = name if name == "PreTrainedTokenizerFast" else name.removesuffix("Fast")
    return _ALIASES.get(name, name)


def transformers_class(
    config: Mapping[str, Any],
    model_config: Mapping[str, Any] | None = None,
    names: Iterable[str] = (),
    source: str = "",
) -> str | None:
    """The tokenizer class AutoTokenizer.from_pretrained builds for a folder (without "Fast"), or
    None where it runs the folder's tokenizer.json as written (TokenizersBackend). `config` is
    tokenizer_config.json, `model_config` config.json, `names` what the folder is called (the
    path given, the hub id of a cache folder), `source` the tokenizer.json text. The rules are
    transformers 5's, in its order (a folder with remote code skips the first three): the hub ids it names load the file; a
    byte-level "LlamaTokenizer" loads the file; where config.json's model_type registers another
    class than the folder declares, the registered class wins for the model types transformers
    lists as declaring a wrong class, and a registered generic class loads the file; then the
    declared class; then the class model_type registers."""
    model_config = model_config or {}
    table = _routing()
    declared = config.get("tokenizer_class")
    declared = declared if isinstance(declared, str) else None
    hub = declared or (
        model_config.get("tokenizer_class") if isinstance(model_config.get("tokenizer_class"), str) else None
    )
    model_type = model_config.get("model_type")
    model_type = model_type if isinstance(model_type, str) and model_type else None
    # A folder with its own Python class (auto_map) skips the three routing rules; without
    # trust_remote_code transformers then builds the declared class where it has one.
    remote = bool(config.get("auto_map"))
    if not remote and any(fnmatch.fnmatch(n.lower(), p) for n in names for p in table["ids_to_tokenizers_backend"]):
        return None
    registered = table["registered"].get(model_type or "")
    registered = _strip_fast(registered) if registered else None
    wrong_hub_class = model_type in table["incorrect_hub_class"]
    if (
        not remote
        and hub is not None
        and _strip_fast(hub) == "LlamaTokenizer"
        and registered != "MistralCommonBackend"
        and not wrong_hub_class
        and '"ByteLevel"' in source
    ):
        return None  # AutoTokenizer loads a byte-level "LlamaTokenizer" as TokenizersBackend
    if not remote and hub is not None and registered is not None and registered != _strip_fast(hub):
        if registered in _BACKENDS or registered == "MistralCommonBackend":
            return None
        name = registered if wrong_hub_class else _strip_fast(hub)
        return None if name in _BACKENDS else name
    if hub is not None:
        return None if _strip_fast(hub) in _BACKENDS else _strip_fast(hub)
    if registered is not None and registered not in _BACKENDS and registered != "MistralCommonBackend":
        return registered
    return None


def rebuild_for_class(
    doc: dict[str, Any],
    config: Mapping[str, Any],
    source: str,
    model_config: Mapping[str, Any] | None = None,
    names: Iterable[str] = (),
) -> dict[str, Any]:
    """_rebuild_for_class, without the key slow_files' documents carry for it (SPM_UNK_ID)."""
    rebuilt = _rebuild_for_class(doc, config, source, model_config, names)
    if SPM_UNK_ID in rebuilt:
        rebuilt = {k: v for k, v in rebuilt.items() if k != SPM_UNK_ID}
    return rebuilt


def _rebuild_for_class(
    doc: dict[str, Any],
    config: Mapping[str, Any],
    source: str,
    model_config: Mapping[str, Any] | None = None,
    names: Iterable[str] = (),
) -> dict[str, Any]:
    """`doc` (a parsed tokenizer.json) as transformers 5 runs it for the folder's
    tokenizer_config.json `config` (and config.json `model_config`, the folder's `names`; see
    transformers_class); `source` is the file's text (the byte-level routing rule looks for
    '"ByteLevel"' in it, as transformers does). The document is returned unchanged where
    transformers keeps the file."""
    name = transformers_class(config, model_config, names, source)
    entry = _CLASSES.get(name or "")
    model = doc.get("model")
    if (
        entry is None
        and isinstance(model, dict)
        and name in _routing()["unigram_classes"]
        and model.get("type", "Unigram") == "Unigram"
        and isinstance(model.get("vocab"), list)
    ):
        # a Unigram class not rebuilt here: the file's pipeline stays, but the class builds its
        # model from Python floats, so the scores are the nearest doubles
        return {**doc, "model": {**model, "nearest_scores": True}}
    if entry is None or not isinstance(model, dict):
        return doc
    model_type, build = entry
    if model.get("type", model_type) != model_type and model_type == "WordPiece" and "vocab" in model:
        # transformers hands a WordPiece class any file's vocabulary (a list's pieces by index)
        # and its model is a WordPiece over it (BertTokenizer over a WordLevel file)
        vocab = _as_token_ids(model["vocab"])
        if vocab is None:
            return doc
        model = {"type": model_type, "vocab": vocab}
        doc = {**doc, "model": model}
    if model.get("type", model_type) != model_type or "vocab" not in model:
        return doc  # the class could not take this file's vocabulary; keep what the file says
    rebuilt = dict(doc)
    rebuilt.update({"normalizer": None, "pre_tokenizer": None, "decoder": None})
    built = build(doc, config)
    if name in _TEMPLATE_BEFORE_INIT and source and doc.get("post_processor") is not None:
        # the class sets its template before TokenizersBackend.__init__, which puts the
        # tokenizer.json's post-processor over it (a folder without the file keeps the class's)
        built["post_processor"] = doc["post_processor"]
    if built.get("post_processor", doc.get("post_processor")) is None and name not in _TEMPLATE_ALWAYS_LATE:
        built.pop("post_processor", None)  # a class template without its tokens' ids: the file's stays
    rebuilt.update(built)
    return rebuilt


def _as_token_ids(vocab: Any) -> dict[str, int] | None:
    """A file's vocabulary as the {token: id} map transformers' convert_to_native_format gives a
    WordPiece class: a map as it is, a Unigram list's pieces by index (a repeated piece at its
    last); None for anything else."""
    if isinstance(vocab, dict):
        return vocab
    if isinstance(vocab, list) and all(isinstance(e, list) and e and isinstance(e[0], str) for e in vocab):
        return {e[0]: i for i, e in enumerate(vocab)}
    return None


# The classes whose post-processor class_post_processor sets, after the tokens are added
LATE_POST_PROCESSORS = frozenset(
    (
        "MBartTokenizer",
        "MBart50Tokenizer",
        "NllbTokenizer",
        "MLukeTokenizer",
        "SplinterTokenizer",
        "RobertaTokenizer",
        "T5Tokenizer",
        "XLMRobertaTokenizer",
        "BertTokenizer",
        "CodeLlamaTokenizer",
        "CamembertTokenizer",
        "XLNetTokenizer",
        "PegasusTokenizer",
        "CLIPTokenizer",
        "M2M100Tokenizer",
        "SiglipTokenizer",
        "ByT5Tokenizer",
        "MarianTokenizer",
        "SpeechT5Tokenizer",
        "BartphoTokenizer",
        "PLBartTokenizer",
        "PhobertTokenizer",
    )
)
# Those of them whose template is set only where the class rebuilt the file (its model type)
LATE_WHERE_REBUILT = {
    "RobertaTokenizer": "BPE",
    "T5Tokenizer": "Unigram",
    "XLMRobertaTokenizer": "Unigram",
    "BertTokenizer": "WordPiece",
    "CodeLlamaTokenizer": "BPE",
    "CamembertTokenizer": "Unigram",
    "XLNetTokenizer": "Unigram",
    "PegasusTokenizer": "Unigram",
    "CLIPTokenizer": "BPE",
}


def roberta_trim_offsets(config: Mapping[str, Any]) -> dict[str, bool] | None:
    """The trim_offsets option of RobertaTokenizer's RobertaProcessing: None where it does not trim."""
    if not _flag(config, "trim_offsets", True):
        return None
    return {"add_prefix_space": bool(_flag(config, "add_prefix_space", False))}


def converter(
    token_to_id: Callable[[str], int | None], special: Mapping[str, str]
) -> Callable[[str | None], int | None]:
    """transformers' convert_tokens_to_ids over a finished tokenizer's token_to_id: a token it
    lacks takes the unknown token's id (`special`'s unk_token), None where there is none."""
    unk = special.get("unk_token")

    def convert(token: str | None) -> int | None:
        found = token_to_id(token) if token is not None else None
        return found if found is not None else (token_to_id(unk) if unk is not None else None)

    return convert


def class_post_processor(
    name: str | None,
    config: Mapping[str, Any],
    special: Mapping[str, str],
    token_to_id: Callable[[str], int | None],
    id_to_token: Callable[[int], str | None],
    padding_side: str = "right",
) -> dict[str, Any] | None:
    """The post-processor (in tokenizer.json form) that the constructor of class `name` sets once
    the folder's tokens are added, or None where it sets none. `config` is tokenizer_config.json,
    `special` the named special tokens (ModelConfig.special_tokens, defaults filled in), the two
    functions look tokens up in the finished tokenizer. As transformers: a token the tokenizer
    lacks takes the unknown token's id (convert_tokens_to_ids); MBart's and MBart50's templates
    name the tokens of those ids (convert_ids_to_tokens), NLLB's the texts; every type id is 0
    but Splinter's and mLUKE's second text. MBart's source texts end with </s> and the src_lang
    code (en_XX unless the config says), MBart50's and NLLB's start with the code (eng_Latn for
    NLLB; legacy_behaviour puts it last); a MBart50 src_lang that is none of its codes is
    transformers' KeyError, a ValueError here."""
    if name not in LATE_POST_PROCESSORS:
        return None
    convert = converter(token_to_id, special)

    def template(single: list[str], pair: list[str], tokens: list[tuple[str, int | None]]) -> dict[str, Any] | None:
        if any(i is None for _, i in tokens):
            return None  # tokenizers refuses a template token without an id

        def pieces(items: list[str]) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for item in items:
                text, _, type_id = item.rpartition(":") if item[-2:] in (":0", ":1", ":2") else (item, "", "0")
                if text in ("$A", "$B"):
                    out.append({"Sequence": {"id": text[1], "type_id": int(type_id)}})
                else:
                    out.append({"SpecialToken": {"id": text, "type_id": int(type_id)}})
            return out

        specials = {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in tokens}
        return {
            "type": "TemplateProcessing",
            "single": pieces(single),
            "pair": pieces(pair),
            "special_tokens": specials,
        }

    def roberta(cls: str, sep: str) -> dict[str, Any] | None:
        """RobertaProcessing(sep, cls) over the ids of the finished tokenizer: <s> A </s> </s> B
        </s>, every type id 0, its overflowing parts' too; its trimming is the pipeline's."""
        cls_id, sep_id = convert(cls), convert(sep)
        if cls_id is None or sep_id is None:
            return None  # tokenizers refuses a template token without an id
        return {"type": "RobertaProcessing", "sep": [sep, sep_id], "cls": [cls, cls_id], "trim_offsets": False}

    if name == "RobertaTokenizer":
        # RobertaProcessing over the ids of the finished tokenizer (its sep and cls tokens added
        # where the file lacks them); its trimming is the pipeline's trim_offsets option
        # (roberta_trim_offsets)
        sep, cls = special.get("sep_token"), special.get("cls_token")
        if sep is None or cls is None:
            return None
        return roberta(cls, sep)
    if name == "CodeLlamaTokenizer":
        # TokenizersBackend's update_post_processor once the tokens are added: its add_bos_token
        # (true, the class's own) puts the bos token first, where there is one
        bos = special.get("bos_token")
        if bos is None:
            return template(["$A:0"], ["$A:0", "$B:1"], [])
        return template([f"{bos}:0", "$A:0"], [f"{bos}:0", "$A:0", f"{bos}:1", "$B:1"], [(bos, convert(bos))])
    if name == "T5Tokenizer":  # "$A </s>" over the eos token's id, whatever its text
        eos_id = convert(special.get("eos_token"))
        return template(["$A:0", "</s>:0"], ["$A:0", "</s>:0", "$B:0", "</s>:0"], [("</s>", eos_id)])
    if name == "CLIPTokenizer":  # RobertaProcessing(eos, bos) without trimming
        bos, eos = special.get("bos_token"), special.get("eos_token")
        if bos is None or eos is None:
            return None
        return roberta(bos, eos)
    if name == "XLNetTokenizer":  # $A <sep> <cls>, the cls token of type id 2
        sep, cls = str(special.get("sep_token")), str(special.get("cls_token"))
        tokens = [(sep, convert(sep)), (cls, convert(cls))]
        return template(["$A:0", f"{sep}:0", f"{cls}:2"], ["$A:0", f"{sep}:0", "$B:1", f"{sep}:1", f"{cls}:2"], tokens)
    if name == "PegasusTokenizer":  # "$A </s>", "$A $B </s>" over the eos token's id
        eos = str(special.get("eos_token"))
        return template(["$A:0", f"{eos}:0"], ["$A:0", "$B:0", f"{eos}:0"], [(eos, convert(eos))])
    if name in ("XLMRobertaTokenizer", "CamembertTokenizer"):
        bos, eos = special.get("bos_token"), special.get("eos_token")
        if bos is None or eos is None:
            return None
        single = [f"{bos}:0", "$A:0", f"{eos}:0"]
        pair = [*single, f"{eos}:0", "$B:0", f"{eos}:0"]
        return template(single, pair, [(bos, convert(bos)), (eos, convert(eos))])
    if name == "BertTokenizer":  # (ids 2 and 3 where neither the token nor the unknown one is known)
        # a token the config sets to null is str(None), "None", in the template
        cls, sep = special.get("cls_token"), special.get("sep_token")
        cls_id = convert(cls) if cls is not None else None
        sep_id = convert(sep) if sep is not None else None
        cls, sep = str(cls), str(sep)
        tokens = [(cls, 2 if cls_id is None else cls_id), (sep, 3 if sep_id is None else sep_id)]
        single = [f"{cls}:0", "$A:0", f"{sep}:0"]
        return template(single, [*single, "$B:1", f"{sep}:1"], tokens)
    eos = special.get("eos_token")
    if name in ("MBartTokenizer", "MBart50Tokenizer"):
        src = config.get("src_lang")
        src = src if isinstance(src, str) else "en_XX"
        if name == "MBart50Tokenizer" and src not in _routing()["language_codes"]["MBart50Tokenizer"]:
            raise ValueError(f"src_lang {src!r} is not one of MBart50Tokenizer's language codes")
        lang_id, eos_id = convert(src), convert(eos)
        lang = id_to_token(lang_id) if lang_id is not None else None
        eos_text = id_to_token(eos_id) if eos_id is not None else None
        if lang is None or eos_text is None:
            return None
        if name == "MBartTokenizer":
            return template(["$A", eos_text, lang], ["$A", "$B", eos_text, lang], [(eos_text, eos_id), (lang, lang_id)])
        return template([lang, "$A", eos_text], [lang, "$A", "$B", eos_text], [(lang, lang_id), (eos_text, eos_id)])
    if name in ("SiglipTokenizer", "ByT5Tokenizer"):  # "$A </s>", "$A </s> $B </s>" (every type id 0)
        eos = special.get("eos_token")
        if eos is None:
            return None
        return template(["$A:0", f"{eos}:0"], ["$A:0", f"{eos}:0", "$B:0", f"{eos}:0"], [(eos, convert(eos))])
    if name in ("BartphoTokenizer", "PhobertTokenizer"):  # "<s> $A </s>", "<s> $A </s> </s> $B </s>" (type ids 0)
        cls, sep = special.get("cls_token"), special.get("sep_token")
        if cls is None or sep is None:
            return None
        single = [f"{cls}:0", "$A:0", f"{sep}:0"]
        return template(single, [*single, f"{sep}:0", "$B:0", f"{sep}:0"], [(cls, convert(cls)), (sep, convert(sep))])
    if name in ("MarianTokenizer", "SpeechT5Tokenizer"):  # "$A </s>", "$A $B </s>" (every type id 0)
        if eos is None:
            return None
        return template(["$A:0", f"{eos}:0"], ["$A:0", "$B:0", f"{eos}:0"], [(eos, convert(eos))])
    if name == "M2M100Tokenizer":  # __src_lang__ $A </s>, pair __src_lang__ $A $B </s>
        src = config.get("src_lang")
        src = src if isinstance(src, str) else "en"
        return m2m100_template(config, src, special, token_to_id)
    if name == "PLBartTokenizer":  # $A </s> __src_lang__, pair $A $B </s> __src_lang__
        return plbart_template(config, config.get("src_lang"), special, convert)
    if name == "NllbTokenizer":
        src = config.get("src_lang")
        src = src if isinstance(src, str) else "eng_Latn"
        if eos is None:
            return None
        # (a code the vocabulary lacks has the unknown id and shows its own text, as the template's)
        tokens = [(eos, convert(eos)), (src, convert(src))]
        if config.get("legacy_behaviour", False):
            return template(["$A", eos, src], ["$A", "$B", eos, src], tokens)
        return template([src, "$A", eos], [src, "$A", "$B", eos], tokens)
    cls, sep = special.get("cls_token"), special.get("sep_token")
    if cls is None or sep is None:
        return None
    if name == "MLukeTokenizer":
        return template(
            [f"{cls}:0", "$A:0", f"{sep}:0"],
            [f"{cls}:0", "$A:0", f"{sep}:0", f"{sep}:0", "$B:1", f"{sep}:1"],
            [(cls, convert(cls)), (sep, convert(sep))],
        )
    question = special.get("question_token", "[QUESTION]")
    if padding_side == "right":
        pair = [f"{cls}:0", "$A:0", question, ".", f"{sep}:0", "$B:1", f"{sep}:1"]
    else:
        pair = [f"{cls}:0", "$A:0", f"{sep}:0", "$B:1", question, ".", f"{sep}:1"]
    tokens = [(cls, convert(cls)), (sep, convert(sep)), (question, convert(question)), (".", convert("."))]
    return template([f"{cls}:0", "$A:0", f"{sep}:0"], pair, tokens)


def plbart_language_code(config: Mapping[str, Any], lang: Any) -> str | None:
    """PLBartTokenizer's code for language `lang` (src_lang's or tgt_lang's: one of its "base"
    codes, or its short name, "python" for "__python__"), None for none. ValueError for a
    language that is none of them (transformers' KeyError)."""
    if lang is None:
        return None
    code = _routing()["language_code_names"]["PLBartTokenizer"].get(lang, lang)
    if code not in _routing()["language_codes"]["PLBartTokenizer"]["base"]:
        raise ValueError(f"{lang!r} is not one of PLBartTokenizer's language codes")
    return str(code)


def plbart_template(
    config: Mapping[str, Any], lang: Any, special: Mapping[str, str], convert: Callable[[str | None], int | None]
) -> dict[str, Any] | None:
    """PLBartTokenizer's template for language `lang` (src_lang's for text, tgt_lang's for
    text_target; see plbart_language_code): the eos token, then the code's token where there is
    one, after the text (a pair: after both), every type id 0. `convert` is the finished
    tokenizer's convert_tokens_to_ids (the unknown id for a token it lacks)."""
    code = plbart_language_code(config, lang)
    eos = special.get("eos_token")
    eos_id = convert(eos) if eos is not None else None
    code_id = convert(code) if code is not None else None
    if eos is None or eos_id is None or (code is not None and code_id is None):
        return None
    after = [{"SpecialToken": {"id": eos, "type_id": 0}}]
    specials = {eos: {"id": eos, "ids": [eos_id], "tokens": [eos]}}
    if code is not None and code_id is not None:
        after.append({"SpecialToken": {"id": code, "type_id": 0}})
        specials[code] = {"id": code, "ids": [code_id], "tokens": [code]}
    a, b = {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}
    return {"type": "TemplateProcessing", "single": [a, *after], "pair": [a, b, *after], "special_tokens": specials}


def m2m100_template(
    config: Mapping[str, Any], lang: Any, special: Mapping[str, str], token_to_id: Callable[[str], int | None]
) -> dict[str, Any] | None:
    """M2M100Tokenizer's template for language `lang` (src_lang's for text, tgt_lang's for
    text_target): its code's token first, the eos token last, every type id 0 but the second
    text's (transformers' own ids; a pair's type ids are not its). ValueError for a language
    that is not one of its codes (transformers' KeyError)."""
    codes = _routing()["language_codes"]["M2M100Tokenizer"].get(config.get("language_codes", "m2m100"), [])
    if lang not in codes:
        raise ValueError(f"{lang!r} is not one of M2M100Tokenizer's language codes")
    code, eos = f"__{lang}__", special.get("eos_token")
    code_id, eos_id = token_to_id(code), token_to_id(eos) if eos is not None else None
    if code_id is None or eos is None or eos_id is None:
        return None
    specials = {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in ((code, code_id), (eos, eos_id))}
    first, a = {"SpecialToken": {"id": code, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}
    single = [first, a, {"SpecialToken": {"id": eos, "type_id": 0}}]
    pair = [first, a, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": eos, "type_id": 1}}]
    return {"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": specials}
