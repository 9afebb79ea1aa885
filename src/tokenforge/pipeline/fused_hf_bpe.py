"""The fused byte-level BPE of tokenizer.json files (native `pipelines/byte_level_hf_bpe.h`):
GPT-2, Llama 3 and Qwen2/Qwen3 style files in one pass per text, exact to HF tokenizers and to
the staged pipeline (pipeline/staged.py) that runs every file.

`fused_description(spec)` says whether a `PipelineSpec` (tokenizer.json components as dicts,
the post-processor a TemplateProcessing or None) is of the shape the kernel runs, and returns
the keyword arguments of `_core.ByteLevelHfBpe` if so (None otherwise):
- model BPE without byte_fallback, continuing_subword_prefix, end_of_word_suffix or dropout,
  whose vocabulary has a token for each of the 256 byte characters (so unk_token is never used);
- pre-tokenizer ByteLevel(use_regex=true), or Split(Regex P, Isolated, invert false) then
  ByteLevel(use_regex=false), add_prefix_space either way;
- or Split(Regex Q_1, Isolated), ..., Split(Regex Q_k, Isolated), Split(Regex P, Isolated),
  ByteLevel(use_regex=false) where Q_1..Q_k is one of PRE_SPLITS (DeepSeek V3 / R1: digit runs of
  at most 3, then CJK and kana runs; pre_tokenizers/split_sequence.h runs them);
- normalizer none or NFC; decoder ByteLevel.
The split runs on a built-in scanner (pre_tokenizers/scanner.h) where P is one of SCANNERS,
patterns each scanner computes exactly as Oniguruma reads them (tests/test_fused_hf_bpe.py
checks every code point, the corpus samples and hypothesis strings); any other P runs through
Oniguruma inside the fused pass. `build_fused_hf_bpe(spec)` builds the native pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _core
from ..formats.hf_tokenizer_json import hf_split_pattern
from ..pre_tokenizers.patterns import CL100K, GPT2, O200K
from .spec import PipelineSpec
from .staged import stage_components, staged_description

# HF's ByteLevel pre-tokenizer's own pattern (use_regex=true).
HF_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
# Llama 3's Split pattern, and Qwen2's (Qwen2.5, Qwen3): the same with single digits.
LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2 = LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")

# Split pattern (as Oniguruma reads it) -> built-in scanner (`Pattern` in scanner.h): 0 GPT-2,
# 1 cl100k, 2 o200k, 3 Llama 3, 4 Qwen2. tiktoken's patterns as tokenforge writes them into
# tokenizer.json files (hf_split_pattern) are here too.
SCANNERS = {
    HF_GPT2: 0,
    GPT2: 0,
    hf_split_pattern(CL100K): 1,
    hf_split_pattern(O200K): 2,
    LLAMA3: 3,
    QWEN2: 4,
}

# DeepSeek V3 / R1 (and their distillations' own files): Splits run before the main pattern, as
# the exact regex strings of the file -> the built-in stages (PreSplit in split_sequence.h).
DEEPSEEK_DIGITS = r"\p{N}{1,3}"
DEEPSEEK_CJK = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"  # [一-龥\u3040-ゟ゠-ヿ]+
# DeepSeek V3's main pattern (the third Split), which Oniguruma runs inside the fused pass.
DEEPSEEK_V3 = (
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)
PRE_SPLITS: dict[tuple[str, ...], list[int]] = {(DEEPSEEK_DIGITS, DEEPSEEK_CJK): [1, 2]}

# GPT-2's byte alphabet: the characters byte-level tokens are spelled in.
_BYTE_CHARS = [chr(b) if (33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255) else None for b in range(256)]
_next = 256
for _b in range(256):
    if _BYTE_CHARS[_b] is None:
        _BYTE_CHARS[_b] = chr(_next)
        _next += 1
BYTE_CHARS: tuple[str, ...] = tuple(c or "" for c in _BYTE_CHARS)


def _as_dict(component: Any) -> dict[str, Any] | None:
    if isinstance(component, Mapping):
        return dict(component)
    to_json = getattr(component, "to_json", None)
    return dict(to_json()) if to_json is not None else None


def _byte_level(options: Mapping[str, Any], use_regex: bool) -> bool | None:
    """add_prefix_space of a ByteLevel pre-tokenizer with this use_regex, else None."""
    if options.get("use_regex", True) is not use_regex:
        return None
    add_prefix_space = options.get("add_prefix_space", True)
    return add_prefix_space if isinstance(add_prefix_space, bool) else None


def _isolated_regex(split: Mapping[str, Any]) -> str | None:
    """The regex of a Split(Regex, Isolated, invert false), else None."""
    pattern = split.get("pattern")
    if (
        not isinstance(pattern, Mapping)
        or set(pattern) != {"Regex"}
        or not isinstance(pattern["Regex"], str)
        or split.get("behavior") != "Isolated"
        or split.get("invert", False) is not False
    ):
        return None
    return str(pattern["Regex"])


def _split(pre_tokenizer: Any) -> dict[str, Any] | None:
    """The split arguments (split, pattern, add_prefix_space, prefix_each_piece, pre_splits), or
    None."""
    try:
        parts = stage_components(pre_tokenizer, "pre_tokenizer")
    except (ValueError, TypeError, AttributeError):  # not a tokenizer.json stage: the staged pipeline says why
        return None
    if len(parts) == 1 and parts[0][0] == "ByteLevel":
        prefix = _byte_level(parts[0][1], True)
        if prefix is None:
            return None
        return {
            "split": SCANNERS[HF_GPT2],
            "pattern": "",
            "add_prefix_space": prefix,
            "prefix_each_piece": False,
            "pre_splits": [],
        }
    if len(parts) < 2 or parts[-1][0] != "ByteLevel" or any(kind != "Split" for kind, _ in parts[:-1]):
        return None
    regexes = [_isolated_regex(options) for _, options in parts[:-1]]
    if any(r is None for r in regexes):
        return None
    *first, regex = [str(r) for r in regexes]
    pre_splits = PRE_SPLITS.get(tuple(first)) if first else []
    if pre_splits is None:
        return None
    prefix = _byte_level(parts[-1][1], False)
    if prefix is None:
        return None
    return {
        "split": SCANNERS.get(regex, -1),
        "pattern": regex,
        "add_prefix_space": prefix,
        "prefix_each_piece": True,
        "pre_splits": list(pre_splits),
    }


def fused_description(spec: PipelineSpec) -> dict[str, Any] | None:
    """The keyword arguments of `_core.ByteLevelHfBpe` for spec, or None where spec is not of
    the shape the fused kernel runs (the staged pipeline runs it then)."""
    split = fused_split(spec)
    return None if split is None else {**staged_description(spec), **split}


def runs_fused(spec: PipelineSpec) -> bool:
    """Whether the fused kernel runs spec (cheap: no description is made)."""
    return fused_split(spec) is not None


def fused_split(spec: PipelineSpec) -> dict[str, Any] | None:
    """What the fused pass adds to the staged description (split, pattern, add_prefix_space,
    prefix_each_piece, nfc), or None where spec is not of its shape."""
    from ..processors.template import TemplateProcessing

    model = _as_dict(spec.model)
    if model is None or model.get("type") != "BPE" or not isinstance(model.get("vocab"), Mapping):
        return None
    if model.get("byte_fallback", False) is not False or model.get("dropout") not in (None, 0, 0.0):
        return None
    if model.get("continuing_subword_prefix") not in (None, "") or model.get("end_of_word_suffix") not in (None, ""):
        return None
    if not isinstance(model.get("ignore_merges", False), bool):
        return None
    vocab = model["vocab"]
    if any(c not in vocab for c in BYTE_CHARS):
        return None
    if spec.post_processor is not None and not isinstance(spec.post_processor, TemplateProcessing):
        return None
    try:
        normalizer = stage_components(spec.normalizer, "normalizer")
        decoder = stage_components(spec.decoder, "decoder")
    except (ValueError, TypeError, AttributeError):  # not a tokenizer.json stage: the staged pipeline says why
        return None
    if normalizer not in ([], [("NFC", {})]) or [kind for kind, _ in decoder] != ["ByteLevel"]:
        return None
    if normalizer and any(a.normalized for a in spec.added_tokens):  # matched normalized: the staged pipeline
        return None
    # The fused pass decodes with ByteLevel's fixed behaviour: its options must be well formed
    # (the staged pipeline refuses the others, naming them, when it is built).
    if not set(decoder[0][1]) <= {"add_prefix_space", "trim_offsets", "use_regex"} or not all(
        isinstance(v, bool) for v in decoder[0][1].values()
    ):
        return None
    split = _split(spec.pre_tokenizer)
    return None if split is None else {**split, "nfc": bool(normalizer)}


def build_fused_hf_bpe(spec: PipelineSpec) -> _core.ByteLevelHfBpe:
    """The fused native pipeline for spec (ValueError where fused_description refuses it), with
    its template set (without one: the sequences as they are, B with type id 1)."""
    description = fused_description(spec)
    if description is None:
        raise ValueError("not a byte-level BPE tokenizer.json of the shape the fused kernel runs")
    native = _core.ByteLevelHfBpe(**description)
    post = spec.post_processor
    if post is not None:
        native.set_template(post.native_pieces(False), post.native_pieces(True))
    else:
        native.set_template([(True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])], default_process=True)
    return native
