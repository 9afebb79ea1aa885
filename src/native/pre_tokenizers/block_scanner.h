// Piece starts of up to 64 bytes of text at once, for the cl100k and o200k patterns.
//
// The window starts at a known piece start p. The patterns never look behind, so the pieces of
// text[p:] are the true pieces from p on, and the window can be treated as a text of its own.
// Each byte's class becomes one bit of a 64-bit mask (bit i = byte p + i), and where pieces
// start follows from those masks with a few shifts, ands and adds (the "bitstream" approach of
// Parabix), instead of a branch per byte. Two- and three-byte letters get their class on every
// byte, and so do two-byte marks (letters or punctuation as the pattern reads \p{M}: see
// MarkRule). The window stops before the first apostrophe (contractions) or other non-ASCII
// character: the scalar scanner handles those. Starts are reported only where no byte past
// the window could change them, so the caller re-bases at the last one.
//
// The rules, for text without apostrophes (X letter, D digit, W whitespace, N \r or \n,
// P anything else; Q = P or non-newline W, the optional one-character prefix of a word; all
// but X are ASCII):
//  - a letter run splits into words (o200k also before an uppercase letter that follows a
//    lowercase one; the window ends at one that follows a caseless letter, where the pattern
//    backtracks); a word takes the Q right before it as prefix when that Q starts a piece;
//  - digit runs split into groups of three from their start;
//  - a P run is one piece with a space before it and the newlines after it (o200k: also
//    slashes; this "tail" is found with one add), unless it is one P that prefixes a word;
//  - a whitespace run starts a piece, then after its last newline, then at its last character
//    when something follows; at the end of the text cl100k keeps the whole run as one piece.
// Llama 3's pattern is cl100k's with o200k's whitespace rules (\s*[\r\n]+|\s+(?!\S)|\s+: at
// the end of the text too the run splits after its last newline), kEndSplit; Qwen2's is Llama
// 3's with single digits (\p{N} for \p{N}{1,3}), kOneDigit. tekken's is o200k's with single
// digits and no contractions (kContractions false: every apostrophe is punctuation).
//
// The masks come from SSE2 (or a byte loop without it), or on CPUs with AVX2 from 32-byte
// loads in window_starts_avx2, a twin of window_starts compiled for AVX2 (base/cpu_features.h
// says which runs); both give the same masks, so the same starts.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "base/cpu_features.h"
#include "base/inline_hints.h"
#include "unicode/unicode_classes.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if TF_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

namespace tokenforge {

struct AsciiMasks {
  uint64_t upper = 0, lower = 0, digit = 0, space = 0, newline = 0, blank = 0, slash = 0;
  uint64_t caseless = 0;  // letters neither upper- nor lowercase (\p{Lo}, \p{Lm}): never ASCII
  uint64_t quote = 0;     // apostrophes (also in stop)
  uint64_t stop = 0;      // bytes not classified (yet): the window ends before the first
  uint64_t marks = 0;     // the first bytes of two-byte marks (\p{M}) classified (see kMarks)
};

// Classes of the 64 bytes at p (all readable).
inline AsciiMasks ascii_masks(const uint8_t* p) {
  AsciiMasks m;
#if defined(__SSE2__)
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    // lo <= v <= hi as one signed compare: v - lo + 0x80 < hi - lo + 1 + 0x80 (mod 256) holds
    // exactly for v - lo in 0..hi-lo, unsigned; bytes >= 0x80 land far past every range here.
    auto in = [&](char lo, char hi) {
      return _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(char(0x80 - lo))), _mm_set1_epi8(char(hi - lo + 1 - 0x80)));
    };
    auto eq = [&](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
    auto bits = [&](__m128i x) { return uint64_t(uint16_t(_mm_movemask_epi8(x))) << (16 * k); };
    const __m128i blank = eq(' ');
    const __m128i newline = _mm_or_si128(eq('\n'), eq('\r'));
    m.upper |= bits(in('A', 'Z'));
    m.lower |= bits(in('a', 'z'));
    m.digit |= bits(in('0', '9'));
    m.space |= bits(_mm_or_si128(blank, in('\t', '\r')));
    m.newline |= bits(newline);
    m.blank |= bits(blank);
    m.slash |= bits(eq('/'));
    const __m128i quote = eq('\'');
    m.quote |= bits(quote);
    m.stop |= bits(_mm_or_si128(v, quote));
  }
