"""The quick check of unicode/normalization.h (is_normalized_quick), which passes a character
below U+10000 that is clear for the form by its bit (normalization_detail::QuickChars): every
BMP character, alone and in context, must come out of `unicode_normalize` (quick check first)
as the full normalization gives it (`unicode_normalize_changes`, no quick check). A character
the quick check passed wrongly would come back unchanged where the form changes it."""

from __future__ import annotations

import pytest

from tokenforge import _core

FORMS = ["NFC", "NFD", "NFKC", "NFKD"]
BMP = [chr(cp) for cp in range(0x80, 0x10000) if not 0xD800 <= cp < 0xE000]


def full(form: str, text: str) -> str:
    return "".join(ch for ch, _ in _core.unicode_normalize_changes(form, text))


@pytest.mark.parametrize("form", FORMS)
def test_every_bmp_character_alone(form):
    wrong = [ch for ch in BMP if _core.unicode_normalize(form, ch) != full(form, ch)]
    assert not wrong, [hex(ord(ch)) for ch in wrong[:20]]


@pytest.mark.parametrize("form", FORMS)
def test_characters_after_a_combining_mark(form):
    # A character of a clear block after a mark: the marks' order is checked across it.
    for at in range(0, len(BMP), 512):
        text = "".join("a\u0323" + ch + "\u0301\u0323" for ch in BMP[at : at + 512])
        assert _core.unicode_normalize(form, text) == full(form, text), hex(ord(BMP[at]))
