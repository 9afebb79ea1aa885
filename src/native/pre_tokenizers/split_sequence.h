// The stages of a pre-tokenizer Sequence run before ByteLevel, as built-in scanners: the
// Isolated Splits (and the Digits) of DeepSeek's tokenizer.json files,
//   DeepSeek V3 / R1:   Split(\p{N}{1,3}), Split([一-龥\u3040-ゟ゠-ヿ]+), then either the main
//                       pattern as a stage here (kDeepSeekV3) or any Split after them
//                       (pipelines/byte_level_hf_bpe.h's split, Oniguruma or a scanner);
//   DeepSeek LLM / V2:  Split([\r\n]), Split(\s?[A-Za-zµÀ-ÖØ-öø-ƺ...]+), Split(\s?[!-/:-~！-／：-～‘-‟　-。]+),
//                       Split(\s+$), Split([一-龥ࠀ-一가-퟿]+), Digits(individual_digits);
//   DeepSeek Coder:     Split([\r\n]), Split(\s?\p{L}+), Split(\s?\p{P}+), Split([一-龥ࠀ-一가-퟿]+),
//                       Digits(individual_digits);
// each then ByteLevel(use_regex=false). HF runs a Sequence stage by stage: each cuts every piece
// the previous one left, a match and the text between matches each a piece (Isolated), empty
// ones dropped. A stage here does the same on one piece, which is the whole subject of its
// pattern (`$` and look-ahead see the piece's end): it calls the next stage for each of its
// pieces, in order, so the whole sequence is one pass with no piece list.
// DeepSeek V3's three stages have a pass of their own (DeepSeekV3Sequence): one walk over the
// text, no stage calling the next.
//
// The stages (PreSplit) compute their patterns exactly as Oniguruma reads them (each search
// starts where the last match ended; the first alternative that matches at the leftmost
// position wins; greedy runs give back only what the rest needs):
//  kDigits3:        \p{N}{1,3}: a run of numbers is cut in threes from its start;
//  kDeepSeekCjk:    maximal runs of U+4E00..U+9FA5 and U+3040..U+30FF (the kana ranges meet);
//  kDeepSeekV3:     DeepSeek V3's main pattern (pre_tokenizers/deepseek_scanner.h);
//  kNewline:        [\r\n]: each \r and \n alone;
//  kLlmLetters, kLlmPunct, kSpaceLetters, kSpacePunct:  \s?[X]+ for a class X (the ranges
//                   below, \p{L}, \p{P}): a whitespace character with an X after it starts the
//                   run of X, else the run starts at an X;
//  kTrailingSpace:  \s+$, where $ holds at the end and before each \n (Oniguruma's default
//                   syntax, no options): a run of whitespace up to the end, or up to the run's
//                   last \n (where one follows the run's first character);
//  kLlmCjk:         maximal runs of U+0800..U+9FA5 and U+AC00..U+D7FF;
//  kDigitsAlone:    HF's Digits(individual_digits): each char::is_numeric character alone
//                   (unicode/hf_chars.h, Rust's table as tokenizers 0.23.3 has it).
//  kBloom:          BLOOM's Split, ` ?[^(\s|[.,!?…。，、।۔،])]+` (Oniguruma reads the inner [...] as a
//                   class inside the class): a run of characters that are not whitespace, ( | )
//                   or . , ! ? … 。 ， 、 । ۔ ،, with the space before it where there is one.
// Falcon's Sequence runs whole here too (its tokenizer.json files:
//   Punctuation(Contiguous), ByteLevel(use_regex, no prefix space), Digits(contiguous),
//   Split([0-9][0-9][0-9], Isolated)):
//  kPunctuation:    HF's Punctuation(Contiguous): maximal runs of is_punc characters
//                   (ASCII punctuation or P*, unicode/hf_chars.h);
//  kGpt2:           ByteLevel's own regex on each piece (pre_tokenizers/scanner.h's GPT-2 scanner);
//  kByteNumeric:    HF's Digits(contiguous) after ByteLevel: maximal runs of bytes whose GPT-2
//                   byte character is char::is_numeric (the ASCII digits and ² ³ ¹ ¼ ½ ¾, which
//                   are bytes inside UTF-8 characters: HF cuts those characters there);
//  kAsciiDigits3:   [0-9][0-9][0-9] after ByteLevel: three ASCII digits, leftmost first.
// The last two read bytes, not characters: after ByteLevel every byte is a character of its own.
// \p{N}, \p{L}, \p{P}, \s are unicode/unicode_classes.h's classes (Unicode 16.0.0, as Oniguruma's).
// tokenforge/pipeline/fused_hf_bpe.py recognises the stages by their exact regex strings
// (a table); anything else stays on the staged pipeline. tests/test_fused_deepseek.py and
// tests/test_fused_deepseek_llm.py check each stage against HF on every code point.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/inline_hints.h"
#include "pre_tokenizers/deepseek_scanner.h"
#include "pre_tokenizers/deepseek_v3_ends.h"
#include "pre_tokenizers/byte_level.h"
#include "pre_tokenizers/scanner.h"
#include "unicode/hf_chars.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

