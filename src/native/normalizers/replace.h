// HF's Replace normalizer (normalizers/replace.rs): every match of the pattern, a string
// (leftmost occurrences, not overlapping) or a regex (pre_tokenizers/regex.h, Oniguruma as HF),
// becomes `content` (aligned as the last character it replaces).
#pragma once
#include <cstdint>
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
      : pattern_(std::move(pattern)), content_(std::move(content)), regex_(std::move(regex)) {
    size_t len = 0;
    if (!content_.empty()) decode_utf8(reinterpret_cast<const uint8_t*>(content_.data()), content_.size(), len);
    one_char_content_ = !content_.empty() && len == content_.size();
  }
  void normalize(NormalizedText& text) const override {
    std::vector<MatchSpan> matches;
    if (regex_)
      regex_->find_matches(text.text().data(), text.text().size(), matches);
    else
      find_string_matches(text.text(), pattern_, matches);
    if (one_char_content_) {
      // A match that is the content's one character already is left as it is: replacing it
      // writes the same character, aligned as itself (HF's Replace of " " runs by " ": most
      // matches in most text)
      bool any = false;
      for (MatchSpan& m : matches) {
        if (m.is_match && m.end - m.start == content_.size() &&
            text.text().compare(m.start, content_.size(), content_) == 0)
          m.is_match = false;
        any = any || m.is_match;
      }
      if (!any) return;
    }
    text.replace(matches, content_);
  }

  // Whether the pattern is a string of one character (`cp`): the steps a Sequence may fold into
  // a ByteLevel normalizer before them.
  bool one_character(uint32_t& cp) const {
    if (regex_ || pattern_.empty()) return false;
    size_t len;
    cp = decode_utf8(reinterpret_cast<const uint8_t*>(pattern_.data()), pattern_.size(), len);
    return len == pattern_.size();
  }
  // The content (UTF-8).
  const std::string& content() const { return content_; }

 private:
  std::string pattern_, content_;
  std::shared_ptr<const Regex> regex_;
  bool one_char_content_ = false;  // the content is one character
};

}  // namespace tokenforge
