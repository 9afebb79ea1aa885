// Hand-written pre-tokenizers: exact, allocation-free equivalents of tiktoken's split patterns.
//
// Each scanner returns the end of the piece that starts at `p`, reproducing the leftmost-first,
// backtracking semantics of the pattern it replaces (alternatives are tried in order; within one,
// greedy quantifiers give characters back only as far as the rest of it needs). Every character
// belongs to some piece for these patterns, so pieces tile the text.
//
// Two more are one step from cl100k's, the patterns HF tokenizer.json files of Llama 3 and Qwen2
// (Qwen2.5, Qwen3) carry, run by Oniguruma there (pipelines/byte_level_hf_bpe.h runs them):
//  Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//           |\s*[\r\n]+|\s+(?!\S)|\s+
//  Qwen2:   the same with \p{N} for \p{N}{1,3}.
// And one step from o200k's, the pattern of Mistral's tekken.json files (and of the tokenizer.json
// files converted from them):
//  tekken:  o200k's without the contraction suffixes, with \p{N} for \p{N}{1,3}.
// Greedy where cl100k is possessive changes nothing (nothing after those quantifiers can fail);
// the whitespace alternatives are o200k's, which differ from cl100k's only at the end of the
// text: a run there with a newline splits after its last newline instead of staying whole.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "pre_tokenizers/block_scanner.h"
#include "base/bytes.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

// Kinds of ASCII bytes for the fast paths, from the same Unicode classes as the general path.
enum : uint8_t { kUp = 1, kLow = 2, kDigit = 4, kBlank = 8, kNewline = 16, kPunct = 32, kHigh = 64 };
struct ByteKinds {
  uint8_t of[256];
  constexpr ByteKinds() : of() {
    for (int b = 0; b < 256; ++b) {
      const uint8_t c = b < 0x80 ? kClassStage2[b] : 0;
      of[b] = b >= 0x80                ? kHigh
              : b == '\r' || b == '\n' ? kNewline
              : (c & kLetter)          ? ((c & kLowerish) ? kLow : kUp)
              : (c & kNumber)          ? kDigit
              : (c & kSpace)           ? kBlank
                                       : kPunct;
    }
  }
};
inline constexpr ByteKinds kKinds{};

// kClip is not a tiling split: see Scanner::clip.
enum class Pattern : int {
  kGpt2 = 0,
  kCl100k = 1,
  kO200k = 2,
  kLlama3 = 3,
  kQwen2 = 4,
  kTekken = 5,
  kClip = 6,
  kClipSpecials = 7  // CLIP's with <\|startoftext\|>|<\|endoftext\|>| first (transformers' CLIPTokenizer)
};

class Scanner {
 public:
  // avx2: whether windows use window_starts_avx2 (by default where the CPU has AVX2 and
  // base/cpu_features.h's switch allows it).
  Scanner(const uint8_t* s, size_t n, bool avx2 = avx2_enabled()) : s_(s), n_(n), avx2_(avx2) {}

  // The end of the piece that starts at p. Called with each returned end in turn, the cl100k
  // and o200k scanners hand out the starts of a whole ASCII window (block_scanner.h) at once.
  size_t next(Pattern pat, size_t p) {
    switch (pat) {
      case Pattern::kGpt2:
        return gpt2(p);
      case Pattern::kCl100k:
        return cl100k(p);
      case Pattern::kLlama3:
        return llama3(p);
      case Pattern::kQwen2:
        return qwen2(p);
      case Pattern::kTekken:
        return tekken(p);
      default:
        return o200k(p);
    }
  }
  // The ends of the pieces from p (before the text's end) on, up to max of them, into
  // to[0..): returns how many (fewer than max only where the text ends). What a window found
  // is copied out in one loop, not handed out a call at a time.
  template <Pattern P>
  TF_INLINE size_t ends(size_t p, size_t* to, size_t max) {
    size_t m = 0;
    while (m < max && p < n_) {
      if (P != Pattern::kGpt2 && p == handed_ && pending_) {
        uint64_t pending = pending_;
        const size_t base = window_;  // a local: stores to `to` might alias the member
        do {
          to[m++] = base + size_t(__builtin_ctzll(pending));
          pending &= pending - 1;
        } while (pending && m < max);
        pending_ = pending;
        p = handed_ = to[m - 1];
        continue;
      }
      if constexpr (P == Pattern::kGpt2)
        p = gpt2(p);
      else if constexpr (P == Pattern::kCl100k)
        p = cl100k(p);
      else if constexpr (P == Pattern::kLlama3)
        p = llama3(p);
      else if constexpr (P == Pattern::kQwen2)
        p = qwen2(p);
      else if constexpr (P == Pattern::kTekken)
        p = tekken(p);
      else
        p = o200k(p);
      to[m++] = p;
    }
    return m;
  }
  size_t cl100k(size_t p) { return windowed<false>(p); }
  size_t o200k(size_t p) { return windowed<true>(p); }
  size_t llama3(size_t p) { return windowed<false, true, false>(p); }
  size_t qwen2(size_t p) { return windowed<false, true, true>(p); }
  size_t tekken(size_t p) { return windowed<true, true, true, false>(p); }
  // The character-by-character scanner alone, for tests.
  size_t scalar(Pattern pat, size_t p) const {
    switch (pat) {
      case Pattern::kGpt2:
        return gpt2(p);
      case Pattern::kCl100k:
        return cl100k_scalar(p);
      case Pattern::kLlama3:
        return cl100k_scalar<true, false>(p);
      case Pattern::kQwen2:
        return cl100k_scalar<true, true>(p);
      case Pattern::kTekken:
        return o200k_scalar<false, true>(p);
      default:
        return o200k_scalar(p);
    }
  }

