"""HF's TemplateProcessing: where the sequences and the special tokens go, with type ids.

A template is written as HF writes it: "[CLS] $A [SEP]" and "[CLS] $A:0 [SEP]:0 $B:1 [SEP]:1";
`$A`/`$B` (or `$0`/`$1`, `$`) are the sequences, other words are special tokens, `:n` sets the
type id (default 0). BERT's is `TemplateProcessing.bert(cls_id, sep_id)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import _core

Piece = tuple[bool, int, int, str]  # (is sequence, sequence 0/1, type id, special token)


def _parse(template: str | list[str]) -> list[Piece]:
    pieces: list[Piece] = []
    for word in template.split() if isinstance(template, str) else template:
        name, _, type_id = word.partition(":")
        if type_id and not type_id.isdigit():
            raise ValueError(f"template piece {word!r}: the type id after ':' must be a number")
        tid = int(type_id or 0)
        if tid > _core.MAX_TYPE_ID:
            raise ValueError(f"template piece {word!r}: type ids go up to {_core.MAX_TYPE_ID}")
        if name.startswith("$"):
            which = name[1:]
            if which in ("", "A", "a"):
                pieces.append((True, 0, tid, ""))
            elif which in ("B", "b"):
                pieces.append((True, 1, tid, ""))
            elif which.isdigit() and not type_id:  # "$1" means sequence A with type id 1
                pieces.append((True, 0, int(which), ""))
            else:
                raise ValueError(f"template piece {word!r}: sequences are $A or $B")
        else:
            pieces.append((False, 0, tid, name))
    return pieces


@dataclass(frozen=True)
class TemplateProcessing:
    single: tuple[Piece, ...]
    pair: tuple[Piece, ...]
    special_tokens: dict[str, list[int]]  # special token -> its ids
    # special token -> the text each of its ids shows in an encoding's tokens (HF's
    # SpecialToken.tokens); a token not listed shows its ids' names
    texts: dict[str, list[str]] = field(default_factory=dict)
    # Overflowing parts take the template's type ids where special tokens are added (HF's
    # RobertaProcessing and BertProcessing build their parts anew); else, as HF's
    # TemplateProcessing leaves them, their sequence's index.
    parts_typed: bool = False
    # transformers' _add_eos_if_not_present (SiglipTokenizer's Python class): a special token of
    # one id right after a sequence is left out where the sequence already ends with it. No
    # tokenizer.json says this; to_json leaves it out.
    skip_present_special: bool = False

    @classmethod
    def from_templates(
        cls, single: str | list[str], pair: str | list[str], special_tokens: list[tuple[str, int]]
    ) -> TemplateProcessing:
        made = cls(
            tuple(_parse(single)),
            tuple(_parse(pair)),
            {t: [i] for t, i in special_tokens},
            {t: [t] for t, _ in special_tokens},  # (HF's SpecialToken from (token, id))
        )
        made._check()
        return made

    @classmethod
    def bert(cls, cls_id: int, sep_id: int, cls_token: str = "[CLS]", sep_token: str = "[SEP]") -> TemplateProcessing:
        return cls.from_templates(
            f"{cls_token} $A {sep_token}",
            f"{cls_token} $A {sep_token} $B:1 {sep_token}:1",
            [(cls_token, cls_id), (sep_token, sep_id)],
        )

    @classmethod
    def processing(cls, kind: str, cls_token: str, cls_id: int, sep_token: str, sep_id: int) -> TemplateProcessing:
        """HF's BertProcessing ("[CLS] $A [SEP]", "$B:1 [SEP]:1" after) or RobertaProcessing
        ("<s> $A </s>", "</s> $B </s>" after, every type id 0) as a template, built from pieces
        (the tokens may hold spaces or ':', which the text form of a template cannot); their
        overflowing parts take these type ids (parts_typed)."""
        cls_piece, sep_piece, a = (False, 0, 0, cls_token), (False, 0, 0, sep_token), (True, 0, 0, "")
        if kind == "RobertaProcessing":
            pair: tuple[Piece, ...] = (cls_piece, a, sep_piece, sep_piece, (True, 1, 0, ""), sep_piece)
        else:
            pair = (cls_piece, a, sep_piece, (True, 1, 1, ""), (False, 0, 1, sep_token))
        ids = {cls_token: [cls_id], sep_token: [sep_id]}
        texts = {cls_token: [cls_token], sep_token: [sep_token]}
        return cls((cls_piece, a, sep_piece), pair, ids, texts, parts_typed=True)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TemplateProcessing:
        kind = data.get("type")
        if kind in ("BertProcessing", "RobertaProcessing"):
            (sep, sep_id), (cls_tok, cls_id) = data["sep"], data["cls"]
            return cls.processing(kind, cls_tok, cls_id, sep, sep_id)
        if kind != "TemplateProcessing":
            raise ValueError(
                f"post-processor {kind!r} is not supported (TemplateProcessing, BertProcessing, RobertaProcessing are)"
            )

        def pieces(items: list[dict[str, Any]]) -> tuple[Piece, ...]:
            out = []
            for item in items:
                if "Sequence" in item:
                    seq = item["Sequence"]
                    out.append((True, 0 if seq["id"] == "A" else 1, seq["type_id"], ""))
                else:
                    sp = item["SpecialToken"]
                    out.append((False, 0, sp["type_id"], sp["id"]))
            return tuple(out)

        specials = data.get("special_tokens", {})
        made = cls(
            pieces(data["single"]),
            pieces(data["pair"]),
            {k: list(v["ids"]) for k, v in specials.items()},
            {k: list(v["tokens"]) for k, v in specials.items() if "tokens" in v},
        )
        made._check()
        return made

    def _check(self) -> None:
        missing = {p[3] for p in self.single + self.pair if not p[0] and p[3] not in self.special_tokens}
        if missing:
            raise ValueError(f"the template uses special tokens without ids: {', '.join(sorted(missing))}")
        if {p[1] for p in self.pair if p[0]} != {0, 1}:
            raise ValueError("the pair template must use both sequences ($A and $B)")

    def native_pieces(self, pair: bool) -> list[tuple[bool, int, int, list[int], list[str]]]:
        """The pieces as the native set_template takes them: (is sequence, sequence, type id,
        the special token's ids, the texts they show or [] for their names)."""
        return [
            (s, q, t, [] if s else self.special_tokens[name], [] if s else self.texts.get(name, []))
            for s, q, t, name in (self.pair if pair else self.single)
        ]

    def to_json(self, tokens_of: dict[int, str]) -> dict[str, Any]:
        if self.parts_typed:  # read from BertProcessing or RobertaProcessing: written back as it was
            cls_name, sep_name = self.single[0][3], self.single[-1][3]
            cls, sep = [cls_name, self.special_tokens[cls_name][0]], [sep_name, self.special_tokens[sep_name][0]]
            if len(self.pair) == 6:  # <s> A </s> </s> B </s> (offsets trimmed apart, as a ByteLevel)
                return {
                    "type": "RobertaProcessing",
                    "sep": sep,
                    "cls": cls,
                    "trim_offsets": False,
                    "add_prefix_space": True,
                }
            return {"type": "BertProcessing", "sep": sep, "cls": cls}

        def pieces(items: tuple[Piece, ...]) -> list[dict[str, Any]]:
            return [
                {"Sequence": {"id": "AB"[q], "type_id": t}} if s else {"SpecialToken": {"id": name, "type_id": t}}
                for s, q, t, name in items
            ]

        return {
            "type": "TemplateProcessing",
            "single": pieces(self.single),
            "pair": pieces(self.pair),
            "special_tokens": {
                k: {"id": k, "ids": ids, "tokens": self.texts.get(k) or [tokens_of.get(i, k) for i in ids]}
                for k, ids in self.special_tokens.items()
            },
        }
