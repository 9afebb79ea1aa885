// WordPiece: each word is cut greedily into the longest vocabulary pieces, left to right, as
// BERT's tokenizer and HF tokenizers do (and llama.cpp's WPM, with a word prefix instead of a
// continuation prefix). A word with a position where no piece matches becomes one [UNK].
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/byte_trie.h"

namespace tokenforge {

class WordPieceModel {
 public:
  struct Piece {
    uint32_t id;
    uint32_t start, end;  // bytes of the word
  };

  // tokens[id]: UTF-8. continuation_prefix ("##") starts every piece but a word's first;
  // word_prefix ("▁" for llama.cpp's WPM) is put before every word. Words of more than
  // max_chars code points are [UNK] whole (so with 0, every word is).
  WordPieceModel(const std::vector<std::string>& tokens, uint32_t unk_id, const std::string& continuation_prefix,
                 const std::string& word_prefix, size_t max_chars)
      : unk_id_(unk_id), word_prefix_(word_prefix), max_chars_(max_chars) {
    if (unk_id >= tokens.size()) throw std::invalid_argument("the unknown-token id is not in the vocabulary");
    for (uint32_t id = 0; id < tokens.size(); ++id) {
      const std::string& t = tokens[id];
      if (t.empty()) throw std::invalid_argument("token " + std::to_string(id) + " is empty");
      if (!trie_.insert(reinterpret_cast<const uint8_t*>(t.data()), t.size(), id))
        throw std::invalid_argument("token " + std::to_string(id) + " (" + t + ") appears twice");
    }
    continuation_root_ = trie_.walk(ByteTrie::kRoot, reinterpret_cast<const uint8_t*>(continuation_prefix.data()),
                                    continuation_prefix.size());
  }

  uint32_t unk_id() const { return unk_id_; }

  // The token a word that is exactly s[0..n) (with the word prefix in front) becomes by itself:
  // its own id if the vocabulary has it whole, else kNoToken (the greedy split decides).
  uint32_t whole_word(const uint8_t* s, size_t n) const {
    uint32_t node =
        trie_.walk(ByteTrie::kRoot, reinterpret_cast<const uint8_t*>(word_prefix_.data()), word_prefix_.size());
    node = node == ByteTrie::kNone ? node : trie_.walk(node, s, n);
    return node == ByteTrie::kNone ? kNoToken : trie_.value(node);
  }
  const std::string& word_prefix() const { return word_prefix_; }
  size_t max_chars() const { return max_chars_; }

  // Appends the pieces of word w[0..n) (with the word prefix already in front) to `out`;
  // returns false, appending nothing, if some position has no piece.
  bool split(const uint8_t* w, size_t n, std::vector<Piece>& out) const {
    const size_t first = out.size();
    for (size_t pos = 0; pos < n;) {
      uint32_t node = pos == 0 ? ByteTrie::kRoot : continuation_root_;
      uint32_t best_id = kNoToken, best_end = 0;
      for (size_t j = pos; j < n && node != ByteTrie::kNone; ++j) {
        node = trie_.child(node, w[j]);
        if (node != ByteTrie::kNone && trie_.value(node) != kNoToken) {
          best_id = trie_.value(node);
          best_end = uint32_t(j + 1);
        }
      }
      if (best_id == kNoToken) {
        out.resize(first);
        return false;
      }
      out.push_back(Piece{best_id, uint32_t(pos), best_end});
      pos = best_end;
    }
    return true;
  }

 private:
  ByteTrie trie_;
  uint32_t continuation_root_;
  uint32_t unk_id_;
  std::string word_prefix_;
  size_t max_chars_;
};

}  // namespace tokenforge
