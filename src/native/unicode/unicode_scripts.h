// The Unicode script of a code point (Scripts.txt; unassigned ones count as Common), for
// sentencepiece's rule that a trained piece stays within one script.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>

namespace tokenforge {

struct ScriptRange {
  uint32_t start;
  uint8_t script;
};

#include "unicode/unicode_scripts.inc"

enum Script : uint8_t {
  kScriptCommon = 0,
  kScriptInherited = 1,
  kScriptHan = 2,
  kScriptHiragana = 3,
  kScriptKatakana = 4
};

inline uint8_t script_of(uint32_t cp) {
  const auto it = std::upper_bound(std::begin(kScriptRanges), std::end(kScriptRanges), cp,
                                   [](uint32_t c, const ScriptRange& r) { return c < r.start; });
  return it == std::begin(kScriptRanges) ? uint8_t(kScriptCommon) : std::prev(it)->script;
}

}  // namespace tokenforge
