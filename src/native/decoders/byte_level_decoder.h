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
    for (const std::string& t : tokens) {
      const size_t before = bytes.size();
      bool ok = true;
      const auto* s = reinterpret_cast<const uint8_t*>(t.data());
      for (size_t i = 0; i < t.size();) {
        size_t len;
        const uint32_t cp = decode_utf8(s + i, t.size() - i, len);
        if (cp >= byte_of_.size() || byte_of_[cp] < 0) {
          ok = false;
          break;
        }
        bytes += char(byte_of_[cp]);
        i += len;
      }
      if (!ok) {
        bytes.resize(before);
        bytes += t;
      }
    }
    tokens.assign(1, utf8_lossy(bytes));
  }

 private:
  std::array<int16_t, 0x144> byte_of_;  // GPT-2's alphabet ends at U+0143
};

}  // namespace tokenforge
