// DeepSeek V3's whole pre-tokenizer Sequence (Split \p{N}{1,3}, Split of CJK and kana runs,
// Split of the main pattern, all Isolated: pre_tokenizers/split_sequence.h) as a scanner that
// hands out each piece's end as it is asked for, like pre_tokenizers/scanner.h's: one pass over
// the text, no list of pieces, for the fused byte-level kernel (pipelines/byte_level_hf_bpe.h)
// and for DeepSeekV3Sequence.
//
// The pieces: a number starts a piece of up to three numbers; a CJK or kana character starts a
// run of them, any other character a stretch up to the next number or CJK character ("segment"),
// and the main pattern (pre_tokenizers/deepseek_scanner.h) cuts each segment, its matches and
// the text between them each a piece. Neither the main pattern nor the stages look behind, so
// the pieces from any piece start p are found by taking [p, the segment's end) as the subject.
//
// Windows: on text of ASCII (without digits or control characters) and two-byte letters, the
// main pattern's pieces are the pieces of block_scanner.h's cl100k rules with Llama 3's
// whitespace, no contractions and kAsciiPrefix (window_starts<false, true, false, false, true>):
// "[punct][A-Za-z]+" is a one-character prefix and a run of ASCII letters that ends at the
// first other letter, "[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+" a whitespace prefix (the only
// ASCII characters it takes once digits are cut away and controls excluded) and a letter run,
// " ?[\p{P}\p{S}]+[\r\n]*" the punctuation run, and the whitespace alternatives are Llama 3's.
// A window runs over the whole stretch; its starts are kept only before L - 1, where L is the
// window's first digit, control or non-ASCII byte that is no two-byte letter (where a segment
// may end, or the patterns part: a mark, a symbol, a three-byte character): each kept start
// ends a piece that lies in [p, L - 1), which both read alike (a whitespace run's last
// character, the one whose split depends on what follows, is at L - 1 at the latest). A window
// with none of those bytes up to the text's end keeps all its starts.
// Everything else goes through the character scanner, a segment at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/bytes.h"
#include "base/cpu_features.h"
#include "base/inline_hints.h"
#include "pre_tokenizers/block_scanner.h"
#include "pre_tokenizers/deepseek_scanner.h"
#include "unicode/unicode_classes.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tokenforge {

namespace deepseek_ranges {
// A character of the CJK Split's runs: U+4E00..U+9FA5 and U+3040..U+30FF.
TF_INLINE bool is_v3_cjk(uint32_t cp) { return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF); }
// A character of \p{N}{1,3} (ASCII digits without the table).
TF_INLINE bool is_number(uint32_t cp) { return cp < 0x80 ? uint32_t(cp - '0') <= 9 : (class_of(cp) & kNumber) != 0; }
// Whether a two-byte character with this lead byte (0xC2..0xDF) can be a number.
constexpr bool lead_has_numbers(uint8_t lead) {
  for (size_t c = 0; c < 64; ++c)
    if (kTwoByteClasses.of[size_t(lead - 0xC2) * 64 + c] & kNumber) return true;
  return false;
}
constexpr bool number_leads_are(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  for (unsigned lead = 0xC2; lead < 0xE0; ++lead)
    if (lead_has_numbers(uint8_t(lead)) != (lead == a || lead == b || lead == c || lead == d)) return false;
  return true;
}
static_assert(number_leads_are(0xC2, 0xD9, 0xDB, 0xDF), "stretch_end's window stops at these lead bytes");
}  // namespace deepseek_ranges

class DeepSeekV3Ends {
 public:
  // avx2: whether windows use window_starts_avx2 (as pre_tokenizers/scanner.h's Scanner).
  DeepSeekV3Ends(const uint8_t* t, size_t n, bool avx2 = avx2_enabled()) : t_(t), n_(n), avx2_(avx2) {}

