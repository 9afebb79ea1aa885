// HF's WordPiece model (models/wordpiece/mod.rs) for the staged pipeline, over the greedy
// longest-match of models/wordpiece/wordpiece.h: a piece of more than max_input_chars_per_word
// characters, or with a position no token matches, is the unknown token whole.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/model.h"
#include "models/wordpiece/wordpiece.h"

namespace tokenforge {

class WordPieceStage : public Model {
 public:
  WordPieceStage(const Vocabulary& vocab, const std::string& unk_token, const std::string& prefix, size_t max_chars)
      : model_(build(vocab, unk_token, prefix, max_chars, unk_id_)), unk_token_(unk_token), max_chars_(max_chars) {}

  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override {
    size_t chars = 0;
    for (unsigned char c : piece) chars += (c & 0xC0) != 0x80;
    if (chars <= max_chars_) {
      thread_local std::vector<WordPieceModel::Piece> pieces;
      pieces.clear();
      if (model_.split(reinterpret_cast<const uint8_t*>(piece.data()), piece.size(), pieces)) {
        for (const auto& p : pieces) out.push_back(ModelToken{p.id, p.start, p.end});
        return;
      }
    }
    if (unk_id_ == kNoToken)
      throw std::runtime_error("WordPiece error: Missing " + unk_token_ + " token from the vocabulary");
    out.push_back(ModelToken{unk_id_, 0, uint32_t(piece.size())});
  }

 private:
  static WordPieceModel build(const Vocabulary& vocab, const std::string& unk, const std::string& prefix,
                              size_t max_chars, uint32_t& unk_id) {
    std::vector<std::string> tokens = tokens_by_id(vocab, unk, unk_id);
    return WordPieceModel(tokens, unk_id == kNoToken ? 0 : unk_id, prefix, "", max_chars);
  }
  // The tokens by id; ids no token has get text no UTF-8 piece can match.
  static std::vector<std::string> tokens_by_id(const Vocabulary& vocab, const std::string& unk, uint32_t& unk_id) {
    uint32_t size = 0;
    for (const auto& [token, id] : vocab) size = std::max(size, id + 1);
    std::vector<std::string> tokens(size);
    unk_id = kNoToken;
    for (const auto& [token, id] : vocab) {
      if (!tokens[id].empty())
        throw std::invalid_argument("model WordPiece: id " + std::to_string(id) + " appears twice");
      if (token.empty()) throw std::invalid_argument("model WordPiece: the vocabulary has an empty token");
      tokens[id] = token;
      if (token == unk) unk_id = id;
    }
    for (uint32_t id = 0; id < size; ++id)
      if (tokens[id].empty()) tokens[id] = "\xFF" + std::to_string(id);
    if (tokens.empty()) tokens.push_back("\xFF");
    return tokens;
  }

  uint32_t unk_id_ = kNoToken;  // set by tokens_by_id before model_ is built
  WordPieceModel model_;
  std::string unk_token_;
  size_t max_chars_;
};

}  // namespace tokenforge
