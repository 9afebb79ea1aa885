// Which characters stand next to each other inside some piece. Between two characters that never
// do, no piece can cross: sentencepiece's BPE merges and Unigram's lattice both fall apart there,
// so a text may be cut there and each part encoded (and remembered) alone. A cut missed only
// keeps a segment whole, so pairs outside the alphabets sit in a filter that may answer yes
// for a pair that never stands together (about one time in sixteen), never no for one that does.
// The cut may also read a normalizer's input where the normalizer copies it as it is (cut_on
// with a check; SpmUnigramModel::encode_normalizing and SpmNormalizer::normalize_cut drive it).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/inline_hints.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class PieceAdjacency {
 public:
  static constexpr uint32_t kCharacters = 0x10000;  // info() kept for the Basic Multilingual Plane
  // Bits of info(c): c is first (kJoinsNext) or second (kJoinsPrevious) in an inner pair; below
  // them the id of a segment of c alone, which the model sets (kNoOne: none, or not one id).
  static constexpr uint32_t kJoinsNext = 1u << 31, kJoinsPrevious = 1u << 30, kNoOne = kJoinsPrevious - 1;
  static constexpr uint32_t kMark = 0x2581;  // "▁", which " " reads as where spaces are escaped

  PieceAdjacency() = default;
  // From the pieces' texts (valid UTF-8).
  explicit PieceAdjacency(const std::vector<std::string_view>& pieces) {
    std::vector<uint64_t> inner;  // (character, next character)
    info_.assign(kCharacters, kNoOne);
    for (const std::string_view t : pieces) {
      if (t.empty()) continue;
      size_t before = 0;  // the previous character's start
      for (size_t i = utf8_length(uint8_t(t[0])); i < t.size(); i += utf8_length(uint8_t(t[i]))) {
        const uint32_t a = code_point(t.substr(before)), b = code_point(t.substr(i));
        if (a < kCharacters) info_[a] |= kJoinsNext;
        if (b < kCharacters) info_[b] |= kJoinsPrevious;
        inner.push_back((uint64_t(a) << 32) | b);
        before = i;
      }
    }
    std::sort(inner.begin(), inner.end());
    inner.erase(std::unique(inner.begin(), inner.end()), inner.end());
    index_dense(inner);
    size_t others = 0;
    for (uint64_t k : inner) others += !both_dense(uint32_t(k >> 32), uint32_t(k));
    size_t bits = 512;  // 16 or more per pair
    while (bits < others * 16) bits <<= 1;
    other_pairs_.assign(bits / 64, 0);
    other_shift_ = 64 - __builtin_ctzll(bits);
    for (uint64_t k : inner) {
      const uint32_t a = uint32_t(k >> 32), b = uint32_t(k);
      const uint32_t x = dense(a), y = dense(b);
      if (both_dense(a, b)) {
        dense_pairs_[x * dense_stride_ + (y >> 6)] |= uint64_t(1) << (y & 63);
      } else {
        const uint64_t bit = other_bit(a, b);
        other_pairs_[bit >> 6] |= uint64_t(1) << (bit & 63);
      }
    }
    ascii_cuts_.assign(2 * 0x80 * 0x80, 1);
    for (int escape = 0; escape < 2; ++escape)
      for (uint32_t a = 0; a < 0x80; ++a)
        for (uint32_t b = 0; b < 0x80; ++b) {
          const uint32_t x = read_char(a, escape), y = read_char(b, escape);
          if ((info(x) & kJoinsNext) && (info(y) & kJoinsPrevious) && may_join(x, y))
            ascii_cuts_[size_t(escape) << 14 | a << 7 | b] = 0;
        }
  }

  // Whether a character of this info() is in no piece and no piece of its own: the lattice has
  // only an unknown node over it. The cut keeps a run of such characters (next to each other)
  // in one segment (with infos, see cut).
  static TF_INLINE bool lone_unknown(uint32_t info) { return info == kNoOne; }

  // info() of c, with the flags of a character past the table: it may do anything.
  uint32_t info(uint32_t c) const { return c < kCharacters ? info_[c] : kJoinsNext | kJoinsPrevious | kNoOne; }
  // Sets the id of a segment of c alone (c < kCharacters, id < kNoOne).
  void set_one(uint32_t c, uint32_t id) { info_[c] = (info_[c] & ~kNoOne) | id; }

  // Whether characters a and b may stand next to each other in some piece (exactly where both
  // are in the alphabets, else through the filter).
  bool may_join(uint32_t a, uint32_t b) const {
    // Both below kDenseRange (alphabets, ASCII: one load each), either past it and not "▁" (CJK,
    // Hangul: not dense, no load), or the rest.
    uint32_t x = kNotDense, y = kNotDense;
    if (TF_LIKELY((a | b) < kDenseRange)) {
      x = dense_[a];
      y = dense_[b];
    } else if ((a < kDenseRange || a == kMark) && (b < kDenseRange || b == kMark)) {
      x = dense(a);
      y = dense(b);
    }
    if (((x | y) & kNotDense) != kNotDense) return dense_bit_of(x, y);
    return other_pair(a, b);
  }

  // Character c as the models read it: " " as "▁" with `escape`. (No branch on spaces: they
  // come unpredictably.)
  static TF_INLINE uint32_t read_char(uint32_t c, bool escape) {
    return c + uint32_t(c == ' ' && escape) * (kMark - ' ');
  }
  // The same for the character at s[0..n) (n > 0); sets its length.
  static TF_INLINE uint32_t read(const uint8_t* s, size_t n, bool escape, size_t& len) {
    return read_char(decode_utf8(s, n, len), escape);
  }

  // Where text s[0..n) (n > 0) falls apart into segments, into cuts: each segment's start, then
  // n. With `escape`, " " reads as "▁"; with `prefix`, a space (read the same way) comes before
  // s, and the first segment holds it: [0, 0) where it is a segment alone. Pairs of ASCII
  // characters come from a byte table (a byte per pair: one load where a bit would take three).
  void cut(const uint8_t* s, size_t n, bool escape, bool prefix, std::vector<uint32_t>& cuts) const {
    cut_into<false>(s, n, escape, prefix, cuts, nullptr);
  }
  // The same, and in infos (in step with cuts) the info() of each segment's first character
  // where that character is outside ASCII (what is there for an ASCII one is undefined): a model
  // then knows a one-character segment's id without reading the character again. Here a run
  // of lone_unknown() characters stays one segment where one of two next to each other is
  // outside ASCII (its first character's info() says so where that is outside ASCII).
  void cut(const uint8_t* s, size_t n, bool escape, bool prefix, std::vector<uint32_t>& cuts,
           std::vector<uint32_t>& infos) const {
    cut_into<true>(s, n, escape, prefix, cuts, &infos);
  }
  // The same into buffers kept at their size between calls (grown to n + 2 where smaller, never
  // shrunk, so that no call clears memory it is about to write): returns how many entries of
  // cuts are the text's (its segment starts, then n).
  size_t cut_kept(const uint8_t* s, size_t n, bool escape, bool prefix, std::vector<uint32_t>& cuts,
                  std::vector<uint32_t>& infos) const {
    if (n >= std::numeric_limits<uint32_t>::max()) throw std::length_error("text too long to encode (4 GB)");
    if (cuts.size() < n + 2) cuts.resize(n + 2);
    if (infos.size() < n + 2) infos.resize(n + 2);
    return cut_at<true>(s, n, escape, prefix, cuts.data(), infos.data());
  }

  static uint32_t code_point(std::string_view s) {
    size_t len;
    return decode_utf8(reinterpret_cast<const uint8_t*>(s.data()), s.size(), len);
  }

 private:
  template <bool kInfos>
  void cut_into(const uint8_t* s, size_t n, bool escape, bool prefix, std::vector<uint32_t>& cuts,
                std::vector<uint32_t>* infos) const {
    if (n >= std::numeric_limits<uint32_t>::max()) throw std::length_error("text too long to encode (4 GB)");
    cuts.resize(n + 2);
    if (kInfos) infos->resize(n + 2);
    cuts.resize(cut_at<kInfos>(s, n, escape, prefix, cuts.data(), kInfos ? infos->data() : nullptr));
  }

  // The cuts of s[0..n) into w (room for n + 2), infos into info_at (the same, with kInfos);
  // returns how many cuts.
  template <bool kInfos>
  size_t cut_at(const uint8_t* s, size_t n, bool escape, bool prefix, uint32_t* w, uint32_t* const info_at) const {
    uint32_t* const base = w;
    *w++ = 0;
    size_t len = 0;
    CutState st;
    // The previous character; prev_byte is it where ASCII, else 0x80 (prev is then kept).
    st.prev_byte = prefix ? (escape ? 0x80 : ' ') : s[0] < 0x80 ? s[0] : 0x80;
    st.prev = prefix ? read_char(' ', escape) : read(s, n, escape, len);
    st.prev_info = info(st.prev);
    if (kInfos) info_at[0] = st.prev_info;
    cut_on<kInfos>(s, len, n, escape, st, base, w, info_at, NoCheck{});
    *w++ = uint32_t(n);
    return size_t(w - base);
  }

 public:
  // Where a cut stands between calls of cut_on: the last character read (as the models read
  // it), its info(), and it as a byte where ASCII (else 0x80).
  struct CutState {
    uint32_t prev = 0, prev_info = 0;
    uint8_t prev_byte = 0x80;
  };
  // A cut_on that reads text only as it is (the text is the models' input already).
  struct NoCheck {
    static constexpr bool kOn = false;
    static constexpr size_t delta = 0;
    static constexpr const uint8_t* pairs = nullptr;
    static constexpr const uint8_t* ascii = nullptr;
    static constexpr const uint32_t* reads = nullptr;
    static bool fast(uint32_t) { return true; }
    static bool plain(const uint8_t*, size_t, uint32_t, size_t) { return true; }
    static bool key_after(const uint8_t*, size_t) { return false; }
  };
  static constexpr size_t kAbort = ~size_t(0);

  // The `pairs` table of a Check (see cut_on) for input ASCII bytes as `ascii` copies them
  // (with `escape`): [a << 7 | b] is 2 where stops(a, b) (a is 0x80 after no ASCII byte),
  // else whether a and b never join inside a piece.
  template <class Stops>
  std::vector<uint8_t> check_pairs(bool escape, const uint8_t* ascii, Stops&& stops) const {
    std::vector<uint8_t> pairs(0x81 << 7, 0);
    for (uint32_t a = 0; a <= 0x80; ++a)
      for (uint32_t b = 0; b < 0x80; ++b)
        pairs[a << 7 | b] = stops(a, b) ? 2
                            : a == 0x80 ? 0
                                        : ascii_cuts_[size_t(escape) << 14 | uint32_t(ascii[a]) << 7 | ascii[b]];
    return pairs;
  }

  // cut_on (without a check) over text whose character at i is ASCII byte b and ends there:
  // the cut before b, its info where the character before it is outside ASCII, and st past it.
  // (For a normalizer's step that writes one ASCII byte, a replaced character's: no call of
  // cut_on for it.)
  TF_NOINLINE void cut_ascii(uint8_t b, size_t i, bool escape, CutState& st, uint32_t* const base, uint32_t*& w,
                             uint32_t* const info_at) const {
    *w = uint32_t(i);
    if (st.prev_byte < 0x80) {  // (as cut_on's runs of ASCII)
      w += ascii_cuts_[size_t(escape) << 14 | size_t(st.prev_byte) << 7 | b];
    } else {  // (as cut_on's character after a run, with infos)
      const uint32_t c = read_char(b, escape), c_info = info(c);
      info_at[w - base] = c_info;
      w += !((((st.prev_info >> 1) & c_info & kJoinsPrevious) && may_join(st.prev, c)) ||
             (lone_unknown(st.prev_info) & lone_unknown(c_info)));
      st.prev = c;
      st.prev_info = c_info;
    }
    st.prev_byte = b;
  }

  // Cuts s[i..n) after what st says came before it: writes at w (then past what it wrote) the
  // segment starts there, and with kInfos the infos in step (info_at[k] for base[k]). Returns
  // where it stopped: n, or (with a Check whose kOn is set: the text is a normalizer's input,
  // read where the normalizer would copy it as it is) the first character the check does not
  // pass, or kAbort where what it read already may not be copied (an ASCII letter that starts
  // a key of the normalizer's map with the character after it). A Check (with kOn) has
  // `pairs` ([a << 7 | b] for input ASCII bytes a, b: 0 where they join, 1 where not, 2 where
  // b is not copied as it is after a), `ascii` (each ASCII byte as it is copied; `reads`: the
  // same as read_char reads it), `delta` (the
  // output's position of input byte 0, added to each cut), fast(c) (a character of the Basic
  // Multilingual Plane copied as it is, whatever comes next: a test that may say no where
  // plain says yes), plain(p, m, c, len) (character c, of len bytes at p[0..m), outside ASCII,
  // copied as it is there) and key_after(p, m) (whether the ASCII byte at p[0] starts a key
  // with the character after it).
  template <bool kInfos, class Check>
  size_t cut_on(const uint8_t* s, size_t i, size_t n, bool escape, CutState& st, uint32_t* const base, uint32_t*& w_io,
                uint32_t* const info_at, const Check& check) const {
    constexpr bool kCheck = Check::kOn;
    const size_t d = kCheck ? check.delta : 0;
    const size_t first = i;
    uint32_t* w = w_io;
    const uint8_t* const ascii_cuts = kCheck ? check.pairs : ascii_cuts_.data() + (size_t(escape) << 14);
    uint8_t prev_byte = st.prev_byte;
    uint32_t prev = st.prev, prev_info = st.prev_info;
    // (A non-ASCII character that is not copied as it is: read where it stands.)
    size_t len = 0;
    if (kCheck && prev_byte < 0x80 && check.ascii[prev_byte] != prev_byte) {
      i = first;  // (an output byte the input's table reads otherwise: not from here)
      goto stop;
    }
    for (; i < n; i += len) {
      uint8_t b = s[i];
      if ((b | prev_byte) < 0x80) {  // a run of ASCII: a byte of the table each, eight at a time where it can
        for (; i + 8 <= n && !(load8(s + i) & 0x8080808080808080ull); i += 8)
          for (size_t j = i; j < i + 8; ++j) {
            const uint8_t v = ascii_cuts[size_t(prev_byte) << 7 | s[j]];
            if (kCheck && TF_UNLIKELY(v > 1)) {
              i = j;
              goto stop;
            }
            *w = uint32_t(j + d);
            w += v;
            prev_byte = s[j];
          }
        if (i < n && (b = s[i]) < 0x80) {
          do {
            const uint8_t v = ascii_cuts[size_t(prev_byte) << 7 | b];
            if (kCheck && TF_UNLIKELY(v > 1)) goto stop;
            *w = uint32_t(i + d);
            w += v;
            prev_byte = b;
          } while (TF_LIKELY(++i < n) && TF_LIKELY((b = s[i]) < 0x80));
        }
        len = 0;  // (i is at the next character already)
        continue;
      }
      if (prev_byte < 0x80) {
        // (Checked: an ASCII letter read here that a key of the map starts with the character
        // after it is not copied as it is: this text goes the normalizer's way.)
        if (kCheck && i > first && check.key_after(s + i - 1, n - i + 1)) {
          w_io = w;
          return kAbort;
        }
        prev = kCheck ? check.reads[prev_byte] : read_char(prev_byte, escape);
        prev_info = info(prev);
        prev_byte = 0x80;
      }
      // With infos, a first character of three bytes as in the loop below; where it is a lone
      // unknown (Hangul or CJK where the model has none), the run of lone unknowns of three
      // bytes after it, with no cut and nothing written (what the loop writes there is
      // overwritten anyway). (Where the text leaves ASCII, not at each character: the check
      // costs Cyrillic or CJK with pieces little.)
      if (kInfos && (b & 0xF0) == 0xE0 && n - i >= 3) {
        const uint32_t c = ((b & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu), c_info = info_[c];
        if (kCheck && !check.plain(s + i, n - i, c, 3)) goto stop;
        *w = uint32_t(i + d);
        info_at[w - base] = c_info;
        w += !((((prev_info >> 1) & c_info & kJoinsPrevious) && may_join(prev, c)) ||
               (lone_unknown(prev_info) & lone_unknown(c_info)));
        prev = c;
        prev_info = c_info;
        i += 3;
        if (lone_unknown(c_info))
          for (; n - i >= 3 && (s[i] & 0xF0) == 0xE0; i += 3) {
            const uint32_t next = ((s[i] & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
            if (!lone_unknown(info_[next]) || (kCheck && !check.fast(next))) break;
            prev = next;
          }
        if (i >= n) {
          len = 0;
          continue;
        }
        b = s[i];
      }
      // Characters one by one while they are outside ASCII, and the first ASCII one after them.
      for (;;) {
        // After a character below kDenseRange or "▁" (an escaped space: a word's start), a run
        // of two-byte ones (alphabets) from the tables alone: decode_utf8_past_ascii's reading
        // of a byte below 0xE0, no range tests.
        if (uint8_t(b - 0x80) < 0x60 && (prev < kDenseRange || prev == kMark) && n - i >= 2) {
          // (Each character's dense index is loaded once and kept for the next pair; the
          // infos are written through a pointer in step with w.)
          uint32_t* info_w = kInfos ? info_at + (w - base) : nullptr;
          uint32_t prev_x = dense(prev);
          do {
            const uint32_t c = ((b & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu), c_info = info_[c], x = dense_[c];
            if (kCheck && !check.plain(s + i, n - i, c, 2)) goto stop;
            *w = uint32_t(i + d);
            if (kInfos) *info_w = c_info;
            const size_t step = !((((prev_info >> 1) & c_info & kJoinsPrevious) && dense_bit_of(prev_x, x)) ||
                                  (kInfos && (lone_unknown(prev_info) & lone_unknown(c_info))));
            w += step;
            if (kInfos) info_w += step;
            prev = c;
            prev_x = x;
            prev_info = c_info;
            i += 2;
          } while (n - i >= 2 && uint8_t((b = s[i]) - 0x80) < 0x60);
          if (i >= n) {
            len = 0;
            break;
          }
          b = s[i];
        }
        // A run of three-byte ones (CJK, kana, Hangul, punctuation) likewise: no range tests, and
        // no dense index (a pair with one of them is in the filter, unless it is "▁").
        if ((b & 0xF0) == 0xE0 && n - i >= 3) {
          uint32_t* info_w = kInfos ? info_at + (w - base) : nullptr;
          do {
            const uint32_t c = ((b & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu), c_info = info_[c];
            if (kCheck && !check.plain(s + i, n - i, c, 3)) goto stop;
            *w = uint32_t(i + d);
            if (kInfos) *info_w = c_info;
            const size_t step = !((((prev_info >> 1) & c_info & kJoinsPrevious) &&
                                   (TF_LIKELY(c != kMark) ? other_pair(prev, c) : may_join(prev, c))) ||
                                  (kInfos && (lone_unknown(prev_info) & lone_unknown(c_info))));
            w += step;
            if (kInfos) info_w += step;
            prev = c;
            prev_info = c_info;
            i += 3;
          } while (n - i >= 3 && ((b = s[i]) & 0xF0) == 0xE0);
          if (i >= n) {
            len = 0;
            break;
          }
          b = s[i];
          // (Then the character after the run, of one, two or four bytes, below.)
        }
        uint32_t c;
        if (b < 0x80) {
          if (kCheck && check.pairs[size_t(0x80) << 7 | b] > 1) goto stop;  // (after no ASCII byte)
          c = kCheck ? check.reads[b] : read_char(b, escape);
        } else {
          c = decode_utf8_past_ascii(s + i, n - i, len);
          if (kCheck && !check.plain(s + i, n - i, c, len)) goto stop;
        }
        const uint32_t c_info = info(c);
        *w = uint32_t(i + d);
        if (kInfos) info_at[w - base] = c_info;
        // With infos (the Unigram model's cut), no cut inside a run of lone unknowns either.
        w += !((((prev_info >> 1) & c_info & kJoinsPrevious) && may_join(prev, c)) ||
               (kInfos && (lone_unknown(prev_info) & lone_unknown(c_info))));
        prev = c;
        prev_info = c_info;
        if (b < 0x80) {
          prev_byte = b;
          len = 1;
          break;
        }
        if ((i += len) >= n) {
          len = 0;
          break;
        }
        b = s[i];
      }
    }
    i = n;
  stop:
    // (prev_byte is the last character where ASCII, as the output has it; else prev holds it.)
    st.prev_byte = prev_byte < 0x80 && kCheck ? check.ascii[prev_byte] : prev_byte;
    st.prev = prev;
    st.prev_info = prev_info;
    w_io = w;
    return i;
  }

 private:
  static constexpr uint32_t kDenseRange = 0x800;
  static constexpr uint16_t kDenseMark = 0x80, kNotDense = 0xFFFF;

  // ASCII characters are their own dense indexes, "▁" is kDenseMark, and the characters of inner
  // pairs below kDenseRange (alphabets: Latin, Greek, Cyrillic, ...) get the next ones, so that
  // pairs of these are the bits of a small matrix.
  void index_dense(const std::vector<uint64_t>& inner) {
    dense_.assign(kDenseRange, kNotDense);
    uint32_t count = kDenseMark + 1;
    for (uint32_t c = 0; c < 0x80; ++c) dense_[c] = uint16_t(c);
    for (uint64_t k : inner)
      for (uint32_t c : {uint32_t(k >> 32), uint32_t(k)})
        if (c < kDenseRange && dense_[c] == kNotDense) dense_[c] = uint16_t(count++);
    dense_stride_ = (count + 63) / 64;
    dense_pairs_.assign(size_t(count) * dense_stride_, 0);
  }
  uint32_t dense(uint32_t c) const {
    return c < 0x80 ? c : c < kDenseRange ? dense_[c] : c == kMark ? kDenseMark : kNotDense;
  }
  // The matrix's bit for dense indexes x, y (neither kNotDense): may_join for characters that
  // have them. (Below kDenseRange, a first and a second of some inner pairs, info()'s kJoinsNext
  // and kJoinsPrevious, always do.)
  TF_INLINE bool dense_bit_of(uint32_t x, uint32_t y) const {
    return dense_pairs_[x * dense_stride_ + (y >> 6)] >> (y & 63) & 1;
  }
  bool both_dense(uint32_t a, uint32_t b) const { return ((dense(a) | dense(b)) & kNotDense) != kNotDense; }
  uint64_t other_bit(uint32_t a, uint32_t b) const {
    return (((uint64_t(a) << 32) | b) * 0xD6E8FEB86659FD93ull) >> other_shift_;
  }
  // The filter's answer for a and b: may_join where either has no dense index.
  TF_INLINE bool other_pair(uint32_t a, uint32_t b) const {
    const uint64_t bit = other_bit(a, b);
    return other_pairs_[bit >> 6] >> (bit & 63) & 1;
  }

  std::vector<uint32_t> info_;         // by code point below kCharacters: info()
  std::vector<uint16_t> dense_;        // by code point below kDenseRange: its dense index, or kNotDense
  size_t dense_stride_ = 0;            // words per row of dense_pairs_
  std::vector<uint64_t> dense_pairs_;  // bit (x, y): the characters with dense indexes x, y are an inner pair
  std::vector<uint64_t> other_pairs_;  // the other inner pairs (code points): a filter, bits other_bit()
  int other_shift_ = 64;
  std::vector<uint8_t> ascii_cuts_;  // [escape << 14 | a << 7 | b]: 1 where ASCII a, b never join inside a piece
};

}  // namespace tokenforge
