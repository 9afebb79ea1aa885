// HF's FixedLength pre-tokenizer (pre_tokenizers/fixed_length.rs): each piece cut into runs of
// `length` characters (the last may be shorter).
#pragma once
#include <cstddef>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class FixedLengthPreTokenizer : public Cutter {
 public:
  explicit FixedLengthPreTokenizer(size_t length) : length_(length) {}
  // (the pieces straight: the spans of `length` characters that HF's Isolated split would keep)
  void cut(std::string_view text, std::vector<Cut>& cuts) const override {
    const size_t length = length_;
    size_t start = 0, chars = 0;
    for (size_t i = 0; i < text.size();) {
      i += utf8_length(uint8_t(text[i]));
      if (++chars == length) {
        cuts.push_back(Cut{uint32_t(start), uint32_t(i)});
        start = i;
        chars = 0;
      }
    }
    if (start < text.size()) cuts.push_back(Cut{uint32_t(start), uint32_t(text.size())});
  }

 private:
  size_t length_;
};

}  // namespace tokenforge
