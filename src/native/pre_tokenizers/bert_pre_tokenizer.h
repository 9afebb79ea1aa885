// HF's BertPreTokenizer (pre_tokenizers/bert.rs): whitespace removed, then each punctuation
// character (ASCII punctuation or Unicode P*, Unicode 8.0) a piece of its own.
#pragma once
#include "pre_tokenizers/pre_tokenizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class BertPreTokenizer : public PreTokenizer {
 public:
  void pre_tokenize(PreTokenizedText& pieces) const override {
    split_by(pieces, SplitBehavior::kRemoved,
             [](const std::string& s, std::vector<MatchSpan>& out) { find_char_matches(s, hf_is_whitespace, out); });
    split_by(pieces, SplitBehavior::kIsolated,
             [](const std::string& s, std::vector<MatchSpan>& out) { find_char_matches(s, hf_is_punctuation, out); });
  }
};

}  // namespace tokenforge
