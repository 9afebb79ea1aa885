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
- or one of DeepSeek's Sequences, then ByteLevel(use_regex=false): a Sequence of SEQUENCES, each
  stage (a Split(Regex, Isolated) or Digits(individual_digits)) one of STAGES, a built-in scanner
  of pre_tokenizers/split_sequence.h (DeepSeek V3 / R1, DeepSeek LLM / V2, DeepSeek Coder); or
  the first stages of DeepSeek V3 (PRE_SPLITS: digit runs of at most 3, then CJK and kana runs)
  then any Split(Regex P, Isolated);
- or each digit alone (Digits(individual_digits)), then ByteLevel(use_regex=true) without a
  prefix space (StarCoder's and Command R's files);
- or BLOOM's Split (a built-in stage too, SEQUENCES["BLOOM"]), then ByteLevel(use_regex=false);
- or Falcon's Sequence (FALCON): Punctuation(Contiguous), ByteLevel(use_regex=true) without a
  prefix space, Digits and Split([0-9][0-9][0-9]) on ByteLevel's characters;
- normalizer none or NFC; decoder ByteLevel;
- or CLIP's files (transformers' CLIPConverter: CLIP, Stable Diffusion, OpenCLIP): the normalizer
  Sequence[NFC, Replace(Regex \\s+ -> " "), Lowercase], the pre-tokenizer Sequence[Split(Regex
  CLIP_SPLIT, Removed, invert), ByteLevel(use_regex, no prefix space)], a BPE with
  end_of_word_suffix "</w>" (a token for each byte's character with it, or an unk token in the
  vocabulary), decoder ByteLevel (`clip`: the kernel lowercases natively where each character's
  lowercase is one character of its length, and runs the rest staged; the Split's pieces are
  ByteLevel's regex's own, and the whitespace Replace only changes what the Split drops).
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
from ..pre_tokenizers.patterns import CL100K, GPT2, O200K, TEKKEN
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
# 1 cl100k, 2 o200k, 3 Llama 3, 4 Qwen2, 5 Mistral's tekken (Nemo, Small 3, Pixtral files).
# tiktoken's patterns as tokenforge writes them into tokenizer.json files (hf_split_pattern) are
# here too.
SCANNERS = {
    HF_GPT2: 0,
    GPT2: 0,
    hf_split_pattern(CL100K): 1,
    hf_split_pattern(O200K): 2,
    LLAMA3: 3,
    QWEN2: 4,
    TEKKEN: 5,  # (hf_split_pattern leaves it as it is)
}

# DeepSeek's pre-tokenizer Sequences, stage by stage, as their files spell them.
# DeepSeek V3 / R1 (and their distillations' own files): digit runs, CJK and kana runs, the main
# pattern.
DEEPSEEK_DIGITS = r"\p{N}{1,3}"
DEEPSEEK_CJK = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"  # [一-龥\u3040-ゟ゠-ヿ]+
DEEPSEEK_V3 = (
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)
# DeepSeek LLM and V2 (their 100k vocabulary): newlines, letters of the cased scripts, ASCII
# and CJK punctuation, trailing whitespace, CJK and the scripts from U+0800 (and Hangul), each
# digit alone.
NEWLINES = "[\r\n]"
DEEPSEEK_LLM_LETTERS = (
    "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅ"
    "ὐ-ὗὙὛὝὟ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄ"
    "Ⰰ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ\U00010400-\U0001044f\U000104b0-\U000104d3"
    "\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df"
    "\U0001e900-\U0001e943]+"
)
DEEPSEEK_LLM_PUNCT = "\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+"
TRAILING_SPACE = r"\s+$"
DEEPSEEK_LLM_CJK = "[一-龥ࠀ-一가-\ud7ff]+"
# DeepSeek Coder: newlines, letters, punctuation, DeepSeek LLM's CJK, each digit alone.
CODER_LETTERS = r"\s?\p{L}+"
CODER_PUNCT = r"\s?\p{P}+"
# BLOOM's Split (the files of BLOOM and BLOOMZ).
BLOOM = " ?[^(\\s|[.,!?…。，、।۔،])]+"
# The Digits pre-tokenizer with individual_digits, as a stage key.
DIGITS_ALONE = ("Digits", True)

