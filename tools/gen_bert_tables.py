"""Generate src/native/normalizers/bert_tables.inc: the Unicode data of BERT's normalizer and pre-tokenizer,
as HF tokenizers has it, and of llama.cpp's WPM preprocessing.

HF tokenizers takes each property from a different Unicode version, and exactness means taking
the same ones (checked against HF on every code point by tests/test_wordpiece_unicode.py):
  - general categories (clean_text's Cc/Cf/Co, strip_accents' Mn, punctuation P*) from its
    `unicode_categories` crate: Unicode 8.0;
  - NFD decompositions and combining classes (unicode-normalization-alignments): Unicode 9.0;
  - lowercase (Rust's char::to_lowercase): Unicode 17.0;
  - whitespace (char::is_whitespace): the White_Space property, unchanged since Unicode 6.3.
The running Python's unicodedata (Unicode 14.0 in Python 3.11) plus the differences listed
below (found by comparing every code point with unicodedata2 8.0/9.0 and ICU 78) give all of
them. llama.cpp's WPM tables are made by its own generator from the Unicode data it ran with,
Unicode 15.1 for the llama.cpp tokenforge matches (its new marks and punctuation, such as U+0CF3
and U+11B00, are read so): here they come from the `unicodedata2` package at 15.1.0 the same way
(general categories; first code point of NFD; first code point of lower(), which 15.x leaves as
14.0 has it).

    pip install unicodedata2==15.1.0
    python tools/gen_bert_tables.py    # with Python 3.11
"""

from __future__ import annotations

import pathlib
import unicodedata

assert unicodedata.unidata_version == "14.0.0", "run with Python 3.11 (Unicode 14.0)"
try:
    import unicodedata2 as unicode_15
except ImportError:
    raise SystemExit("llama.cpp's WPM tables need Unicode 15.1: pip install unicodedata2==15.1.0") from None
assert unicode_15.unidata_version == "15.1.0", "llama.cpp's WPM tables need unicodedata2 15.1.0"

