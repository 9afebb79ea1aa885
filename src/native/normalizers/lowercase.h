// HF's Lowercase normalizer (normalizers/utils.rs): Rust's char::to_lowercase on every
// character, the extra characters of a longer lowercase inserted after the first (in place
// while each character keeps its length: hf_lowercase_in_place).
#pragma once
#include "normalizers/normalizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

// Lowercases text (BertNormalizer's lowercase step too).
inline void lowercase_text(NormalizedText& text) { text.expand(hf_lowercase_in_place, hf_lowercase); }

class LowercaseNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override { lowercase_text(text); }
};

}  // namespace tokenforge