# A stage, ("Split", its exact regex) for a Split(Regex, Isolated, invert false) or DIGITS_ALONE
# -> its built-in scanner (PreSplit in pre_tokenizers/split_sequence.h).
STAGES: dict[tuple[str, Any], int] = {
    ("Split", DEEPSEEK_DIGITS): 1,
    ("Split", DEEPSEEK_CJK): 2,
    ("Split", DEEPSEEK_V3): 3,
    ("Split", NEWLINES): 4,
    ("Split", DEEPSEEK_LLM_LETTERS): 5,
    ("Split", DEEPSEEK_LLM_PUNCT): 6,
    ("Split", TRAILING_SPACE): 7,
    ("Split", DEEPSEEK_LLM_CJK): 8,
    DIGITS_ALONE: 9,
    ("Split", CODER_LETTERS): 10,
    ("Split", CODER_PUNCT): 11,
    ("Split", BLOOM): 12,
}
# The Sequences (before ByteLevel) the built-in stages run whole, as STAGES ids.
SEQUENCES: dict[str, tuple[int, ...]] = {
    "DeepSeek V3": (1, 2, 3),
    "DeepSeek LLM": (4, 5, 6, 7, 8, 9),
    "DeepSeek Coder": (4, 10, 11, 8, 9),
    "BLOOM": (12,),
}
# First stages run built in before any last Split (its pattern on a scanner or Oniguruma), or
# before a last ByteLevel(use_regex=true) without a prefix space (its GPT-2 regex on the scanner):
# DeepSeek V3's digit runs and CJK runs; each digit alone (StarCoder's and Command R's files).
PRE_SPLITS: set[tuple[int, ...]] = {(1, 2), (9,)}
# Falcon's Sequence, run whole by built-in stages (PreSplit 13..16): Punctuation(Contiguous),
# ByteLevel(use_regex=true) without a prefix space, Digits (contiguous) and
# Split([0-9][0-9][0-9], Isolated), the last two on ByteLevel's characters.
FALCON = (13, 14, 15, 16)
FALCON_DIGITS = "[0-9][0-9][0-9]"

# CLIP's Split pattern (Removed, invert), normalizer and word suffix, as CLIPConverter writes them.
CLIP_SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"
CLIP_NORMALIZER = [("NFC", {}), ("Replace", {"pattern": {"Regex": r"\s+"}, "content": " "}), ("Lowercase", {})]
CLIP_SUFFIX = "</w>"
# transformers' CLIPTokenizer writes the pattern with the two special tokens first.
CLIP_SPLIT_SPECIALS = r"<\|startoftext\|>|<\|endoftext\|>|" + CLIP_SPLIT
CLIP_SCANNERS = {CLIP_SPLIT: 6, CLIP_SPLIT_SPECIALS: 7}  # (Pattern::kClip, kClipSpecials)

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
    if _falcon(parts):
        return {
            "split": NO_SPLIT,
            "pattern": "",
            "add_prefix_space": False,
            "prefix_each_piece": True,
            "pre_splits": list(FALCON),
        }
    if len(parts) < 2 or parts[-1][0] != "ByteLevel":
        return None
    stages = [_stage_id(kind, options) for kind, options in parts[:-1]]
    if _byte_level(parts[-1][1], True) is False and all(stages) and tuple(stages) in PRE_SPLITS:
        # Stages, then ByteLevel's own regex on each of their pieces (Isolated, as a Split of
        # it): without a prefix space (which ByteLevel puts before its regex, a Split after) the
        # same pieces as the stages, then Split(GPT-2's regex), then ByteLevel(use_regex=false).
        return {
            "split": SCANNERS[HF_GPT2],
            "pattern": "",
            "add_prefix_space": False,
            "prefix_each_piece": True,
            "pre_splits": stages,
        }
    prefix = _byte_level(parts[-1][1], False)
    if prefix is None:
        return None
    fused = {"add_prefix_space": prefix, "prefix_each_piece": True}
    if all(stages) and tuple(stages) in SEQUENCES.values():
        return {**fused, "split": NO_SPLIT, "pattern": "", "pre_splits": stages}
    regex = _isolated_regex(parts[-2][1]) if parts[-2][0] == "Split" else None
    if regex is None or (len(parts) > 2 and tuple(stages[:-1]) not in PRE_SPLITS):
        return None
    return {**fused, "split": SCANNERS.get(regex, -1), "pattern": regex, "pre_splits": stages[:-1]}


