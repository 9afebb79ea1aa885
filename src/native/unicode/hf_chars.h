// The character properties HF tokenizers' normalizers and pre-tokenizers test, each from the
// Unicode version the reference takes it from: whitespace, control, nonspacing marks,
// punctuation, lowercase and NFD come from normalizers/bert_text.h's tables (tools/
// gen_bert_tables.py says which version each is); the regex classes \w and \s of the
// Whitespace pre-tokenizer and char::is_numeric of Digits from unicode/hf_chars.inc
// (tools/gen_hf_chars.py). Used by the staged pipeline's components (normalizers/,
// pre_tokenizers/).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <vector>

#include "normalizers/bert_text.h"

namespace tokenforge {

namespace hf_chars {

struct CodePointRange {
  uint32_t first, last;
};
#include "unicode/hf_chars.inc"

template <size_t N>
inline bool in_ranges(const CodePointRange (&table)[N], uint32_t cp) {
  const auto* it = std::upper_bound(std::begin(table), std::end(table), cp,
                                    [](uint32_t c, const CodePointRange& r) { return c < r.first; });
  return it != std::begin(table) && cp <= std::prev(it)->last;
}

// The code points of a range table, the Basic Multilingual Plane's in a bitmap (8 KB, built
// once) and the rest by the table.
template <size_t N>
class RangeSet {
 public:
  explicit RangeSet(const CodePointRange (&table)[N]) : table_(table) {
    for (const CodePointRange& r : table)
      for (uint32_t cp = r.first; cp <= r.last && cp < 0x10000; ++cp) bits_[cp >> 6] |= uint64_t(1) << (cp & 63);
  }
  bool contains(uint32_t cp) const { return cp < 0x10000 ? (bits_[cp >> 6] >> (cp & 63)) & 1 : in_ranges(table_, cp); }

 private:
  const CodePointRange (&table_)[N];
  uint64_t bits_[1024] = {};
};

using bert_chars::append_mapped;
using bert_chars::flags;

}  // namespace hf_chars

// char::is_whitespace (White_Space).
inline bool hf_is_whitespace(uint32_t cp) { return hf_chars::flags(cp) & bert_data::kSpace; }
// BertNormalizer's control characters (Cc, Cf, Co, Cn of Unicode 8.0 but tab, newline, return).
inline bool hf_is_control(uint32_t cp) { return hf_chars::flags(cp) & bert_data::kOther; }
// unicode_categories' is_mark_nonspacing (Mn, Unicode 8.0).
inline bool hf_is_nonspacing_mark(uint32_t cp) { return hf_chars::flags(cp) & bert_data::kMn; }
// is_ascii_punctuation || unicode_categories' is_punctuation (P*, Unicode 8.0).
inline bool hf_is_punctuation(uint32_t cp) { return hf_chars::flags(cp) & bert_data::kPunct; }
// BERT's "Chinese characters".
inline bool hf_is_cjk(uint32_t cp) { return bert_chars::is_cjk(cp); }
// unicode-normalization-alignments' is_combining_mark (M*, Unicode 9.0): StripAccents'.
inline bool hf_is_combining_mark(uint32_t cp) {
  if (cp < 0x300) return false;
  static const hf_chars::RangeSet<std::size(hf_chars::kCombiningMark)> marks(hf_chars::kCombiningMark);
  return marks.contains(cp);
}
// Rust regex's \w and \s, char::is_numeric.
inline bool hf_is_regex_word(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
  static const hf_chars::RangeSet<std::size(hf_chars::kRegexWord)> words(hf_chars::kRegexWord);
  return words.contains(cp);
}
inline bool hf_is_regex_space(uint32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= '\t' && cp <= '\r');
  return hf_chars::in_ranges(hf_chars::kRegexSpace, cp);
}
inline bool hf_is_numeric(uint32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  static const hf_chars::RangeSet<std::size(hf_chars::kNumeric)> numbers(hf_chars::kNumeric);
  return numbers.contains(cp);
}

