// HF's Nmt normalizer (normalizers/unicode.rs, do_nmt; sentencepiece's nmt rules without their
// NFKC): the control characters U+0001..U+0008, U+000B, U+000E..U+001F, U+007F, U+008F and
// U+009F removed (HF's filter), then the other characters sentencepiece reads as whitespace
// (tab, LF, FF, CR, U+1680, U+200B..U+200F, U+2028, U+2029, U+2581, U+FEFF, U+FFFD) each
// replaced by " " (HF's map): two passes, as HF makes them. A text with none of these characters
// goes through both unchanged (each character replaces itself), so it is left as it is.
#pragma once
#include <cstdint>

#include "normalizers/normalizer.h"

namespace tokenforge {

class NmtNormalizer : public Normalizer {
 public:
  void normalize(NormalizedText& text) const override {
    bool any = false;
    text.for_each_char([&](uint32_t c, size_t, size_t) { any |= removed(c) || spaced(c) != c; });
    if (!any) return;
    text.filter([](uint32_t c) { return !removed(c); });
    text.map(spaced);
  }

 private:
  static bool removed(uint32_t c) {
    return (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F || c == 0x8F || c == 0x9F;
  }
  static uint32_t spaced(uint32_t c) {
    switch (c) {
      case 0x09:
      case 0x0A:
      case 0x0C:
      case 0x0D:
      case 0x1680:
      case 0x2028:
      case 0x2029:
      case 0x2581:
      case 0xFEFF:
      case 0xFFFD:
        return ' ';
      default:
        return c >= 0x200B && c <= 0x200F ? uint32_t(' ') : c;
    }
  }
};

}  // namespace tokenforge
