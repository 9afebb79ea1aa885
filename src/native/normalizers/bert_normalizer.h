// HF's BertNormalizer (normalizers/bert.rs) for the staged pipeline: clean_text (drops NUL,
// U+FFFD and controls, turns whitespace into spaces), handle_chinese_chars (spaces around CJK
// ideographs), strip_accents (NFD, then nonspacing marks dropped; unset: as lowercase) and
// lowercase, in that order, each as HF's NormalizedString operation so alignments match. The
// fused WordPiece pipeline (normalizers/bert_text.h) does the same per code point.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "normalizers/normalizer.h"
#include "normalizers/lowercase.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

// HF's NFD as its NormalizedString::nfd does it (Unicode 9.0 decompositions and canonical
// ordering): each character's decomposition replaces it (the first) and is inserted after it
// (the rest); runs of non-starters are then sorted by combining class, the changes staying
// where they were.
inline void hf_nfd(NormalizedText& text) {
  std::vector<CharChange> changes;
  changes.reserve(text.size());
  std::vector<uint32_t> out;
  text.for_each_char([&](uint32_t cp, size_t, size_t) {
    out.clear();
    hf_decompose(cp, out);
    for (size_t i = 0; i < out.size(); ++i) changes.push_back(CharChange{out[i], i > 0 ? 1 : 0});
  });
  for (size_t i = 0; i < changes.size();) {
    if (!hf_combining_class(changes[i].cp)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < changes.size() && hf_combining_class(changes[j].cp)) ++j;
    if (j - i > 1) {
      std::vector<uint32_t> marks;
      for (size_t k = i; k < j; ++k) marks.push_back(changes[k].cp);
      std::stable_sort(marks.begin(), marks.end(),
                       [](uint32_t a, uint32_t b) { return hf_combining_class(a) < hf_combining_class(b); });
      for (size_t k = i; k < j; ++k) changes[k].cp = marks[k - i];
    }
    i = j;
  }
  text.transform(changes, 0);
}

class BertNormalizer : public Normalizer {
 public:
  // strip_accents: 1, 0 or -1 (unset: follows lowercase).
  BertNormalizer(bool clean_text, bool handle_chinese_chars, int strip_accents, bool lowercase)
      : clean_text_(clean_text),
        handle_chinese_chars_(handle_chinese_chars),
        strip_accents_(strip_accents < 0 ? lowercase : strip_accents == 1),
        lowercase_(lowercase) {}

  void normalize(NormalizedText& text) const override {
    if (clean_text_) {
      text.filter([](uint32_t cp) { return !(cp == 0 || cp == 0xFFFD || hf_is_control(cp)); });
      text.map([](uint32_t cp) { return hf_is_whitespace(cp) ? uint32_t(' ') : cp; });
    }
    if (handle_chinese_chars_) {
      std::vector<CharChange> changes;
      changes.reserve(text.size());
      text.for_each_char([&](uint32_t cp, size_t, size_t) {
        if (hf_is_cjk(cp)) {
          changes.push_back(CharChange{' ', 0});
          changes.push_back(CharChange{cp, 1});
          changes.push_back(CharChange{' ', 1});
        } else {
          changes.push_back(CharChange{cp, 0});
        }
      });
      text.transform(changes, 0);
    }
    if (strip_accents_) {
      hf_nfd(text);
      text.filter([](uint32_t cp) { return !hf_is_nonspacing_mark(cp); });
    }
    if (lowercase_) lowercase_text(text);
  }

 private:
  bool clean_text_, handle_chinese_chars_, strip_accents_, lowercase_;
};

}  // namespace tokenforge