# Code points whose category differs between Unicode 8.0 and 14.0 (Unicode 8 has them as Cn,
# or in another category).
CONTROL_NOT_IN_8 = [(0x890, 0x891), (0x8E2, 0x8E2), (0x110CD, 0x110CD), (0x13430, 0x13438)]
CONTROL_ONLY_IN_8 = []
MN_NOT_IN_8 = [
    (0x7FD, 0x7FD),
    (0x898, 0x89F),
    (0x8CA, 0x8E1),
    (0x9FE, 0x9FE),
    (0xAFA, 0xAFF),
    (0xB55, 0xB55),
    (0xC04, 0xC04),
    (0xC3C, 0xC3C),
    (0xD00, 0xD00),
    (0xD3B, 0xD3C),
    (0xD81, 0xD81),
    (0xEBA, 0xEBA),
    (0x180F, 0x180F),
    (0x1885, 0x1886),
    (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFB),
    (0xA82C, 0xA82C),
    (0xA8C5, 0xA8C5),
    (0xA8FF, 0xA8FF),
    (0xA9BD, 0xA9BD),
    (0x10D24, 0x10D27),
    (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x11073, 0x11074),
    (0x110C2, 0x110C2),
    (0x111C9, 0x111C9),
    (0x111CF, 0x111CF),
    (0x1123E, 0x1123E),
    (0x1133B, 0x1133B),
    (0x11438, 0x1143F),
    (0x11442, 0x11444),
    (0x11446, 0x11446),
    (0x1145E, 0x1145E),
    (0x1182F, 0x11837),
    (0x11839, 0x1183A),
    (0x1193B, 0x1193C),
    (0x1193E, 0x1193E),
    (0x11943, 0x11943),
    (0x119D4, 0x119D7),
    (0x119DA, 0x119DB),
    (0x119E0, 0x119E0),
    (0x11A01, 0x11A0A),
    (0x11A33, 0x11A38),
    (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47),
    (0x11A51, 0x11A56),
    (0x11A59, 0x11A5B),
    (0x11A8A, 0x11A96),
    (0x11A98, 0x11A99),
    (0x11C30, 0x11C36),
    (0x11C38, 0x11C3D),
    (0x11C3F, 0x11C3F),
    (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0),
    (0x11CB2, 0x11CB3),
    (0x11CB5, 0x11CB6),
    (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47),
    (0x11D90, 0x11D91),
    (0x11D95, 0x11D95),
    (0x11D97, 0x11D97),
    (0x11EF3, 0x11EF4),
    (0x16F4F, 0x16F4F),
    (0x16FE4, 0x16FE4),
    (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46),
    (0x1E000, 0x1E006),
    (0x1E008, 0x1E018),
    (0x1E01B, 0x1E021),
    (0x1E023, 0x1E024),
    (0x1E026, 0x1E02A),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1E944, 0x1E94A),
]
MN_ONLY_IN_8 = [(0x1734, 0x1734)]
PUNCT_NOT_IN_8 = [
    (0x61D, 0x61D),
    (0x9FD, 0x9FD),
    (0xA76, 0xA76),
    (0xC77, 0xC77),
    (0xC84, 0xC84),
    (0x1B7D, 0x1B7E),
    (0x2E43, 0x2E4F),
    (0x2E52, 0x2E5D),
    (0x10EAD, 0x10EAD),
    (0x10F55, 0x10F59),
    (0x10F86, 0x10F89),
    (0x1144B, 0x1144F),
    (0x1145A, 0x1145B),
    (0x1145D, 0x1145D),
    (0x11660, 0x1166C),
    (0x116B9, 0x116B9),
    (0x1183B, 0x1183B),
    (0x11944, 0x11946),
    (0x119E2, 0x119E2),
    (0x11A3F, 0x11A46),
    (0x11A9A, 0x11A9C),
    (0x11A9E, 0x11AA2),
    (0x11C41, 0x11C45),
    (0x11C70, 0x11C71),
    (0x11EF7, 0x11EF8),
    (0x11FFF, 0x11FFF),
    (0x12FF1, 0x12FF2),
    (0x16E97, 0x16E9A),
    (0x16FE2, 0x16FE2),
    (0x1E95E, 0x1E95F),
]
PUNCT_ONLY_IN_8 = [(0x166D, 0x166D), (0x111C9, 0x111C9)]
CCC_NOT_IN_9 = [
    (0x7FD, 0x7FD),
    (0x898, 0x89F),
    (0x8CA, 0x8D3),
    (0x9FE, 0x9FE),
    (0xC3C, 0xC3C),
    (0xD3B, 0xD3C),
    (0xEBA, 0xEBA),
    (0x1715, 0x1715),
    (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFA),
    (0xA82C, 0xA82C),
    (0x10D24, 0x10D27),
    (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x1133B, 0x1133B),
    (0x1145E, 0x1145E),
    (0x11839, 0x1183A),
    (0x1193D, 0x1193E),
    (0x11943, 0x11943),
    (0x119E0, 0x119E0),
    (0x11A34, 0x11A34),
    (0x11A47, 0x11A47),
    (0x11A99, 0x11A99),
    (0x11D42, 0x11D42),
    (0x11D44, 0x11D45),
    (0x11D97, 0x11D97),
    (0x16FF0, 0x16FF1),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
]
LOWER_SINCE_14 = {
    0x1C89: 0x1C8A,
    0xA7CB: 0x264,
    0xA7CC: 0xA7CD,
    0xA7CE: 0xA7CF,
    0xA7D2: 0xA7D3,
    0xA7D4: 0xA7D5,
    0xA7DA: 0xA7DB,
    0xA7DC: 0x19B,
    0x10D50: 0x10D70,
    0x10D51: 0x10D71,
    0x10D52: 0x10D72,
    0x10D53: 0x10D73,
    0x10D54: 0x10D74,
    0x10D55: 0x10D75,
    0x10D56: 0x10D76,
    0x10D57: 0x10D77,
    0x10D58: 0x10D78,
    0x10D59: 0x10D79,
    0x10D5A: 0x10D7A,
    0x10D5B: 0x10D7B,
    0x10D5C: 0x10D7C,
    0x10D5D: 0x10D7D,
    0x10D5E: 0x10D7E,
    0x10D5F: 0x10D7F,
    0x10D60: 0x10D80,
    0x10D61: 0x10D81,
    0x10D62: 0x10D82,
    0x10D63: 0x10D83,
    0x10D64: 0x10D84,
    0x10D65: 0x10D85,
    0x16EA0: 0x16EBB,
    0x16EA1: 0x16EBC,
    0x16EA2: 0x16EBD,
    0x16EA3: 0x16EBE,
    0x16EA4: 0x16EBF,
    0x16EA5: 0x16EC0,
    0x16EA6: 0x16EC1,
    0x16EA7: 0x16EC2,
    0x16EA8: 0x16EC3,
    0x16EA9: 0x16EC4,
    0x16EAA: 0x16EC5,
    0x16EAB: 0x16EC6,
    0x16EAC: 0x16EC7,
    0x16EAD: 0x16EC8,
    0x16EAE: 0x16EC9,
    0x16EAF: 0x16ECA,
    0x16EB0: 0x16ECB,
    0x16EB1: 0x16ECC,
    0x16EB2: 0x16ECD,
    0x16EB3: 0x16ECE,
    0x16EB4: 0x16ECF,
    0x16EB5: 0x16ED0,
    0x16EB6: 0x16ED1,
    0x16EB7: 0x16ED2,
    0x16EB8: 0x16ED3,
}

