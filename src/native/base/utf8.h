// Counting code points in UTF-8 text: the one place that turns byte positions into the
// character offsets every pipeline reports (see pipelines/ for its users); and the strict
// UTF-8 check files' strings pass (formats/, normalizers/precompiled.h).
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

// The offset of the first byte where s[0..n) stops being strict UTF-8 (as Python's
// bytes.decode("utf-8") and Rust's String::from_utf8 take it: no overlong forms, no surrogates,
// nothing above U+10FFFF, no sequence cut short), or n when all of it is.
inline size_t utf8_error_at(const uint8_t* s, size_t n) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && !(load8(s + i) & kHigh)) {  // eight ASCII bytes
      i += 8;
      continue;
    }
    const uint8_t b = s[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0)
        lo = 0xA0;  // no overlong forms
      else if (b == 0xED)
        hi = 0x9F;  // no surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0)
        lo = 0x90;  // no overlong forms
      else if (b == 0xF4)
        hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + 1 >= n || s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if (i + k >= n || (s[i + k] & 0xC0) != 0x80) return i;
    i += len;
  }
  return n;
}

}  // namespace tokenforge
