// HF's ByteLevel decoder (pre_tokenizers/byte_level.rs): each token's characters read back as
// the bytes of GPT-2's alphabet (a token with a character outside it is kept as its own UTF-8),
// all joined and read as UTF-8, invalid sequences as U+FFFD.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "decoders/decoder.h"
#include "pre_tokenizers/byte_level.h"

namespace tokenforge {

class ByteLevelDecoder : public Decoder {
 public:
  ByteLevelDecoder() {
    byte_of_.fill(-1);
    const auto& cps = byte_level_code_points();
    for (int b = 0; b < 256; ++b) byte_of_[cps[b]] = int16_t(b);
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string bytes;
    for (const std::string& t : tokens) append_bytes(t.data(), t.size(), bytes);
    tokens.assign(1, utf8_lossy(std::move(bytes)));
  }

  // Appends the bytes token t[0..n) stands for: its characters read back through GPT-2's
  // alphabet, or, where one is outside it, the token's own UTF-8.
  void append_bytes(const char* t, size_t n, std::string& bytes) const {
    const size_t before = bytes.size();
    const auto* s = reinterpret_cast<const uint8_t*>(t);
    for (size_t i = 0; i < n;) {
      size_t len;
      const uint32_t cp = decode_utf8(s + i, n - i, len);
      if (cp >= byte_of_.size() || byte_of_[cp] < 0) {
        bytes.resize(before);
        bytes.append(t, n);
        return;
      }
      bytes += char(byte_of_[cp]);
      i += len;
    }
  }

 private:
  std::array<int16_t, 0x144> byte_of_;  // GPT-2's alphabet ends at U+0143
};

}  // namespace tokenforge
