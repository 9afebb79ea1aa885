"""Generate src/native/unicode/normalization.inc: the tables of Unicode normalization (NFC, NFD,
NFKC, NFKD) that src/native/unicode/normalization.h reads.

Which Unicode version: 9.0.0. HF tokenizers normalizes with the Rust crate
`unicode-normalization-alignments` 0.1.12 (tokenizers/Cargo.toml asks for "0.1"), whose generated
`src/tables.rs` says `UNICODE_VERSION: (u64, u64, u64) = (9, 0, 0)` (its `scripts/unicode.py`
fetches the 9.0.0 UCD). Characters assigned after 9.0.0 therefore pass through HF's normalizers
unchanged, with combining class 0, and so they must here: these tables follow HF, not the 16.0.0
of tools/gen_unicode_tables.py (tiktoken's version). The data come from `unicodedata2==9.0.0.post4`,
not from the running Python's `unicodedata` (Python 3.11 ships Unicode 14.0). That sdist does
not build on Python >= 3.11 as it is: it includes CPython's old "ucnhash.h" and assigns to
Py_TYPE(). To build it, put a header "ucnhash.h" declaring the old `_PyUnicode_Name_CAPI`
struct (int size; getname; getcode) in a folder DIR, change `Py_TYPE(&UCD_Type) = &PyType_Type;`
in unicodedata2/py3/unicodedata.c to `Py_SET_TYPE(&UCD_Type, &PyType_Type);`, and run
`CFLAGS=-IDIR pip install .` in the unpacked sdist. Then:

    python tools/gen_unicode_normalization.py

What the tables hold, per code point (one two-stage lookup gives a record):
  - the canonical combining class;
  - the full canonical decomposition and the full compatibility decomposition, computed the way
    the crate's scripts/unicode.py computes them: recursively, canonical mappings first, with no
    reordering (the decomposer reorders, and which character of a decomposition comes first
    decides which one carries the change 0 there); Hangul syllables are left to the code;
  - where the character is the first of a primary composite pair, its list of (second, result)
    pairs (canonical decompositions of two characters, less the full composition exclusions,
    i.e. the characters that NFC does not give back as themselves); Hangul is left to the code;
  - quick-check flags: set when the character may change under the form in some context (it
    decomposes, or NFC/NFKC does not give it back, or it is the second of a composite pair). A
    text whose characters have no flag for the form and whose combining classes are in order is
    already normalized, and the crate yields it unchanged with every change 0.

`tests/test_unicode_normalization.py` checks every code point against HF's normalizers.
"""

from __future__ import annotations

import pathlib

import unicodedata2 as ud

UNICODE_VERSION = "9.0.0"

# Flag bits; they must match src/native/unicode/normalization.h.
MAY_CHANGE_NFD, MAY_CHANGE_NFKD, MAY_CHANGE_NFC, MAY_CHANGE_NFKC = 1, 2, 4, 8

S_BASE, S_COUNT = 0xAC00, 11172
V_FIRST, V_LAST = 0x1161, 0x1175  # Hangul vowels: second of an L+V pair
T_FIRST, T_LAST = 0x11A8, 0x11C2  # Hangul trailing consonants: second of an LV+T pair
BLOCK = 128  # code points per stage-1 entry


def is_hangul_syllable(cp: int) -> bool:
    return S_BASE <= cp < S_BASE + S_COUNT


def mappings() -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """The one-level canonical and compatibility mappings of UnicodeData.txt."""
    canon: dict[int, list[int]] = {}
    compat: dict[int, list[int]] = {}
    for cp in range(0x110000):
        d = ud.decomposition(chr(cp))
        if not d:
            continue
        if d.startswith("<"):
            compat[cp] = [int(x, 16) for x in d.split()[1:]]
        else:
            canon[cp] = [int(x, 16) for x in d.split()]
    return canon, compat


def full_decomposition(cp: int, canon: dict, compat: dict, compatible: bool) -> list[int]:
    """The crate's `_decompose`: canonical mapping first, then (NFKD) the compatibility one."""
    if cp <= 0x7F:
        return [cp]
    if cp in canon:
        return [x for d in canon[cp] for x in full_decomposition(d, canon, compat, compatible)]
    if compatible and cp in compat:
        return [x for d in compat[cp] for x in full_decomposition(d, canon, compat, compatible)]
    return [cp]


