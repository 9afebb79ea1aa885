// Which pairs of adjacent characters some token of a vocabulary holds, for cutting a piece of
// text where no token can cross (the argument of models/bpe/split_points.h: a merge only forms
// tokens of the vocabulary, so where no token holds the characters on both sides of a boundary
// no merge crosses it, and the piece's rank-ordered merge is its parts' merges side by side).
//
// SplitPoints (split_points.h) answers for two non-ASCII characters of byte-level vocabularies,
// whose tokens may start or end inside a character. This answers for any two characters of a
// vocabulary whose tokens are whole characters (sentencepiece-style tokenizer.json files:
// pipelines/spm_hf_bpe.h): pairs of ASCII characters and "▁" exactly, from a bit grid, the rest
// from a one-hash Bloom filter. A wrong "may join" only keeps a boundary that could be cut.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "unicode/unicode_classes.h"

namespace tokenforge {

class CharPairs {
 public:
  // tokens: each token's bytes (UTF-8; an invalid byte is a character of its own).
  template <class Tokens>
  void build(const Tokens& tokens) {
    std::vector<uint64_t> rest;
    for (std::string_view t : tokens) {
      const auto* p = reinterpret_cast<const uint8_t*>(t.data());
      uint32_t prev = kNone;
      for (size_t i = 0; i < t.size();) {
        size_t len;
        const uint32_t c = decode_utf8(p + i, t.size() - i, len);
        if (prev != kNone) {
          const uint32_t a = small(prev), b = small(c);
          if (a < kSmall && b < kSmall)
            grid_[(a * kSmall + b) >> 6] |= uint64_t(1) << ((a * kSmall + b) & 63);
          else
            rest.push_back(key(prev, c));
        }
        prev = c;
        i += len;
      }
    }
    size_t bits = 4096;  // ~32 bits a pair: ~3% false "may join"
    while (bits < rest.size() * 32) bits <<= 1;
    filter_.assign(bits / 64, 0);
    shift_ = 64 - __builtin_ctzll(bits);
    for (uint64_t k : rest) {
      const uint64_t bit = k * 0x9E3779B97F4A7C15ull >> shift_;
      filter_[bit >> 6] |= uint64_t(1) << (bit & 63);
    }
  }

  // Whether some token may hold character c1 directly followed by c2 (code points).
  bool may_join(uint32_t c1, uint32_t c2) const {
    const uint32_t a = small(c1), b = small(c2);
    if (a < kSmall && b < kSmall) return grid_[(a * kSmall + b) >> 6] >> ((a * kSmall + b) & 63) & 1;
    const uint64_t bit = key(c1, c2) * 0x9E3779B97F4A7C15ull >> shift_;
    return filter_[bit >> 6] >> (bit & 63) & 1;
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr uint32_t kSmall = 129;  // ASCII, then "▁"
  static uint32_t small(uint32_t c) { return c < 128 ? c : c == 0x2581 ? 128 : kSmall; }
  static uint64_t key(uint64_t c1, uint64_t c2) { return (uint64_t(1) << 63) | (c1 << 22) | c2; }

  // A bit per pair (2 KiB, not 16: a cold pass asks it for every new piece's characters).
  std::vector<uint64_t> grid_ = std::vector<uint64_t>((kSmall * kSmall + 63) / 64, 0);
  std::vector<uint64_t> filter_ = std::vector<uint64_t>(64, 0);
  int shift_ = 64 - 12;
};

}  // namespace tokenforge
