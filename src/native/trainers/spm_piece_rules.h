// Which strings sentencepiece's trainers may make into pieces (its IsValidSentencePiece), and
// how they cut normalized sentences into words. Shared by the Unigram and BPE trainers.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "unicode/unicode_classes.h"
#include "unicode/unicode_scripts.h"

namespace tokenforge {

constexpr uint32_t kSpmSpace = 0x2581;    // "▁", an escaped space
constexpr uint32_t kSpmUnknown = 0x2585;  // stands for characters outside the kept alphabet
constexpr uint32_t kSpmBoundary = 0x09;   // where a user-defined or control symbol stood

struct SpmPieceRules {
  int max_piece_length = 16;
  bool split_by_whitespace = true, split_by_unicode_script = true, split_by_number = true, split_digits = false,
       allow_whitespace_only_pieces = false;

  static bool decimal_digit(uint32_t c) { return (c >= '0' && c <= '9') || (c >= 0xFF10 && c <= 0xFF19); }

  bool valid(const uint32_t* cps, size_t n) const {
    if (n == 0 || n > size_t(max_piece_length)) return false;
    bool all_space = true;
    for (size_t i = 0; i < n; ++i) all_space = all_space && cps[i] == kSpmSpace;
    constexpr int kAny = -1;
    int prev_script = kAny;
    for (size_t pos = 0; pos < n; ++pos) {
      const uint32_t c = cps[pos];
      if (c == kSpmUnknown || c == 0 || c == kSpmBoundary || c == ' ' || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return false;
      if (c == kSpmSpace) {
        // "▁" starts a piece (or, without whitespace splitting, sits inside it, never at its
        // end); pieces of spaces alone only when allowed.
        if (!(allow_whitespace_only_pieces && all_space) &&
            ((split_by_whitespace && pos > 0) || (!split_by_whitespace && pos > 0 && pos == n - 1)))
          return false;
        continue;
      }
      int script = script_of(c);
      if (script == kScriptHiragana || script == kScriptKatakana || c == 0x30FC)
        script = kScriptHan;
      else if (script == kScriptInherited)
        script = prev_script;
      if (!split_by_number && decimal_digit(c)) script = kAny;
      if (split_digits && decimal_digit(c) && n > 1) return false;
      if (split_by_unicode_script && script != kAny && prev_script != kAny && prev_script != script) return false;
      prev_script = script;
    }
    return true;
  }

  // The words of a normalized sentence: each starts at a "▁" (a run of them stays one word
  // when whitespace-only pieces are allowed).
  std::vector<std::string_view> words(std::string_view s) const {
    std::vector<std::string_view> out;
    bool in_space_run = false;
    for (size_t i = 0; i < s.size();) {
      const size_t len = std::min(utf8_length(uint8_t(s[i])), s.size() - i);
      const bool space = s.compare(i, len, "\xE2\x96\x81") == 0;
      if (i == 0 || (space && (!in_space_run || !allow_whitespace_only_pieces))) {
        out.emplace_back(s.data() + i, 0);
        in_space_run = true;
      }
      if (!space) in_space_run = false;
      out.back() = std::string_view(out.back().data(), out.back().size() + len);
      i += len;
    }
    return out;
  }
};

}  // namespace tokenforge