NFD_NOT_IN_9 = {0x11938}  # decomposes since Unicode 13

WHITE_SPACE = [
    *range(0x09, 0x0E),
    0x20,
    0x85,
    0xA0,
    0x1680,
    *range(0x2000, 0x200B),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
]
ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

# Flag bits; they must match the constants written below and their use in bert_text.h.
OTHER, SPACE, PUNCT, MN, WPM_SPACE, WPM_CONTROL, WPM_PUNCT, WPM_SYMBOL, REORDER, WPM_MARK = (1 << i for i in range(10))


def in_ranges(cp: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= cp <= b for a, b in ranges)


def category_8(cp: int) -> str:
    """The Unicode 8.0 category's class for HF's purposes: "other", "mn", "punct" or ""."""
    cat = unicodedata.category(chr(cp))
    if (cat in ("Cc", "Cf", "Co") and not in_ranges(cp, CONTROL_NOT_IN_8)) or in_ranges(cp, CONTROL_ONLY_IN_8):
        return "other"
    if (cat == "Mn" and not in_ranges(cp, MN_NOT_IN_8)) or in_ranges(cp, MN_ONLY_IN_8):
        return "mn"
    if (cat.startswith("P") and not in_ranges(cp, PUNCT_NOT_IN_8)) or in_ranges(cp, PUNCT_ONLY_IN_8):
        return "punct"
    return ""


def nfd_9(cp: int) -> str:
    if cp in NFD_NOT_IN_9:
        return chr(cp)
    return unicodedata.normalize("NFD", chr(cp))


def ccc_9(cp: int) -> int:
    return 0 if in_ranges(cp, CCC_NOT_IN_9) else unicodedata.combining(chr(cp))


def lower_17(cp: int) -> str:
    if cp in LOWER_SINCE_14:
        to = LOWER_SINCE_14[cp]
        return to if isinstance(to, str) else chr(to)
    return chr(cp).lower()


def is_hangul_syllable(cp: int) -> bool:
    return 0xAC00 <= cp <= 0xD7A3  # decomposed by formula in bert_text.h


def flags_of(cp: int) -> int:
    f = 0
    cls = category_8(cp)
    if cls == "other" and cp not in (0x09, 0x0A, 0x0D):
        f |= OTHER
    if cp in WHITE_SPACE:
        f |= SPACE
    if cls == "punct" or (cp < 0x80 and chr(cp) in ASCII_PUNCT):
        f |= PUNCT
    if cls == "mn":
        f |= MN
    cat = unicode_15.category(chr(cp))  # llama.cpp's (Unicode 15.1)
    if cp in WHITE_SPACE:
        f |= WPM_SPACE
    if cat in ("Cc", "Cf", "Co", "Cs"):
        f |= WPM_CONTROL
    if cat.startswith("P"):
        f |= WPM_PUNCT
    if cat.startswith("S"):
        f |= WPM_SYMBOL
    if cat.startswith("M"):
        f |= WPM_MARK
    # Its decomposition keeps a non-starter after accents are stripped: canonical reordering
    # may then move it, so such text takes the exact (slower) path.
    if not is_hangul_syllable(cp) and any(ccc_9(ord(c)) and category_8(ord(c)) != "mn" for c in nfd_9(cp)):
        f |= REORDER
    return f


def two_stage(values: list[int]) -> tuple[list[int], list[int]]:
    blocks: dict[tuple[int, ...], int] = {}
    stage1, stage2 = [], []
    for hi in range(0x110000 >> 8):
        block = tuple(values[hi << 8 : (hi + 1) << 8])
        if block not in blocks:
            blocks[block] = len(blocks)
            stage2.extend(block)
        stage1.append(blocks[block])
    return stage1, stage2


