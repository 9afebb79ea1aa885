// HF's Sequence pre-tokenizer: its pre-tokenizers, in order (a Sequence of pre-tokenizers that
// only cut only cuts: each cuts the pieces of the one before, pre_tokenizers/pre_tokenizer.h).
#pragma once
#include <algorithm>
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
  bool only_cuts() const override { return only_cuts_; }
  void cut(std::string_view text, std::vector<Cut>& out) const override {
    if (parts_.empty()) {  // (HF's empty Sequence keeps the piece)
      if (!text.empty()) out.push_back(Cut{0, uint32_t(text.size())});
      return;
    }
    const size_t from = out.size();
    parts_[0]->cut(text, out);
    for (size_t k = 1; k < parts_.size(); ++k)
      cut_again(text, out, from,
                [&](std::string_view piece, std::vector<Cut>& pieces) { parts_[k]->cut(piece, pieces); });
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
  bool only_cuts_ = std::all_of(parts_.begin(), parts_.end(), [](const auto& p) { return p->only_cuts(); });
};

}  // namespace tokenforge
