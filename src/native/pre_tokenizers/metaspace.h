// HF's Metaspace pre-tokenizer (pre_tokenizers/metaspace.rs): spaces become the replacement
// ("▁"); the replacement is put in front of a piece that does not start with it (prepend_scheme
// "always"; "first": only the piece at the start of the input; "never"); with split, the text
// is cut before each replacement (MergedWithNext).
#pragma once
#include <string>
#include <utility>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  enum class Prepend { kAlways, kFirst, kNever };
  MetaspacePreTokenizer(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {
    size_t len;
    replacement_cp_ = decode_utf8(reinterpret_cast<const uint8_t*>(replacement_.data()), replacement_.size(), len);
  }

  void pre_tokenize(PreTokenizedText& pieces) const override {
    std::vector<MatchSpan> spans;
    const uint32_t r = replacement_cp_;
    pieces.split([&](NormalizedText&& text, std::vector<NormalizedText>& out) {
      find_char_matches(text.text(), [](uint32_t cp) { return cp == ' '; }, spans);
      text.replace(spans, replacement_);
      const bool starts = text.text().compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (prepend_ == Prepend::kAlways || (prepend_ == Prepend::kFirst && text.original().start == 0)))
        text.prepend(replacement_);
      if (!split_) {
        out.push_back(std::move(text));
        return;
      }
      find_char_matches(text.text(), [r](uint32_t cp) { return cp == r; }, spans);
      text.split(spans, SplitBehavior::kMergedWithNext, out);
    });
  }

 private:
  std::string replacement_;
  uint32_t replacement_cp_;
  Prepend prepend_;
  bool split_;
};

}  // namespace tokenforge