  // r50k/p50k/gpt2: '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s
  size_t gpt2(size_t p) const {
    size_t l0;
    const uint8_t c0 = at(p, l0);
    if (s_[p] == '\'') {
      size_t e = contraction_exact(p + 1);
      if (e) return e;
    }
    for (uint8_t want : {uint8_t(kLetter), uint8_t(kNumber)}) {
      if (c0 & want) return run_of(p, want);
      if (s_[p] == ' ' && p + 1 < n_ && (at(p + 1) & want)) return run_of(p + 1, want);
    }
    if (is_other(c0)) return run_other(p);
    if (s_[p] == ' ' && p + 1 < n_ && is_other(at(p + 1))) return run_other(p + 1);
    return whitespace(p, l0, /*newline_alternative=*/false);
  }

  // CLIP's Split (Removed, invert: the matches are the pieces, the rest is dropped):
  //   's|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+
  // Every character but \s starts a match, so what falls between the matches is the runs of
  // \s. The end of the piece at p, or with `gap` set, of the run of \s at p (dropped).
  // specials: the pattern starts with <\|startoftext\|>|<\|endoftext\|>| (the files transformers'
  // CLIPTokenizer writes); ByteLevel's regex then cuts such a match into "<|", its word and
  // "|>", which are the pieces given here (the "|>" ends at once, where the plain pattern's run
  // of punctuation would go on). Called with each returned end in turn.
  TF_INLINE size_t clip(size_t p, bool& gap, bool specials = false) {
    const uint8_t b = s_[p];
    gap = false;
    if (specials && b == '<') {
      if (starts_with(p, "<|startoftext|>", 15)) {
        special_end_ = p + 13;
        return p + 2;
      } else if (starts_with(p, "<|endoftext|>", 13)) {
        special_end_ = p + 11;
        return p + 2;
      }
    }
    if (specials && p == special_end_) return p + 2;
    if (b < 0x80) {  // ASCII: letters, a digit, an apostrophe, punctuation or blanks
      const uint8_t k = kKinds.of[b];
      if (k & (kUp | kLow)) return run_of(p, kLetter);
      if (k & kDigit) return p + 1;
      if (b == '\'') {
        const size_t e = contraction_exact(p + 1);
        if (e) return e;
      }
      if (k & kPunct) return run_other(p);
      gap = true;
      return run_of(p, kSpace);
    }
    size_t l0;
    const uint8_t c0 = at(p, l0);
    if (c0 & kLetter) return run_of(p, kLetter);
    if (c0 & kNumber) return p + l0;
    if (is_other(c0)) return run_other(p);
    gap = true;
    return run_of(p, kSpace);
  }

  // cl100k: '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|
  //         ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
  // kEndSplit: Llama 3's whitespace (\s*[\r\n]+|\s+(?!\S)|\s+); kOneDigit: \p{N} (Qwen2).
  template <bool kEndSplit = false, bool kOneDigit = false>
  size_t cl100k_scalar(size_t p) const {
    const size_t fast = cl100k_ascii<kOneDigit ? 1 : 3>(p);
    if (fast) return fast;
    size_t l0;
    const uint8_t c0 = at(p, l0);
    if (s_[p] == '\'') {
      size_t e = contraction_folded(p + 1, /*multi=*/true);
      if (e) return e;
    }
    if (c0 & kLetter) return run_of(p, kLetter);
    if (is_prefix(c0, s_[p]) && p + l0 < n_ && (at(p + l0) & kLetter)) return run_of(p + l0, kLetter);
    if (c0 & kNumber) return kOneDigit ? p + l0 : up_to_three_numbers(p);
    size_t q = (s_[p] == ' ' && p + 1 < n_ && is_other(at(p + 1))) ? p + 1 : p;
    if (is_other(at(q))) return run_newlines(run_other(q), /*slash=*/false);
    if (kEndSplit) return whitespace_split(p);
    return whitespace(p, l0, /*newline_alternative=*/true);
  }

