// Counting code points in UTF-8 text: the one place that turns byte positions into the
// character offsets every pipeline reports (see pipelines/ for its users).
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/bytes.h"

namespace tokenforge {

// The characters that start in s[from..to) of s[0..n) (UTF-8), eight bytes at a time: the bytes
// that are not continuation bytes (10xxxxxx).
inline uint32_t count_characters(const uint8_t* s, size_t from, size_t to, size_t n) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  auto continuations = [](uint64_t w) { return __builtin_popcountll(w & ~(w << 1) & kHigh); };
  uint32_t k = uint32_t(to - from);
  for (; from + 8 <= to; from += 8) k -= continuations(load8(s + from));
  if (from == to) return k;
  if (from + 8 <= n) return k - continuations(load8(s + from) & ((uint64_t(1) << (8 * (to - from))) - 1));
  for (; from < to; ++from) k -= (s[from] & 0xC0) == 0x80;
  return k;
}

}  // namespace tokenforge
