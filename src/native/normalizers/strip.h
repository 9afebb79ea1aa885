// HF's Strip normalizer (normalizers/strip.rs): whitespace (char::is_whitespace) removed at the
// start (strip_left) and/or the end (strip_right).
#pragma once
#include "normalizers/normalizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void normalize(NormalizedText& text) const override {
    if (left_ && right_) {
      text.strip(true, true, hf_is_whitespace);
    } else {
      if (left_) text.strip(true, false, hf_is_whitespace);
      if (right_) text.strip(false, true, hf_is_whitespace);
    }
  }

 private:
  bool left_, right_;
};

}  // namespace tokenforge
