// HF's FixedLength pre-tokenizer (pre_tokenizers/fixed_length.rs): each piece cut into runs of
// `length` characters (the last may be shorter).
#pragma once
#include <cstddef>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class FixedLengthPreTokenizer : public Cutter {
 public:
  explicit FixedLengthPreTokenizer(size_t length) : length_(length) {}
  void cut(std::string_view text, std::vector<Cut>& cuts) const override {
    const size_t length = length_;
    cut_by(
        text, SplitBehavior::kIsolated,
        [length](std::string_view s, std::vector<MatchSpan>& out) {
          out.clear();
          size_t start = 0, chars = 0;
          for (size_t i = 0; i < s.size();) {
            i += utf8_length(uint8_t(s[i]));
            if (++chars == length) {
              out.push_back(MatchSpan{uint32_t(start), uint32_t(i), true});
              start = i;
              chars = 0;
            }
          }
          if (start < s.size()) out.push_back(MatchSpan{uint32_t(start), uint32_t(s.size()), true});
        },
        cuts);
  }

 private:
  size_t length_;
};

}  // namespace tokenforge
