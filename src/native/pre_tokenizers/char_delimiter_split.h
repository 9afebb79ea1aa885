// HF's CharDelimiterSplit pre-tokenizer: the delimiter character removed, the text cut there.
#pragma once
#include <string>
#include <utility>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class CharDelimiterSplitPreTokenizer : public PreTokenizer {
 public:
  explicit CharDelimiterSplitPreTokenizer(uint32_t delimiter) : delimiter_(delimiter) {}
  void pre_tokenize(PreTokenizedText& pieces) const override {
    const uint32_t d = delimiter_;
    split_by(pieces, SplitBehavior::kRemoved, [d](const std::string& s, std::vector<MatchSpan>& out) {
      find_char_matches(s, [d](uint32_t cp) { return cp == d; }, out);
    });
  }

 private:
  uint32_t delimiter_;
};

}  // namespace tokenforge