#else
  for (int i = 0; i < 64; ++i) {
    const uint8_t b = p[i];
    const uint64_t bit = uint64_t(1) << i;
    if (b >= 'A' && b <= 'Z') m.upper |= bit;
    if (b >= 'a' && b <= 'z') m.lower |= bit;
    if (b >= '0' && b <= '9') m.digit |= bit;
    if (b == ' ' || (b >= '\t' && b <= '\r')) m.space |= bit;
    if (b == '\n' || b == '\r') m.newline |= bit;
    if (b == ' ') m.blank |= bit;
    if (b == '/') m.slash |= bit;
    if (b == '\'') m.quote |= bit;
    if (b >= 0x80 || b == '\'') m.stop |= bit;
  }
#endif
  return m;
}

#if TF_HAVE_AVX2_PATH
// ascii_masks with two 32-byte loads (AVX2 CPUs only: see base/cpu_features.h).
TF_TARGET_AVX2 TF_INLINE AsciiMasks ascii_masks_avx2(const uint8_t* p) {
  AsciiMasks m;
  // (Macros, not lambdas: a lambda would not be compiled for AVX2.) lo <= v <= hi as one
  // signed compare, as in ascii_masks.
#define TF_IN(lo, hi)                                               \
  _mm256_cmpgt_epi8(_mm256_set1_epi8(char((hi) - (lo) + 1 - 0x80)), \
                    _mm256_add_epi8(v, _mm256_set1_epi8(char(0x80 - (lo)))))
#define TF_EQ(c) _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c))
#define TF_BITS(x) (uint64_t(uint32_t(_mm256_movemask_epi8(x))) << (32 * k))
  for (int k = 0; k < 2; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
    const __m256i blank = TF_EQ(' ');
    m.upper |= TF_BITS(TF_IN('A', 'Z'));
    m.lower |= TF_BITS(TF_IN('a', 'z'));
    m.digit |= TF_BITS(TF_IN('0', '9'));
    m.space |= TF_BITS(_mm256_or_si256(blank, TF_IN('\t', '\r')));
    m.newline |= TF_BITS(_mm256_or_si256(TF_EQ('\n'), TF_EQ('\r')));
    m.blank |= TF_BITS(blank);
    m.slash |= TF_BITS(TF_EQ('/'));
    const uint64_t quote = TF_BITS(TF_EQ('\''));
    m.quote |= quote;
    m.stop |= TF_BITS(v) | quote;
  }
#undef TF_IN
#undef TF_EQ
#undef TF_BITS
  return m;
}
#endif

// Bytes that may follow the apostrophe of a contraction ('s 't 're 've 'm 'll 'd, any case,
// and U+017F, which case-folds to s): an apostrophe before anything else is punctuation.
struct ContractionStarts {
  bool of[256];
  constexpr ContractionStarts() : of() {
    for (const char c : {'s', 't', 'r', 'v', 'm', 'l', 'd'}) of[uint8_t(c)] = of[uint8_t(c - 32)] = true;
    of[0xC5] = true;
  }
};
inline constexpr ContractionStarts kContractionStarts{};

// Apostrophes that cannot start a contraction become punctuation (their stop bit is cleared).
// Those before a contraction's letters, or at the window's end, stay stops.
inline void settle_quotes(const uint8_t* w, size_t avail, AsciiMasks& m) {
  for (uint64_t q = m.quote; q; q &= q - 1) {
    const size_t i = size_t(__builtin_ctzll(q));
    if (i + 1 < avail && !kContractionStarts.of[w[i + 1]]) m.stop &= ~(uint64_t(1) << i);
  }
}

// The letter class of every two-byte character, indexed as unicode_classes.h's kTwoByteClasses
// (lead byte 0xC2..0xDF, then the low six bits of its continuation byte): 0 neither a letter
// nor a mark, else the AsciiMasks field its bytes go to (kMark: a combining mark, \p{M}).
struct TwoByteLetters {
  enum : uint8_t { kNone = 0, kUpper = 1, kLower = 2, kCaseless = 3, kMark = 4 };
  uint8_t of[30 * 64];
  constexpr TwoByteLetters() : of() {
    for (size_t i = 0; i < 30 * 64; ++i) {
      const uint8_t c = kTwoByteClasses.of[i];
      of[i] = c & tokenforge::kMark ? kMark
              : !(c & kLetter)      ? kNone
              : !(c & kLowerish)    ? kUpper
              : !(c & kUpperish)    ? kLower
                                    : kCaseless;
    }
  }
};

