// HF's ByteLevel normalizer (normalizers/byte_level.rs): every byte of the text written as its
// character of GPT-2's alphabet (byte_level_code_points(), pre_tokenizers/byte_level.h, the
// ByteLevel pre-tokenizer's table), the bytes after a character's first inserted after it, so
// each new character aligns with the input character its byte came from. Empty text stays.
#pragma once
#include <vector>

#include "normalizers/normalizer.h"
#include "pre_tokenizers/byte_level.h"

namespace tokenforge {

class ByteLevelNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override {
    if (text.empty()) return;
    const auto& alphabet = byte_level_code_points();
    const std::string& s = text.text();
    std::vector<CharChange> changes;
    changes.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      const size_t len = utf8_length(uint8_t(s[i]));
      for (size_t k = 0; k < len; ++k) changes.push_back(CharChange{alphabet[uint8_t(s[i + k])], k > 0 ? 1 : 0});
      i += len;
    }
    text.transform(changes, 0);
  }
};

}  // namespace tokenforge