  // The end of the piece that starts at p (< n), p the text's start or an end this returned.
  TF_INLINE size_t next(size_t p) {
    if (p == handed_ && pending_) return hand_out();
    if (p >= retry_at_ && !wide_ahead(p)) {
      const size_t e = window(p);
      if (e) return e;
    }
    return scalar(p);
  }

  // The ends of up to max pieces from p (< n) on into to[0..): how many (fewer only where the
  // text ends), as Scanner::ends.
  TF_INLINE size_t ends(size_t p, size_t* to, size_t max) {
    size_t m = 0;
    for (; m < max && p < n_; ++m) to[m] = p = next(p);
    return m;
  }

  // The same without windows (tests compare the two).
  size_t next_scalar(size_t p) { return scalar(p); }

 private:
  static constexpr size_t kNone = ~size_t(0);
  const uint8_t* t_;
  size_t n_;
  bool avx2_;
  // Window starts not handed out yet (bits relative to window_), as Scanner keeps them.
  size_t window_ = 0, handed_ = kNone, retry_at_ = 0;
  uint64_t pending_ = 0;
  // The segment the character scanner is in ([.., seg_end_)), and a match it found after text
  // between matches, handed out next.
  size_t seg_end_ = 0, pend_start_ = kNone, pend_end_ = 0;

  TF_INLINE size_t hand_out() {
    handed_ = window_ + size_t(__builtin_ctzll(pending_));
    pending_ &= pending_ - 1;
    return handed_;
  }

  // A byte of 0b111xxxxx (CJK, say) close ahead: runs of those are long pieces, so a window
  // would find nothing among them.
  TF_INLINE bool wide_ahead(size_t p) const {
    if (p + 8 > n_) return t_[p] >= 0xE0;
    const uint64_t x = load8(t_ + p);
    return (x & (x << 1) & (x << 2) & 0x8080808080808080ull) != 0;
  }

  // Bytes where a window's starts stop being kept: digits, controls (but \t..\r), DEL and the
  // lead bytes of three- and four-byte characters (the window itself stops at the first
  // character of two bytes that is no letter).
  static constexpr bool is_stop(uint8_t b) {
    return b == 0x7F || b >= 0xE0 || (b < 0x20 && !(b >= '\t' && b <= '\r')) || (b >= '0' && b <= '9');
  }
  // The first stop byte in t[p..p + avail) (avail <= 64), as an offset, or avail.
  TF_INLINE size_t first_stop(size_t p, size_t avail) const {
    const uint8_t* w = t_ + p;
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= avail; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i));
      // Signed: bytes >= 0x80 are negative. Keep 0x20..0x7E but digits, \t..\r and 0x80..0xDF.
      const __m128i printable =
          _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x1F)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x7F))),
                       _mm_cmplt_epi8(v, _mm_set1_epi8(char(0xE0))));
      const __m128i digit =
          _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
      const __m128i blank =
          _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('\t' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('\r' + 1)));
      const __m128i ok = _mm_or_si128(_mm_andnot_si128(digit, printable), blank);
      const unsigned bad = ~unsigned(_mm_movemask_epi8(ok)) & 0xFFFFu;
      if (bad) return i + size_t(__builtin_ctz(bad));
    }