inline constexpr TwoByteLetters kTwoByteLetters{};

// What a window makes of a two-byte combining mark (\p{M}: accents of decomposed text, Arabic
// harakat, Hebrew points). kMarksStop: it ends the window (the scalar scanner takes it).
// kMarksAsLetters (o200k, tekken: \p{M} is in both of their letter classes): a caseless letter,
// but for one after ASCII punctuation, which ends the window (after a punctuation piece, as in
// " ?\u064e", `[^\s\p{L}\p{N}]+` takes the marks too). kMarksAsPunctuation (cl100k, Llama 3,
// Qwen2: letters are \p{L} alone): punctuation, with the rules taking a lone mark before a
// letter as its prefix.
enum MarkRule : int { kMarksStop = 0, kMarksAsLetters = 1, kMarksAsPunctuation = 2 };

// Classifies the letters of Latin-1 (U+00C0..U+00FF but the signs U+00D7 and U+00F7) and of
// basic Cyrillic (U+0400..U+047F) anywhere in the window, 16 bytes at a time: each continuation
// byte's class follows from its own value and the byte before it. For windows dense in such
// letters (Russian text), where classify_letters would take them one at a time; what is left
// (other letters, and whatever ends the window) classify_letters finds after it.
inline void classify_common_letters(const uint8_t* w, size_t avail, AsciiMasks& m) {
#if defined(__SSE2__)
  uint64_t upper = 0, lower = 0;
  __m128i prev_last = _mm_setzero_si128();  // the byte before each block, in its lane 0
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16 * k));
    const __m128i prev = _mm_or_si128(_mm_slli_si128(v, 1), prev_last);
    prev_last = _mm_srli_si128(v, 15);
    // Signed compares: continuation bytes 0x80..0xBF are -128..-65, below every other byte.
    auto below = [&](int hi) { return _mm_cmplt_epi8(v, _mm_set1_epi8(char(hi))); };
    auto after = [&](int lead) { return _mm_cmpeq_epi8(prev, _mm_set1_epi8(char(lead))); };
    const __m128i cont = below(0xC0), lt_a0 = below(0xA0), lt_b0 = below(0xB0), lt_9f = below(0x9F);
    const __m128i odd = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), _mm_set1_epi8(1));
    const __m128i c3 = after(0xC3), d0 = after(0xD0), d1 = after(0xD1);
    const __m128i not97 = _mm_cmpeq_epi8(v, _mm_set1_epi8(char(0x97)));  // (×: set where v is it)
    const __m128i notb7 = _mm_cmpeq_epi8(v, _mm_set1_epi8(char(0xB7)));  // (÷)
    // U+00C0..U+00DE upper, U+00DF..U+00FF lower; U+0400..U+042F upper, U+0430..U+045F lower;
    // U+0460..U+047F upper at even code points, lower at odd ones.
    const __m128i up =
        _mm_or_si128(_mm_or_si128(_mm_and_si128(d0, lt_b0), _mm_andnot_si128(not97, _mm_and_si128(c3, lt_9f))),
                     _mm_andnot_si128(_mm_or_si128(lt_a0, odd), _mm_and_si128(d1, cont)));
    const __m128i low =
        _mm_or_si128(_mm_or_si128(_mm_andnot_si128(lt_b0, _mm_and_si128(d0, cont)),
                                  _mm_andnot_si128(_mm_or_si128(lt_9f, notb7), _mm_and_si128(c3, cont))),
                     _mm_and_si128(d1, _mm_or_si128(lt_a0, _mm_and_si128(cont, odd))));
    upper |= uint64_t(uint16_t(_mm_movemask_epi8(up))) << (16 * k);
    lower |= uint64_t(uint16_t(_mm_movemask_epi8(low))) << (16 * k);
  }
  // Bits are on continuation bytes; add their lead bytes. Bytes past `avail` are padding.
  const uint64_t in_text = avail >= 64 ? ~uint64_t(0) : (uint64_t(1) << avail) - 1;
  upper &= in_text & ~uint64_t(1), lower &= in_text & ~uint64_t(1);
  upper |= upper >> 1, lower |= lower >> 1;
  m.upper |= upper, m.lower |= lower;
  m.stop &= ~(upper | lower);
