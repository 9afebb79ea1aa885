// HF's StripAccents normalizer (normalizers/strip.rs): drops combining marks (M*: Mn, Mc, Me of
// Unicode 9.0, unicode-normalization-alignments' is_combining_mark; BertNormalizer drops Mn only).
// It does not decompose: HF pairs it with an NFD normalizer before it.
#pragma once
#include "normalizers/normalizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class StripAccentsNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override {
    // ASCII text holds no combining mark, and filter would leave it as it is.
    if (text.map_ascii([](uint8_t c) { return c; })) return;
    text.filter([](uint32_t cp) { return !hf_is_combining_mark(cp); });
  }
};

}  // namespace tokenforge