enum class PreSplit : int {
  kDigits3 = 1,
  kDeepSeekCjk = 2,
  kDeepSeekV3 = 3,
  kNewline = 4,
  kLlmLetters = 5,
  kLlmPunct = 6,
  kTrailingSpace = 7,
  kLlmCjk = 8,
  kDigitsAlone = 9,
  kSpaceLetters = 10,
  kSpacePunct = 11,
  kBloom = 12,
  kPunctuation = 13,
  kGpt2 = 14,
  kByteNumeric = 15,
  kAsciiDigits3 = 16,
};

constexpr bool is_pre_split(int kind) {
  return kind >= int(PreSplit::kDigits3) && kind <= int(PreSplit::kAsciiDigits3);
}

// The characters BLOOM's Split stops at besides whitespace: ( | ) . , ! ? … 。 ， 、 । ۔ ،
inline bool is_bloom_stop(uint32_t cp) {
  switch (cp) {
    case '(':
    case '|':
    case ')':
    case '.':
    case ',':
    case '!':
    case '?':
    case 0x2026:
    case 0x3002:
    case 0xFF0C:
    case 0x3001:
    case 0x0964:
    case 0x06D4:
    case 0x060C:
      return true;
    default:
      return false;
  }
}

// Whether byte b's GPT-2 byte character (pre_tokenizers/byte_level.h) is char::is_numeric.
inline bool byte_char_is_numeric(uint8_t b) {
  static const std::array<bool, 256> table = [] {
    std::array<bool, 256> t{};
    const auto& alphabet = byte_level_code_points();
    for (int i = 0; i < 256; ++i) t[i] = hf_is_numeric(alphabet[i]);
    return t;
  }();
  return table[b];
}

