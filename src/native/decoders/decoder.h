// A decoder of the staged pipeline (pipelines/staged.h): turns the tokens' texts into the
// decoded pieces, as HF tokenizers' Decoder::decode_chain (the decoded text is their
// concatenation). One header per HF type beside this one; decoders/decoder_factory.h builds them
// by name. The string helpers below are Rust's, whose edge cases HF's decoders inherit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/utf8.h"

namespace tokenforge {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

// Rust's str::replace: every occurrence of `from`, left to right, not overlapping, becomes `to`;
// an empty `from` puts `to` at every character boundary (start and end included).
inline std::string rust_replace(const std::string& s, const std::string& from, const std::string& to) {
  std::string out;
  if (from.empty()) {
    out.reserve(s.size() + to.size() * (s.size() + 1));
    out += to;
    for (size_t i = 0; i < s.size();) {
      size_t len = 1;
      const uint8_t b = uint8_t(s[i]);
      len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      out.append(s, i, len);
      out += to;
      i += len;
    }
    return out;
  }
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
    out.append(s, at, hit - at);
    out += to;
  }
  out.append(s, at, std::string::npos);
  return out;
}

// Rust's String::from_utf8_lossy: each maximal invalid sequence becomes one U+FFFD. Valid runs
// are found by base/utf8.h's utf8_error_at (the same strict reading) and copied whole.
inline std::string utf8_lossy(std::string bytes) {
  const size_t n = bytes.size();
  const auto* s = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t i = utf8_error_at(s, n);
  if (i == n) return bytes;  // (valid: as it is)
  std::string out;
  out.reserve(n + 8);
  out.append(bytes, 0, i);
  while (i < n) {
    // s[i] starts an invalid sequence: its longest prefix that could begin a character is one
    // U+FFFD (a lone lead or continuation byte: just itself).
    const uint8_t b = s[i];
    size_t need = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    }
    size_t k = 1;
    for (; k <= need && i + k < n; ++k) {
      const uint8_t c = s[i + k];
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) break;
    }
    out += "\xEF\xBF\xBD";
    i += k;
    const size_t good = utf8_error_at(s + i, n - i);
    out.append(bytes, i, good);
    i += good;
  }
  return out;
}

}  // namespace tokenforge
