// HF's Lowercase normalizer (normalizers/utils.rs): Rust's char::to_lowercase on every
// character, the extra characters of a longer lowercase inserted after the first.
#pragma once
#include "normalizers/normalizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class LowercaseNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override { text.expand(hf_lowercase); }
};

}  // namespace tokenforge
