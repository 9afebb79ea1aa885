"""sentencepiece models (`.model` files) behind the `Tokenizer` surface.

Ids are sentencepiece's own (`SentencePieceProcessor.encode`): the file's normalizer, then its
BPE or Unigram model. Around that, as HF's LlamaTokenizer(Fast) does by default:
- bos goes before the text when the model has one (add_bos), eos after it only when asked
  (add_eos, off as LlamaTokenizer's add_eos_token); a pair is "bos A bos B", B with type id 1;
- special-token text in the input ("<s>") is plain text, as in sentencepiece, unless
  allowed_special names it (control and unknown pieces); the text between matches is then
  encoded piece by piece, each as a whole text (as llama.cpp does with parse_special);
- offsets are sentencepiece's, in code points of the input (of a character encoded as bytes,
  only the last byte spans it); tokens are the vocabulary's pieces ("<unk>" for an unknown
  run, where sentencepiece's pieces show its text).
decode is sentencepiece's (src/native/decoders/spm_decoder.h), then the file's denormalizer if any.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from . import _core
from .arguments import _check_bool
from .formats.sentencepiece_model import PieceType, SentencePieceModel, is_sentencepiece_model  # noqa: F401 (re-exported)
from .models.sentencepiece import SentencePieceModelEncoder
from .normalizers.sentencepiece import SentencePieceNormalizer
from .pipeline.spec import PipelineSpec
from .processors.template import Piece, TemplateProcessing
from .special import SpecialPolicy, SpecialSet
from .tokenizer import Tokenizer


class SentencePieceTokenizer(Tokenizer):
    _DEFAULT_ALLOWED: SpecialSet = ()

    def __init__(self, model: SentencePieceModel, *, add_bos: bool | None = None, add_eos: bool = False) -> None:
        """add_bos: bos before each text (default: when the model has a bos piece); add_eos: eos
        after each text (default off)."""
        self.model = model
        self.encoder = SentencePieceModelEncoder(model)
        self.normalizer = self.encoder.normalizer
        trainer, spec, denormalizer = model.trainer_spec, model.normalizer_spec, model.denormalizer_spec
        self._init_surface(
            list(self.encoder.pieces),
            SpecialPolicy(
                {p.piece: i for i, p in enumerate(model.pieces) if p.type in (PieceType.CONTROL, PieceType.UNKNOWN)}
            ),
        )
        # The ids sentencepiece reports (bos_id(), ...): the named piece if it is a control piece.
        self.bos_id, self.eos_id, self.pad_id = (self._control_id(trainer[f"{k}_piece"]) for k in ("bos", "eos", "pad"))
        self._denormalizer = (
            SentencePieceNormalizer.from_spec(denormalizer)
            if denormalizer is not None and denormalizer["precompiled_charsmap"]
            else None
        )
        self._attach(
            _core.SpmTokenizer(
                self.normalizer._native,
                self.encoder._native,
                trainer["unk_surface"],
                spec["add_dummy_prefix"],
                spec["remove_extra_whitespaces"],
            ),
            None,
        )
        self._add_bos = self._add_eos = False
        self.add_bos = self.bos_id is not None if add_bos is None else _check_bool(add_bos, "add_bos")
        self.add_eos = _check_bool(add_eos, "add_eos")

    @classmethod
    def from_file(  # type: ignore[override]  # Tokenizer.from_file forwards .model options here
        cls, path: str | os.PathLike[str], *, add_bos: bool | None = None, add_eos: bool = False
    ) -> SentencePieceTokenizer:
        from .formats import read_sentencepiece

        return cls._compiled(read_sentencepiece(path, add_bos=add_bos, add_eos=add_eos), os.fspath(path))

    @property
    def spec(self) -> PipelineSpec:
        return PipelineSpec(
            self.model,
            options={"add_bos": self._add_bos, "add_eos": self._add_eos},
            truncation=self.truncation,
            padding=self.padding,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as a sentencepiece .model file (atomically)."""
        if os.fspath(path).endswith(".json"):
            raise ValueError(
                f"{os.fspath(path)}: a sentencepiece tokenizer saves as a .model file (sentencepiece's "
                "binary format), not as tokenizer.json; give a path ending in .model"
            )
        self.model.write(path)

    def _control_id(self, piece: str) -> int | None:
        i = self._vocab.get(piece)
        return i if i is not None and self.model.pieces[i].type == PieceType.CONTROL else None

    # -- bos and eos -------------------------------------------------------------------

    @property
    def add_bos(self) -> bool:
        return self._add_bos

    @add_bos.setter
    def add_bos(self, value: bool) -> None:
        value = _check_bool(value, "add_bos")
        if value and self.bos_id is None:
            raise ValueError("this model has no bos piece (a control piece named by its bos_piece)")
        self._set_template(value, self._add_eos)

    @property
    def add_eos(self) -> bool:
        return self._add_eos

    @add_eos.setter
    def add_eos(self, value: bool) -> None:
        value = _check_bool(value, "add_eos")
        if value and self.eos_id is None:
            raise ValueError("this model has no eos piece (a control piece named by its eos_piece)")
        self._set_template(self._add_bos, value)

    def _set_template(self, add_bos: bool, add_eos: bool) -> None:
        """bos/eos as given, once the truncation set leaves its stride room beside them."""
        t = self.truncation
        if t is not None:
            self._check_truncation(t["max_length"], t["stride"], int(add_bos) + int(add_eos))
        self._add_bos, self._add_eos = add_bos, add_eos
        self._apply_template()

    def _apply_template(self) -> None:
        ids = {self._token_of[i]: [i] for i in (self.bos_id, self.eos_id) if i is not None}

        def around(sequence: int) -> list[Piece]:
            bos = (
                [(False, 0, sequence, self._token_of[self.bos_id])] if self._add_bos and self.bos_id is not None else []
            )
            eos = (
                [(False, 0, sequence, self._token_of[self.eos_id])] if self._add_eos and self.eos_id is not None else []
            )
            return [*bos, (True, sequence, sequence, ""), *eos]

        post = TemplateProcessing(tuple(around(0)), tuple(around(0) + around(1)), ids)
        # (set here, not by assignment from outside: see Tokenizer._PARTS)
        object.__setattr__(self, "post_processor", post)
        self._native.set_template(post.native_pieces(False), post.native_pieces(True))

    # -- decoding ----------------------------------------------------------------------

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """sentencepiece's decode: control pieces (<s>) are dropped (shown as their text with
        skip_special_tokens=False), the unknown piece reads " ⁇ ", byte pieces join into UTF-8
        (U+FFFD for each byte that starts no character), the dummy prefix space goes. An id
        outside the vocabulary raises ValueError; ids may be any integers (NumPy's too, or a 1-D
        NumPy integer array), anything else raises TypeError."""
        text = self._decode_natively(ids, skip_special_tokens)
        return self._denormalizer.normalize(text) if self._denormalizer else text