# `split` where the built-in stages are the whole Sequence (ByteLevelHfBpeDescription::kNoSplit).
NO_SPLIT = -2


def _falcon(parts: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether the pre-tokenizer's stages are Falcon's Sequence (FALCON)."""
    if [kind for kind, _ in parts] != ["Punctuation", "ByteLevel", "Digits", "Split"]:
        return False
    punctuation, byte_level, digits, split = (options for _, options in parts)
    return (
        punctuation.get("behavior", "Isolated") == "Contiguous"
        and _byte_level(byte_level, True) is False
        and digits.get("individual_digits", False) is False
        and _isolated_regex(split) == FALCON_DIGITS
    )


def _stage_id(kind: str, options: Mapping[str, Any]) -> int:
    """The STAGES id of a pre-tokenizer stage, 0 where it has none."""
    if kind == "Digits":
        individual = options.get("individual_digits", False)
        return STAGES.get(("Digits", individual), 0) if isinstance(individual, bool) else 0
    regex = _isolated_regex(options) if kind == "Split" else None
    return 0 if regex is None else STAGES.get(("Split", regex), 0)


def fused_description(spec: PipelineSpec) -> dict[str, Any] | None:
    """The keyword arguments of `_core.ByteLevelHfBpe` for spec, or None where spec is not of
    the shape the fused kernel runs (the staged pipeline runs it then). A vocabulary token whose
    id an added token took (added_extras.hidden) goes in as `hidden`, which the kernel shows by
    the model's text; with the NFC normalizer (whose texts may run staged) such files run staged."""
    split = fused_split(spec)
    hidden = _hidden(spec)
    if split is None or (hidden and split.get("nfc")):
        return None
    description = {**staged_description(spec), **split}
    if hidden:
        description["hidden"] = sorted((i, token) for token, i in hidden.items())
    return description


def runs_fused(spec: PipelineSpec) -> bool:
    """Whether the fused kernel runs spec (cheap: no description is made)."""
    split = fused_split(spec)
    return split is not None and not (_hidden(spec) and split.get("nfc"))


def _hidden(spec: PipelineSpec) -> Mapping[str, int]:
    """The vocabulary tokens whose ids added tokens took (model token -> id)."""
    return spec.added_extras.hidden if spec.added_extras is not None else {}


def fused_split(spec: PipelineSpec) -> dict[str, Any] | None:
    """What the fused pass adds to the staged description (split, pattern, add_prefix_space,
    prefix_each_piece, nfc), or None where spec is not of its shape."""
    from ..processors.template import TemplateProcessing

    model = _as_dict(spec.model)
    if model is None or model.get("type") != "BPE" or not isinstance(model.get("vocab"), Mapping):
        return None
    if model.get("byte_fallback", False) is not False or model.get("dropout") not in (None, 0, 0.0):
        return None
    if model.get("continuing_subword_prefix") not in (None, ""):
        return None
    if not isinstance(model.get("ignore_merges", False), bool):
        return None
    clip = model.get("end_of_word_suffix") not in (None, "")
    if clip and (model.get("end_of_word_suffix") != CLIP_SUFFIX or model.get("ignore_merges", False)):
        return None
    vocab = model["vocab"]
    if any(c not in vocab for c in BYTE_CHARS):
        return None
    unk = model.get("unk_token")
    if clip and not (isinstance(unk, str) and unk in vocab) and any(c + CLIP_SUFFIX not in vocab for c in BYTE_CHARS):
        return None
    if spec.post_processor is not None and not isinstance(spec.post_processor, TemplateProcessing):
        return None
    try:
        normalizer = stage_components(spec.normalizer, "normalizer")
        decoder = stage_components(spec.decoder, "decoder")
    except (ValueError, TypeError, AttributeError):  # not a tokenizer.json stage: the staged pipeline says why
        return None
    if normalizer not in ((CLIP_NORMALIZER,) if clip else ([], [("NFC", {})])):
        return None
    if [kind for kind, _ in decoder] != ["ByteLevel"]:
        return None
    if normalizer and any(a.normalized and not (clip and _kept_by_clip(a)) for a in spec.added_tokens):
        return None  # matched normalized: the staged pipeline (but those CLIP's normalizer keeps)
    # The fused pass decodes with ByteLevel's fixed behaviour: its options must be well formed
    # (the staged pipeline refuses the others, naming them, when it is built).
    if not set(decoder[0][1]) <= {"add_prefix_space", "trim_offsets", "use_regex"} or not all(
        isinstance(v, bool) for v in decoder[0][1].values()
    ):
        return None
    if clip:
        return _clip_split(spec.pre_tokenizer)
    split = _split(spec.pre_tokenizer)
    return None if split is None else {**split, "nfc": bool(normalizer)}


def _kept_by_clip(token: Any) -> bool:
    """Whether a normalized added token is matched by the kernel as HF matches it behind CLIP's
    normalizer: its content is what that normalizer makes of it (ASCII without capitals or
    whitespace, as CLIP's <|startoftext|> and <|endoftext|>) and it strips nothing around it, so
    it is found in the lowercased text, whose whitespace runs the Replace would only shorten."""
    content = token.content
    return (
        bool(content)
        and content.isascii()
        and content == content.lower()
        and not any(c.isspace() for c in content)
        and not token.lstrip
        and not token.rstrip
    )


def _clip_split(pre_tokenizer: Any) -> dict[str, Any] | None:
    """fused_split's answer for CLIP's pre-tokenizer, else None."""
    try:
        parts = stage_components(pre_tokenizer, "pre_tokenizer")
    except (ValueError, TypeError, AttributeError):  # not a tokenizer.json stage: the staged pipeline says why
        return None
    if len(parts) != 2 or parts[0][0] != "Split" or parts[1][0] != "ByteLevel":
        return None
    split, byte_level = parts[0][1], parts[1][1]
    pattern = split.get("pattern")
    regex = pattern.get("Regex") if isinstance(pattern, Mapping) and set(pattern) == {"Regex"} else None
    if (
        regex not in CLIP_SCANNERS
        or split.get("behavior") != "Removed"
        or split.get("invert") is not True
        or _byte_level(byte_level, True) is not False
    ):
        return None
    return {
        "split": CLIP_SCANNERS[regex],
        "pattern": "",
        "add_prefix_space": False,
        "prefix_each_piece": False,
        "pre_splits": [],
        "nfc": True,
        "clip": True,
    }


def build_fused_hf_bpe(spec: PipelineSpec) -> _core.ByteLevelHfBpe:
    """The fused native pipeline for spec (ValueError where fused_description refuses it), with
    its template set (without one: the sequences as they are, B with type id 1)."""
    description = fused_description(spec)
    if description is None:
        raise ValueError("not a byte-level BPE tokenizer.json of the shape the fused kernel runs")
    from .compile import set_template  # (compile imports this module where it needs it)

    native = _core.ByteLevelHfBpe(**description)
    set_template(native, spec.post_processor)
    return native
