// HF's NFC, NFD, NFKC and NFKD normalizers (normalizers/unicode.rs in HF tokenizers): the text in
// the Unicode normalization form of unicode/normalization.h (HF's Unicode 9.0 tables), with the
// (character, change) pairs of the form handed to NormalizedText::transform, so that offsets
// follow HF's alignments exactly. Text the quick check finds already in the form (ASCII, most
// text) is left as it is: a transform of unchanged characters would give the same alignments.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "normalizers/normalizer.h"
#include "text/normalized_text.h"
#include "unicode/normalization.h"

namespace tokenforge {

class UnicodeFormNormalizer : public Normalizer {
 public:
  explicit UnicodeFormNormalizer(NormalForm form) : form_(form) {}

  void normalize(NormalizedText& text) const override {
    if (is_normalized_quick(form_, text.text())) return;
    const std::vector<char32_t> cps = code_points_of(text.text());
    std::vector<std::pair<char32_t, int>> pairs;
    normalize_with_changes(form_, cps.data(), cps.size(), pairs);
    std::vector<CharChange> changes;
    changes.reserve(pairs.size());
    for (const auto& [cp, change] : pairs) changes.push_back(CharChange{uint32_t(cp), int32_t(change)});
    text.transform(changes, 0);
  }

 private:
  NormalForm form_;
};

}  // namespace tokenforge
