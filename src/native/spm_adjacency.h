// Which characters stand next to each other inside some piece. Between two characters that never
// do, no piece can cross: sentencepiece's BPE merges and Unigram's lattice both fall apart there,
// so a text may be cut there and each part encoded (and remembered) alone.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hash_tables.h"
#include "unicode_classes.h"

namespace tokenforge {

class PieceAdjacency {
 public:
  // Bits of flags(c): c is first (kJoinsNext) or second (kJoinsPrevious) in an inner pair.
  static constexpr uint8_t kJoinsNext = 1, kJoinsPrevious = 2;
  static constexpr uint32_t kCharacters = 0x10000;  // flags kept for the Basic Multilingual Plane

  PieceAdjacency() = default;
  // From the pieces' texts (valid UTF-8).
  explicit PieceAdjacency(const std::vector<std::string_view>& pieces) {
    std::vector<uint64_t> inner;  // (character, next character)
    flags_.assign(kCharacters, 0);
    for (const std::string_view t : pieces) {
      if (t.empty()) continue;
      size_t before = 0;  // the previous character's start
      for (size_t i = utf8_length(uint8_t(t[0])); i < t.size(); i += utf8_length(uint8_t(t[i]))) {
        const uint32_t a = code_point(t.substr(before)), b = code_point(t.substr(i));
        if (a < kCharacters) flags_[a] |= kJoinsNext;
        if (b < kCharacters) flags_[b] |= kJoinsPrevious;
        inner.push_back((uint64_t(a) << 32) | b);
        before = i;
      }
    }
    std::sort(inner.begin(), inner.end());
    inner.erase(std::unique(inner.begin(), inner.end()), inner.end());
    index_dense(inner);
    size_t others = 0;
    for (uint64_t k : inner) others += !both_dense(uint32_t(k >> 32), uint32_t(k));
    others_.reserve(others);  // few, so the table stays small and in cache
    for (uint64_t k : inner) {
      const uint32_t a = uint32_t(k >> 32), b = uint32_t(k);
      const uint32_t x = dense(a), y = dense(b);
      if (both_dense(a, b)) dense_pairs_[x * dense_stride_ + (y >> 6)] |= uint64_t(1) << (y & 63);
      else others_.insert(a, b, 0);
    }
  }

  // kJoinsNext | kJoinsPrevious for the characters past the table (they may do anything).
  uint8_t flags(uint32_t c) const { return c < kCharacters ? flags_[c] : kJoinsNext | kJoinsPrevious; }

  // Whether characters a and b stand next to each other in some piece.
  bool joins(uint32_t a, uint32_t b) const {
    const uint32_t x = dense(a), y = dense(b);
    if (((x | y) & kNotDense) != kNotDense) return dense_pairs_[x * dense_stride_ + (y >> 6)] >> (y & 63) & 1;
    return others_.may_merge(a, b) && others_.find(a, b) != kNoToken;  // (most pairs stop at the filter)
  }

  static uint32_t code_point(std::string_view s) {
    size_t len;
    return decode_utf8(reinterpret_cast<const uint8_t*>(s.data()), s.size(), len);
  }

 private:
  static constexpr uint32_t kMark = 0x2581;  // "▁"
  static constexpr uint32_t kDenseRange = 0x800;
  static constexpr uint16_t kDenseMark = 0x80, kNotDense = 0xFFFF;

  // ASCII characters are their own dense indexes, "▁" is kDenseMark, and the characters of inner
  // pairs below kDenseRange (alphabets: Latin, Greek, Cyrillic, ...) get the next ones, so that
  // pairs of these are the bits of a small matrix.
  void index_dense(const std::vector<uint64_t>& inner) {
    dense_.assign(kDenseRange, kNotDense);
    uint32_t count = kDenseMark + 1;
    for (uint32_t c = 0; c < 0x80; ++c) dense_[c] = uint16_t(c);
    for (uint64_t k : inner)
      for (uint32_t c : {uint32_t(k >> 32), uint32_t(k)})
        if (c < kDenseRange && dense_[c] == kNotDense) dense_[c] = uint16_t(count++);
    dense_stride_ = (count + 63) / 64;
    dense_pairs_.assign(size_t(count) * dense_stride_, 0);
  }
  uint32_t dense(uint32_t c) const {
    return c < 0x80 ? c : c < kDenseRange ? dense_[c] : c == kMark ? kDenseMark : kNotDense;
  }
  bool both_dense(uint32_t a, uint32_t b) const { return ((dense(a) | dense(b)) & kNotDense) != kNotDense; }

  std::vector<uint8_t> flags_;        // by code point below kCharacters
  std::vector<uint16_t> dense_;       // by code point below kDenseRange: its dense index, or kNotDense
  size_t dense_stride_ = 0;           // words per row of dense_pairs_
  std::vector<uint64_t> dense_pairs_; // bit (x, y): the characters with dense indexes x, y are an inner pair
  PairTable others_;                  // the other inner pairs (code points)
};

}  // namespace tokenforge
