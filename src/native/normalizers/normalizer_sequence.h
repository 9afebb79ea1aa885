// HF's Sequence normalizer: its normalizers, in order.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "normalizers/normalizer.h"

namespace tokenforge {

class NormalizerSequence : public Normalizer {
 public:
  explicit NormalizerSequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  void normalize(NormalizedText& text) const override {
    for (const auto& p : parts_) p->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace tokenforge
