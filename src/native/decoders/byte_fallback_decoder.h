// HF's ByteFallback decoder (decoders/byte_fallback.rs): runs of byte tokens "<0xAB>" become the
// text of their bytes, or one U+FFFD per byte when those are not valid UTF-8.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "decoders/decoder.h"

namespace tokenforge {

class ByteFallbackDecoder : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string bytes;
    size_t count = 0;
    auto flush = [&] {
      if (!count) return;
      if (utf8_lossy(bytes) == bytes) {
        out.push_back(bytes);
      } else {
        for (size_t k = 0; k < count; ++k) out.push_back("\xEF\xBF\xBD");
      }
      bytes.clear();
      count = 0;
    };
    for (std::string& t : tokens) {
      int byte = -1;
      if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>') byte = parse_u8_hex(t[3], t[4]);
      if (byte >= 0) {
        bytes += char(byte);
        ++count;
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    tokens = std::move(out);
  }

 private:
  // Rust's u8::from_str_radix(two bytes, 16): an optional '+' and hex digits.
  static int parse_u8_hex(char a, char b) {
    auto hex = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    if (a == '+') return hex(b);
    const int hi = hex(a), lo = hex(b);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
  }
};

}  // namespace tokenforge