namespace deepseek_ranges {

using hf_chars::CodePointRange;

// The class of DeepSeek LLM's letter Split, \s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵ
// Ϸ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴ
// ῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ
// 𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+ (its ranges as written, in order).
inline constexpr CodePointRange kLlmLetters[] = {
    {0x0041, 0x005A},   {0x0061, 0x007A},   {0x00B5, 0x00B5},   {0x00C0, 0x00D6},   {0x00D8, 0x00F6},
    {0x00F8, 0x01BA},   {0x01BC, 0x01BF},   {0x01C4, 0x0293},   {0x0295, 0x02AF},   {0x0370, 0x0373},
    {0x0376, 0x0377},   {0x037B, 0x037D},   {0x037F, 0x037F},   {0x0386, 0x0386},   {0x0388, 0x038A},
    {0x038C, 0x038C},   {0x038E, 0x03A1},   {0x03A3, 0x03F5},   {0x03F7, 0x0481},   {0x048A, 0x052F},
    {0x0531, 0x0556},   {0x10A0, 0x10C5},   {0x13A0, 0x13F5},   {0x13F8, 0x13FD},   {0x1C90, 0x1CBA},
    {0x1CBD, 0x1CBF},   {0x1D00, 0x1D2B},   {0x1D6B, 0x1D77},   {0x1D79, 0x1D9A},   {0x1E00, 0x1F15},
    {0x1F18, 0x1F1D},   {0x1F20, 0x1F45},   {0x1F48, 0x1F4D},   {0x1F50, 0x1F57},   {0x1F59, 0x1F59},
    {0x1F5B, 0x1F5B},   {0x1F5D, 0x1F5D},   {0x1F5F, 0x1F7D},   {0x1F80, 0x1FB4},   {0x1FB6, 0x1FBC},
    {0x1FBE, 0x1FBE},   {0x1FC2, 0x1FC4},   {0x1FC6, 0x1FCC},   {0x1FD0, 0x1FD3},   {0x1FD6, 0x1FDB},
    {0x1FE0, 0x1FEC},   {0x1FF2, 0x1FF4},   {0x1FF6, 0x1FFC},   {0x2102, 0x2102},   {0x2107, 0x2107},
    {0x210A, 0x2113},   {0x2115, 0x2115},   {0x2119, 0x211D},   {0x2124, 0x2124},   {0x2126, 0x2126},
    {0x2128, 0x2128},   {0x212A, 0x212D},   {0x212F, 0x2134},   {0x2139, 0x2139},   {0x213C, 0x213F},
    {0x2145, 0x2149},   {0x214E, 0x214E},   {0x2183, 0x2184},   {0x2C00, 0x2C7B},   {0x2C7E, 0x2CE4},
    {0x2CEB, 0x2CEE},   {0x2CF2, 0x2CF3},   {0xA640, 0xA66D},   {0xA680, 0xA69B},   {0xA722, 0xA76F},
    {0xA771, 0xA787},   {0xA78B, 0xA78E},   {0xAB70, 0xABBF},   {0xFB00, 0xFB06},   {0xFB13, 0xFB17},
    {0xFF21, 0xFF3A},   {0xFF41, 0xFF5A},   {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB},
    {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
};
// DeepSeek LLM's punctuation Split, \s?[!-/:-~！-／：-～‘-‟　-。]+ (sorted: the file lists the
// last two ranges after the fullwidth ones).
inline constexpr CodePointRange kLlmPunct[] = {
    {0x0021, 0x002F}, {0x003A, 0x007E}, {0x2018, 0x201F}, {0x3000, 0x3002}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF5E},
};

template <size_t N>
constexpr bool sorted_apart(const CodePointRange (&r)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (r[i].first > r[i].last || (i > 0 && r[i - 1].last >= r[i].first)) return false;
  return true;
}
static_assert(sorted_apart(kLlmLetters) && sorted_apart(kLlmPunct), "in_ranges needs sorted, disjoint ranges");

}  // namespace deepseek_ranges

// One stage's matches in a piece s[0..n) (its whole subject).
class PreSplitStage {
 public:
  PreSplitStage(int kind, const uint8_t* s, size_t n) : kind_(PreSplit(kind)), s_(s), n_(n) {}

