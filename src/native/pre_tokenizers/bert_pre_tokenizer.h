// HF's BertPreTokenizer (pre_tokenizers/bert.rs): whitespace removed, then each punctuation
// character (ASCII punctuation or Unicode P*, Unicode 8.0) a piece of its own.
#pragma once
#include "pre_tokenizers/pre_tokenizer.h"
#include "pre_tokenizers/whitespace.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class BertPreTokenizer : public Cutter {
 public:
  void cut(std::string_view text, std::vector<Cut>& out) const override {
    const size_t from = out.size();
    cut_at_whitespace(text, out);
    cut_again(text, out, from, [](std::string_view piece, std::vector<Cut>& pieces) {
      cut_by(
          piece, SplitBehavior::kIsolated,
          [](std::string_view s, std::vector<MatchSpan>& spans) { find_char_matches(s, hf_is_punctuation, spans); },
          pieces);
    });
  }
};

}  // namespace tokenforge