#else
  (void)w, (void)avail, (void)m;
#endif
}

// Classifies the two- and three-byte letters from the first stop byte on, up to the first stop
// byte that is anything else (punctuation, spaces, digits outside ASCII, and marks but as
// kMarks says; apostrophes; a character cut by the window's end at `avail`; kThreeByte false:
// any three-byte character): every byte of a letter gets its class bit, so case and word rules
// see one character as a run of equal bits, and starts fall on lead bytes. Two-byte marks
// (kMarks not kMarksStop) leave the stop mask with their lead bytes in m.marks, and go to the
// caseless letters (kMarksAsLetters) or to no class (punctuation).
template <bool kThreeByte = true, int kMarks = kMarksStop>
inline void classify_letters(const uint8_t* w, size_t avail, AsciiMasks& m) {
  uint64_t stop = m.stop;
  uint64_t to[5] = {0, 0, 0, 0, 0};  // by TwoByteLetters class: none (unused), upper, lower, caseless, mark
  uint64_t marks = 0;                // the marks' first bytes
  while (stop) {
    const size_t i = size_t(__builtin_ctzll(stop));
    const uint8_t b = w[i];
    if (uint8_t(b - 0xC2) < 30) {  // two bytes: one table load
      if (i + 2 > avail || (w[i + 1] & 0xC0) != 0x80) break;
      const uint8_t k = kTwoByteLetters.of[size_t(b - 0xC2) * 64 + (w[i + 1] & 0x3F)];
      if (!k || (kMarks == kMarksStop && k == TwoByteLetters::kMark)) break;
      const uint64_t bits = uint64_t(3) << i;
      to[k] |= bits;
      if (kMarks != kMarksStop) marks |= uint64_t(k == TwoByteLetters::kMark) << i;
      stop &= ~bits;
      continue;
    }
    if (!kThreeByte || b < 0xE0 || b >= 0xF0) break;  // apostrophe, continuation byte, four-byte character
    if (i + 3 > avail || (w[i + 1] & 0xC0) != 0x80 || (w[i + 2] & 0xC0) != 0x80) break;
    size_t decoded;
    const uint8_t c = class_of(decode_utf8(w + i, 3, decoded));
    if (!(c & kLetter)) break;
    const uint64_t bits = uint64_t(7) << i;
    to[!(c & kLowerish) ? 1 : !(c & kUpperish) ? 2 : 3] |= bits;  // Lu, Lt / Ll / Lm, Lo
    stop &= ~bits;
  }
  m.upper |= to[1];
  m.lower |= to[2];
  m.caseless |= to[3];
  if (kMarks == kMarksAsLetters) m.caseless |= to[4];
  m.marks |= marks;
  m.stop = stop;
}

// Piece starts in a window, as bits relative to its first byte (itself a piece start).
struct WindowStarts {
  uint64_t starts = 0;  // certain starts after bit 0; bit `length` marks the end of the text
  size_t length = 0;    // bytes the masks covered (up to the first stop byte)
};

