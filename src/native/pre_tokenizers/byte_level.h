// HF's ByteLevel pre-tokenizer (pre_tokenizers/byte_level.rs): a space put in front of a piece
// that does not start with one (add_prefix_space), the piece cut by GPT-2's pattern (use_regex;
// pre_tokenizers/scanner.h splits it exactly), then every byte written as its character of
// GPT-2's alphabet (pre_tokenizers/byte_level_alphabet.h), the bytes after a character's first
// inserted after it.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "pre_tokenizers/pre_tokenizer.h"
#include "pre_tokenizers/scanner.h"

namespace tokenforge {

// Byte -> code point of GPT-2's alphabet (as ByteLevelAlphabet spells it).
inline const std::array<uint32_t, 256>& byte_level_code_points() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[b] = printable ? uint32_t(b) : next++;
    }
    return t;
  }();
  return table;
}

class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}

  void pre_tokenize(PreTokenizedText& pieces) const override {
    std::vector<MatchSpan> spans;
    pieces.split([&](NormalizedText&& text, std::vector<NormalizedText>& out) {
      if (add_prefix_space_ && (text.empty() || text.text()[0] != ' ')) text.prepend(" ");
      if (!use_regex_) {
        out.push_back(std::move(text));
        return;
      }
      spans.clear();
      const std::string& s = text.text();
      Scanner scanner(reinterpret_cast<const uint8_t*>(s.data()), s.size());
      for (size_t p = 0; p < s.size();) {
        const size_t end = scanner.gpt2(p);
        spans.push_back(MatchSpan{uint32_t(p), uint32_t(end), true});
        p = end;
      }
      if (spans.empty()) spans.push_back(MatchSpan{0, 0, false});
      text.split(spans, SplitBehavior::kIsolated, out);
    });
    const auto& alphabet = byte_level_code_points();
    std::vector<CharChange> changes;
    pieces.normalize([&](NormalizedText& text) {
      changes.clear();
      const std::string& s = text.text();
      for (size_t i = 0; i < s.size();) {
        const size_t len = utf8_length(uint8_t(s[i]));
        for (size_t k = 0; k < len; ++k) changes.push_back(CharChange{alphabet[uint8_t(s[i + k])], k > 0 ? 1 : 0});
        i += len;
      }
      text.transform(changes, 0);
    });
  }

 private:
  bool add_prefix_space_, use_regex_;
};

}  // namespace tokenforge
