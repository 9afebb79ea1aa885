// HF's WordLevel model (models/wordlevel/mod.rs) for the staged pipeline: a piece is its token
// when the vocabulary has it whole, else the unknown token (an error when that is missing too).
// The vocabulary is a BytesTable (base/hash_tables.h), read where the piece lies; a piece of one
// character below U+0800 (one or two bytes: character-level vocabularies, ByT5's bytes) is
// looked up in a direct table first.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/hash_tables.h"
#include "models/model.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class WordLevelModel : public Model {
 public:
  WordLevelModel(const Vocabulary& vocab, std::string unk_token) : unk_token_(std::move(unk_token)) {
    // (a token given twice keeps its last id, as a map would)
    std::unordered_set<std::string_view> seen;
    tokens_.reserve(vocab.size());
    for (auto it = vocab.rbegin(); it != vocab.rend(); ++it) {
      if (!seen.insert(it->first).second) continue;
      tokens_.push_back(it->first);
      ids_.push_back(it->second);
    }
    views_.reserve(tokens_.size());
    for (const std::string& t : tokens_) views_.emplace_back(reinterpret_cast<const uint8_t*>(t.data()), t.size());
    table_.build(views_);
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const std::string& t = tokens_[i];
      const uint32_t cp = short_char(t);
      if (cp != kNoToken) {
        if (short_ids_.empty()) short_ids_.assign(kShort, kNoToken);
        short_ids_[cp] = ids_[i];
      }
    }
    const uint32_t unk = find(unk_token_);
    if (unk != kNoToken) {
      has_unk_ = true;
      unk_id_ = unk;
    }
  }

  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override { tokenize_piece(piece, out); }
  void tokenize_view(std::string_view piece, std::string&, std::vector<ModelToken>& out) const override {
    tokenize_piece(piece, out);
  }
  void tokenize_ids(std::string_view piece, std::string&, std::vector<ModelToken>&,
                    std::vector<uint32_t>& ids) const override {
    ids.push_back(piece_id(piece));
  }

 private:
  // The piece's id, or kNoToken (the empty token, which the table leaves out, included).
  uint32_t find(std::string_view piece) const {
    if (!short_ids_.empty() && piece.size() <= 2) {
      const uint32_t cp = short_char(piece);
      if (cp != kNoToken) return short_ids_[cp];
    }
    if (piece.empty()) {
      for (size_t i = 0; i < tokens_.size(); ++i)
        if (tokens_[i].empty()) return ids_[i];
      return kNoToken;
    }
    const uint32_t at = table_.find(reinterpret_cast<const uint8_t*>(piece.data()), piece.size());
    return at == kNoToken ? kNoToken : ids_[at];
  }

  // The piece's token's id, else the unknown token's (an error without one).
  uint32_t piece_id(std::string_view piece) const {
    const uint32_t id = find(piece);
    if (id != kNoToken) return id;
    if (!has_unk_) throw std::runtime_error("WordLevel error: Missing " + unk_token_ + " token from the vocabulary");
    return unk_id_;
  }
  void tokenize_piece(std::string_view piece, std::vector<ModelToken>& out) const {
    out.push_back(ModelToken{piece_id(piece), 0, uint32_t(piece.size())});
  }

  static constexpr uint32_t kShort = 0x800;
  // The code point of a piece (valid UTF-8, as tokens and texts are) that is one character
  // below U+0800, else kNoToken.
  static uint32_t short_char(std::string_view s) {
    if (s.empty() || s.size() > 2) return kNoToken;
    size_t len;
    const uint32_t c = decode_utf8(reinterpret_cast<const uint8_t*>(s.data()), s.size(), len);
    return len == s.size() && c < kShort ? c : kNoToken;
  }

  std::vector<std::string> tokens_;  // (each once; table_ keeps pointers into them)
  std::vector<uint32_t> short_ids_;  // the id of each one-character token below U+0800 (kShort)
  std::vector<uint32_t> ids_;        // the id of tokens_[i]
  std::vector<std::pair<const uint8_t*, size_t>> views_;
  BytesTable table_;
  std::string unk_token_;
  bool has_unk_ = false;
  uint32_t unk_id_ = 0;
};

}  // namespace tokenforge
