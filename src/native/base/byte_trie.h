// A byte trie over a vocabulary, shared by the models that match pieces longest-first
// (models/wordpiece/wordpiece.h) and those that walk every piece starting at a position
// (models/sentencepiece/spm_unigram.h, the sentencepiece trainers).
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

}  // namespace tokenforge
