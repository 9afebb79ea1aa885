// HF's Digits pre-tokenizer (pre_tokenizers/digits.rs): numeric characters (char::is_numeric)
// apart from the rest, each on its own (individual_digits) or in runs.
#pragma once
#include "pre_tokenizers/pre_tokenizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class DigitsPreTokenizer : public PreTokenizer {
 public:
  explicit DigitsPreTokenizer(bool individual) : individual_(individual) {}
  void pre_tokenize(PreTokenizedText& pieces) const override {
    split_by(pieces, individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous,
             [](const std::string& s, std::vector<MatchSpan>& out) { find_char_matches(s, hf_is_numeric, out); });
  }

 private:
  bool individual_;
};

}  // namespace tokenforge