  // o200k: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
  //       |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
  //       |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
  // kContractions false, kOneDigit true: tekken's (no contraction suffixes, single digits).
  template <bool kContractions = true, bool kOneDigit = false>
  size_t o200k_scalar(size_t p) const {
    const size_t fast = o200k_ascii<kContractions, kOneDigit>(p);
    if (fast) return fast;
    size_t l0;
    const uint8_t c0 = at(p, l0);
    const bool prefix = is_prefix(c0, s_[p]) && p + l0 < n_;
    // The two letter alternatives need a letter or mark right here or after the prefix.
    constexpr uint8_t kLetterish = kUpperish | kLowerish;
    size_t e;
    if ((c0 & kLetterish) || (prefix && (at(p + l0) & kLetterish))) {
      // The optional prefix is greedy: each alternative first tries with it, then without.
      if (prefix && (e = upper_then_lower<kContractions>(p + l0)) != kNone) return e;
      if ((e = upper_then_lower<kContractions>(p)) != kNone) return e;
      if (prefix && (e = upper_run_then_lower<kContractions>(p + l0)) != kNone) return e;
      if ((e = upper_run_then_lower<kContractions>(p)) != kNone) return e;
    }
    if (c0 & kNumber) return kOneDigit ? p + l0 : up_to_three_numbers(p);
    size_t q = (s_[p] == ' ' && p + 1 < n_ && is_other(at(p + 1))) ? p + 1 : p;
    if (is_other(at(q))) return run_newlines(run_other(q), /*slash=*/true);
    return whitespace_split(p);
  }

 private:
  static constexpr size_t kNone = ~size_t(0);
  const uint8_t* s_;
  size_t n_;
  bool avx2_;
  // Starts found by the last window, as bits relative to window_, handed out lowest first
  // while the caller continues from the last one handed out (handed_).
  size_t window_ = 0, handed_ = ~size_t(0), retry_at_ = 0;
  uint64_t pending_ = 0;

  template <bool kO200k, bool kEndSplit = kO200k, bool kOneDigit = false, bool kContractions = true>
  TF_INLINE size_t windowed(size_t p) {
    if (p == handed_ && pending_) return hand_out();
    if (p >= retry_at_ && !wide_ahead(p)) {
      const WindowStarts w = window_starts_for<kO200k, kEndSplit, kOneDigit, kContractions>(avx2_, s_, p, n_);
      if (w.starts) {
        window_ = p;
        pending_ = w.starts;
        return hand_out();
      }
      retry_at_ = p + w.length + 1;  // past what stopped it (a stop byte, or one long piece)
    }
    return kO200k ? o200k_scalar<kContractions, kOneDigit>(p) : cl100k_scalar<kEndSplit, kOneDigit>(p);
  }
  // Whether a character of three or more bytes (CJK, say) is close ahead. Runs of those are
  // long pieces (words without spaces), so a window would rarely find a start among them.
  TF_INLINE bool wide_ahead(size_t p) const {
    if (p + 8 > n_) return s_[p] >= 0xE0;
    const uint64_t x = load8(s_ + p);
    return (x & (x << 1) & (x << 2) & 0x8080808080808080ull) != 0;  // a byte of 0b111xxxxx
  }
  TF_INLINE size_t hand_out() {
    handed_ = window_ + size_t(__builtin_ctzll(pending_));
    pending_ &= pending_ - 1;
    return handed_;
  }

  TF_INLINE uint8_t at(size_t p, size_t& len) const {
    const uint8_t b = s_[p];
    if (b < 0x80) {
      len = 1;
      return class_of(b);
    }
    return class_of(decode_utf8(s_ + p, n_ - p, len));
  }
  TF_INLINE uint8_t at(size_t p) const {
    size_t l;
    return at(p, l);
  }

  static bool is_other(uint8_t c) { return !(c & (kLetter | kNumber | kSpace)); }
  // [^\r\n\p{L}\p{N}]
  static bool is_prefix(uint8_t c, uint8_t byte) { return !(c & (kLetter | kNumber)) && byte != '\r' && byte != '\n'; }

