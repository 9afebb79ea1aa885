// HF's NFC, NFD, NFKC and NFKD normalizers (normalizers/unicode.rs in HF tokenizers): the text in
// the Unicode normalization form of unicode/normalization.h (HF's Unicode 9.0 tables), with the
// (character, change) pairs of the form handed to NormalizedText::transform, so that offsets
// follow HF's alignments exactly. Text the quick check finds already in the form (ASCII, most
// text) is left as it is: a transform of unchanged characters would give the same alignments;
// elsewhere only the segments the check does not pass are normalized and replaced.
#pragma once
#include <cstdint>
#include <optional>
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
    // Only the segments the quick check does not pass change; each is replaced by its
    // (character, change) pairs, the text between them kept as it is (the rewrite starts at
    // the first segment: a text without one stays as it is).
    // (the thread's buffers, reached once: each use of a thread_local in a shared library is a
    // call to find it)
    thread_local std::vector<char32_t> thread_cps;
    thread_local std::vector<CharChange> thread_changes;
    thread_local normalization_detail::SegmentNormalizer thread_slow;
    std::vector<char32_t>& cps = thread_cps;
    std::vector<CharChange>& changes = thread_changes;
    normalization_detail::SegmentNormalizer& slow = thread_slow;
    std::optional<NormalizedText::Rewrite> rewrite;
    const std::string& s = text.text();
    for_each_slow_segment(form_, s, [&](size_t from, size_t to) {
      if (!rewrite) rewrite.emplace(text);
      cps.clear();
      const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
      for (size_t i = from, len; i < to; i += len) cps.push_back(decode_utf8(p + i, to - i, len));
      changes.clear();
      slow.run(form_, cps.data(), cps.size(),
               [&](char32_t cp, int change) { changes.push_back(CharChange{uint32_t(cp), int32_t(change)}); });
      rewrite->keep(from);
      rewrite->replace(to, changes.data(), changes.size(), 0);
    });
    if (rewrite) rewrite->finish();
  }

 private:
  NormalForm form_;
};

}  // namespace tokenforge
