"""What a tokenizer is, as plain data: `describe(tokenizer)` for `tokenforge inspect` (cli/inspect.py)
and for anyone who wants to look inside a loaded tokenizer.

`describe` gives the native kernel, the model (its type and the settings that matter), the
pre-tokenizer (a split pattern and its name where it is a known one), the normalizer, the
vocabulary size, the special and control tokens with their ids, add_bos / add_eos, and the
longest tokens by bytes. `describe_token` gives one token: its id, text and bytes, and for a BPE
the merges that build it, down to single bytes or characters: for tiktoken-style ranks (byte-level
`Encoding`, tekken) the merge the rank order makes (the token's bytes merged with the ranks below
its own), for a sentencepiece BPE the same in its score order, for a tokenizer.json BPE the first
listed merge that yields it.

It works on a `Tokenizer` of any kernel or on a byte-level `Encoding` (tiktoken's surface), and
reads only what the loaded objects hold.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Any

from .encoding import Encoding
from .pre_tokenizers import patterns

_PATTERN_NAMES = {
    patterns.GPT2: "gpt2",
    patterns.CL100K: "cl100k",
    patterns.O200K: "o200k",
    patterns.TEKKEN: "tekken",
    patterns.WHOLE_TEXT: "whole text",
}
_MAX_DEPTH = 64  # merge trees deeper than this are cut (a token of 64+ bytes built one byte at a time)


def _pattern_name(pattern: str) -> str | None:
    from .formats.hf_tokenizer_json import hf_split_pattern
    from .pipeline.fused_hf_bpe import HF_GPT2, LLAMA3, QWEN2

    if pattern in _PATTERN_NAMES:
        return _PATTERN_NAMES[pattern]
    known = {HF_GPT2: "gpt2", LLAMA3: "llama3", QWEN2: "qwen2"}
    known.update({hf_split_pattern(p): n for p, n in _PATTERN_NAMES.items()})
    return known.get(pattern)


def _as_json(component: Any) -> Any:
    if component is None or isinstance(component, (str, int, float, bool)):
        return component
    if isinstance(component, Mapping):
        return {k: _as_json(v) for k, v in component.items() if k not in ("vocab", "merges", "precompiled_charsmap")}
    if isinstance(component, (list, tuple)):
        return [_as_json(v) for v in component]
    to_json = getattr(component, "to_json", None)
    if to_json is not None:
        try:
            return _as_json(to_json())
        except TypeError:
            pass
    return type(component).__name__


def _split_of(component: Any) -> dict[str, Any] | None:
    """{type, pattern, name} of a tokenizer.json pre-tokenizer's Split (the first, in a Sequence)."""
    data = _as_json(component)
    if not isinstance(data, dict):
        return None
    if data.get("type") == "Sequence":
        for part in data.get("pretokenizers", []):
            found = _split_of(part)
            if found is not None:
                return found
        return None
    if data.get("type") == "Split":
        pattern = data.get("pattern", {})
        regex = pattern.get("Regex") if isinstance(pattern, dict) else None
        if isinstance(regex, str):
            return {"pattern": regex, "name": _pattern_name(regex)}
    return None


