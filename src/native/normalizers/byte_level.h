// HF's ByteLevel normalizer (normalizers/byte_level.rs): every byte of the text written as its
// character of GPT-2's alphabet (byte_level_code_points(), pre_tokenizers/byte_level.h, the
// ByteLevel pre-tokenizer's table), the bytes after a character's first inserted after it, so
// each new character aligns with the input character its byte came from. Empty text stays.
// The table holds what each byte becomes; a Sequence folds the Replace steps of one character
// that follow this normalizer into it (normalizer_factory.h: ByT5's bytes as chr(byte) are
// ByteLevel and 68 such steps), and an ASCII byte the table writes as itself is left in place.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "normalizers/normalizer.h"
#include "pre_tokenizers/byte_level.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class ByteLevelNormalizer : public Normalizer {
 public:
  ByteLevelNormalizer() {
    const auto& alphabet = byte_level_code_points();
    for (size_t b = 0; b < 256; ++b) {
      uint8_t buf[4];
      out_[b].assign(reinterpret_cast<const char*>(buf), encode_utf8(alphabet[b], buf));
    }
    refresh();
  }

  // A Replace of the character `cp` by `with` (UTF-8) run right after this normalizer, folded into
  // the table. HF runs it over the characters written here, each of which one byte wrote, so it
  // acts on each byte's characters alone; the characters it writes align as the one they
  // replace, which is the input character's alignment, as here.
  void fold_replace(uint32_t cp, const std::string& with) {
    for (std::string& chars : out_) {
      std::string next;
      const uint8_t* p = reinterpret_cast<const uint8_t*>(chars.data());
      for (size_t i = 0, len; i < chars.size(); i += len) {
        if (decode_utf8(p + i, chars.size() - i, len) == cp)
          next += with;
        else
          next.append(chars, i, len);
      }
      chars.swap(next);
    }
    refresh();
  }

  void normalize(NormalizedText& text) const override {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(text.text().data());
    const size_t n = text.text().size();
    size_t i = 0;
    while (i < n && same_[s[i]]) ++i;
    if (i == n) return;  // (the empty text too)
    NormalizedText::Rewrite r(text);
    std::string chars;
    while (i < n) {
      r.keep(i);
      const size_t len = utf8_length(s[i]);
      chars.clear();
      for (size_t k = 0; k < len; ++k) chars += out_[s[i + k]];
      i += len;
      if (chars.empty())
        r.drop(i);  // (every byte's characters replaced by nothing)
      else
        r.replace_char(i, chars);
      while (i < n && same_[s[i]]) ++i;
    }
    r.finish();
  }

 private:
  void refresh() {
    for (size_t b = 0; b < 256; ++b) same_[b] = b < 0x80 && out_[b].size() == 1 && uint8_t(out_[b][0]) == b;
  }

  std::array<std::string, 256> out_;  // the characters each byte becomes, in UTF-8
  std::array<bool, 256> same_{};      // an ASCII byte written as itself
};

}  // namespace tokenforge
