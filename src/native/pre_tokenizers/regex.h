// A general regex for the patterns a tokenizer file carries (the Split pre-tokenizer's and the
// Replace normalizer's "Regex"), run by Oniguruma, the engine HF tokenizers runs them with (the
// Rust onig crate over the sources vendored in third_party/oniguruma/, same release): the same
// syntax, Unicode tables and matching, so every pattern splits as in HF, not only the three that
// have hand-made scanners (pre_tokenizers/scanner.h, far faster; this is the general path).
//
// A pattern compiles as onig's Regex::new does it: UTF-8, Oniguruma's default syntax
// (ONIG_SYNTAX_ONIGURUMA: Ruby-like, \p{...} classes, possessive and lazy quantifiers,
// look-around, (?i) groups), no options. find_matches cuts a text into MatchSpans
// (pre_tokenizers/match_span.h) as HF's `impl Pattern for &SysRegex` does from onig's find_iter,
// find_iter gives the matches alone (what HF's Replace normalizer rewrites). The implementation
// (pre_tokenizers/regex.cpp) keeps Oniguruma's headers out of every other translation unit.
//
// A pattern that is one character or one bracket class of plain members (characters, ranges,
// the escapes \t \n \r \f \v, \x{...}, \uHHHH, an ASCII \xHH, an escaped ASCII punctuation
// mark), alone, with + or with {n,}, is matched without Oniguruma (CharRuns, regex.cpp): each
// character of the set, or each run of at least n of them, leftmost and greedy, as Oniguruma
// matches it; Replace steps such as " {2,}" or a punctuation class meet it on every line.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pre_tokenizers/match_span.h"

namespace tokenforge {

class Regex {
 public:
  // Compiles `pattern` (UTF-8). A pattern Oniguruma rejects throws std::invalid_argument with
  // Oniguruma's message and the pattern.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Appends the spans of s[0..n) (valid UTF-8, under 2 GiB: Oniguruma's offsets are ints):
  // each match (empty ones too) and each non-empty stretch between matches, in order, covering
  // the text; an empty text gives one span (0, 0, not a match). Matches are onig's find_iter's:
  // each search starts where the last match ended, and an empty match right where the last
  // match ended is passed over by stepping one character.
  //
  // Const and thread-safe: any number of threads may search with one Regex at once (each call
  // has its own region and match parameters; the compiled program is only read).
  //
  // Limits: one attempt at one position gives up after Oniguruma's default retry limit
  // (10,000,000 backtracks, as in HF, where hitting it panics), and one search after
  // kRetriesPerByte backtracks per byte searched (at least kMinRetriesInSearch), which HF does
  // not bound; either throws std::runtime_error naming the pattern, so a pathological pattern
  // (catastrophic or quadratic backtracking in one search) fails instead of running for hours.
  void find_matches(const char* s, size_t n, std::vector<MatchSpan>& out) const;

  // Appends the matches alone (is_match true), as find_matches finds them (none in an empty
  // text): the spans HF's Replace normalizer rewrites.
  void find_iter(const char* s, size_t n, std::vector<MatchSpan>& out) const;

  const std::string& pattern() const { return pattern_; }

  static constexpr unsigned long kMinRetriesInSearch = 100000000;
  static constexpr unsigned long kRetriesPerByte = 1000;

 private:
  template <class Emit>
  void search_all(const char* s, size_t n, Emit emit) const;

  struct CharRuns;

  std::string pattern_;
  void* regex_;                           // Oniguruma's OnigRegex, only read after construction
  std::unique_ptr<const CharRuns> runs_;  // the pattern as a set of characters, where it is one
};

}  // namespace tokenforge
