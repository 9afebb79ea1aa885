// HF's Digits pre-tokenizer (pre_tokenizers/digits.rs): numeric characters (char::is_numeric)
// apart from the rest, each on its own (individual_digits) or in runs.
#pragma once
#include "pre_tokenizers/pre_tokenizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class DigitsPreTokenizer : public Cutter {
 public:
  explicit DigitsPreTokenizer(bool individual) : individual_(individual) {}
  void cut(std::string_view text, std::vector<Cut>& out) const override {
    cut_by(
        text, individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous,
        [](std::string_view s, std::vector<MatchSpan>& spans) { find_char_matches(s, hf_is_numeric, spans); }, out);
  }

 private:
  bool individual_;
};

}  // namespace tokenforge
