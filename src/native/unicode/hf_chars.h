// The character properties HF tokenizers' normalizers and pre-tokenizers test, each from the
// Unicode version the reference takes it from: whitespace, control, nonspacing marks,
// punctuation, lowercase and NFD come from normalizers/bert_text.h's tables (tools/
// gen_bert_tables.py says which version each is); the regex classes \w and \s of the
// Whitespace pre-tokenizer and char::is_numeric of Digits from unicode/hf_chars.inc
// (tools/gen_hf_chars.py). Used by the staged pipeline's components (normalizers/,
// pre_tokenizers/).
#pragma once
#include <algorithm>
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

inline uint16_t flags(uint32_t cp) {
  if (cp >= 0x110000) return 0;
  return bert_data::kFlags[(size_t(bert_data::kFlagBlocks[cp >> 8]) << 8) | (cp & 0xFF)];
}

// Appends the mapping of cp in a sorted {cp, offset, length} table, or cp itself.
inline void append_mapped(const bert_data::Mapping* table, size_t n, const uint32_t* data, uint32_t cp,
                          std::vector<uint32_t>& out) {
  const auto* e =
      std::lower_bound(table, table + n, cp, [](const bert_data::Mapping& x, uint32_t c) { return x.cp < c; });
  if (e == table + n || e->cp != cp) {
    out.push_back(cp);
    return;
  }
  out.insert(out.end(), data + e->offset, data + e->offset + e->length);
}

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
inline bool hf_is_cjk(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}
// unicode-normalization-alignments' is_combining_mark (M*, Unicode 9.0): StripAccents'.
inline bool hf_is_combining_mark(uint32_t cp) {
  return cp >= 0x300 && hf_chars::in_ranges(hf_chars::kCombiningMark, cp);
}
// Rust regex's \w and \s, char::is_numeric.
inline bool hf_is_regex_word(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
  return hf_chars::in_ranges(hf_chars::kRegexWord, cp);
}
inline bool hf_is_regex_space(uint32_t cp) { return hf_chars::in_ranges(hf_chars::kRegexSpace, cp); }
inline bool hf_is_numeric(uint32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return hf_chars::in_ranges(hf_chars::kNumeric, cp);
}

// char::to_lowercase: appends cp's lowercase (one or more code points).
inline void hf_lowercase(uint32_t cp, std::vector<uint32_t>& out) {
  if (cp < 0x80) {
    out.push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  hf_chars::append_mapped(bert_data::kLower, std::size(bert_data::kLower), bert_data::kLowerData, cp, out);
}

// Canonical decomposition (Unicode 9.0, as HF's NFD), Hangul syllables by formula; and the
// canonical combining class.
inline void hf_decompose(uint32_t cp, std::vector<uint32_t>& out) {
  if (cp >= 0xAC00 && cp <= 0xD7A3) {
    const uint32_t s = cp - 0xAC00;
    out.push_back(0x1100 + s / 588);
    out.push_back(0x1161 + (s % 588) / 28);
    if (s % 28) out.push_back(0x11A7 + s % 28);
    return;
  }
  hf_chars::append_mapped(bert_data::kNfd, std::size(bert_data::kNfd), bert_data::kNfdData, cp, out);
}
inline uint32_t hf_combining_class(uint32_t cp) {
  const auto* e = std::lower_bound(std::begin(bert_data::kCcc), std::end(bert_data::kCcc), cp,
                                   [](const bert_data::Pair& x, uint32_t c) { return x.cp < c; });
  return e != std::end(bert_data::kCcc) && e->cp == cp ? e->to : 0;
}

}  // namespace tokenforge