def main() -> None:
    assert ud.unidata_version == UNICODE_VERSION, f"need unicodedata2=={UNICODE_VERSION}"
    canon, compat = mappings()

    # Primary composites: canonical pairs whose result NFC gives back as itself.
    pairs: dict[int, list[tuple[int, int]]] = {}
    seconds: set[int] = set(range(V_FIRST, V_LAST + 1)) | set(range(T_FIRST, T_LAST + 1))
    for cp, d in sorted(canon.items()):
        if ud.normalize("NFC", chr(cp)) != chr(cp):
            continue  # a full composition exclusion (singletons, non-starter decompositions, ...)
        assert len(d) == 2, (hex(cp), d)
        pairs.setdefault(d[0], []).append((d[1], cp))
        seconds.add(d[1])

    decomposition_pool: list[int] = [0]  # offset 0 means "none"
    decomposition_at: dict[tuple[int, ...], int] = {}

    def store_decomposition(seq: list[int], cp: int) -> int:
        if seq == [cp]:
            return 0
        key = tuple(seq)
        if key not in decomposition_at:
            decomposition_at[key] = len(decomposition_pool)
            decomposition_pool.extend([len(seq), *seq])
        return decomposition_at[key]

    composition_pool: list[int] = [0]
    composition_at: dict[int, int] = {}
    for first, lst in sorted(pairs.items()):
        composition_at[first] = len(composition_pool)
        composition_pool.append(len(lst))
        for second, result in sorted(lst):
            composition_pool.extend([second, result])

    records: dict[tuple[int, int, int, int, int], int] = {(0, 0, 0, 0, 0): 0}

    def record_of(cp: int) -> int:
        c = chr(cp)
        ccc = ud.combining(c)
        flags = 0
        if is_hangul_syllable(cp):
            canon_at = compat_at = 0
            flags |= MAY_CHANGE_NFD | MAY_CHANGE_NFKD
        else:
            canon_at = store_decomposition(full_decomposition(cp, canon, compat, False), cp)
            compat_at = store_decomposition(full_decomposition(cp, canon, compat, True), cp)
            if canon_at:
                flags |= MAY_CHANGE_NFD
            if compat_at:
                flags |= MAY_CHANGE_NFKD
        if ud.normalize("NFC", c) != c or cp in seconds:
            flags |= MAY_CHANGE_NFC
        if ud.normalize("NFKC", c) != c or cp in seconds:
            flags |= MAY_CHANGE_NFKC
        key = (ccc, flags, canon_at, compat_at, composition_at.get(cp, 0))
        return records.setdefault(key, len(records))

    blocks: dict[tuple[int, ...], int] = {}
    stage1: list[int] = []
    for hi in range(0x110000 // BLOCK):
        block = tuple(record_of(hi * BLOCK + lo) for lo in range(BLOCK))
        stage1.append(blocks.setdefault(block, len(blocks)))
    stage2 = [r for block in blocks for r in block]  # block i starts at i * BLOCK
    for table in (stage1, stage2, decomposition_pool, composition_pool):
        assert len(table) < 1 << 16 or table is stage2, "offsets must fit 16 bits"
    assert len(records) < 1 << 16 and len(decomposition_pool) < 1 << 16 and len(composition_pool) < 1 << 16

    def rows(values, per_line=16):
        vals = list(values)
        return ",\n".join(
            "  " + ",".join(str(v) for v in vals[i : i + per_line]) for i in range(0, len(vals), per_line)
        )

    ordered = sorted(records, key=records.__getitem__)
    out = pathlib.Path(__file__).resolve().parent.parent / "src/native/unicode/normalization.inc"
    out.write_text(
        f"// Generated by tools/gen_unicode_normalization.py from Unicode {UNICODE_VERSION}. Do not edit.\n"
        f'#define TOKENFORGE_NORMALIZATION_UNICODE_VERSION "{UNICODE_VERSION}"\n'
        f"static constexpr uint32_t kNormBlock = {BLOCK};\n"
        f"static constexpr uint16_t kNormStage1[{len(stage1)}] = {{\n{rows(stage1, 24)}\n}};\n"
        f"static constexpr uint16_t kNormStage2[{len(stage2)}] = {{\n{rows(stage2, 24)}\n}};\n"
        f"// {{combining class, flags, canonical decomposition, compatibility decomposition, pairs}}\n"
        f"static constexpr NormRecord kNormRecords[{len(ordered)}] = {{\n"
        + ",\n".join("  {" + ",".join(str(v) for v in r) + "}" for r in ordered)
        + "\n};\n"
        f"// Decompositions: a length, then that many code points.\n"
        f"static constexpr uint32_t kDecompositionPool[{len(decomposition_pool)}] = {{\n"
        f"{rows(decomposition_pool, 12)}\n}};\n"
        f"// Composite pairs by first character: a count, then that many (second, result), sorted.\n"
        f"static constexpr uint32_t kCompositionPool[{len(composition_pool)}] = {{\n"
        f"{rows(composition_pool, 12)}\n}};\n"
    )
    print(
        f"wrote {out}: {len(blocks)} blocks, {len(records)} records, "
        f"{len(decomposition_pool)} + {len(composition_pool)} pool entries"
    )


if __name__ == "__main__":
    main()