  // The end of the run of characters from p whose class has a bit of `want` (or, with
  // invert, has none of `want`'s bits). ASCII, the common case, takes a tight byte loop.
  template <bool invert = false>
  TF_INLINE size_t run_of(size_t p, uint8_t want) const {
    for (;;) {
      while (p < n_ && s_[p] < 0x80 && (((kClassStage2[s_[p]] & want) != 0) != invert)) ++p;
      if (p >= n_ || s_[p] < 0x80) return p;
      size_t l;
      if (((class_of(decode_utf8(s_ + p, n_ - p, l)) & want) != 0) == invert) return p;
      p += l;
    }
  }
  size_t run_other(size_t p) const { return run_of<true>(p, kLetter | kNumber | kSpace); }
  size_t run_newlines(size_t p, bool slash) const {
    while (p < n_ && (s_[p] == '\r' || s_[p] == '\n' || (slash && s_[p] == '/'))) ++p;
    return p;
  }

  // \p{N}{1,3}, at a position known to hold a number.
  size_t up_to_three_numbers(size_t p) const {
    for (int i = 0; i < 3 && p < n_; ++i) {
      size_t l;
      if (!(at(p, l) & kNumber)) break;
      p += l;
    }
    return p;
  }

  struct WhitespaceRun {
    size_t end;                 // end of the maximal run of \s
    size_t last_start;          // start of the run's last character
    size_t after_last_newline;  // just past the run's last \r or \n, or 0 if none
  };
  WhitespaceRun scan_whitespace(size_t p) const {
    WhitespaceRun w{p, p, 0};
    while (w.end < n_) {
      size_t l;
      if (!(at(w.end, l) & kSpace)) break;
      w.last_start = w.end;
      if (s_[w.end] == '\r' || s_[w.end] == '\n') w.after_last_newline = w.end + 1;
      w.end += l;
    }
    return w;
  }
  // \s++$ | (\s*[\r\n] if newline_alternative) | \s+(?!\S) | \s
  size_t whitespace(size_t p, size_t l0, bool newline_alternative) const {
    WhitespaceRun w = scan_whitespace(p);
    if (w.end == n_) return w.end;
    if (newline_alternative && w.after_last_newline) return w.after_last_newline;
    if (w.last_start > p) return w.last_start;
    return p + l0;
  }
  // \s*[\r\n]+ | \s+(?!\S) | \s+ (o200k, Llama 3)
  size_t whitespace_split(size_t p) const {
    WhitespaceRun w = scan_whitespace(p);
    if (w.after_last_newline) return w.after_last_newline;
    if (w.end == n_) return w.end;
    if (w.last_start > p) return w.last_start;
    return w.end;
  }

  uint8_t kind(size_t p) const { return kKinds.of[s_[p]]; }
  size_t skip(size_t p, uint8_t kinds) const {
    while (p < n_ && (kind(p) & kinds)) ++p;
    return p;
  }

  // The commonest pieces, decided from ASCII bytes alone: words with an optional one-character
  // prefix, runs of punctuation (optionally after a space), and digits. Each returns what the
  // general path would; 0 defers to it (a non-ASCII byte or an apostrophe where it matters,
  // whitespace).
  // kContractions false: an apostrophe after a word is only punctuation (tekken).
  template <bool kContractions = true, bool kOneDigit = false>
  size_t o200k_ascii(size_t p) const {
    size_t q;
    const size_t e = ascii_front<kOneDigit ? 1 : 3>(p, /*slash=*/true, q);
    if (e != kNone) return e;
    // [Upper]*[Lower]+ if there is a lowercase run, else [Upper]+ (no [Lower] can follow).
    const size_t upper_end = skip(q, kUp), lower_end = skip(upper_end, kLow);
    if (lower_end < n_ && ((kind(lower_end) & kHigh) || (kContractions && s_[lower_end] == '\''))) return 0;
    return lower_end > upper_end ? lower_end : upper_end;
  }

  template <int kDigits = 3>
  size_t cl100k_ascii(size_t p) const {
    if (s_[p] == '\'') return 0;  // contractions come first
    size_t q;
    const size_t e = ascii_front<kDigits>(p, /*slash=*/false, q);
    if (e != kNone) return e;
    q = skip(q, kUp | kLow);
    return q < n_ && (kind(q) & kHigh) ? 0 : q;
  }

