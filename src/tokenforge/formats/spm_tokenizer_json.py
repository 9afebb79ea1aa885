"""A sentencepiece model (`.model`, `SentencePieceModel`) written as an HF tokenizer.json that HF
tokenizers runs to sentencepiece's ids: the form transformers' converters give a model
(convert_slow_tokenizer.py, `SpmConverter.build_tokenizer_from_spm_proto`), made exact where
they approximate.

The pieces, in sentencepiece's order (normalizer.cc, bpe_model.cc, unigram_model.cc):
- normalizer: `Precompiled` with the model's charsmap (none for identity); where
  remove_extra_whitespaces is set, leading spaces go and runs of spaces become one; the dummy
  prefix is a `Prepend` (sentencepiece adds it whatever the text starts with, which Metaspace's
  prepend does not); spaces become "▁"; then trailing "▁" go (sentencepiece strips them after
  escaping, the dummy prefix and literal "▁" included). Each text between special tokens is
  normalized on its own, dummy prefix included, as tokenforge's sentencepiece kernel encodes it.
- pre-tokenizer: none (the model reads the whole text, as sentencepiece does), or a `Split`
  isolating the user-defined pieces, which sentencepiece emits whole and never merges.
- model: BPE with merges ranked by the merged piece's score (ties by id), unk fused, byte
  fallback as the model says (`ignore_merges` where user-defined pieces are isolated, so that
  they are found whole); or Unigram with the scores.
- added tokens: the control and unknown pieces, special, matched in raw text.
- post-processor: bos/eos around each text as the add_bos/add_eos options say.
- decoder: "▁" -> " ", byte fallback, fused, the dummy prefix's space stripped (where it was
  a "▁": unescaped, sentencepiece keeps it).

What HF's components cannot say is refused with a ValueError naming the option:
treat_whitespace_as_suffix, unused pieces, a denormalizer with a map, user-defined pieces with
spaces or that the charsmap would change. Known differences left, each HF's own (transformers'
form has them too; tests/test_save_convert.py checks that nothing else differs):
- HF's Precompiled normalizer maps whole graphemes where it can, sentencepiece maps the longest
  match at each character: a grapheme of several code points whose first character has a
  mapping is replaced whole by that mapping ("\r\n" becomes one space where sentencepiece
  writes two; a combining mark after a space), so such text can differ;
- Unigram: where two segmentations score exactly the same, HF's Viterbi and sentencepiece's
  may pick different ones ("#" "##" against "##" "#");
- a Unigram model with byte_fallback matches a literal "<0xNN>" in the text as that byte piece
  (HF's Unigram looks every piece up);
- BPE ties between two different merges giving one piece go by merge order in HF, by position
  in sentencepiece;
- decoding: the unknown piece is an added token in HF (dropped with skip_special_tokens, else
  "<unk>"), sentencepiece writes " ⁇ "; and sentencepiece strips a "▁" from each leading piece
  while the text is empty, HF only the first space.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from .sentencepiece_model import ModelType, PieceType, SentencePieceModel

SPACE = "\u2581"


def spm_document(model: SentencePieceModel, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The tokenizer.json document of a sentencepiece model; `options` are a sentencepiece
    pipeline's add_bos (None: when the model has a bos piece) and add_eos. ValueError where HF's
    components cannot express the model."""
    options = options or {}
    model.validate()
    trainer, norm = model.trainer_spec, model.normalizer_spec
    kind = trainer["model_type"]
    if trainer["treat_whitespace_as_suffix"]:
        raise ValueError(
            "treat_whitespace_as_suffix: HF tokenizers has no normalizer that appends the dummy prefix "
            "(\u2581 at the end), so this sentencepiece model has no tokenizer.json form; keep it as a .model file"
        )
    unused = [p.piece for p in model.pieces if p.type == PieceType.UNUSED]
    if unused:
        raise ValueError(
            f"unused pieces ({unused[0]!r}, ...): sentencepiece re-splits them, which HF tokenizers cannot; "
            "keep this model as a .model file"
        )
    if model.denormalizer_spec is not None and model.denormalizer_spec["precompiled_charsmap"]:
        raise ValueError(
            "denormalizer_spec: HF tokenizers' decoders have no character map for decoding; keep this model as a "
            ".model file"
        )
    pieces = model.pieces
    user_defined = [p.piece for p in pieces if p.type == PieceType.USER_DEFINED]
    _check_user_defined(model, user_defined)
    charsmap = bytes(norm["precompiled_charsmap"])
    escape = norm["escape_whitespaces"]
    space = SPACE if escape else " "

    normalizers: list[dict[str, Any]] = []
    if charsmap:
        normalizers.append({"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")})
    if norm["remove_extra_whitespaces"]:
        normalizers += [_replace_regex(r"\A +", ""), _replace_regex(" {2,}", " ")]
    if norm["add_dummy_prefix"]:
        normalizers.append({"type": "Prepend", "prepend": space})
    if escape:
        normalizers.append({"type": "Replace", "pattern": {"String": " "}, "content": SPACE})
    if norm["remove_extra_whitespaces"]:
        normalizers.append(_replace_regex(f"{space}+\\z", ""))

    pre_tokenizer = None
    if user_defined:
        alternatives = "|".join(_onig_escape(p) for p in sorted(user_defined, key=len, reverse=True))
        pre_tokenizer = {"type": "Split", "pattern": {"Regex": alternatives}, "behavior": "Isolated", "invert": False}

    byte_fallback = bool(trainer["byte_fallback"])
    unk_id = next(i for i, p in enumerate(pieces) if p.type == PieceType.UNKNOWN)
    if kind == ModelType.BPE:
        hf_model: dict[str, Any] = {
            "type": "BPE",
            "dropout": None,
            "unk_token": pieces[unk_id].piece,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": byte_fallback,
            "ignore_merges": bool(user_defined),
            "vocab": {p.piece: i for i, p in enumerate(pieces)},
            "merges": bpe_merges(model),
        }
    else:
        hf_model = {
            "type": "Unigram",
            "unk_id": unk_id,
            "vocab": [[p.piece, float(p.score)] for p in pieces],
            "byte_fallback": byte_fallback,
        }

    decoders: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"String": SPACE}, "content": " "}]
    if byte_fallback:
        decoders.append({"type": "ByteFallback"})
    decoders.append({"type": "Fuse"})
    if norm["add_dummy_prefix"] and escape:  # sentencepiece drops a leading "▁", never a space
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})

    added = [
        {
            "id": i,
            "content": p.piece,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for i, p in enumerate(pieces)
        if p.type in (PieceType.CONTROL, PieceType.UNKNOWN)
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": normalizers} if normalizers else None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": _template(model, options),
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": hf_model,
    }


def bpe_merges(model: SentencePieceModel) -> list[list[str]]:
    """A sentencepiece BPE model's merges as HF's BPE ranks them: every split of a normal piece
    into two normal pieces, by the merged piece's score (highest first), then its id, then the
    split's left piece's id. sentencepiece merges the pair whose merged piece scores highest
    (bpe_model.cc), whatever the parts; only normal pieces take part (user-defined pieces are
    frozen, control and byte pieces are never symbols of the text)."""
    normal = {p.piece: (p.score, i) for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL}
    ranked = []
    for piece, (score, i) in normal.items():
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in normal and right in normal:
                ranked.append((-score, i, normal[left][1], left, right))
    ranked.sort()
    return [[left, right] for *_, left, right in ranked]


def _template(model: SentencePieceModel, options: Mapping[str, Any]) -> dict[str, Any] | None:
    """The TemplateProcessing that puts bos/eos around each text (tokenforge's sentencepiece
    kernel's template: pipeline.compile), or None where it adds nothing."""
    trainer = model.trainer_spec

    def control_id(name: str) -> int | None:
        found = [i for i, p in enumerate(model.pieces) if p.piece == name]
        return found[0] if found and model.pieces[found[0]].type == PieceType.CONTROL else None

    bos_id, eos_id = control_id(trainer["bos_piece"]), control_id(trainer["eos_piece"])
    add_bos = options.get("add_bos")
    add_bos = bos_id is not None if add_bos is None else bool(add_bos)
    add_eos = bool(options.get("add_eos", False))
    if add_bos and bos_id is None:
        raise ValueError("add_bos: this model has no bos piece (a control piece named by its bos_piece)")
    if add_eos and eos_id is None:
        raise ValueError("add_eos: this model has no eos piece (a control piece named by its eos_piece)")
    if not add_bos and not add_eos:
        # HF's default without a post-processor: B's type id is 1, as in the kernel's template
        return None

    def around(seq: str, type_id: int) -> list[dict[str, Any]]:
        out = []
        if add_bos and bos_id is not None:
            out.append({"SpecialToken": {"id": model.pieces[bos_id].piece, "type_id": type_id}})
        out.append({"Sequence": {"id": seq, "type_id": type_id}})
        if add_eos and eos_id is not None:
            out.append({"SpecialToken": {"id": model.pieces[eos_id].piece, "type_id": type_id}})
        return out

    specials = {
        model.pieces[i].piece: {"id": model.pieces[i].piece, "ids": [i], "tokens": [model.pieces[i].piece]}
        for i, used in ((bos_id, add_bos), (eos_id, add_eos))
        if used and i is not None
    }
    return {
        "type": "TemplateProcessing",
        "single": around("A", 0),
        "pair": around("A", 0) + around("B", 1),
        "special_tokens": specials,
    }


def _check_user_defined(model: SentencePieceModel, user_defined: list[str]) -> None:
    """sentencepiece passes user-defined pieces through its normalizer unchanged; HF normalizes
    the text before the Split finds them, so each must be one the normalizer leaves as it is."""
    if not user_defined:
        return
    from ..normalizers.sentencepiece import SentencePieceNormalizer

    charsmap = model.normalizer_spec["precompiled_charsmap"]
    only_map = SentencePieceNormalizer(charsmap, False, False, False, False, ())
    for piece in user_defined:
        if any(c.isspace() or c == SPACE for c in piece):
            raise ValueError(
                f"user-defined piece {piece!r} holds whitespace or \u2581, which HF's normalizer would rewrite "
                "before finding it; keep this model as a .model file"
            )
        if charsmap and only_map.normalize(piece) != piece:
            raise ValueError(
                f"user-defined piece {piece!r}: the model's normalization rule changes it, and HF normalizes the "
                "text before finding it (sentencepiece does not); keep this model as a .model file"
            )


def _replace_regex(pattern: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}


def _onig_escape(text: str) -> str:
    """`text` as a literal in an Oniguruma (Ruby syntax) pattern: ASCII punctuation escaped."""
    return "".join(f"\\{c}" if c.isascii() and not c.isalnum() else c for c in text)


def sentencepiece_of(spec: Any) -> tuple[SentencePieceModel, dict[str, Any]] | None:
    """The sentencepiece model (and its add_bos/add_eos options) that a tokenizer.json pipeline
    is, where the pipeline is exactly what `spm_document` writes for it (checked by writing it
    again); else None. BPE scores are not in tokenizer.json: they are made from the merges'
    order (which is all sentencepiece's BPE reads of them)."""
    from .sentencepiece_model import NORMALIZER_SPEC, TRAINER_SPEC, Piece, Spec

    model = spec.model
    if not isinstance(model, Mapping) or model.get("type") not in ("BPE", "Unigram"):
        return None
    try:
        settings = _normalizer_settings(spec.normalizer)
        user_defined = _alternatives(spec.pre_tokenizer)
        if settings is None or user_defined is None:
            return None
        charsmap, remove_extra, dummy, escape = settings
        specials = {a.id: a.content for a in spec.added_tokens if a.special}
        byte_fallback = bool(model.get("byte_fallback", False))
        if model["type"] == "BPE":
            vocab = model["vocab"]
            names = sorted(vocab, key=vocab.__getitem__)
            if [vocab[n] for n in names] != list(range(len(names))):
                return None
            scores = _bpe_scores(model.get("merges", []), len(names))
            score_of = [scores.get(n, -float(len(scores) + 1)) for n in names]
            unk_name = model.get("unk_token")
        else:
            names = [entry[0] for entry in model["vocab"]]
            score_of = [float(entry[1]) for entry in model["vocab"]]
            unk = model.get("unk_id")
            unk_name = names[unk] if isinstance(unk, int) and 0 <= unk < len(names) else None
        pieces = []
        for i, name in enumerate(names):
            if name == unk_name:
                kind = PieceType.UNKNOWN
            elif i in specials:
                kind = PieceType.CONTROL
            elif name in user_defined:
                kind = PieceType.USER_DEFINED
            elif byte_fallback and len(name) == 6 and name.startswith("<0x") and name.endswith(">"):
                kind = PieceType.BYTE
            else:
                kind = PieceType.NORMAL
            special_score = kind in (PieceType.UNKNOWN, PieceType.CONTROL, PieceType.BYTE, PieceType.USER_DEFINED)
            score = 0.0 if special_score and model["type"] == "BPE" else score_of[i]
            pieces.append(Piece(name, score, kind))
        trainer = Spec(TRAINER_SPEC)
        trainer["model_type"] = ModelType.BPE if model["type"] == "BPE" else ModelType.UNIGRAM
        trainer["vocab_size"] = len(pieces)
        trainer["byte_fallback"] = byte_fallback
        unk_id = names.index(unk_name) if unk_name in names else -1
        trainer["unk_id"], trainer["unk_piece"] = unk_id, unk_name or "<unk>"
        add = _template_ends(spec.post_processor)
        if add is None:
            return None
        (bos, eos) = add
        trainer["bos_id"] = -1 if bos is None else names.index(bos)
        trainer["eos_id"] = -1 if eos is None else names.index(eos)
        trainer["pad_id"] = -1
        if bos is not None:
            trainer["bos_piece"] = bos
        if eos is not None:
            trainer["eos_piece"] = eos
        normalizer = Spec(NORMALIZER_SPEC)
        normalizer["name"] = "identity" if not charsmap else "custom"
        normalizer["precompiled_charsmap"] = charsmap
        normalizer["add_dummy_prefix"] = dummy
        normalizer["remove_extra_whitespaces"] = remove_extra
        normalizer["escape_whitespaces"] = escape
        candidate = SentencePieceModel(pieces, trainer, normalizer)
        options = {"add_bos": bos is not None, "add_eos": eos is not None}
        from .hf_tokenizer_json import document

        written = spm_document(candidate, options)
        read = document(replace_spec(spec))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    if _canonical(written) != _canonical({**read, "truncation": None, "padding": None}):
        return None
    return candidate, options


def replace_spec(spec: Any) -> Any:
    """spec without its truncation and padding (a .model file holds neither)."""
    import dataclasses

    return dataclasses.replace(spec, truncation=None, padding=None)


def _canonical(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, sort_keys=True, default=list))