#endif
    for (; i < avail; ++i)
      if (is_stop(w[i])) return i;
    return avail;
  }

  // The window at p: the end of the piece at p from its kept starts (the rest pending), or 0
  // where it keeps none.
  TF_INLINE size_t window(size_t p) {
    const size_t avail = n_ - p >= 64 ? 64 : n_ - p;
    const size_t stop = first_stop(p, avail);
    if (stop < 16) {  // (a window keeps nothing before 2; too few pieces before 16 to pay)
      retry_at_ = p + stop + 1;
      return 0;
    }
    const WindowStarts w = window_starts_for<false, true, false, false, true>(avx2_, t_, p, n_);
    uint64_t starts = w.starts;  // (those before w.length - 1 where the window stopped early)
    if (stop < avail) starts &= (uint64_t(1) << (stop - 1)) - 1;
    if (!starts) {
      retry_at_ = p + (stop < w.length ? stop : w.length) + 1;
      return 0;
    }
    window_ = p;
    pending_ = starts;
    return hand_out();
  }

  TF_INLINE uint32_t at(size_t p, size_t& len) const { return decode_utf8(t_ + p, n_ - p, len); }
  // Whether a character of the CJK Split's runs is a letter or mark (\p{L} or \p{M}); the
  // ideographs U+4E00..U+9FA5 all are.
  static TF_INLINE bool is_run_letter(uint32_t cp) { return cp >= 0x4E00 || (class_of(cp) & (kLetter | kMark)); }

  // The character scanner: a number group, or the next piece of the segment from p.
  size_t scalar(size_t p) {
    using deepseek_ranges::is_number;
    using deepseek_ranges::is_v3_cjk;
    if (p == pend_start_) {
      pend_start_ = kNone;
      return pend_end_;
    }
    if (p >= seg_end_) {
      size_t len;
      const uint32_t cp = at(p, len);
      size_t e = p + len;
      if (is_number(cp)) {
        for (int count = 1; count < 3 && e < n_; ++count) {
          size_t l;
          if (!is_number(at(e, l))) break;
          e += l;
        }
        return e;
      }
      if (is_v3_cjk(cp)) {
        // A run of letters and marks only (ideographs are all letters) is one match of the main
        // pattern's (2), the whole run: no second read of it.
        bool plain = is_run_letter(cp);
        for (size_t l; e < n_;) {
          const uint32_t c = at(e, l);
          if (!is_v3_cjk(c)) break;
          plain &= is_run_letter(c);
          e += l;
        }
        seg_end_ = e;
        if (plain) return e;
      } else {
        seg_end_ = stretch_end(e);
      }
    }
    const DeepSeekV3Scanner scanner(t_ + p, seg_end_ - p);
    size_t start, end;
    if (!scanner.next_match(0, start, end)) return seg_end_;  // text between matches up to the end
    if (start == 0) return p + end;
    pend_start_ = p + start;  // the text before the match first
    pend_end_ = p + end;
    return p + start;
  }

  // The end of a stretch from e: up to the next number or CJK character (or the text's end).
  size_t stretch_end(size_t e) const {
    using deepseek_ranges::is_number;
    using deepseek_ranges::is_v3_cjk;
    while (e < n_) {
#if defined(__SSE2__)
      // Sixteen bytes at a time past ASCII bytes that are no digit and two-byte characters whose
      // lead byte has no number (all but 0xC2, 0xD9, 0xDB and 0xDF, as number_leads_are asserts);
      // not among three-byte characters, which stop it at once.
      while (t_[e] < 0xE0 && e + 16 <= n_) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t_ + e));
        const __m128i digit =
            _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
        // 0xE0..0xFF: the leads of three- and four-byte characters.
        const __m128i wide = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(char(0xE0))), v);
        const __m128i numbered = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(char(0xC2))), _mm_cmpeq_epi8(v, _mm_set1_epi8(char(0xD9)))),
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(char(0xDB))), _mm_cmpeq_epi8(v, _mm_set1_epi8(char(0xDF)))));
        const unsigned stop = unsigned(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, wide), numbered)));
        if (stop) {
          e += size_t(__builtin_ctz(stop));
          break;
        }
        e += 16;
      }
      if (e >= n_) break;
#endif
      const uint8_t b = t_[e];
      if (b < 0xC0) {  // ASCII, or the second byte of a character the loop above went into
        if (uint8_t(b - '0') <= 9) break;
        ++e;
        continue;
      }
      size_t l;
      const uint32_t c = at(e, l);
      if (is_number(c) || is_v3_cjk(c)) break;
      e += l;
    }
    return e;
  }
};

}  // namespace tokenforge
