// Where a long piece can be cut into parts that merge independently.
//
// A merge only ever forms tokens of the vocabulary. So if no token can hold the bytes on both
// sides of a character boundary, no merge crosses it, and the rank-ordered merge of the piece
// is the merge of the part before the boundary followed by the merge of the part after it
// (each side's merges happen in the same order as they would alone). Long runs of CJK or other
// non-ASCII letters are one piece each but cut into short, frequent parts this way, and the
// parts then come from the short-piece table instead of being merged again and again.
//
// Only boundaries between two non-ASCII characters are considered. A token holding bytes on
// both sides either holds both characters whole (recorded as a pair of code points), or starts
// or ends inside a character (a "fragment" token, a few hundred in OpenAI's vocabularies;
// recorded as the two bytes at each of its inner character boundaries). A wrong "may join"
// only costs speed, so the pairs are kept in a small bit filter.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "unicode/unicode_classes.h"

namespace tokenforge {

class SplitPoints {
 public:
  void build(const std::vector<std::pair<const uint8_t*, size_t>>& tokens) {
    std::vector<uint64_t> pairs;
    for (const auto& [t, n] : tokens) {
      if (n < 2) continue;
      bool fragment = (t[0] & 0xC0) == 0x80;
      size_t prev = n, prev_len = 0;  // the previous character's start and length (if non-ASCII)
      for (size_t i = 0; i < n;) {
        if ((t[i] & 0xC0) == 0x80) {  // continuation bytes before the first lead byte
          ++i;
          continue;
        }
        const size_t len = utf8_length(t[i]);
        const bool whole = i + len <= n;
        fragment |= !whole;
        size_t decoded;
        if (t[i] >= 0x80 && prev != n && whole)
          pairs.push_back(pair_key(decode_utf8(t + prev, prev_len, decoded), decode_utf8(t + i, len, decoded)));
        prev = t[i] >= 0x80 ? i : n;
        prev_len = len;
        i += len;
      }
      if (!fragment) continue;
      for (size_t i = 1; i < n; ++i)  // every boundary inside a fragment token, byte-wise
        if (t[i] >= 0xC0 && t[i - 1] >= 0x80) {
          const unsigned bytes = unsigned(t[i - 1]) << 8 | t[i];
          fragment_bytes_[bytes >> 6] |= uint64_t(1) << (bytes & 63);
        }
    }
    // 8 to 16 bits per pair (6-12% false positives, which only keep a piece whole that could
    // be cut): 256 KiB for o200k_base's 137,628 pairs, so that a first pass over CJK text, which
    // looks up every character boundary of its new pieces, finds the filter in L2. (At 32 bits
    // per pair it took 1 MiB, and a sixth of such a pass's L2 misses, simulated.)
    size_t bits = 4096;
    while (bits < pairs.size() * 8) bits <<= 1;
    joined_.assign(bits / 64, 0);
    shift_ = 64 - __builtin_ctzll(bits);
    for (uint64_t k : pairs) {
      const uint64_t bit = bit_of(k);
      joined_[bit >> 6] |= uint64_t(1) << (bit & 63);
    }
  }

  // Whether some token could hold the end of character c1 and the start of the character c2
  // after it (code points, both non-ASCII); `bytes` are the two bytes at their boundary.
  bool may_join(uint32_t c1, uint32_t c2, unsigned bytes) const {
    if (fragment_bytes_[bytes >> 6] >> (bytes & 63) & 1) return true;
    const uint64_t bit = bit_of(pair_key(c1, c2));
    return joined_[bit >> 6] >> (bit & 63) & 1;
  }

 private:
  static uint64_t pair_key(uint64_t c1, uint64_t c2) { return (uint64_t(1) << 63) | (c1 << 21) | c2; }

  uint64_t bit_of(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }

  // A one-hash Bloom filter of the pairs: small enough to stay in cache, unlike an exact set.
  std::vector<uint64_t> joined_;
  int shift_ = 64;
  uint64_t fragment_bytes_[65536 / 64] = {};
};

}  // namespace tokenforge
