"""The fused Unigram of tokenizer.json files (native `pipelines/unigram_hf.h`): T5, ALBERT, XLNet,
Pegasus and mBART style files (what transformers' converters write) in one pass per text, exact
to HF tokenizers and to the staged pipeline (pipeline/staged.py) that runs every file.

`fused_unigram_description(spec)` says whether a `PipelineSpec` (tokenizer.json components as
dicts, the post-processor a TemplateProcessing or None) is of the shape the kernel runs, and
returns the keyword arguments of `_core.UnigramHf` if so (None otherwise):
- model Unigram ([[piece, score], ...], unk_id an index or null, byte_fallback, nearest_scores);
- the pre-tokenizer Metaspace (replacement "▁", any prepend_scheme or the older
  add_prefix_space, split or not), alone;
- no normalizer, or one whose parts all have a quick test of whether they change a text (the
  probes the kernel takes): Precompiled, Strip, Replace of a string or of the regexes " {2,}"
  and "\\A +| +\\z", Lowercase, NFC / NFD / NFKC / NFKD, StripAccents (a last Replace of " {2,}" by
  a space or "▁", as T5's and ALBERT's, the kernel does itself);
- any decoder (the staged pipeline's own decoder runs it).
Every option is checked; anything else stays on the staged pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .fused_spm import _as_dict, _metaspace
from .spec import PipelineSpec
from .staged import stage_components, staged_description

SPACE = "\u2581"  # "▁"
_MODEL_KEYS = {"type", "vocab", "unk_id", "byte_fallback", "nearest_scores"}
# The regex patterns of Replace the kernel has probes for: a regex -> (probe kind, argument).
_REGEX_PROBES = {" {2,}": ("contains", "  "), r"\A +| +\z": ("space_edge", "")}


def _model_ok(spec: PipelineSpec) -> bool:
    model = _as_dict(spec.model)
    if model is None or model.get("type") != "Unigram" or not set(model) <= _MODEL_KEYS:
        return False
    vocab = model.get("vocab")
    if not isinstance(vocab, (list, tuple)) or not vocab:
        return False
    unk = model.get("unk_id")
    if unk is not None and (isinstance(unk, bool) or not isinstance(unk, int) or not 0 <= unk < len(vocab)):
        return False
    return isinstance(model.get("byte_fallback", False), bool) and isinstance(model.get("nearest_scores", False), bool)


def _probe(kind: str, options: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """The probes of one normalizer part, or None where the kernel has none for it."""
    keys = set(options)
    if kind == "Precompiled":
        charsmap = options.get("precompiled_charsmap")
        if keys != {"precompiled_charsmap"} or not isinstance(charsmap, str) or not charsmap:
            return None
        return [("precompiled", charsmap)]
    if kind == "Strip":
        if not keys <= {"strip_left", "strip_right"}:
            return None
        left, right = options.get("strip_left", True), options.get("strip_right", True)
        if not isinstance(left, bool) or not isinstance(right, bool):
            return None
        if not (left or right):
            return None
        return [("strip_left", "")] * left + [("strip_right", "")] * right
    if kind == "Replace":
        pattern, content = options.get("pattern"), options.get("content")
        if keys != {"pattern", "content"} or not isinstance(content, str) or not isinstance(pattern, Mapping):
            return None
        if set(pattern) == {"String"} and isinstance(pattern["String"], str) and pattern["String"]:
            return [("contains", pattern["String"])]
        if set(pattern) == {"Regex"} and isinstance(pattern["Regex"], str) and pattern["Regex"] in _REGEX_PROBES:
            return [_REGEX_PROBES[pattern["Regex"]]]
        return None
    if keys:
        return None
    if kind == "Lowercase":
        return [("lowercase", "")]
    if kind in ("NFC", "NFD", "NFKC", "NFKD", "StripAccents"):
        return [("non_ascii", "")]
    return None


def _collapses_spaces(kind: str, options: Mapping[str, Any]) -> bool:
    """Replace(Regex " {2,}") by a space or "▁": the kernel does it itself as the last part."""
    return (
        kind == "Replace"
        and dict(options) == {"pattern": {"Regex": " {2,}"}, "content": options.get("content")}
        and options.get("content") in (" ", SPACE)
    )


def fused_unigram_rules(spec: PipelineSpec) -> tuple[int, bool, list[tuple[str, str]]] | None:
    """(prepend, split, probes) where spec is of the shape the fused kernel runs, else None."""
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
    if len(pre_tokenizer) != 1 or pre_tokenizer[0][0] != "Metaspace":
        return None
    rules = _metaspace(pre_tokenizer[0][1])
    if rules is None:
        return None
    probes: list[tuple[str, str]] = []
    last = len(normalizer) - 1
    for i, (kind, options) in enumerate(normalizer):
        if i == last and _collapses_spaces(kind, options):
            probes.append(("collapse_spaces", options["content"]))
            continue
        found = _probe(kind, options)
        if found is None:
            return None
        # A map whose later parts only strip and make runs of spaces one may leave the ASCII
        # characters it makes spaces (newlines, tabs) to the kernel, read as spaces.
        later = normalizer[i + 1 :]
        if kind == "Precompiled" and all(
            k == "Strip" or (j == len(later) - 1 and _collapses_spaces(k, o)) for j, (k, o) in enumerate(later)
        ):
            found = [("precompiled_ws", found[0][1])]
        probes += found
    return rules[0], rules[1], probes


def runs_fused_unigram(spec: PipelineSpec) -> bool:
    """Whether the fused kernel runs spec (cheap: no description is made)."""
    return fused_unigram_rules(spec) is not None


def fused_unigram_description(spec: PipelineSpec) -> dict[str, Any] | None:
    """The keyword arguments of `_core.UnigramHf` for spec, or None where spec is not of the shape
    the fused kernel runs (the staged pipeline runs it then)."""
    rules = fused_unigram_rules(spec)
    if rules is None:
        return None
    return {**staged_description(spec), "prepend": rules[0], "split": rules[1], "probes": rules[2]}