def _normalizer_settings(normalizer: Any) -> tuple[bytes, bool, bool, bool] | None:
    """(charsmap, remove_extra_whitespaces, add_dummy_prefix, escape_whitespaces) of a
    normalizer as spm_document writes it (checked again by writing it); None if not of that form."""
    if normalizer is None:
        return b"", False, False, False
    if not isinstance(normalizer, Mapping) or normalizer.get("type") != "Sequence":
        return None
    charsmap, remove_extra, dummy, escape = b"", False, False, False
    for part in normalizer.get("normalizers", []):
        kind = part.get("type")
        if kind == "Precompiled":
            charsmap = base64.b64decode(part["precompiled_charsmap"])
        elif kind == "Prepend":
            dummy = True
        elif kind == "Replace" and part.get("pattern") == {"Regex": r"\A +"}:
            remove_extra = True
        elif kind == "Replace" and part.get("pattern") == {"String": " "}:
            escape = True
    return charsmap, remove_extra, dummy, escape


def _alternatives(pre_tokenizer: Any) -> set[str] | None:
    """The literal alternatives of the Split that isolates user-defined pieces (none for no
    pre-tokenizer); None for any other pre-tokenizer."""
    if pre_tokenizer is None:
        return set()
    if not isinstance(pre_tokenizer, Mapping) or pre_tokenizer.get("type") != "Split":
        return None
    regex = (pre_tokenizer.get("pattern") or {}).get("Regex")
    if not isinstance(regex, str):
        return None
    out, current, k = set(), [], 0
    while k < len(regex):
        c = regex[k]
        if c == "\\" and k + 1 < len(regex):
            current.append(regex[k + 1])
            k += 2
            continue
        if c == "|":
            out.add("".join(current))
            current = []
        else:
            current.append(c)
        k += 1
    out.add("".join(current))
    return out


def _bpe_scores(merges: Any, size: int) -> dict[str, float]:
    """Scores that rank a BPE's merged pieces in the order of their first merge."""
    scores: dict[str, float] = {}
    for merge in merges:
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        piece = left + right
        if piece not in scores:
            scores[piece] = -float(len(scores))
    return scores


def _template_ends(post: Any) -> tuple[str | None, str | None] | None:
    """(bos, eos) a sentencepiece template puts around each text (None: none), or None where
    the post-processor is not of that form."""
    if post is None:
        return None, None
    single = getattr(post, "single", None)
    if single is None:
        return None
    seq = [k for k, piece in enumerate(single) if piece[0]]
    if len(seq) != 1 or len(single) > 3:
        return None
    before, after = single[: seq[0]], single[seq[0] + 1 :]
    if len(before) > 1 or len(after) > 1:
        return None
    return (before[0][3] if before else None), (after[0][3] if after else None)
