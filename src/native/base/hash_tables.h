// Open-addressing tables for the two lookups on the hot path: token bytes -> id, and
// (left id, right id) -> merged id. Both are built once per vocabulary and then only read,
// so they are safe to share between threads.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/huge_array.h"

namespace tokenforge {

constexpr uint32_t kNoToken = 0xFFFFFFFFu;

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return x;
}

// A 64-bit key for a byte string. For up to 8 bytes the key is injective given the length
// (no byte comparison needed); longer strings get a hash and are compared byte by byte.
inline uint64_t bytes_key(const uint8_t* p, size_t n) {
  uint32_t lo, hi;
  if (n >= 4) {
    if (n <= 8) {
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      return uint64_t(lo) | (uint64_t(hi) << 32);
    }
    uint64_t h = 0x243F6A8885A308D3ull ^ n;
    for (size_t i = 0; i + 8 <= n; i += 8) h = mix64(h ^ load8(p + i)) * 0xBF58476D1CE4E5B9ull;
    return mix64(h ^ load8(p + n - 8));  // the (overlapping) last 8 bytes
  }
  if (n == 0) return 0;
  return uint64_t(p[0]) | (uint64_t(p[n >> 1]) << 8) | (uint64_t(p[n - 1]) << 16);
}

class BytesTable {
 public:
  // tokens[id] = (pointer, length), empty for none; its elements are kept by reference (to
  // compare keys longer than 8 bytes), so it must not be resized after.
  void build(const std::vector<std::pair<const uint8_t*, size_t>>& tokens) {
    size_t cap = 16;
    while (cap < tokens.size() * 2) cap <<= 1;
    slots_.assign(cap, Slot{0, kNoToken, 0});
    mask_ = cap - 1;
    tokens_ = tokens.data();
    for (uint32_t id = 0; id < tokens.size(); ++id) {
      const auto& t = tokens[id];
      if (t.second == 0) continue;
      const uint64_t key = bytes_key(t.first, t.second);
      size_t i = mix64(key ^ t.second) & mask_;
      for (; slots_[i].id != kNoToken; i = (i + 1) & mask_) {
        const Slot& s = slots_[i];
        if (s.key == key && s.len == t.second && std::memcmp(tokens[s.id].first, t.first, t.second) == 0)
          throw std::invalid_argument("ranks " + std::to_string(s.id) + " and " + std::to_string(id) +
                                      " have the same bytes; each token must appear once");
      }
      slots_[i] = Slot{key, id, uint32_t(t.second)};
    }
  }

  uint32_t find(const uint8_t* p, size_t n) const { return find(p, n, bytes_key(p, n)); }
  uint32_t find(const uint8_t* p, size_t n, uint64_t key) const {
    size_t i = mix64(key ^ n) & mask_;
    for (;;) {
      const Slot& s = slots_[i];
      if (s.id == kNoToken) return kNoToken;
      if (s.key == key && s.len == n && (n <= 8 || std::memcmp(tokens_[s.id].first, p, n) == 0)) return s.id;
      i = (i + 1) & mask_;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    uint32_t id;
    uint32_t len;
  };
  HugeArray<Slot> slots_;
  size_t mask_ = 0;
  const std::pair<const uint8_t*, size_t>* tokens_ = nullptr;
};

// (a, b) -> merged id. A one-bit-per-entry filter in front (about 8 bits per pair, so it stays
// in L2) answers most pairs that do not merge, which are most of the pairs a merge looks up,
// without touching the big table.
class PairTable {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{~0ull, kNoToken});
    mask_ = cap - 1;
    size_t bits = 512;
    while (bits < n * 8) bits <<= 1;
    filter_.assign(bits / 64, 0);
    filter_shift_ = 64 - __builtin_ctzll(bits);
  }
  void insert(uint32_t a, uint32_t b, uint32_t merged) {
    const uint64_t key = (uint64_t(a) << 32) | b;
    size_t i = mix64(key) & mask_;
    while (slots_[i].merged != kNoToken) {
      if (slots_[i].key == key) return;
      i = (i + 1) & mask_;
    }
    slots_[i] = Slot{key, merged};
    const uint64_t bit = filter_bit(key);
    filter_[bit >> 6] |= uint64_t(1) << (bit & 63);
  }
  // False means (a, b) certainly does not merge.
  bool may_merge(uint32_t a, uint32_t b) const {
    const uint64_t bit = filter_bit((uint64_t(a) << 32) | b);
    return filter_[bit >> 6] >> (bit & 63) & 1;
  }
  uint32_t find(uint32_t a, uint32_t b) const {
    if (!may_merge(a, b)) return kNoToken;
    const uint64_t key = (uint64_t(a) << 32) | b;
    size_t i = mix64(key) & mask_;
    for (;;) {
      const Slot& s = slots_[i];
      if (s.key == key) return s.merged;
      if (s.merged == kNoToken) return kNoToken;
      i = (i + 1) & mask_;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    uint32_t merged;
  };
  uint64_t filter_bit(uint64_t key) const { return (key * 0xD6E8FEB86659FD93ull) >> filter_shift_; }

  HugeArray<Slot> slots_;
  size_t mask_ = 0;
  std::vector<uint64_t> filter_;
  int filter_shift_ = 64;
};

}  // namespace tokenforge
