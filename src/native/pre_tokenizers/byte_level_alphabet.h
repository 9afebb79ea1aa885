// GPT-2's byte-level alphabet: each of the 256 byte values shown as one printable character
// (HF tokenizers' ByteLevel `bytes_char`, GPT-2's bytes_to_unicode). Printable Latin-1 bytes
// ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves; the others, in byte order, take U+0100
// onwards, so " hello" reads "Ġhello". Used to name byte-level BPE tokens the way tokenizer.json
// and HF show them (pipelines/byte_level_bpe.h); the Python mirror is formats/gpt2_files.py.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace tokenforge {

class ByteLevelAlphabet {
 public:
  static const ByteLevelAlphabet& instance() {
    static const ByteLevelAlphabet alphabet;
    return alphabet;
  }

  // The token's bytes written in the alphabet (UTF-8).
  std::string name(const std::string& bytes) const {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) out += utf8_[b];
    return out;
  }

 private:
  ByteLevelAlphabet() {
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cp = printable ? uint32_t(b) : next++;
      std::string& s = utf8_[b];
      if (cp < 0x80) {
        s += char(cp);
      } else {  // all below U+0800: two bytes
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
      }
    }
  }
  std::array<std::string, 256> utf8_;
};

}  // namespace tokenforge
