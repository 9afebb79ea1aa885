// A pre-tokenizer of the staged pipeline (pipelines/staged.h): cuts the pieces of a
// PreTokenizedText (text/pre_tokenized_text.h) further, as HF tokenizers' PreTokenizer trait.
// Most cut each piece by a pattern's MatchSpans (pre_tokenizers/match_span.h) and a
// SplitBehavior: split_by() is that loop. One header per HF type beside this one;
// pre_tokenizers/pre_tokenizer_factory.h builds them by name.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "pre_tokenizers/match_span.h"
#include "text/pre_tokenized_text.h"

namespace tokenforge {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(PreTokenizedText& pieces) const = 0;
};

// Splits every piece by the spans find(text, spans) gives (covering it, in order) and behavior.
template <class Find>
void split_by(PreTokenizedText& pieces, SplitBehavior behavior, Find&& find) {
  std::vector<MatchSpan> spans;
  pieces.split([&](NormalizedText&& text, std::vector<NormalizedText>& out) {
    spans.clear();
    find(text.text(), spans);
    text.split(spans, behavior, out);
  });
}

// The behaviour named as tokenizer.json spells it; false if it is none.
inline bool split_behavior_of(const std::string& name, SplitBehavior& out) {
  static const std::pair<const char*, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::kRemoved},
      {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext},
      {"Contiguous", SplitBehavior::kContiguous}};
  for (const auto& [n, b] : kNames)
    if (name == n) {
      out = b;
      return true;
    }
  return false;
}

}  // namespace tokenforge