class _View:
    """What describe needs from a Tokenizer or an Encoding, in one shape."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        if isinstance(tokenizer, Encoding):
            self.encoding: Encoding | None = tokenizer
            self.model: Any = tokenizer
            self.kernel = "encoding"
        else:
            self.model = tokenizer.model
            self.kernel = tokenizer.kernel
            self.encoding = tokenizer.encoding if self.kernel in ("byte_level_bpe", "tekken") else None

    def size(self) -> int:
        if self.encoding is not None and self.tokenizer is self.encoding:
            return self.encoding.n_vocab
        return int(self.tokenizer.get_vocab_size())

    def name_of(self, i: int) -> str | None:
        if self.encoding is not None:
            try:
                data = self.encoding.decode_single_token_bytes(i)
            except (KeyError, ValueError):
                return None
            return data.decode("utf-8", "replace")
        return self.tokenizer.id_to_token(i)  # type: ignore[no-any-return]

    def bytes_of(self, i: int) -> bytes | None:
        """The bytes a token stands for (byte-level tokens: their bytes; sentencepiece: "▁" as a
        space, <0xNN> as the byte; byte-level tokenizer.json: read back from the byte alphabet)."""
        if self.encoding is not None:
            try:
                return self.encoding.decode_single_token_bytes(i)
            except (KeyError, ValueError):
                return None
        name = self.tokenizer.id_to_token(i)
        if name is None:
            return None
        if self._byte_alphabet() is not None:
            inverse = self._byte_alphabet()
            assert inverse is not None
            if all(c in inverse for c in name):
                return bytes(inverse[c] for c in name)
        if len(name) == 6 and name.startswith("<0x") and name.endswith(">"):
            try:
                return bytes([int(name[3:5], 16)])
            except ValueError:
                pass
        return name.replace("\u2581", " ").encode("utf-8", "surrogatepass")

    _inverse: dict[str, int] | None = None
    _checked = False

    def _byte_alphabet(self) -> dict[str, int] | None:
        if not self._checked:
            self._checked = True
            decoder = _as_json(self.tokenizer.decoder) if not isinstance(self.tokenizer, Encoding) else None
            kinds = _component_types(decoder)
            if "ByteLevel" in kinds:
                from .pipeline.fused_hf_bpe import BYTE_CHARS

                self._inverse = {c: b for b, c in enumerate(BYTE_CHARS)}
        return self._inverse


def _component_types(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return []
    kinds = [data["type"]] if isinstance(data.get("type"), str) else []
    for key in ("decoders", "normalizers", "pretokenizers"):
        for part in data.get(key, []) or []:
            kinds += _component_types(part)
    return kinds


def _model_summary(view: _View) -> dict[str, Any]:
    from .formats.sentencepiece_model import ModelType, SentencePieceModel
    from .models.no_vocab import NoVocab
    from .models.tekken import Tekken
    from .models.wordpiece import WordPiece

    model = view.model
    if isinstance(model, NoVocab):
        return {
            "type": "no_vocab",
            "form": "no vocabulary (a model file without a tokenizer): encode and decode refuse",
        }
    if isinstance(model, Tekken):
        return {
            "type": "tekken",
            "form": "byte-level BPE with tiktoken ranks, ids after the special tokens",
            "version": model.version,
            "num_special_tokens": model.num_special_tokens,
            "default_vocab_size": model.vocab_size,
            "image": model.image is not None,
            "audio": model.audio is not None,
        }
    if isinstance(model, Encoding):
        return {"type": "BPE", "form": "byte-level BPE with tiktoken ranks", "name": model.name}
    if isinstance(model, SentencePieceModel):
        kind = ModelType(model.trainer_spec["model_type"]).name
        return {
            "type": f"sentencepiece {kind}",
            "byte_fallback": bool(model.trainer_spec["byte_fallback"]),
            "pieces": len(model.pieces),
        }
    if isinstance(model, WordPiece):
        return {
            "type": "WordPiece",
            "unk_token": model.unk_token,
            "continuing_subword_prefix": model.continuing_subword_prefix,
            "word_prefix": model.word_prefix,
        }
    if isinstance(model, Mapping):
        summary = {k: v for k, v in _as_json(model).items() if not isinstance(v, (dict, list))}
        merges = model.get("merges")
        if isinstance(merges, list):
            summary["merges"] = len(merges)
        return summary
    return {"type": type(model).__name__}


def _pre_tokenizer_summary(view: _View) -> dict[str, Any] | None:
    from .formats.sentencepiece_model import SentencePieceModel
    from .models.tekken import Tekken

    model = view.model
    if isinstance(model, (Encoding, Tekken)):
        pattern = model._pat_str if isinstance(model, Encoding) else model.pattern
        return {"type": "Split", "pattern": pattern, "name": _pattern_name(pattern)}
    if isinstance(model, SentencePieceModel):
        return {"type": "sentencepiece", "add_dummy_prefix": bool(model.normalizer_spec["add_dummy_prefix"])}
    pre = view.tokenizer.pre_tokenizer
    if pre is None:
        return None
    summary = _as_json(pre)
    if not isinstance(summary, dict):
        summary = {"type": summary}
    split = _split_of(pre)
    if split is not None:
        summary = {**summary, "split_pattern": split["pattern"], "split_name": split["name"]}
    return summary  # type: ignore[no-any-return]


def _normalizer_summary(view: _View) -> Any:
    from .formats.sentencepiece_model import SentencePieceModel

    model = view.model
    if isinstance(model, Encoding) or view.kernel == "tekken":
        return None
    if isinstance(model, SentencePieceModel):
        spec = model.normalizer_spec
        return {
            "type": "sentencepiece",
            "name": spec["name"],
            "remove_extra_whitespaces": bool(spec["remove_extra_whitespaces"]),
            "escape_whitespaces": bool(spec["escape_whitespaces"]),
        }
    return _as_json(view.tokenizer.normalizer)


def _special_tokens(view: _View) -> list[dict[str, Any]]:
    from .formats.sentencepiece_model import PieceType, SentencePieceModel
    from .models.tekken import Tekken

    model = view.model
    if isinstance(model, Tekken):
        return [
            {"id": i, "token": t, "control": c} for i, (t, c) in enumerate(zip(model.special_tokens, model.control))
        ]
    if isinstance(model, Encoding):
        return [{"id": i, "token": t, "control": True} for t, i in sorted(model._special_tokens.items(), key=_by_id)]
    found: dict[int, dict[str, Any]] = {}
    if isinstance(model, SentencePieceModel):
        kinds = {PieceType.CONTROL: "control", PieceType.UNKNOWN: "unknown", PieceType.USER_DEFINED: "user-defined"}
        for i, p in enumerate(model.pieces):
            if p.type in kinds:
                found[i] = {"id": i, "token": p.piece, "control": p.type == PieceType.CONTROL, "kind": kinds[p.type]}
    for a in view.tokenizer.added_tokens:
        found[a.id] = {"id": a.id, "token": a.content, "control": bool(a.special)}
    return [found[i] for i in sorted(found)]


def _by_id(item: tuple[str, int]) -> int:
    return item[1]


def _bos_eos(view: _View) -> dict[str, Any]:
    tok = view.tokenizer
    if isinstance(tok, Encoding):
        return {"add_bos": False, "add_eos": False}
    options = tok.spec.options
    if "add_bos" in options:
        return {"add_bos": bool(options["add_bos"]), "add_eos": bool(options.get("add_eos", False))}
    post = tok.post_processor
    single = getattr(post, "single", None)
    if single is None:
        return {"add_bos": False, "add_eos": False}
    first = next((i for i, piece in enumerate(single) if piece[0]), len(single))
    last = max((i for i, piece in enumerate(single) if piece[0]), default=-1)
    return {
        "add_bos": first > 0,
        "add_eos": last < len(single) - 1,
        "template": " ".join("$" + "AB"[p[1]] if p[0] else p[3] for p in single),
    }


def _longest(view: _View, count: int) -> list[dict[str, Any]]:
    if count <= 0:
        return []
    sizes = []
    for i in range(view.size()):
        data = view.bytes_of(i)
        if data is not None:
            sizes.append((len(data), -i, data))
    top = heapq.nlargest(count, sizes)
    return [{"id": -neg, "token": data.decode("utf-8", "replace"), "bytes": n} for n, neg, data in top]


def describe(tokenizer: Any, *, longest: int = 10) -> dict[str, Any]:
    """`tokenizer` (a Tokenizer, or a byte-level Encoding) as plain data: kernel, model,
    pre_tokenizer, normalizer, vocab_size, special_tokens ([{id, token, control}]), add_bos,
    add_eos, longest_tokens (the `longest` longest by bytes: [{id, token, bytes}])."""
    view = _View(tokenizer)
    special = _special_tokens(view)
    return {
        "kernel": view.kernel,
        "model": _model_summary(view),
        "pre_tokenizer": _pre_tokenizer_summary(view),
        "normalizer": _normalizer_summary(view),
        "vocab_size": view.size(),
        "special_tokens": special,
        "control_tokens": sum(1 for s in special if s["control"]),
        **_bos_eos(view),
        "longest_tokens": _longest(view, longest),
    }


def find_token(tokenizer: Any, token: str) -> int:
    """The id that `token` names: an integer id (a string of digits) or a token's text (its
    vocabulary name, or for byte-level models its text's bytes). ValueError naming the fix."""
    view = _View(tokenizer)
    size = view.size()
    if token.isdigit():
        i = int(token)
        if i >= size or view.bytes_of(i) is None:
            raise ValueError(f"token id {i} is not in the vocabulary (ids go from 0 to {size - 1})")
        return i
    if view.encoding is not None:
        found = view.encoding._special_tokens.get(token)
        if found is None:
            found = view.encoding._mergeable_ranks.get(token.encode("utf-8", "surrogatepass"))
        if found is not None:
            return found
    else:
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    raise ValueError(f"no token {token!r} in the vocabulary; give a token id (0 to {size - 1}) or a token's exact text")


