"""The general staged pipeline (native `pipelines/staged.h`): any tokenizer.json pipeline run
stage by stage as HF tokenizers runs it, for the descriptions no fused kernel serves.

`staged_description` turns a `PipelineSpec` into what `_core.Staged` takes: per stage a list of
(type, options) as tokenizer.json spells them (a Sequence's parts flattened into the list; an
empty list for no stage), the model's type, options and vocabulary apart (but a Unigram model's
[[piece, score], ...] stays in its options, with an empty (token, id) list). Components are
tokenforge's records with `to_json()` (or tokenizer.json dicts as they are). `build_staged`
builds the native pipeline, with the post-processor's template when it is a TemplateProcessing;
the special-token policy stays the surface's business (pipeline.compile wires it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _core
from .spec import PipelineSpec

_SEQUENCE_KEYS = {"normalizer": "normalizers", "pre_tokenizer": "pretokenizers", "decoder": "decoders"}


def _json_of(component: Any) -> dict[str, Any]:
    if isinstance(component, Mapping):
        return dict(component)
    to_json = getattr(component, "to_json", None)
    if to_json is None:
        raise ValueError(f"{type(component).__name__} has no tokenizer.json form for the staged pipeline")
    return dict(to_json())


def stage_components(component: Any, stage: str) -> list[tuple[str, dict[str, Any]]]:
    """[(type, options)] of one stage (None: []); a Sequence is its parts in order."""
    if component is None:
        return []
    d = _json_of(component)
    kind = d.pop("type", None)
    if not isinstance(kind, str):
        raise ValueError(f"the {stage} has no 'type'")
    if kind == "Sequence" and set(d) == {_SEQUENCE_KEYS[stage]}:
        parts = d[_SEQUENCE_KEYS[stage]]
        if not isinstance(parts, (list, tuple)):
            raise ValueError(f"the {stage} Sequence's {_SEQUENCE_KEYS[stage]!r} must be a list")
        out: list[tuple[str, dict[str, Any]]] = []
        for part in parts:
            out.extend(stage_components(part, stage))
        return out
    return [(kind, d)]


def staged_description(spec: PipelineSpec) -> dict[str, Any]:
    """The keyword arguments of `_core.Staged` for spec (names: vocabulary and added tokens)."""
    model = _json_of(spec.model)
    model_type = model.pop("type", None)
    vocab = model.pop("vocab", None)
    if model_type == "Unigram" and isinstance(vocab, (list, tuple)):
        # [[piece, score], ...]: ids are indices, and the scores stay in the options
        model["vocab"] = vocab
        pieces = [entry[0] if isinstance(entry, (list, tuple)) and entry else "" for entry in vocab]
        vocab = {}
    elif not isinstance(model_type, str) or not isinstance(vocab, Mapping):
        raise ValueError("the model needs a 'type' and a 'vocab' mapping token -> id")
    else:
        pieces = []
    size = max([len(pieces) - 1, *vocab.values(), *(t.id for t in spec.added_tokens)], default=-1) + 1
    names = [""] * size
    for i, piece in enumerate(pieces):
        names[i] = piece if isinstance(piece, str) else ""
    for token, i in vocab.items():
        names[i] = token
    for t in spec.added_tokens:
        names[t.id] = t.content
    return {
        "normalizer": stage_components(spec.normalizer, "normalizer"),
        "pre_tokenizer": stage_components(spec.pre_tokenizer, "pre_tokenizer"),
        "model_type": model_type,
        "model_options": model,
        "vocab": list(vocab.items()),
        "decoder": stage_components(spec.decoder, "decoder"),
        "names": names,
        "special_ids": decode_special_ids(spec, names),
    }


def special_contents(spec: PipelineSpec) -> set[str]:
    """HF's special_tokens_set: the contents of the special added tokens, and of any an earlier
    entry of the file made special (added_tokens.AddedExtras.special)."""
    special = {t.content for t in spec.added_tokens if t.special}
    return special | spec.added_extras.special if spec.added_extras else special


def decode_special_ids(spec: PipelineSpec, names: list[str]) -> list[int]:
    """The ids decode's skip_special_tokens drops, as HF's decode (tokenizer/mod.rs): those whose
    text (`names`, id_to_token's) is one of the special contents. A normalized special token
    whose normalizer changed it is named by its normalized text, so it is kept (as in HF). Only
    the ids an added content has can be so named (a vocabulary token of a special content's text
    has the added token's id), so only those are looked at (not the whole vocabulary), but for a
    Unigram vocabulary that repeats a special content's piece, whose earlier id HF drops too."""
    special = special_contents(spec)
    if not special:
        return []
    ids = {t.id for t in spec.added_tokens}
    if spec.added_extras:
        ids.update(spec.added_extras.contents.values())
    model = spec.model
    if isinstance(model, dict) and model.get("type") == "Unigram" and isinstance(model.get("vocab"), list):
        # (a repeated piece: every id of a special content's text, MBart50's rebuilt <unk> too)
        ids.update(i for i, entry in enumerate(model["vocab"]) if entry and entry[0] in special)
    return sorted(i for i in ids if i < len(names) and names[i] in special)


def build_staged(spec: PipelineSpec) -> _core.Staged:
    """The native staged pipeline for spec, with its template set when it has one."""
    from ..processors.template import TemplateProcessing
    from .compile import set_template

    staged = _core.Staged(**staged_description(spec))
    post = spec.post_processor
    if isinstance(post, TemplateProcessing):
        set_template(staged, post)  # (its flags too: parts_typed, skip_present_special)
    return staged
