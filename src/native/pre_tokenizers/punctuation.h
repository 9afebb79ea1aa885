// HF's Punctuation pre-tokenizer (pre_tokenizers/punctuation.rs): each punctuation character
// (ASCII punctuation or Unicode P*, Unicode 8.0) a match, handled by the behaviour (Isolated by
// default).
#pragma once
#include "pre_tokenizers/pre_tokenizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class PunctuationPreTokenizer : public PreTokenizer {
 public:
  explicit PunctuationPreTokenizer(SplitBehavior behavior) : behavior_(behavior) {}
  void pre_tokenize(PreTokenizedText& pieces) const override {
    split_by(pieces, behavior_,
             [](const std::string& s, std::vector<MatchSpan>& out) { find_char_matches(s, hf_is_punctuation, out); });
  }

 private:
  SplitBehavior behavior_;
};

}  // namespace tokenforge
