// Byte-level BPE with tiktoken's semantics: a piece that is itself a token becomes that token;
// otherwise start from single bytes and repeatedly merge the adjacent pair whose concatenation
// has the lowest rank (leftmost on ties) until no adjacent pair forms a token.
#pragma once
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "hash_tables.h"

namespace tokenforge {

class BytePairModel {
 public:
  // tokens[rank] = the token's bytes; empty strings mark unused ranks.
  explicit BytePairModel(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
    views_.reserve(tokens_.size());
    for (const auto& t : tokens_)
      views_.emplace_back(reinterpret_cast<const uint8_t*>(t.data()), t.size());
    table_.build(views_);
    for (int b = 0; b < 256; ++b) {
      const uint8_t byte = uint8_t(b);
      byte_ids_[b] = table_.find(&byte, 1);
    }
    // Every way to write a token as the concatenation of two tokens is a pair that merges.
    size_t splits = 0;
    for (const auto& t : tokens_) splits += t.size() > 1 ? t.size() - 1 : 0;
    pairs_.reserve(splits / 2 + 16);
    for (uint32_t id = 0; id < tokens_.size(); ++id) {
      const auto& v = views_[id];
      for (size_t k = 1; k < v.second; ++k) {
        const uint32_t a = table_.find(v.first, k);
        if (a == kNoToken) continue;
        const uint32_t b = table_.find(v.first + k, v.second - k);
        if (b != kNoToken) pairs_.insert(a, b, id);
      }
    }
  }

  // The tables point into tokens_, so the model stays where it was built.
  BytePairModel(const BytePairModel&) = delete;
  BytePairModel& operator=(const BytePairModel&) = delete;

  size_t size() const { return tokens_.size(); }
  bool has(uint32_t id) const { return id < tokens_.size() && !tokens_[id].empty(); }
  const std::string& bytes_of(uint32_t id) const { return tokens_[id]; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  uint32_t find(const uint8_t* p, size_t n) const { return table_.find(p, n); }

  void encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>& out) const {
    if (n == 1) {
      out.push_back(byte_id(p[0]));
      return;
    }
    const uint32_t whole = table_.find(p, n);
    if (whole != kNoToken) {
      out.push_back(whole);
      return;
    }
    if (n <= kSmallPiece)
      merge_small(p, n, out);
    else
      merge_large(p, n, out);
  }

 private:
  static constexpr size_t kSmallPiece = 64;

  uint32_t byte_id(uint8_t b) const {
    const uint32_t id = byte_ids_[b];
    if (id == kNoToken)
      throw std::invalid_argument("byte 0x" + hex(b) +
                                  " has no token in this vocabulary, so it cannot be encoded");
    return id;
  }
  static std::string hex(uint8_t b) {
    const char* d = "0123456789ABCDEF";
    return std::string{d[b >> 4], d[b & 15]};
  }

  // Short pieces: scan for the lowest-ranked pair each round; O(n^2) but n is tiny.
  void merge_small(const uint8_t* p, size_t n, std::vector<uint32_t>& out) const {
    uint32_t ids[kSmallPiece], ranks[kSmallPiece];
    size_t m = n;
    for (size_t i = 0; i < m; ++i) ids[i] = byte_id(p[i]);
    for (size_t i = 0; i + 1 < m; ++i) ranks[i] = pairs_.find(ids[i], ids[i + 1]);
    while (m > 1) {
      uint32_t best = kNoToken;
      size_t at = 0;
      for (size_t i = 0; i + 1 < m; ++i)
        if (ranks[i] < best) best = ranks[i], at = i;
      if (best == kNoToken) break;
      ids[at] = best;
      for (size_t i = at + 1; i + 1 < m; ++i) ids[i] = ids[i + 1];
      for (size_t i = at + 1; i + 2 < m; ++i) ranks[i] = ranks[i + 1];
      --m;
      if (at > 0) ranks[at - 1] = pairs_.find(ids[at - 1], ids[at]);
      if (at + 1 < m) ranks[at] = pairs_.find(ids[at], ids[at + 1]);
    }
    out.insert(out.end(), ids, ids + m);
  }

  // Long pieces: a heap of (rank, position) over a linked list of parts: O(n log n), so no
  // input (a megabyte of one letter, say) makes encoding quadratic.
  void merge_large(const uint8_t* p, size_t n, std::vector<uint32_t>& out) const {
    struct Part {
      uint32_t id, prev, next, rank;  // rank: of the pair (this, next); kNoToken if none
    };
    constexpr uint32_t kEnd = kNoToken;
    std::vector<Part> parts(n);
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> heap;
    for (size_t i = 0; i < n; ++i)
      parts[i] = Part{byte_id(p[i]), i ? uint32_t(i - 1) : kEnd, i + 1 < n ? uint32_t(i + 1) : kEnd,
                      kNoToken};
    auto rerank = [&](uint32_t i) {
      Part& part = parts[i];
      part.rank = part.next == kEnd ? kNoToken : pairs_.find(part.id, parts[part.next].id);
      if (part.rank != kNoToken) heap.push((uint64_t(part.rank) << 32) | i);
    };
    for (uint32_t i = 0; i + 1 < n; ++i) rerank(i);
    while (!heap.empty()) {
      const uint64_t top = heap.top();
      heap.pop();
      const uint32_t i = uint32_t(top), rank = uint32_t(top >> 32);
      if (parts[i].rank != rank) continue;  // stale: this pair changed since it was pushed
      Part& part = parts[i];
      const uint32_t gone = part.next;
      part.id = rank;
      part.next = parts[gone].next;
      parts[gone].rank = kNoToken;
      if (part.next != kEnd) parts[part.next].prev = i;
      rerank(i);
      if (part.prev != kEnd) rerank(part.prev);
    }
    for (uint32_t i = 0; i != kEnd; i = parts[i].next) out.push_back(parts[i].id);
  }

  std::vector<std::string> tokens_;
  std::vector<std::pair<const uint8_t*, size_t>> views_;
  BytesTable table_;
  PairTable pairs_;
  uint32_t byte_ids_[256];
};

}  // namespace tokenforge
