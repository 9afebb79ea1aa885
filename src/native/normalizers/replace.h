// HF's Replace normalizer (normalizers/replace.rs) with a string pattern: every occurrence,
// leftmost and not overlapping, becomes `content` (aligned as the last character it replaces).
// Regex patterns need a matcher producing MatchSpans (pre_tokenizers/regex.h); the factory
// refuses them until one is plugged in.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "normalizers/normalizer.h"

namespace tokenforge {

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(NormalizedText& text) const override {
    std::vector<MatchSpan> matches;
    find_string_matches(text.text(), pattern_, matches);
    text.replace(matches, content_);
  }

 private:
  std::string pattern_, content_;
};

}  // namespace tokenforge