  // What the cl100k and o200k fast paths share: the end of a punctuation run (then newlines, and
  // with `slash` slashes) or of digits; 0 to defer; or kNone with `word` set where an ASCII word
  // starts (at p or after a one-character prefix), which each pattern splits its own way.
  template <int kDigits = 3>
  TF_INLINE size_t ascii_front(size_t p, bool slash, size_t& word) const {
    const uint8_t k0 = kind(p);
    word = p;
    if (!(k0 & (kBlank | kPunct)))
      return k0 & kDigit ? (kDigits == 1 ? p + 1 : ascii_digits(p)) : k0 & (kUp | kLow) ? kNone : 0;
    if (p + 1 >= n_) return 0;
    const uint8_t k1 = kind(p + 1);
    if (k1 & (kUp | kLow)) {
      word = p + 1;
      return kNone;
    }
    size_t q;
    if (k0 & kPunct)
      q = p;
    else if (s_[p] == ' ' && (k1 & kPunct))
      q = p + 1;
    else
      return 0;
    q = skip(q, kPunct);
    if (q < n_ && (kind(q) & kHigh)) return 0;  // the run may go on with non-ASCII symbols
    return run_newlines(q, slash);
  }

  // \p{N}{1,3} from ASCII digits, or 0 if a non-ASCII byte might be a digit.
  size_t ascii_digits(size_t p) const {
    const size_t end = p + 3 < n_ ? p + 3 : n_;
    size_t q = p + 1;
    while (q < end && (kind(q) & kDigit)) ++q;
    return q < end && (kind(q) & kHigh) ? 0 : q;
  }

  // o200k's first alternative after the optional prefix: [Upper]*[Lower]+ then a contraction.
  template <bool kContractions = true>
  size_t upper_then_lower(size_t q) const {
    size_t p = q, last_lower_end = kNone;
    for (;;) {
      // ASCII capitals are [Upper] but never [Lower], so they only extend the run.
      while (p < n_ && s_[p] < 0x80 && (kClassStage2[s_[p]] & kUpperish)) ++p;
      if (p >= n_ || s_[p] < 0x80) break;
      size_t l;
      const uint8_t c = class_of(decode_utf8(s_ + p, n_ - p, l));
      if (!(c & kUpperish)) break;
      p += l;
      if (c & kLowerish) last_lower_end = p;
    }
    size_t end;
    if (p < n_ && (at(p) & kLowerish)) {
      end = run_of(p, kLowerish);
    } else if (last_lower_end != kNone) {
      end = last_lower_end;  // [Upper]* gives back characters until [Lower]+ can match one
    } else {
      return kNone;
    }
    return kContractions ? contraction_or_self(end) : end;
  }
  // o200k's second alternative after the optional prefix: [Upper]+[Lower]* then a contraction.
  template <bool kContractions = true>
  size_t upper_run_then_lower(size_t q) const {
    const size_t a = run_of(q, kUpperish);
    if (a == q) return kNone;
    const size_t end = run_of(a, kLowerish);
    return kContractions ? contraction_or_self(end) : end;
  }
  size_t contraction_or_self(size_t p) const {
    if (p < n_ && s_[p] == '\'') {
      size_t e = contraction_folded(p + 1, /*multi=*/true);
      if (e) return e;
    }
    return p;
  }

  size_t special_end_ = ~size_t(0);  // where a special's "|>" starts (clip with specials)
  bool starts_with(size_t p, const char* text, size_t len) const {
    if (p + len > n_) return false;
    for (size_t i = 0; i < len; ++i)
      if (s_[p + i] != uint8_t(text[i])) return false;
    return true;
  }

  static uint8_t fold(uint8_t b) { return (b >= 'A' && b <= 'Z') ? b + 32 : b; }
  // After an apostrophe at p-1: s|d|m|t|ll|ve|re case-insensitively (Unicode simple case
  // folding, so U+017F LONG S matches `s`, as in Rust's regex). Returns the end or 0.
  size_t contraction_folded(size_t p, bool multi) const {
    if (p >= n_) return 0;
    const uint8_t a = fold(s_[p]);
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return p + 1;
    if (s_[p] == 0xC5 && p + 1 < n_ && s_[p + 1] == 0xBF) return p + 2;  // U+017F
    if (multi && p + 1 < n_) {
      const uint8_t b = fold(s_[p + 1]);
      if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return p + 2;
    }
    return 0;
  }
  // After an apostrophe at p-1, case-sensitively (the GPT-2 pattern). Returns the end or 0.
  size_t contraction_exact(size_t p) const {
    if (p >= n_) return 0;
    const uint8_t a = s_[p];
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return p + 1;
    if (p + 1 < n_) {
      const uint8_t b = s_[p + 1];
      if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return p + 2;
    }
    return 0;
  }
};

}  // namespace tokenforge