// o200k: case-split words and slashes in the punctuation tail; else cl100k. kEndSplit: a
// whitespace run at the end of the text splits after its last newline (o200k, Llama 3);
// kOneDigit: each digit is a piece (Qwen2). kAsciiPrefix (DeepSeek V3's main pattern,
// pre_tokenizers/deepseek_scanner.h): punctuation prefixes only a run of ASCII letters
// ("[punct][A-Za-z]+"), which then ends at the first other letter, that starts a piece of
// its own; a letter run with no prefix or a space's is one piece, as cl100k's; only two-byte
// letters are classified (three-byte characters stop the window).
// What window_starts and window_starts_avx2 share: the starts from the masks of the bytes at w
// (the text from p, or a copy of its last avail < 64 bytes padded with stop bytes).
template <bool kO200k, bool kEndSplit, bool kOneDigit, bool kContractions, bool kAsciiPrefix = false>
TF_INLINE WindowStarts window_rules(AsciiMasks m, const uint8_t* w, size_t avail, size_t p, size_t n) {
  if (m.quote) {
    if (kContractions)
      settle_quotes(w, avail, m);
    else
      m.stop &= ~m.quote;
  }
  const uint64_t ascii_letter = m.upper | m.lower;  // (before the other letters join them)
  constexpr int kMarks = kAsciiPrefix ? kMarksStop : kO200k ? kMarksAsLetters : kMarksAsPunctuation;
  const uint64_t ascii_punct = ~(ascii_letter | m.digit | m.space | m.stop);  // (settled apostrophes too)
  if (m.stop && w[__builtin_ctzll(m.stop)] >= 0x80) {
    // Many non-ASCII bytes (six or more characters), the first of them Latin-1 or Cyrillic:
    // the common letters in one go.
    const uint8_t first = w[__builtin_ctzll(m.stop)];
    if ((first == 0xD0 || first == 0xD1 || first == 0xC3) && __builtin_popcountll(m.stop) >= 12)
      classify_common_letters(w, avail, m);
    if (m.stop && w[__builtin_ctzll(m.stop)] >= 0x80) classify_letters<!kAsciiPrefix, kMarks>(w, avail, m);
    if (kMarks == kMarksAsLetters) m.stop |= m.marks & (ascii_punct << 1);
  }
  // o200k: [Upper]* gives characters back to [Lower]+ when a caseless letter comes before an
  // uppercase one, which the rules below do not model: such a window ends there.
  if (kO200k) {
    const uint64_t caseless_then_upper = m.upper & (m.caseless << 1);
    m.stop |= caseless_then_upper & (0 - caseless_then_upper);
  }
  const size_t lim = m.stop ? size_t(__builtin_ctzll(m.stop)) : 64;
  const bool at_end = lim < 64 && p + lim == n;  // else a byte follows the window
  WindowStarts out;
  out.length = lim;
  if (lim < 3) return out;
  const uint64_t valid = lim == 64 ? ~uint64_t(0) : (uint64_t(1) << lim) - 1;
  m.upper &= valid, m.lower &= valid, m.caseless &= valid, m.digit &= valid, m.space &= valid;
  m.newline &= valid, m.blank &= valid, m.slash &= valid;
  const uint64_t letter = m.upper | m.lower | m.caseless, newline = m.newline;
  const uint64_t other = valid & ~(letter | m.digit | m.space);
  // The tail of newlines (o200k: and slashes) after a punctuation run belongs to its piece:
  // adding the tail's first bit carries through the rest of it, clearing exactly the tail. A
  // later seed in the same tail (a newline after a slash) only sets its own bit in the sum.
  const uint64_t tail_chars = kO200k ? newline | m.slash : newline;
  const uint64_t tail_seeds = newline & (other << 1);
  const uint64_t tail = (tail_chars & ~(tail_chars + tail_seeds)) | tail_seeds;
  const uint64_t punct = other & ~tail, space = m.space & ~tail;
  // A punctuation run starts a piece unless a space before it does.
  const uint64_t punct_starts = punct & ~(punct << 1) & ~(m.blank << 1);
  // Prefixes: a non-newline space always starts a piece when something non-space follows; a
  // punctuation character when it starts a piece and is alone in its run (a letter follows).
  // (kAsciiPrefix: a punctuation character prefixes only ASCII letters, `word` of them)
  const uint64_t wide = kAsciiPrefix ? letter & ~ascii_letter : 0, word = wide ? ascii_letter & valid : letter;
  // (kMarksAsPunctuation: a lone two-byte mark prefixes the letter two bytes on)
  const uint64_t prefixes = ((space & ~newline) & (letter >> 1)) | (punct_starts & ~m.marks & (word >> 1));
  const uint64_t mark_prefixes = punct_starts & m.marks & (word >> 2);
  uint64_t words = letter & ~(letter << 1);
  if (wide) {
    // The ASCII letters after a punctuation prefix end where another letter follows them: the
    // carry of adding each run's first bit runs to the bit after it.
    words |= (word + ((punct_starts & (word >> 1)) << 1)) & wide;
  }
  if (kO200k) words |= m.upper & (m.lower << 1);
  words = (words & ~(prefixes << 1) & ~(mark_prefixes << 2)) | prefixes | mark_prefixes;
  // Digits: groups of three from the start of each run (kOneDigit: each digit alone).
  uint64_t digits = m.digit;
  if (!kOneDigit) {
    const uint64_t three = m.digit & (m.digit << 1) & (m.digit << 2);
    digits = m.digit & ~(m.digit << 1);
    for (uint64_t grown; (grown = digits | ((digits << 3) & three)) != digits;) digits = grown;
  }
  // Whitespace: the run's start, its last character when a non-space follows in the window.
  const uint64_t space_starts = (space & ~(space << 1)) | (space & ~newline & ~(space >> 1) & (valid >> 1));
  uint64_t starts = words | digits | punct_starts | space_starts;
  // ... and after its last newline (indentation): found per run, one per line at most.
  uint64_t cut = at_end ? valid : valid >> 1;  // starts that text past the window cannot move
  const uint64_t inline_space = space & ~newline;
  for (uint64_t after = inline_space & ((space & newline) << 1); after; after &= after - 1) {
    const int i = __builtin_ctzll(after);
    const uint64_t beyond = ~inline_space & (~uint64_t(0) << i);
    const size_t j = beyond ? size_t(__builtin_ctzll(beyond)) : 64;
    if (j < lim) {
      if (!(newline >> j & 1)) starts |= uint64_t(1) << i;  // no newline later in the run
    } else if (at_end) {
      if (kEndSplit) starts |= uint64_t(1) << i;  // cl100k: \s++$ keeps the run whole
    } else {
      cut &= (uint64_t(1) << i) - 1;  // the run may go on past the window with a newline
    }
  }
  out.starts = starts & cut & ~uint64_t(1);
  if (at_end) out.starts |= uint64_t(1) << lim;
  return out;
}

