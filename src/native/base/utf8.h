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

// Whether s[0..n) is UTF-8 as Python's strict decoder and Rust's String::from_utf8 take it: no
// overlong forms, surrogates or code points past U+10FFFF, no sequence cut short.
inline bool valid_utf8(const uint8_t* s, size_t n) {
  for (size_t i = 0; i < n;) {
    const uint8_t b = s[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    const size_t len = b >= 0xC2 && b < 0xE0 ? 2 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xF0 && b < 0xF5 ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    uint32_t cp = b & (0xFFu >> (len + 1));
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}

}  // namespace tokenforge