  // The first match at or after p: sets [start, end) (never empty) and returns true, or returns
  // false when no match starts in s[p..n).
  bool next_match(size_t p, size_t& start, size_t& end) const {
    switch (kind_) {
      case PreSplit::kDeepSeekV3:
        return DeepSeekV3Scanner(s_, n_).next_match(p, start, end);
      case PreSplit::kNewline:
        for (; p < n_; ++p)
          if (s_[p] == '\r' || s_[p] == '\n') {
            start = p;
            end = p + 1;
            return true;
          }
        return false;
      case PreSplit::kTrailingSpace:
        return trailing_space(p, start, end);
      case PreSplit::kGpt2:  // the pieces tile the text: each one a match
        if (p >= n_) return false;
        start = p;
        end = Scanner(s_, n_).gpt2(p);
        return true;
      case PreSplit::kByteNumeric:
        for (; p < n_ && !byte_char_is_numeric(s_[p]); ++p) {
        }
        if (p >= n_) return false;
        for (start = end = p; end < n_ && byte_char_is_numeric(s_[end]); ++end) {
        }
        return true;
      case PreSplit::kAsciiDigits3:
        for (size_t run = 0; p < n_; ++p) {
          run = uint8_t(s_[p] - '0') <= 9 ? run + 1 : 0;
          if (run == 3) {
            start = p - 2;
            end = p + 1;
            return true;
          }
        }
        return false;
      default:
        break;
    }
    const bool digits = kind_ == PreSplit::kDigits3 || kind_ == PreSplit::kDigitsAlone;
    const bool cjk = kind_ == PreSplit::kDeepSeekCjk || kind_ == PreSplit::kLlmCjk;
    for (; p < n_; p += utf8_length(s_[p])) {
      // Where no match can start: ASCII but digits for the digit stages, characters below
      // U+0800 (lead bytes below 0xE0) for the CJK stages.
      if (digits)
        while (p < n_ && s_[p] < 0x80 && uint8_t(s_[p] - '0') > 9) ++p;
      else if (cjk)
        while (p < n_ && s_[p] < 0xE0) ++p;
      if (p >= n_) break;
      const size_t e = match_at(p);
      if (e > p) {
        start = p;
        end = e;
        return true;
      }
    }
    return false;
  }

 private:
  PreSplit kind_;
  const uint8_t* s_;
  size_t n_;

  // decode_utf8 takes ASCII first, so this is the whole fast path.
  TF_INLINE uint32_t at(size_t p, size_t& len) const { return decode_utf8(s_ + p, n_ - p, len); }

  TF_INLINE bool in_class(uint32_t cp) const {
    using namespace deepseek_ranges;
    switch (kind_) {
      case PreSplit::kDigits3:
        return is_number(cp);
      case PreSplit::kDeepSeekCjk:
        return is_v3_cjk(cp);
      case PreSplit::kLlmCjk:
        return (cp >= 0x0800 && cp <= 0x9FA5) || (cp >= 0xAC00 && cp <= 0xD7FF);
      case PreSplit::kDigitsAlone:
        return hf_is_numeric(cp);
      case PreSplit::kLlmLetters:
        return cp < 0x80 ? uint32_t((cp | 0x20) - 'a') < 26 : hf_chars::in_ranges(kLlmLetters, cp);
      case PreSplit::kLlmPunct:
        return cp < 0x80 ? (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x7E)
                         : hf_chars::in_ranges(kLlmPunct, cp);
      case PreSplit::kSpaceLetters:
        return (class_of(cp) & kLetter) != 0;
      case PreSplit::kSpacePunct:
        return (class_of(cp) & kPunctuation) != 0;
      case PreSplit::kPunctuation:
        return hf_is_punctuation(cp);
      case PreSplit::kBloom:
        return !(class_of(cp) & kSpace) && !is_bloom_stop(cp);
      default:
        return false;
    }
  }

  // The end of the run of the stage's class from p (at most `limit` characters).
  TF_INLINE size_t run_end(size_t p, size_t limit = ~size_t(0)) const {
    for (size_t count = 0; p < n_ && count < limit; ++count) {
      size_t len;
      if (!in_class(at(p, len))) break;
      p += len;
    }
    return p;
  }