namespace hf_chars {

// What hf_lowercase answers without a search, built once.
struct LowercaseKnown {
  std::array<uint16_t, 0x800> two_byte{};  // the one code point a two-byte character maps to (0: search)
  std::array<bool, 256> block_mapped{};    // whether the table maps any character of a BMP block
  LowercaseKnown() {
    for (const auto& e : bert_data::kLower)
      if (e.cp < 0x10000) block_mapped[e.cp >> 8] = true;
    std::vector<uint32_t> one;
    for (uint32_t c = 0x80; c < 0x800; ++c) {
      one.clear();
      append_mapped(bert_data::kLower, std::size(bert_data::kLower), bert_data::kLowerData, c, one);
      if (one.size() == 1 && one[0] > 0 && one[0] < 0x10000) two_byte[c] = uint16_t(one[0]);
    }
  }
};

inline const LowercaseKnown& lowercase_known() {
  static const LowercaseKnown known;
  return known;
}

}  // namespace hf_chars

// char::to_lowercase: appends cp's lowercase (one or more code points). The table's answers
// are kept for the two-byte characters (Latin, Greek, Cyrillic, ...: one code point each where
// it is one), and the Basic Multilingual Plane's 256-character blocks that the table has no
// entry in (CJK, kana, Hangul) map to themselves without a search.
inline void hf_lowercase(uint32_t cp, std::vector<uint32_t>& out) {
  if (cp < 0x80) {
    out.push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  const hf_chars::LowercaseKnown& known = hf_chars::lowercase_known();
  if (cp < 0x800 && known.two_byte[cp]) {
    out.push_back(known.two_byte[cp]);
    return;
  }
  if (cp < 0x10000 && !known.block_mapped[cp >> 8]) {
    out.push_back(cp);
    return;
  }
  hf_chars::append_mapped(bert_data::kLower, std::size(bert_data::kLower), bert_data::kLowerData, cp, out);
}

// hf_lowercase over the UTF-8 text s[0..n) in place, as far as each character's lowercase is one
// character of the same UTF-8 length that the tables above give without a search (ASCII, the
// two-byte scripts, three-byte characters of blocks the table maps nothing in: CJK, kana);
// returns where it stopped (n: all of it).
inline size_t hf_lowercase_in_place(uint8_t* s, size_t n) {
  const hf_chars::LowercaseKnown& known = hf_chars::lowercase_known();
  size_t i = 0;
  while (i < n) {
    const uint8_t b0 = s[i];
    if (b0 < 0x80) {
      if (b0 >= 'A' && b0 <= 'Z') s[i] = uint8_t(b0 + 32);
      ++i;
    } else if (b0 >= 0xC2 && b0 < 0xE0) {
      if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) break;
      const uint32_t lower = known.two_byte[uint32_t(b0 & 0x1F) << 6 | (s[i + 1] & 0x3F)];
      if (lower < 0x80 || lower >= 0x800) break;  // (0: a search; or another length)
      s[i] = uint8_t(0xC0 | lower >> 6);
      s[i + 1] = uint8_t(0x80 | (lower & 0x3F));
      i += 2;
    } else if (b0 >= 0xE0 && b0 < 0xF0) {
      if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) break;
      if (known.block_mapped[uint32_t(b0 & 0x0F) << 4 | (s[i + 1] & 0x3F) >> 2]) break;
      i += 3;
    } else {
      break;
    }
  }
  return i;
}

// Canonical decomposition (Unicode 9.0, as HF's NFD) and the canonical combining class.
inline void hf_decompose(uint32_t cp, std::vector<uint32_t>& out) { bert_chars::decompose(cp, out); }
inline uint32_t hf_combining_class(uint32_t cp) { return bert_chars::combining_class(cp); }

}  // namespace tokenforge
