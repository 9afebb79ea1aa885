"""The fused sentencepiece-style BPE of tokenizer.json files (native `pipelines/spm_hf_bpe.h`):
Llama 2, Mistral and Gemma style files in one pass per text, exact to HF tokenizers and to the
staged pipeline (pipeline/staged.py) that runs every file.

`fused_spm_description(spec)` says whether a `PipelineSpec` (tokenizer.json components as dicts,
the post-processor a TemplateProcessing or None) is of the shape the kernel runs, and returns the
keyword arguments of `_core.SpmHfBpe` if so (None otherwise):
- model BPE without dropout, continuing_subword_prefix or end_of_word_suffix (byte_fallback,
  unk_token, fuse_unk, ignore_merges as they come), whose vocabulary has the token "▁";
- either no normalizer and the pre-tokenizer Metaspace(replacement "▁", any prepend_scheme, or
  the older add_prefix_space, split or not), or the normalizer Replace(" " -> "▁"), with
  Prepend("▁") before it or not, and no pre-tokenizer or a Split on the string " " (which finds
  nothing once the normalizer has replaced every space);
- any decoder (the staged pipeline's own decoder runs it).
Every option is checked; anything else stays on the staged pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .spec import PipelineSpec
from .staged import stage_components, staged_description

SPACE = "\u2581"  # "▁"

# The `prepend` argument of _core.SpmHfBpe.
NEVER, FIRST, ALWAYS, EVERY = 0, 1, 2, 3
_SCHEMES = {"never": NEVER, "first": FIRST, "always": ALWAYS}
_MODEL_KEYS = {
    "type",
    "vocab",
    "merges",
    "dropout",
    "unk_token",
    "continuing_subword_prefix",
    "end_of_word_suffix",
    "fuse_unk",
    "byte_fallback",
    "ignore_merges",
}


def _as_dict(component: Any) -> dict[str, Any] | None:
    if isinstance(component, Mapping):
        return dict(component)
    to_json = getattr(component, "to_json", None)
    return dict(to_json()) if to_json is not None else None


def _model_ok(spec: PipelineSpec) -> bool:
    model = _as_dict(spec.model)
    if model is None or model.get("type") != "BPE" or not isinstance(model.get("vocab"), Mapping):
        return False
    if not set(model) <= _MODEL_KEYS or SPACE not in model["vocab"]:
        return False
    if model.get("dropout") not in (None, 0, 0.0):
        return False
    if model.get("continuing_subword_prefix") not in (None, "") or model.get("end_of_word_suffix") not in (None, ""):
        return False
    if not all(isinstance(model.get(k, False), bool) for k in ("fuse_unk", "byte_fallback", "ignore_merges")):
        return False
    unk = model.get("unk_token")
    return unk is None or isinstance(unk, str)


def _is_replace_space(options: Mapping[str, Any]) -> bool:
    return dict(options) == {"pattern": {"String": " "}, "content": SPACE}


def _is_noop_split(options: Mapping[str, Any]) -> bool:
    """A Split on the string " " (any behavior): nothing to cut once spaces are "▁"."""
    return (
        set(options) <= {"pattern", "behavior", "invert"}
        and options.get("pattern") == {"String": " "}
        and options.get("behavior") in ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
        and options.get("invert", False) is False
    )


def _metaspace(options: Mapping[str, Any]) -> tuple[int, bool] | None:
    """(prepend, split) of a Metaspace pre-tokenizer the fused pass runs, else None."""
    if not set(options) <= {"replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"}:
        return None
    if options.get("replacement", SPACE) != SPACE or options.get("str_rep", SPACE) != SPACE:
        return None
    add_prefix_space = options.get("add_prefix_space")
    if add_prefix_space is not None and not isinstance(add_prefix_space, bool):
        return None
    scheme = options.get("prepend_scheme", "never" if add_prefix_space is False else "always")
    split = options.get("split", True)
    if not isinstance(scheme, str) or scheme not in _SCHEMES or not isinstance(split, bool):
        return None
    return _SCHEMES[scheme], split


def fused_spm_text_rules(spec: PipelineSpec) -> tuple[int, bool] | None:
    """(prepend, split) where spec is of the shape the fused kernel runs, else None."""
    from ..processors.template import TemplateProcessing

    if not _model_ok(spec):
        return None
    if spec.post_processor is not None and not isinstance(spec.post_processor, TemplateProcessing):
        return None
    try:
        normalizer = stage_components(spec.normalizer, "normalizer")
        pre_tokenizer = stage_components(spec.pre_tokenizer, "pre_tokenizer")
        stage_components(spec.decoder, "decoder")
    except (ValueError, TypeError, AttributeError):  # not a tokenizer.json stage: the staged pipeline says why
        return None
    if not normalizer:
        if len(pre_tokenizer) != 1 or pre_tokenizer[0][0] != "Metaspace":
            return None
        return _metaspace(pre_tokenizer[0][1])
    if pre_tokenizer and not (len(pre_tokenizer) == 1 and pre_tokenizer[0][0] == "Split"):
        return None
    if pre_tokenizer and not _is_noop_split(pre_tokenizer[0][1]):
        return None
    kinds = [kind for kind, _ in normalizer]
    if kinds == ["Replace"] and _is_replace_space(normalizer[0][1]):
        return NEVER, False
    if (
        kinds == ["Prepend", "Replace"]
        and dict(normalizer[0][1]) == {"prepend": SPACE}
        and _is_replace_space(normalizer[1][1])
    ):
        return EVERY, False
    return None


def runs_fused_spm(spec: PipelineSpec) -> bool:
    """Whether the fused kernel runs spec (cheap: no description is made)."""
    return fused_spm_text_rules(spec) is not None


def fused_spm_description(spec: PipelineSpec) -> dict[str, Any] | None:
    """The keyword arguments of `_core.SpmHfBpe` for spec, or None where spec is not of the shape
    the fused kernel runs (the staged pipeline runs it then)."""
    rules = fused_spm_text_rules(spec)
    if rules is None:
        return None
    description = {**staged_description(spec), "prepend": rules[0], "split": rules[1]}
    # a vocabulary token whose id an added token took: the kernel shows it by the model's text
    hidden = spec.added_extras.hidden if spec.added_extras is not None else {}
    if hidden:
        description["hidden"] = sorted((i, token) for token, i in hidden.items())
    return description
