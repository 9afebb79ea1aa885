"""One tokenizer.json as HF tokenizers, tokenforge's staged pipeline and its fused kernel run it
(`Trio`), for the fused-kernel tests (test_fused_hf_bpe.py, test_fused_spm_json.py,
test_fused_unigram_json.py): `check(text, pair)` asserts the three agree on ids, tokens, offsets,
word ids, type ids, the special-tokens mask and decode."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Collection
from typing import Any

from hypothesis import strategies as st

from tokenforge import Tokenizer
from tokenforge.formats import read_tokenizer_file
from tokenforge.pipeline.compile import build_kernel
from tokenforge.tokenizer import _resolve_policy


class Trio:
    """The file `doc`, written to `path`, as HF, the staged pipeline and the fused kernel run it.
    `hidden_tokens`: ids whose token strings are not compared (a known gap, said where used)."""

    def __init__(self, doc: dict[str, Any], path: Any, hidden_tokens: Collection[str] = ()) -> None:
        import tokenizers

        path.write_text(json.dumps(doc))
        self.hf = tokenizers.Tokenizer.from_file(str(path))
        self.spec = read_tokenizer_file(path)
        self.staged = Tokenizer.from_spec(dataclasses.replace(self.spec, kernel="staged"))
        self.kernel = build_kernel(self.spec)
        self.fused = self.kernel.native
        k = self.staged._kernel
        self.fused.set_policy(k.default_added, functools.partial(_resolve_policy, k.policy))
        self.hidden = {self.hf.token_to_id(t) for t in hidden_tokens} - {None}

    def check(self, text: str, pair: str | None = None) -> None:
        h = self.hf.encode(text) if pair is None else self.hf.encode(text, pair)
        f = self.fused.encode(text, pair)
        s = self.staged.encode(text, pair)
        where = f"on {text!r}" + ("" if pair is None else f" + {pair!r}")
        assert f.ids == h.ids, where

        def shown(e: Any) -> list[str]:
            return [tok for i, tok in zip(e.ids, e.tokens) if i not in self.hidden]

        assert shown(f) == shown(h), where
        assert [tuple(o) for o in f.offsets] == [tuple(o) for o in h.offsets], where
        assert f.word_ids == h.word_ids, where
        assert f.type_ids == h.type_ids and f.special_tokens_mask == h.special_tokens_mask, where
        assert s.ids == f.ids and shown(s) == shown(f), where
        assert [tuple(o) for o in s.offsets] == [tuple(o) for o in f.offsets] and s.word_ids == f.word_ids, where
        for skip in (False, True):
            assert self.fused.decode(f.ids, skip) == self.hf.decode(h.ids, skip_special_tokens=skip), where


def texts_of(chars: str, pieces: Collection[str]) -> st.SearchStrategy[str]:
    """Hypothesis texts of up to 40 parts: any code point (no surrogate), one of `chars`, or one
    of `pieces` (added tokens, contractions, runs the file's pattern treats apart)."""
    return st.lists(
        st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from([*chars, *pieces])), max_size=40
    ).map("".join)
