// WordPiece: each word is cut greedily into the longest vocabulary pieces, left to right, as
// BERT's tokenizer and HF tokenizers do (and llama.cpp's WPM, with a word prefix instead of a
// continuation prefix). A word with a position where no piece matches becomes one [UNK].
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/hash_tables.h"

namespace tokenforge {

// A byte trie over the vocabulary; the edges live in one open-addressing table keyed by
// (node, byte), so a step is one probe.
class ByteTrie {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  ByteTrie() : values_(1, kNoToken) { edges_.assign(1024, Edge{kEmpty, 0}); }

  // Adds token s -> id; false if s is already there.
  bool insert(const uint8_t* s, size_t n, uint32_t id) {
    uint32_t node = kRoot;
    for (size_t i = 0; i < n; ++i) {
      uint32_t next = child(node, s[i]);
      if (next == kNone) {
        next = uint32_t(values_.size());
        values_.push_back(kNoToken);
        add_edge(node, s[i], next);
      }
      node = next;
    }
    if (values_[node] != kNoToken) return false;
    values_[node] = id;
    return true;
  }

  uint32_t child(uint32_t node, uint8_t b) const {
    const uint64_t key = (uint64_t(node) << 8) | b;
    for (size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      const Edge& e = edges_[i];
      if (e.key == key) return e.child;
      if (e.key == kEmpty) return kNone;
    }
  }
  // The node reached from `node` by s[0..n), or kNone.
  uint32_t walk(uint32_t node, const uint8_t* s, size_t n) const {
    for (size_t i = 0; i < n && node != kNone; ++i) node = child(node, s[i]);
    return node;
  }
  uint32_t value(uint32_t node) const { return values_[node]; }

 private:
  struct Edge {
    uint64_t key;
    uint32_t child;
  };
  static constexpr uint64_t kEmpty = ~uint64_t(0);

  void add_edge(uint32_t node, uint8_t b, uint32_t next) {
    if ((edges_used_ + 1) * 2 > edges_.size()) {
      std::vector<Edge> old(edges_.size() * 2, Edge{kEmpty, 0});
      old.swap(edges_);
      mask_ = edges_.size() - 1;
      for (const Edge& e : old)
        if (e.key != kEmpty) place(e);
    }
    place(Edge{(uint64_t(node) << 8) | b, next});
    ++edges_used_;
  }
  void place(const Edge& e) {
    size_t i = mix64(e.key) & mask_;
    while (edges_[i].key != kEmpty) i = (i + 1) & mask_;
    edges_[i] = e;
  }

  std::vector<uint32_t> values_;  // token id ending at each node, or kNoToken
  std::vector<Edge> edges_;
  size_t mask_ = 1023;
  size_t edges_used_ = 0;
};

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
