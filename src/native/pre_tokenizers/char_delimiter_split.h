// HF's CharDelimiterSplit pre-tokenizer: the delimiter character removed, the text cut there.
#pragma once
#include <string>
#include <utility>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class CharDelimiterSplitPreTokenizer : public Cutter {
 public:
  explicit CharDelimiterSplitPreTokenizer(uint32_t delimiter) : delimiter_(delimiter) {}
  void cut(std::string_view text, std::vector<Cut>& out) const override {
    const uint32_t d = delimiter_;
    cut_by(
        text, SplitBehavior::kRemoved,
        [d](std::string_view s, std::vector<MatchSpan>& spans) {
          find_char_matches(s, [d](uint32_t cp) { return cp == d; }, spans);
        },
        out);
  }

 private:
  uint32_t delimiter_;
};

}  // namespace tokenforge
