// HF's StripAccents normalizer (normalizers/strip.rs): drops nonspacing marks (Mn, Unicode 8.0).
// It does not decompose: HF pairs it with an NFD normalizer before it.
#pragma once
#include "normalizers/normalizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class StripAccentsNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override {
    text.filter([](uint32_t cp) { return !hf_is_nonspacing_mark(cp); });
  }
};

}  // namespace tokenforge
