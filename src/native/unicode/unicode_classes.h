// Character classes used by the split patterns, looked up per code point.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/inline_hints.h"

namespace tokenforge {

#include "unicode/unicode_classes.inc"

enum CharClass : uint8_t {
  kLetter = 1,        // \p{L}
  kNumber = 2,        // \p{N}
  kSpace = 4,         // \s (White_Space)
  kUpperish = 8,      // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]  (o200k)
  kLowerish = 16,     // [\p{Ll}\p{Lm}\p{Lo}\p{M}]        (o200k)
  kMark = 32,         // \p{M}   (DeepSeek's patterns)
  kPunctuation = 64,  // \p{P}
  kSymbol = 128,      // \p{S}
};

static_assert(kClassStage1[0] == 0, "ASCII lookups assume block 0 holds U+0000..U+00FF");

TF_INLINE uint8_t class_of(uint32_t cp) {
  if (cp < 0x80) return kClassStage2[cp];
  if (cp >= 0x110000) return 0;
  return kClassStage2[(size_t(kClassStage1[cp >> 8]) << 8) | (cp & 0xFF)];
}

// The class of every two-byte character, by lead byte (0xC2..0xDF) and the low six bits of its
// continuation byte: one load where class_of takes a decode and two (the scanners' runs of
// Cyrillic, Greek, Arabic... letters).
struct TwoByteClasses {
  uint8_t of[30 * 64];
  constexpr TwoByteClasses() : of() {
    for (uint32_t cp = 0x80; cp < 0x800; ++cp)
      of[((cp >> 6) - 2) * 64 + (cp & 0x3F)] = kClassStage2[(size_t(kClassStage1[cp >> 8]) << 8) | (cp & 0xFF)];
  }
};
inline constexpr TwoByteClasses kTwoByteClasses{};

// Decodes one code point of valid UTF-8 at s[0..n) whose first byte is outside ASCII (n >= 1);
// sets `len` to its byte length (for loops that have already taken the ASCII bytes).
TF_INLINE uint32_t decode_utf8_past_ascii(const uint8_t* s, size_t n, size_t& len) {
  const uint8_t b = s[0];
  if (b < 0xE0 && n >= 2) {
    len = 2;
    return ((b & 0x1Fu) << 6) | (s[1] & 0x3Fu);
  }
  if (b < 0xF0 && n >= 3) {
    len = 3;
    return ((b & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
  }
  if (n >= 4) {
    len = 4;
    return ((b & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
  }
  len = 1;  // truncated sequence: treat the byte as a class-less character
  return 0x110000;
}

// Decodes one code point of valid UTF-8 at s[0..n) (n >= 1); sets `len` to its byte length.
// Input always comes from Python str objects, so it is valid UTF-8 by construction.
TF_INLINE uint32_t decode_utf8(const uint8_t* s, size_t n, size_t& len) {
  if (s[0] < 0x80) {
    len = 1;
    return s[0];
  }
  return decode_utf8_past_ascii(s, n, len);
}

// The class of the character at s[0..n) (n >= 1) and its byte length, as
// class_of(decode_utf8(s, n, len)) gives them.
TF_INLINE uint8_t class_at(const uint8_t* s, size_t n, size_t& len) {
  const uint8_t b = s[0];
  if (b < 0x80) {
    len = 1;
    return kClassStage2[b];
  }
  if (uint8_t(b - 0xC2) < 30 && n >= 2) {  // 0xC2..0xDF
    len = 2;
    return kTwoByteClasses.of[size_t(b - 0xC2) * 64 + (s[1] & 0x3F)];
  }
  return class_of(decode_utf8(s, n, len));
}

// Byte length of the UTF-8 character that starts with byte `lead` (valid UTF-8).
inline size_t utf8_length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

// Writes code point cp (< 0x110000) as UTF-8 to out; returns its byte length.
inline size_t encode_utf8(uint32_t cp, uint8_t* out) {
  if (cp < 0x80) {
    out[0] = uint8_t(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = uint8_t(0xC0 | (cp >> 6));
    out[1] = uint8_t(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = uint8_t(0xE0 | (cp >> 12));
    out[1] = uint8_t(0x80 | ((cp >> 6) & 0x3F));
    out[2] = uint8_t(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = uint8_t(0xF0 | (cp >> 18));
  out[1] = uint8_t(0x80 | ((cp >> 12) & 0x3F));
  out[2] = uint8_t(0x80 | ((cp >> 6) & 0x3F));
  out[3] = uint8_t(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace tokenforge
