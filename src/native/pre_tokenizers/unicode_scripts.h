// HF's UnicodeScripts pre-tokenizer (pre_tokenizers/unicode_scripts/pre_tokenizer.rs): a piece
// is cut where the script changes, as sentencepiece's Unigram trainer keeps a piece within one
// script. Scripts are HF's own table (unicode/hf_scripts.inc, generated from its scripts.rs by
// tools/gen_hf_scripts.py; not unicode/unicode_scripts.h, sentencepiece's trainer's table of a
// newer Unicode), with HF's fixed_script: U+30FC, Hiragana and Katakana count as Han, and " "
// (like any code point the table leaves out) is Any, which joins whatever is around it.
//
// As HF, a cut goes before each character whose script is not Any and differs from the last
// script that was not Any; the first cut is before the first character that is not Any, so
// leading Any characters (spaces) are dropped, and a piece of only Any characters vanishes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

struct HfScriptRange {
  uint32_t start;
  uint8_t script;
};

#include "unicode/hf_scripts.inc"

// HF's get_script: the script id of cp (ids in HF's enum order, hf_scripts.inc; 0 = Any).
inline uint8_t hf_script_of(uint32_t cp) {
  const auto it = std::upper_bound(std::begin(kHfScriptRanges), std::end(kHfScriptRanges), cp,
                                   [](uint32_t c, const HfScriptRange& r) { return c < r.start; });
  return it == std::begin(kHfScriptRanges) ? kHfScriptAny : std::prev(it)->script;
}

// HF's fixed_script.
inline uint8_t hf_fixed_script(uint32_t cp) {
  if (cp == 0x30FC) return kHfScriptHan;
  if (cp == ' ') return kHfScriptAny;
  const uint8_t s = hf_script_of(cp);
  return s == kHfScriptHiragana || s == kHfScriptKatakana ? kHfScriptHan : s;
}

class UnicodeScriptsPreTokenizer : public PreTokenizer {
 public:
  void pre_tokenize(PreTokenizedText& pieces) const override {
    std::vector<size_t> cuts;
    pieces.split([&](NormalizedText&& text, std::vector<NormalizedText>& out) {
      cuts.clear();
      bool have_last = false;  // HF's last_script: None until a character that is not Any
      uint8_t last = 0;
      text.for_each_char([&](uint32_t cp, size_t at, size_t) {
        const uint8_t script = cp < 0x80 && cp != ' ' ? ascii_script(cp) : hf_fixed_script(cp);
        if (script == kHfScriptAny) return;
        if (!have_last || last != script) cuts.push_back(at);
        have_last = true;
        last = script;
      });
      cuts.push_back(text.size());
      for (size_t k = 0; k + 1 < cuts.size(); ++k) out.push_back(text.slice(cuts[k], cuts[k + 1]));
    });
  }

 private:
  // ASCII through a table (HF's scripts of ASCII: Latin letters, the rest Common).
  static uint8_t ascii_script(uint32_t cp) {
    static const auto table = [] {
      std::vector<uint8_t> t(0x80);
      for (uint32_t c = 0; c < 0x80; ++c) t[c] = hf_script_of(c);
      return t;
    }();
    return table[cp];
  }
};

}  // namespace tokenforge