def describe_token(tokenizer: Any, token_id: int) -> dict[str, Any]:
    """One token: {id, token, bytes (hex), length, special, merges}. `merges` is the merge tree
    of a BPE token ({left, right, ...} down to single bytes or characters), None where the model
    is not a BPE, or a note where no merge builds the token."""
    view = _View(tokenizer)
    data = view.bytes_of(token_id)
    special = {s["id"] for s in _special_tokens(view)}
    result: dict[str, Any] = {
        "id": token_id,
        "token": view.name_of(token_id),
        "bytes": data.hex(" ") if data is not None else None,
        "length": len(data) if data is not None else None,
        "special": token_id in special,
        "merges": None,
    }
    if token_id in special or data is None:
        return result
    if view.encoding is not None:
        result["merges"] = _rank_tree(data, view.encoding._mergeable_ranks, 0)
    elif _is_spm_bpe(view.model):
        name = view.name_of(token_id)
        scored = _score_ranks(view.model)
        if name in scored:
            result["merges"] = _rank_tree(name, scored, 0)
    elif isinstance(view.model, Mapping) and view.model.get("type") == "BPE":
        name = view.name_of(token_id)
        assert name is not None
        result["merges"] = _listed_tree(name, _merge_index(view.model), 0)
    return result


def _is_spm_bpe(model: Any) -> bool:
    from .formats.sentencepiece_model import ModelType, SentencePieceModel

    return isinstance(model, SentencePieceModel) and model.trainer_spec["model_type"] == ModelType.BPE


