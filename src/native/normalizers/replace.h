// HF's Replace normalizer (normalizers/replace.rs): every match of the pattern, a string
// (leftmost occurrences, not overlapping) or a regex (pre_tokenizers/regex.h, Oniguruma as HF),
// becomes `content` (aligned as the last character it replaces).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "normalizers/normalizer.h"
#include "pre_tokenizers/regex.h"

namespace tokenforge {

class ReplaceNormalizer : public Normalizer {
 public:
  // regex: the compiled pattern when it is a regex (nullptr for a string pattern).
  ReplaceNormalizer(std::string pattern, std::string content, std::shared_ptr<const Regex> regex = nullptr)
      : pattern_(std::move(pattern)), content_(std::move(content)), regex_(std::move(regex)) {}
  void normalize(NormalizedText& text) const override {
    std::vector<MatchSpan> matches;
    if (regex_)
      regex_->find_matches(text.text().data(), text.text().size(), matches);
    else
      find_string_matches(text.text(), pattern_, matches);
    text.replace(matches, content_);
  }

 private:
  std::string pattern_, content_;
  std::shared_ptr<const Regex> regex_;
};

}  // namespace tokenforge
