// HF's Punctuation pre-tokenizer (pre_tokenizers/punctuation.rs): each punctuation character
// (ASCII punctuation or Unicode P*, Unicode 8.0) a match, handled by the behaviour (Isolated by
// default).
#pragma once
#include "pre_tokenizers/pre_tokenizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class PunctuationPreTokenizer : public Cutter {
 public:
  explicit PunctuationPreTokenizer(SplitBehavior behavior) : behavior_(behavior) {}
  void cut(std::string_view text, std::vector<Cut>& out) const override {
    cut_by(
        text, behavior_,
        [](std::string_view s, std::vector<MatchSpan>& spans) { find_char_matches(s, hf_is_punctuation, spans); }, out);
  }

 private:
  SplitBehavior behavior_;
};

}  // namespace tokenforge