def _show(part: bytes | str) -> str:
    return part.decode("utf-8", "replace") if isinstance(part, bytes) else part


def _rank_tree(data: Any, ranks: Mapping[Any, int], depth: int) -> Any:
    """How a rank-ordered BPE builds `data` (bytes with tiktoken's ranks, or a sentencepiece
    piece's text with its score order): merge its units with the ranks below its own; the last
    merge joins two tokens, each built the same way."""
    if len(data) == 1 or depth >= _MAX_DEPTH:
        return _show(data) if len(data) == 1 else {"token": _show(data)}
    limit = ranks[data]
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        best, at = None, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < limit and (best is None or r < best):
                best, at = r, i
        if best is None:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    if len(parts) != 2:
        return {
            "token": _show(data),
            "note": f"no single merge of lower-ranked tokens makes it; the ranks below it give {len(parts)} parts",
            "parts": [_show(p) for p in parts],
        }
    return {
        "token": _show(data),
        "rank": limit,
        "left": _rank_tree(parts[0], ranks, depth + 1),
        "right": _rank_tree(parts[1], ranks, depth + 1),
    }


def _score_ranks(model: Any) -> dict[str, int]:
    """A sentencepiece BPE's pieces ranked as it merges them: by score, highest first (normal
    and user-defined pieces; the rest never come out of a merge)."""
    from .formats.sentencepiece_model import PieceType

    order = sorted(
        (i for i, p in enumerate(model.pieces) if p.type == PieceType.NORMAL), key=lambda i: (-model.pieces[i].score, i)
    )
    return {model.pieces[i].piece: rank for rank, i in enumerate(order)}


def _merge_index(model: Mapping[str, Any]) -> dict[str, tuple[str, str, int]]:
    """result -> (left, right, merge index) of a tokenizer.json BPE's merges (the first that makes each)."""
    index: dict[str, tuple[str, str, int]] = {}
    for n, merge in enumerate(model.get("merges") or []):
        if isinstance(merge, str):
            left, _, right = merge.partition(" ")
        elif isinstance(merge, (list, tuple)) and len(merge) == 2:
            left, right = merge
        else:
            continue
        index.setdefault(left + right, (left, right, n))
    return index


def _listed_tree(token: str, index: dict[str, tuple[str, str, int]], depth: int) -> Any:
    found = index.get(token)
    if found is None or depth >= _MAX_DEPTH:
        return token
    left, right, n = found
    return {
        "token": token,
        "merge": n,
        "left": _listed_tree(left, index, depth + 1),
        "right": _listed_tree(right, index, depth + 1),
    }
