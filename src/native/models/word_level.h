// HF's WordLevel model (models/wordlevel/mod.rs) for the staged pipeline: a piece is its token
// when the vocabulary has it whole, else the unknown token (an error when that is missing too).
#pragma once
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "models/model.h"

namespace tokenforge {

class WordLevelModel : public Model {
 public:
  WordLevelModel(const Vocabulary& vocab, std::string unk_token) : unk_token_(std::move(unk_token)) {
    ids_.reserve(vocab.size());
    for (const auto& [token, id] : vocab) ids_[token] = id;
    const auto unk = ids_.find(unk_token_);
    if (unk != ids_.end()) {
      has_unk_ = true;
      unk_id_ = unk->second;
    }
  }

  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override {
    const auto it = ids_.find(piece);
    if (it != ids_.end()) {
      out.push_back(ModelToken{it->second, 0, uint32_t(piece.size())});
    } else if (has_unk_) {
      out.push_back(ModelToken{unk_id_, 0, uint32_t(piece.size())});
    } else {
      throw std::runtime_error("WordLevel error: Missing " + unk_token_ + " token from the vocabulary");
    }
  }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::string unk_token_;
  bool has_unk_ = false;
  uint32_t unk_id_ = 0;
};

}  // namespace tokenforge
