// HF's Whitespace and WhitespaceSplit pre-tokenizers (pre_tokenizers/whitespace.rs).
// Whitespace keeps the matches of `\w+|[^\w\s]+` (Rust regex, Unicode \w and \s:
// unicode/hf_chars.h) and drops what lies between; WhitespaceSplit drops whitespace
// (char::is_whitespace) and keeps the rest.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "pre_tokenizers/pre_tokenizer.h"
#include "unicode/hf_chars.h"

namespace tokenforge {

// The spans of `\w+|[^\w\s]+` in s, with the stretches between them, as HF's Invert(regex) sees
// them (is_match true for what lies between, which Removed then drops).
inline void find_word_runs(std::string_view s, std::vector<MatchSpan>& out) {
  out.clear();
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  enum Kind : uint8_t { kWord, kOther, kSpace };
  static constexpr std::array<uint8_t, 128> kAscii = [] {  // each ASCII character's Kind
    std::array<uint8_t, 128> kinds{};
    for (uint32_t c = 0; c < 128; ++c) {
      const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      kinds[c] = word ? kWord : (c == ' ' || (c >= '\t' && c <= '\r')) ? kSpace : kOther;
    }
    return kinds;
  }();
  // Each character's Kind below U+10000 (64 KiB, built once from the range tables: what
  // hf_is_regex_word, then hf_is_regex_space, say of each, without a search per code point).
  struct BmpKinds {
    std::array<uint8_t, 0x10000> kinds{};
    BmpKinds() {
      kinds.fill(kOther);
      for (uint32_t c = 0; c < 128; ++c) kinds[c] = kAscii[c];
      auto fill = [&](const auto& ranges, uint8_t kind) {
        for (const hf_chars::CodePointRange& r : ranges)
          for (uint32_t cp = std::max<uint32_t>(r.first, 0x80); cp <= r.last && cp < 0x10000; ++cp) kinds[cp] = kind;
      };
      fill(hf_chars::kRegexSpace, kSpace);
      fill(hf_chars::kRegexWord, kWord);  // (a word character first, as kind_at asks)
    }
  };
  static const BmpKinds bmp;
  auto kind_at = [&](size_t i, size_t& len) {
    if (p[i] < 0x80) {
      len = 1;
      return Kind(kAscii[p[i]]);
    }
    const uint32_t cp = decode_utf8(p + i, n - i, len);
    if (cp < 0x10000) return Kind(bmp.kinds[cp]);
    return hf_is_regex_word(cp) ? kWord : hf_is_regex_space(cp) ? kSpace : kOther;
  };
  uint32_t prev = 0;
  for (size_t i = 0; i < n;) {
    size_t len;
    const Kind k = kind_at(i, len);
    if (k == kSpace) {
      i += len;
      continue;
    }
    size_t j = i + len;
    while (j < n && p[j] < 0x80 && kAscii[p[j]] == k) ++j;  // (an ASCII run at a time)
    while (j < n) {
      size_t l2;
      if (kind_at(j, l2) != k) break;
      j += l2;
    }
    if (prev != i) out.push_back(MatchSpan{prev, uint32_t(i), true});
    out.push_back(MatchSpan{uint32_t(i), uint32_t(j), false});
    prev = uint32_t(j);
    i = j;
  }
  if (prev != n || n == 0) out.push_back(MatchSpan{prev, uint32_t(n), true});
}

class WhitespacePreTokenizer : public Cutter {
 public:
  void cut(std::string_view text, std::vector<Cut>& out) const override {
    cut_by(text, SplitBehavior::kRemoved, find_word_runs, out);
  }
};

// (BertPreTokenizer's first pass)
inline void cut_at_whitespace(std::string_view text, std::vector<Cut>& out) {
  cut_by(
      text, SplitBehavior::kRemoved,
      [](std::string_view s, std::vector<MatchSpan>& spans) { find_char_matches(s, hf_is_whitespace, spans); }, out);
}

class WhitespaceSplitPreTokenizer : public Cutter {
 public:
  void cut(std::string_view text, std::vector<Cut>& out) const override { cut_at_whitespace(text, out); }
};

}  // namespace tokenforge
