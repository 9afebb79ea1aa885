// HF's Prepend normalizer (normalizers/prepend.rs): `prepend` put in front of a non-empty text,
// aligned as its first character.
#pragma once
#include <string>
#include <utility>

#include "normalizers/normalizer.h"

namespace tokenforge {

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  void normalize(NormalizedText& text) const override {
    if (!text.empty()) text.prepend(prepend_);
  }

 private:
  std::string prepend_;
};

}  // namespace tokenforge