def mapping_table(name: str, mapping: dict[int, str]) -> list[str]:
    entries, data = [], []
    for cp in sorted(mapping):
        entries.append(f"{{0x{cp:X}, {len(data)}, {len(mapping[cp])}}}")
        data.extend(ord(c) for c in mapping[cp])
    return [
        f"static constexpr Mapping k{name}[] = {{",
        *wrap(entries),
        "};",
        f"static constexpr uint32_t k{name}Data[] = {{",
        *wrap([f"0x{c:X}" for c in data]),
        "};",
    ]


def wrap(items: list[str], width: int = 100) -> list[str]:
    lines, line = [], "  "
    for item in items:
        if len(line) + len(item) + 1 > width:
            lines.append(line.rstrip())
            line = "  "
        line += item + ","
    lines.append(line)
    return lines


def main() -> None:
    code_points = list(range(0x110000))
    flags = [0 if 0xD800 <= cp <= 0xDFFF else flags_of(cp) for cp in code_points]
    stage1, stage2 = two_stage(flags)
    real = [cp for cp in code_points if not 0xD800 <= cp <= 0xDFFF]
    nfd = {cp: nfd_9(cp) for cp in real if not is_hangul_syllable(cp) and nfd_9(cp) != chr(cp)}
    ccc = {cp: ccc_9(cp) for cp in real if ccc_9(cp)}
    lower = {cp: lower_17(cp) for cp in real if lower_17(cp) != chr(cp)}
    wpm_nfd = {cp: ord(unicode_15.normalize("NFD", chr(cp))[0]) for cp in real}
    wpm_ranges: list[list[int]] = []
    for cp in real:
        if wpm_nfd[cp] == cp:
            continue
        if wpm_ranges and wpm_ranges[-1][1] == cp - 1 and wpm_ranges[-1][2] == wpm_nfd[cp]:
            wpm_ranges[-1][1] = cp
        else:
            wpm_ranges.append([cp, cp, wpm_nfd[cp]])
    wpm_lower = {cp: ord(chr(cp).lower()[0]) for cp in real if chr(cp).lower()[0] != chr(cp)}

    out = [
        "// Generated by tools/gen_bert_tables.py. Do not edit.",
        "// Flags: HF's classes (Unicode 8.0 categories, White_Space) and llama.cpp WPM's (Unicode 15.1).",
        *(
            f"static constexpr uint16_t k{n} = {v};"
            for n, v in [
                ("Other", OTHER),
                ("Space", SPACE),
                ("Punct", PUNCT),
                ("Mn", MN),
                ("WpmSpace", WPM_SPACE),
                ("WpmControl", WPM_CONTROL),
                ("WpmPunct", WPM_PUNCT),
                ("WpmSymbol", WPM_SYMBOL),
                ("Reorder", REORDER),
                ("WpmMark", WPM_MARK),
            ]
        ),
        "struct Mapping { uint32_t cp, offset, length; };",
        "struct Pair { uint32_t cp, to; };",
        "struct Range { uint32_t first, last, nfd; };",
        f"static constexpr uint16_t kFlagBlocks[{len(stage1)}] = {{",
        *wrap([str(v) for v in stage1]),
        "};",
        f"static constexpr uint16_t kFlags[{len(stage2)}] = {{",
        *wrap([str(v) for v in stage2]),
        "};",
        "// NFD (Unicode 9.0; Hangul syllables by formula) and combining classes.",
        *mapping_table("Nfd", nfd),
        "static constexpr Pair kCcc[] = {",
        *wrap([f"{{0x{cp:X}, {v}}}" for cp, v in sorted(ccc.items())]),
        "};",
        "// Full lowercase mappings (Unicode 17.0, as Rust's char::to_lowercase).",
        *mapping_table("Lower", lower),
        "// llama.cpp WPM: first code point of NFD, by ranges; first code point of lower().",
        "static constexpr Range kWpmNfd[] = {",
        *wrap([f"{{0x{a:X}, 0x{b:X}, 0x{n:X}}}" for a, b, n in wpm_ranges]),
        "};",
        "static constexpr Pair kWpmLower[] = {",
        *wrap([f"{{0x{cp:X}, 0x{v:X}}}" for cp, v in sorted(wpm_lower.items())]),
        "};",
    ]
    path = pathlib.Path(__file__).resolve().parents[1] / "src" / "native" / "normalizers" / "bert_tables.inc"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(stage2) // 256} flag blocks, {len(nfd)} decompositions, {len(lower)} lowercase mappings")


if __name__ == "__main__":
    main()
