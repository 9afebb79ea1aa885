// DeepSeek V3's main pattern (the last Split of DeepSeek V3 / R1 tokenizer.json files, after
// the digit and CJK Splits of pre_tokenizers/split_sequence.h) as a hand-written scanner, exact
// to Oniguruma's reading of it (the engine HF runs it with, pre_tokenizers/regex.h):
//
//   [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+      (1) ASCII punctuation, ASCII letters
//   |[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+                (2) letters and marks, one prefix
//   | ?[\p{P}\p{S}]+[\r\n]*                              (3) punctuation and symbols
//   |\s*[\r\n]+|\s+(?!\S)|\s+                            (4) whitespace, as o200k's
//
// Oniguruma tries the alternatives in order at each position and takes the first that matches;
// greedy quantifiers give characters back only as far as the rest of the alternative needs:
//  (1) the 32 characters are ASCII's punctuation and symbols; [A-Za-z]+ is last, so it keeps
//      the whole run of ASCII letters;
//  (2) the optional prefix is tried first: a character that is no letter, punctuation, symbol,
//      \r or \n (a space, a number, a mark, a control...) with a letter or mark after it starts
//      the run; else the run of letters and marks starts here;
//  (3) a space (U+0020 only) is taken when punctuation or a symbol follows it; then the
//      newlines after the run;
//  (4) \s*[\r\n]+ ends after the run's last newline, if it has one; else \s+(?!\S) keeps the
//      run whole at the end of the text and leaves its last character for the next piece
//      otherwise (if the run has more than one); else \s+ is the run.
// Nothing matches at the other characters (numbers, controls, unassigned code points, ... with
// no letter or mark after them): those make up the text between matches, which HF's Isolated
// Split keeps as pieces of their own. \p{L}, \p{M}, \p{P}, \p{S}, \s are
// unicode/unicode_classes.h's classes (Unicode 16.0.0, as Oniguruma 6.9.10's);
// tests/test_fused_deepseek.py checks every code point, alone and in context, against HF.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/inline_hints.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class DeepSeekV3Scanner {
 public:
  DeepSeekV3Scanner(const uint8_t* s, size_t n) : s_(s), n_(n) {}

  // The end of the match that starts at p (< n), or p where none does.
  TF_INLINE size_t match_at(size_t p) const {
    const uint8_t b0 = s_[p];
    if (b0 < 0x80) {  // the commonest starts, from ASCII bytes alone
      const uint8_t next = p + 1 < n_ ? s_[p + 1] : 0;
      if (is_ascii_punct(b0))  // (1), else (3): nothing else starts with it
        return is_ascii_letter(next) ? run_ascii_letters(p + 2) : run_newlines(run_of(p + 1, kPunctuation | kSymbol));
      if (is_ascii_letter(b0)) return run_of(p + 1, kLetter | kMark);  // (2) without the prefix
      if (b0 == ' ') {
        if (is_ascii_letter(next)) return run_of(p + 2, kLetter | kMark);                      // (2)
        if (is_ascii_punct(next)) return run_newlines(run_of(p + 2, kPunctuation | kSymbol));  // (3)
      }
    }
    size_t l0;
    const uint8_t c0 = at(p, l0);
    const bool prefix = !(c0 & (kLetter | kPunctuation | kSymbol)) && b0 != '\r' && b0 != '\n';
    if (prefix && p + l0 < n_ && (at(p + l0) & (kLetter | kMark))) return run_of(p + l0, kLetter | kMark);  // (2)
    if (c0 & (kLetter | kMark)) return run_of(p + l0, kLetter | kMark);
    if (b0 == ' ' && p + 1 < n_ && (at(p + 1) & (kPunctuation | kSymbol)))
      return run_newlines(run_of(p + 1, kPunctuation | kSymbol));  // (3), the space taken
    if (c0 & (kPunctuation | kSymbol)) return run_newlines(run_of(p + l0, kPunctuation | kSymbol));
    if (c0 & kSpace) return whitespace(p);  // (4)
    return p;
  }

  // The first match at or after p: sets [start, end) and returns true, or returns false when
  // no match starts in s[p..n).
  TF_INLINE bool next_match(size_t p, size_t& start, size_t& end) const {
    while (p < n_) {
      const size_t e = match_at(p);
      if (e > p) {
        start = p;
        end = e;
        return true;
      }
      p += utf8_length(s_[p]);
    }
    return false;
  }

 private:
  const uint8_t* s_;
  size_t n_;

  static constexpr bool is_ascii_letter(uint8_t b) { return uint8_t((b | 0x20) - 'a') < 26; }
  // [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]: printable ASCII that is no letter or digit.
  static constexpr bool is_ascii_punct(uint8_t b) {
    return b > 0x20 && b < 0x7F && !is_ascii_letter(b) && !(b >= '0' && b <= '9');
  }

  TF_INLINE uint8_t at(size_t p, size_t& len) const { return class_at(s_ + p, n_ - p, len); }
  TF_INLINE uint8_t at(size_t p) const {
    size_t l;
    return at(p, l);
  }

  TF_INLINE size_t run_ascii_letters(size_t p) const {
    while (p < n_ && is_ascii_letter(s_[p])) ++p;
    return p;
  }
  // The end of the run of characters from p whose class has a bit of `want`.
  TF_INLINE size_t run_of(size_t p, uint8_t want) const {
    for (;;) {
      while (p < n_ && s_[p] < 0x80 && (kClassStage2[s_[p]] & want)) ++p;
      if (p >= n_ || s_[p] < 0x80) return p;
      size_t l;
      if (!(class_at(s_ + p, n_ - p, l) & want)) return p;
      p += l;
    }
  }
  TF_INLINE size_t run_newlines(size_t p) const {
    while (p < n_ && (s_[p] == '\r' || s_[p] == '\n')) ++p;
    return p;
  }
  // \s*[\r\n]+ | \s+(?!\S) | \s+ at p, a whitespace character.
  size_t whitespace(size_t p) const {
    size_t end = p, last_start = p, after_newline = 0;
    while (end < n_) {
      size_t l;
      if (!(at(end, l) & kSpace)) break;
      last_start = end;
      if (s_[end] == '\r' || s_[end] == '\n') after_newline = end + 1;
      end += l;
    }
    if (after_newline) return after_newline;
    if (end == n_) return end;
    return last_start > p ? last_start : end;
  }
};

}  // namespace tokenforge
