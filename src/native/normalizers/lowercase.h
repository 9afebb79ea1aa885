// HF's Lowercase normalizer (normalizers/utils.rs): Rust's char::to_lowercase on every
// character, the extra characters of a longer lowercase inserted after the first (ASCII text in
// place).
#pragma once
#include "normalizers/normalizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

// Lowercases text (BertNormalizer's lowercase step too).
inline void lowercase_text(NormalizedText& text) {
  if (!text.map_ascii([](uint8_t c) { return c >= 'A' && c <= 'Z' ? uint8_t(c + 32) : c; })) text.expand(hf_lowercase);
}

class LowercaseNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override { lowercase_text(text); }
};

}  // namespace tokenforge