// The 64 bytes at p, or the text's last bytes from p copied to buf and padded with stop bytes.
TF_INLINE const uint8_t* window_bytes(const uint8_t* s, size_t p, size_t n, uint8_t (&buf)[64], size_t& avail) {
  avail = n - p >= 64 ? 64 : n - p;
  if (avail == 64) return s + p;
  std::memset(buf, 0x80, sizeof buf);  // past the text: stop bytes
  std::memcpy(buf, s + p, avail);
  return buf;
}

template <bool kO200k, bool kEndSplit = kO200k, bool kOneDigit = false, bool kContractions = true,
          bool kAsciiPrefix = false>
inline WindowStarts window_starts(const uint8_t* s, size_t p, size_t n) {
  uint8_t buf[64];
  size_t avail;
  const uint8_t* w = window_bytes(s, p, n, buf, avail);
  return window_rules<kO200k, kEndSplit, kOneDigit, kContractions, kAsciiPrefix>(ascii_masks(w), w, avail, p, n);
}

#if TF_HAVE_AVX2_PATH
// window_starts with AVX2 masks, and the rules compiled for AVX2 and BMI (only where
// cpu_has_avx2(): the caller checks avx2_enabled()). Not inlined into callers built without.
template <bool kO200k, bool kEndSplit = kO200k, bool kOneDigit = false, bool kContractions = true,
          bool kAsciiPrefix = false>
TF_TARGET_AVX2 TF_NOINLINE WindowStarts window_starts_avx2(const uint8_t* s, size_t p, size_t n) {
  uint8_t buf[64];
  size_t avail;
  const uint8_t* w = window_bytes(s, p, n, buf, avail);
  return window_rules<kO200k, kEndSplit, kOneDigit, kContractions, kAsciiPrefix>(ascii_masks_avx2(w), w, avail, p, n);
}
#endif

// window_starts through the AVX2 path where `avx2` (the caller's avx2_enabled()) says so and
// the build has it, else the portable one: the one dispatch both scanners use.
template <bool kO200k, bool kEndSplit = kO200k, bool kOneDigit = false, bool kContractions = true,
          bool kAsciiPrefix = false>
TF_INLINE WindowStarts window_starts_for(bool avx2, const uint8_t* s, size_t p, size_t n) {
#if TF_HAVE_AVX2_PATH
  if (avx2) return window_starts_avx2<kO200k, kEndSplit, kOneDigit, kContractions, kAsciiPrefix>(s, p, n);
#else
  (void)avx2;
#endif
  return window_starts<kO200k, kEndSplit, kOneDigit, kContractions, kAsciiPrefix>(s, p, n);
}

}  // namespace tokenforge