  // The end of the match at p, or p where none starts there.
  TF_INLINE size_t match_at(size_t p) const {
    size_t len;
    const uint32_t cp = at(p, len);
    switch (kind_) {
      case PreSplit::kDigits3:
        return run_end(p, 3);
      case PreSplit::kDigitsAlone:
        return in_class(cp) ? p + len : p;
      case PreSplit::kBloom:  // ` ?[X]+`: the space is tried first, then the run without it
        if (cp == ' ' && p + 1 < n_) {
          size_t next_len;
          if (in_class(at(p + 1, next_len))) return run_end(p + 1);
        }
        return run_end(p);
      case PreSplit::kLlmLetters:
      case PreSplit::kLlmPunct:
      case PreSplit::kSpaceLetters:
      case PreSplit::kSpacePunct:
        // \s?[X]+: the space is tried first (greedy), then the run without it.
        if ((class_of(cp) & kSpace) && p + len < n_) {
          size_t next_len;
          if (in_class(at(p + len, next_len))) return run_end(p + len);
        }
        return run_end(p);
      default:  // the runs: kDeepSeekCjk, kLlmCjk, kPunctuation
        return run_end(p);
    }
  }

  // \s+$: the first whitespace run at or after p that reaches the end, or has a \n after its
  // first character, matches up to the end or its last \n (greedy, giving back only down to
  // where $ holds); the rest of such a run, and every other run, has no match (a later start
  // in a run sees a subset of the places where $ holds).
  bool trailing_space(size_t p, size_t& start, size_t& end) const {
    while (p < n_) {
      size_t len;
      if (!(class_of(at(p, len)) & kSpace)) {
        p += len;
        continue;
      }
      size_t r = p + len, dollar = 0;
      while (r < n_) {
        size_t l;
        if (!(class_of(at(r, l)) & kSpace)) break;
        if (s_[r] == '\n') dollar = r;
        r += l;
      }
      if (r == n_) dollar = r;
      if (dollar) {
        start = p;
        end = dollar;
        return true;
      }
      p = r;
    }
    return false;
  }
};

// DeepSeek V3's whole Sequence (kDigits3, kDeepSeekCjk, kDeepSeekV3) in one pass over
// t[from..to) (pre_tokenizers/deepseek_v3_ends.h): calls piece(start, end) for each piece, in
// order, what the three stages give one after another.
class DeepSeekV3Sequence {
 public:
  DeepSeekV3Sequence(const uint8_t* t, size_t to) : t_(t), to_(to) {}

  template <class Piece>
  void run(size_t p, Piece& piece) const {
    DeepSeekV3Ends ends(t_ + p, to_ - p);
    for (size_t q = 0; q < to_ - p;) {
      const size_t e = ends.next(q);
      piece(p + q, p + e);
      q = e;
    }
  }

 private:
  const uint8_t* t_;
  size_t to_;
};

// Whether the stages are DeepSeek V3's Sequence (DeepSeekV3Sequence runs it whole).
inline bool is_deepseek_v3(const std::vector<int>& stages) {
  return stages.size() == 3 && stages[0] == int(PreSplit::kDigits3) && stages[1] == int(PreSplit::kDeepSeekCjk) &&
         stages[2] == int(PreSplit::kDeepSeekV3);
}

// Calls last(from, to) for each piece of t[from..to) that the stages stages[k..] leave, in
// order (no empty piece).
template <class Last>
void run_pre_splits(const std::vector<int>& stages, size_t k, const uint8_t* t, size_t from, size_t to, Last& last) {
  if (from >= to) return;
  if (k == stages.size()) return last(from, to);
  if (k == 0 && is_deepseek_v3(stages)) return DeepSeekV3Sequence(t, to).run(from, last);
  const PreSplitStage stage(stages[k], t + from, to - from);
  size_t gap_start = 0, start, end;  // [gap_start, start) is text between matches
  for (size_t p = 0; stage.next_match(p, start, end); p = end) {
    run_pre_splits(stages, k + 1, t, from + gap_start, from + start, last);
    run_pre_splits(stages, k + 1, t, from + start, from + end, last);
    gap_start = end;
  }
  run_pre_splits(stages, k + 1, t, from + gap_start, to, last);
}

}  // namespace tokenforge
