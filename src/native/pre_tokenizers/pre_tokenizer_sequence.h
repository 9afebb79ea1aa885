// HF's Sequence pre-tokenizer: its pre-tokenizers, in order.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class PreTokenizerSequence : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void pre_tokenize(PreTokenizedText& pieces) const override {
    for (const auto& p : parts_) p->pre_tokenize(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

}  // namespace tokenforge
