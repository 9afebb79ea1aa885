// sentencepiece's normalizer. The rule (nmt_nfkc, nfkc, ...) is a precompiled character map
// (normalizers/spm_charsmap.h reads it). At each position the longest key that prefixes the rest
// of the text is replaced; without one the character stays (identity has no map). Around that:
// leading, trailing and repeated spaces go (remove_extra_whitespaces), a space goes in front
// (add_dummy_prefix) or at the end (treat_whitespace_as_suffix), and spaces become "▁"
// (escape_whitespaces). A map that leads outside itself is an error when a lookup gets there.
// On request it also aligns the output with the input, as sentencepiece does (for offsets).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/bytes.h"
#include "base/utf8.h"
#include "base/inline_hints.h"
#include "normalizers/spm_charsmap.h"
#include "unicode/unicode_classes.h"
#if defined(__SSSE3__)
#include <tmmintrin.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tokenforge {

// How a text reads as its normalized form when the normalizer only escapes it: a space before
// it (`prefix`), and each " " as "▁" (`escape`; the prefix is then "▁" too).
struct SpmEscaping {
  bool prefix = false, escape = false;
};

class SpmNormalizer {
 public:
  struct Options {
    bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true,
         whitespace_as_suffix = false;
  };

  // user_defined: the model's user-defined symbols, which pass through unchanged (sentencepiece's
  // prefix matcher).
  SpmNormalizer(std::string_view charsmap, Options options, std::vector<std::string> user_defined = {})
      : options_(options), user_defined_(std::move(user_defined)), map_(charsmap) {
    std::sort(user_defined_.begin(), user_defined_.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (size_t b = 0; b < 256; ++b) copy_rule_[b] = units().empty() || b < 0x80 ? kCopy : kWhole;
    // With a map, a character outside ASCII (of the Basic Multilingual Plane) is copied as it is
    // where no key starts with it, or where no key goes on with the next character's first byte.
    if (!units().empty()) {
      next_class_.assign(0x10000, 0);
      next_sets_.assign(1, {});  // class 0: no key starts with the character
      for (uint32_t c = 0x80; c < 0x10000; ++c) {
        if (c >= 0xD800 && c < 0xE000) continue;
        uint8_t bytes[4];
        const size_t len = encode_utf8(c, bytes);
        size_t node = offset(units()[0]), i = 0;
        bool leaf = false;
        for (; i < len; ++i) {
          node ^= bytes[i];
          if (node >= units().size() || label(units()[node]) != bytes[i]) break;
          leaf |= has_leaf(units()[node]);
          node ^= offset(units()[node]);
        }
        if (i < len) continue;
        std::array<uint64_t, 4> next{};  // the bytes keys go on with after c
        for (uint32_t b = 0; b < 256; ++b)
          if ((node ^ b) < units().size() && label(units()[node ^ b]) == b) next[b >> 6] |= uint64_t(1) << (b & 63);
        mark_followers(node, 0, 0);
        const auto known = std::find(next_sets_.begin() + 1, next_sets_.end(), next);
        if (leaf || (known == next_sets_.end() && next_sets_.size() == kNeverPlain)) {
          next_class_[c] = kNeverPlain;
          continue;
        }
        next_class_[c] = uint8_t(known - next_sets_.begin());
        if (known == next_sets_.end()) next_sets_.push_back(next);
      }
    }
    // With a map, an ASCII byte is copied as it is where no key starts with it, or where every
    // key that does goes on with a byte outside ASCII and the next byte is in it (letters start
    // keys with combining marks).
    // A byte that is a key alone, replaced by " " (tab, newline: nmt_nfkc), is blank: copied as a space.
    for (uint32_t b = 0; b < 0x80 && !units().empty(); ++b) {
      const uint32_t node = offset(units()[0]) ^ b;
      if (node >= units().size() || label(units()[node]) != b) continue;
      copy_rule_[b] = kAsciiNext;
      const uint32_t children = node ^ offset(units()[node]);
      if (has_leaf(units()[node])) copy_rule_[b] = kStop;
      bool longer = false;  // a longer key starts with b
      for (uint32_t c = 0; c < 0x100; ++c) {
        if ((children ^ c) >= units().size() || label(units()[children ^ c]) != c) continue;
        longer = true;
        if (c < 0x80) copy_rule_[b] = kStop;
      }
      if (has_leaf(units()[node]) && !longer && children < units().size() &&
          replaced_by_space(value(units()[children]))) {
        blank_[b] = true;
        copy_rule_[b] = kCopy;
      }
    }
    const uint8_t space = uint8_t(' ');
    blank_[space] = true;  // (where a key starts with it, it stops runs instead)
    // Where extra whitespace goes, a blank that follows no blank stays, so a run goes on through it.
    if (options_.remove_extra_whitespaces)
      for (uint32_t b = 0; b < 0x80; ++b)
        if (blank_[b]) copy_rule_[b] = copy_rule_[b] == kCopy ? kSpaceOnce : kStop;
    for (const std::string& u : user_defined_)
      if (!u.empty()) starts_user_defined_[uint8_t(u[0])] = true, copy_rule_[uint8_t(u[0])] = kStop;
    for (uint32_t b = 0; b < 0x80; ++b) translates_ |= blank_[b] && b != space;
    if (!units().empty()) {
      // A three-byte character whose first byte is not copied whole (a user-defined symbol
      // starts with it) is never plain: runs of them then test next_class_ alone.
      for (uint32_t c = 0x800; c < 0x10000; ++c)
        if (copy_rule_[0xE0 | (c >> 12)] != kWhole) next_class_[c] = kNeverPlain;
      two_byte_class_.assign(0x800, kNeverPlain);
      for (uint32_t c = 0x80; c < 0x800; ++c)
        if (copy_rule_[0xC0 | (c >> 6)] == kWhole) two_byte_class_[c] = next_class_[c];
    }
    copies_all_ = std::all_of(copy_rule_.begin(), copy_rule_.end(), [](uint8_t r) { return r == kCopy; });
#if defined(__SSSE3__)
    alignas(16) uint8_t stops[16] = {}, before_ascii[16] = {}, blanks[16] = {};
    for (uint32_t b = 0; b < 0x80; ++b) {
      if (copy_rule_[b] == kStop) stops[b & 15] |= uint8_t(1u << (b >> 4));
      if (copy_rule_[b] == kAsciiNext) before_ascii[b & 15] |= uint8_t(1u << (b >> 4));
      if (blank_[b]) blanks[b & 15] |= uint8_t(1u << (b >> 4));
    }
    stop_bytes_ = _mm_load_si128(reinterpret_cast<const __m128i*>(stops));
    before_ascii_bytes_ = _mm_load_si128(reinterpret_cast<const __m128i*>(before_ascii));
    blank_bytes_ = _mm_load_si128(reinterpret_cast<const __m128i*>(blanks));
#endif
  }

  // Whether normalizing a (non-empty) text only puts a space before it and escapes its spaces,
  // as escaping() says: no character map and no whitespace removed. Models may then read the
  // text as it is.
  bool escapes_only() const {
    return units().empty() && !options_.remove_extra_whitespaces && !options_.whitespace_as_suffix;
  }
  SpmEscaping escaping() const { return {options_.add_dummy_prefix, options_.escape_whitespaces}; }

  // The normalized text of s[0..n) (valid UTF-8). With `norm_to_orig`, also sentencepiece's
  // alignment: for each normalized byte, and once more for the end, the input byte offset of the
  // input piece it came from (inserted spaces take the offset they stand at).
  std::string normalize(const uint8_t* s, size_t n, std::vector<uint32_t>* norm_to_orig = nullptr) const {
    std::string out;
    normalize(s, n, out, norm_to_orig);
    return out;
  }

  // The same into `out` (and `norm_to_orig`), whose memory is reused. With `spaces_as_is`,
  // spaces stay " " where they would become "▁": the reader escapes them (SpmEscaping). With
  // `characters` (and norm_to_orig), the alignment is in input characters instead: for each
  // normalized byte the input character it came from (sentencepiece's offsets, with no counting
  // left to do), and *characters is the input's character count.
  // (norm_to_orig may be a DefaultInitVector: then its growth is not zeroed first.)
  template <class Alignment = std::vector<uint32_t>>
  void normalize(const uint8_t* s, size_t n, std::string& out, Alignment* norm_to_orig, bool spaces_as_is = false,
                 uint32_t* characters = nullptr) const {
    const bool escape = options_.escape_whitespaces && !spaces_as_is;
    std::string_view input(reinterpret_cast<const char*>(s), n);
    out.clear();
    if (norm_to_orig) norm_to_orig->clear();
    const bool in_characters = characters && norm_to_orig;
    uint32_t consumed = 0, consumed_characters = 0;  // input bytes, and characters, taken so far
    auto take = [&](size_t used) {                   // the next `used` bytes of input are taken
      if (in_characters)
        consumed_characters += count_characters(reinterpret_cast<const uint8_t*>(input.data()), 0, used, input.size());
      input.remove_prefix(used);
      consumed += uint32_t(used);
    };
    if (options_.remove_extra_whitespaces) {
      while (!input.empty()) {
        const auto [piece, used] = prefix(input);
        if (piece != " ") break;
        take(used);
      }
    }
    if (characters) *characters = in_characters ? consumed_characters : 0;
    // sentencepiece gives empty text an empty alignment (not even the end).
    if (input.empty()) return;
    const std::string_view space = escape ? kSpace : " ";
    // What norm_to_orig holds for bytes that come from the input piece at hand.
    auto here = [&] { return in_characters ? consumed_characters : consumed; };
    auto append = [&](std::string_view bytes) {
      out += bytes;
      if (norm_to_orig) norm_to_orig->insert(norm_to_orig->end(), bytes.size(), here());
    };
    if (options_.add_dummy_prefix && !options_.whitespace_as_suffix) append(space);
    bool prev_space = options_.remove_extra_whitespaces;
    while (!input.empty()) {
      if (prev_space && copy_rule_[uint8_t(input[0])] == kSpaceOnce) {  // extra blanks go, all at once
        size_t blanks = 1;
        while (blanks < input.size() && copy_rule_[uint8_t(input[blanks])] == kSpaceOnce) ++blanks;
        input.remove_prefix(blanks);
        consumed += uint32_t(blanks);
        consumed_characters += uint32_t(blanks);  // (ASCII)
        continue;
      }
      uint32_t run_characters = 0;
      if (const size_t run = copy_plain(input, here(), escape, prev_space, out, norm_to_orig,
                                        in_characters ? &run_characters : nullptr)) {
        input.remove_prefix(run);
        consumed += uint32_t(run);
        consumed_characters += run_characters;
        continue;
      }
      auto [piece, used] = prefix(input);
      if (prev_space)
        while (!piece.empty() && piece[0] == ' ') piece.remove_prefix(1);
      if (!piece.empty()) {
        for (const char& c : piece) {
          if (c == ' ' && escape)
            append(kSpace);
          else
            append(std::string_view(&c, 1));
        }
        prev_space = piece.back() == ' ';
      }
      take(used);
      if (!options_.remove_extra_whitespaces) prev_space = false;
    }
    if (in_characters) *characters = consumed_characters;
    if (options_.remove_extra_whitespaces) {
      // Trailing spaces go (sentencepiece takes an input "▁" at the end for an escaped one); the
      // end then aligns where the first of them came from.
      auto trailing = [&]() -> size_t {
        const std::string_view o(out);
        if (o.size() >= space.size() && o.substr(o.size() - space.size()) == space) return space.size();
        const bool input_mark = spaces_as_is && options_.escape_whitespaces;
        return input_mark && o.size() >= kSpace.size() && o.substr(o.size() - kSpace.size()) == kSpace ? kSpace.size()
                                                                                                       : 0;
      };
      for (size_t cut; (cut = trailing()) != 0;) {
        out.resize(out.size() - cut);
        if (norm_to_orig) {
          (in_characters ? consumed_characters : consumed) = (*norm_to_orig)[out.size()];
          norm_to_orig->resize(out.size());
        }
      }
    }
    if (options_.add_dummy_prefix && options_.whitespace_as_suffix) append(space);
    if (norm_to_orig) norm_to_orig->push_back(here());
  }

  // Whether normalize_cut can give `spaces_as_is` text (spaces stay spaces: none escaped, and
  // none put at the end).
  bool cuts_as_it_goes(bool spaces_as_is) const {
    return (spaces_as_is || !options_.escape_whitespaces) && !options_.whitespace_as_suffix;
  }

  // normalize(s, n, out, nullptr, spaces_as_is) (where cuts_as_it_goes(spaces_as_is)), telling
  // `cut` what goes into out as it goes: cut.plain(s, at, n, out.size()) reads the input from at
  // on and returns where a character is not copied as it is (see plain_at, ascii_stops: it may
  // stop sooner), or PieceAdjacency::kAbort; what it passed is then copied (blanks as spaces).
  // Else one step as normalize takes it (prefix() where cut.plain stopped and cut.began(), or
  // what cut.replaced(input, piece, used) says prefix() gives there), and cut.more(out, from)
  // reads what it wrote from `from` on. False where cut.plain aborted (out is then unfinished).
  // Trailing spaces are dropped from out at the end (the cut's positions past it are the caller's to drop).
  template <class Cut, class Alignment = std::vector<uint32_t>>
  bool normalize_cut(const uint8_t* s, size_t n, std::string& out, Cut& cut, Alignment* norm_to_orig = nullptr,
                     uint32_t* characters = nullptr) const {
    std::string_view input(reinterpret_cast<const char*>(s), n);
    out.clear();
    if (norm_to_orig) norm_to_orig->clear();
    uint32_t chars = 0;  // input characters taken so far (counted with norm_to_orig)
    auto take = [&](size_t used) {
      if (norm_to_orig)
        chars += count_characters(reinterpret_cast<const uint8_t*>(input.data()), 0, used, input.size());
      input.remove_prefix(used);
    };
    if (options_.remove_extra_whitespaces) {
      while (!input.empty()) {
        const auto [piece, used] = prefix(input);
        if (piece != " ") break;
        take(used);
      }
    }
    if (characters) *characters = chars;
    if (input.empty()) return true;
    if (options_.add_dummy_prefix) {
      out += ' ';
      if (norm_to_orig) norm_to_orig->push_back(chars);
      cut.more(out, 0);
    }
    bool prev_space = options_.remove_extra_whitespaces;
    bool stopped = false;  // cut.plain stopped here: prefix() takes the next step (as copy_plain would)
    while (!input.empty()) {
      const size_t at = n - input.size();
      if (prev_space && copy_rule_[uint8_t(input[0])] == kSpaceOnce) {  // extra blanks go, all at once
        size_t blanks = 1;
        while (blanks < input.size() && copy_rule_[uint8_t(input[blanks])] == kSpaceOnce) ++blanks;
        input.remove_prefix(blanks);
        chars += uint32_t(blanks);  // (ASCII)
        stopped = false;
        continue;
      }
      if (!stopped) {
        const size_t stop = cut.plain(s, at, n, out.size());
        if (stop == ~size_t(0)) return false;
        stopped = stop < n && cut.began();
        if (stop > at) {
          const size_t run = stop - at, from = out.size();
          out.append(input.data(), run);
          write_spaces(&out[from], run);
          if (norm_to_orig) {  // each byte: the number of the character it is part of
            norm_to_orig->resize(from + run);
            chars = align_characters(s + at, run, chars, norm_to_orig->data() + from);
          }
          prev_space = options_.remove_extra_whitespaces && blank_[s[stop - 1]];
          input.remove_prefix(run);
          continue;
        }
      }
      const size_t from = out.size();
      uint32_t run_characters = 0;
      std::string_view piece;
      size_t used = 0;
      if (stopped) {  // (copy_plain would take nothing, or one character prefix() gives as it is)
        stopped = false;
        cut.replaced(input, piece, used);  // (prefix() of a simple_key, where it knows one)
      } else if (const size_t run = copy_plain(input, chars, false, prev_space, out, norm_to_orig,
                                               norm_to_orig ? &run_characters : nullptr)) {
        input.remove_prefix(run);
        chars += run_characters;
        if (out.size() > from) cut.more(out, from);
        continue;
      }
      if (used == 0) std::tie(piece, used) = prefix(input);
      if (prev_space)
        while (!piece.empty() && piece[0] == ' ') piece.remove_prefix(1);
      if (!piece.empty()) {
        out += piece;
        if (norm_to_orig) norm_to_orig->insert(norm_to_orig->end(), piece.size(), chars);
        prev_space = piece.back() == ' ';
      }
      take(used);
      if (!options_.remove_extra_whitespaces) prev_space = false;
      if (out.size() > from) cut.more(out, from);
    }
    if (characters) *characters = chars;
    if (options_.remove_extra_whitespaces) {
      // Trailing spaces go (sentencepiece takes an input "▁" at the end for an escaped one); the
      // end then aligns where the first of them came from.
      for (;;) {
        const std::string_view o(out);
        if (!o.empty() && o.back() == ' ')
          out.pop_back();
        else if (options_.escape_whitespaces && o.size() >= kSpace.size() &&
                 o.substr(o.size() - kSpace.size()) == kSpace)
          out.resize(o.size() - kSpace.size());
        else
          break;
        if (norm_to_orig) {
          chars = (*norm_to_orig)[out.size()];
          norm_to_orig->resize(out.size());
        }
      }
    }
    if (norm_to_orig) norm_to_orig->push_back(chars);
    return true;
  }

  // For a cut that reads the input (normalize_cut): ASCII byte b as it is copied, where it is.
  uint8_t copied_ascii(uint8_t b) const { return blank_[b] ? uint8_t(' ') : b; }
  // Whether ASCII byte b is not copied as it is after byte a (0x80: after no ASCII byte): a
  // blank after a blank where extra whitespace goes, or a byte prefix() takes (a key or a
  // user-defined symbol may start there). (An ASCII letter that starts a key with the
  // character after it: see key_after.)
  bool ascii_stops(uint32_t a, uint8_t b) const {
    const uint8_t rule = copy_rule_[b];
    return rule == kStop || (rule == kSpaceOnce && a < 0x80 && blank_[a]);
  }
  // Whether ASCII byte p[0] of p[0..m) is a key's start with the character after it.
  bool key_after(const uint8_t* p, size_t m) const { return copy_rule_[p[0]] == kAsciiNext && key_at(p, m); }
  // By character c of the Basic Multilingual Plane outside ASCII: 0 where it is copied as it
  // is wherever it stands, kNeverPlain where plain_at must say, else the index in
  // next_sets() of the bytes after it that may go on a key (with any other, it is copied).
  static constexpr uint8_t kNeverPlain = 255;
  uint8_t plain_class(uint32_t c) const {
    if (c < 0x80 || (c >= 0xD800 && c < 0xE000) || c >= 0x10000) return kNeverPlain;
    uint8_t bytes[4];
    encode_utf8(c, bytes);
    const uint8_t rule = copy_rule_[bytes[0]];
    return rule == kCopy ? 0 : rule == kWhole ? next_class_[c] : kNeverPlain;
  }
  const std::array<uint64_t, 4>* next_sets() const { return next_sets_.data(); }
  // Whether character c (of the Basic Multilingual Plane, outside ASCII) is a key of the map
  // that no longer key goes on from and no user-defined symbol starts with: prefix() gives
  // its replacement wherever it stands.
  bool simple_key(uint32_t c, std::string_view& replacement) const {
    if (units().empty() || c < 0x80 || (c >= 0xD800 && c < 0xE000) || c >= 0x10000) return false;
    uint8_t bytes[4];
    const size_t len = encode_utf8(c, bytes);
    if (copy_rule_[bytes[0]] != kWhole) return false;
    size_t node = offset(units()[0]);
    uint32_t u = 0;
    for (size_t i = 0; i < len; ++i) {
      node ^= bytes[i];
      if (node >= units().size() || label(units()[node]) != bytes[i]) return false;
      u = units()[node];
      node ^= offset(u);
    }
    if (!has_leaf(u)) return false;
    for (uint32_t b = 0; b < 256; ++b)
      if ((node ^ b) < units().size() && label(units()[node ^ b]) == b) return false;  // a longer key
    size_t key_len = 0;
    std::string_view found;
    if (!map_.longest_key(std::string_view(reinterpret_cast<const char*>(bytes), len), key_len, found) ||
        key_len != len)
      return false;
    replacement = found;
    return true;
  }
  // plain_at where c (of len bytes at p[0..m)) has a class (not 0 or kNeverPlain) whose keys
  // may go on with the byte after it: whether no key goes on there.
  TF_NOINLINE bool plain_after(const uint8_t* p, size_t m, size_t len) const {
    return !(may_follow(p + len, m - len) && key_at(p, m));
  }
  // Whether character c, of len bytes at p[0..m) (outside ASCII), is copied as it is there (as
  // copy_plain decides).
  TF_NOINLINE bool plain_at(const uint8_t* p, size_t m, uint32_t c, size_t len) const {
    const uint8_t rule = copy_rule_[p[0]];
    if (rule != kWhole) return rule == kCopy;
    const uint8_t cls = c < 0x10000 ? next_class_[c] : kNeverPlain;
    if (cls == 0) return true;
    const bool more = len < m;
    const uint8_t next = more ? p[len] : 0;
    const bool may_go_on = cls == kNeverPlain ||
                           ((more & (next_sets_[cls][next >> 6] >> (next & 63) & 1)) && may_follow(p + len, m - len));
    return !(may_go_on && key_at(p, m));
  }

  // The normalized text of s[0..n) and, in `offsets` (replacing its contents), for each of its
  // characters and once more for the end, the input character it came from: sentencepiece's
  // normalize(text, with_offsets=True) (empty text: [0]).
  std::string normalize_with_offsets(const uint8_t* s, size_t n, std::vector<uint32_t>& offsets) const {
    std::vector<uint32_t> to_orig;
    std::string out = normalize(s, n, &to_orig);
    // Input byte offsets to code points, taken at each output character and at the end.
    std::vector<uint32_t> char_at(n + 1);
    for (size_t i = 0, chars = 0; i <= n; ++i) {
      char_at[i] = uint32_t(chars);
      if (i < n) chars += (s[i] & 0xC0) != 0x80;
    }
    offsets.clear();
    for (size_t i = 0; i < out.size(); ++i)
      if ((uint8_t(out[i]) & 0xC0) != 0x80) offsets.push_back(char_at[to_orig[i]]);
    offsets.push_back(to_orig.empty() ? 0 : char_at[to_orig.back()]);
    return out;
  }

 private:
  static constexpr std::string_view kSpace = "\xE2\x96\x81";
  static constexpr size_t kSlack = 16;  // bytes copy_plain() may write past what it keeps

  // The map's trie and its darts-clone unit fields
  const std::vector<uint32_t>& units() const { return map_.units(); }
  static uint32_t offset(uint32_t u) { return SpmCharsmap::offset(u); }
  static bool has_leaf(uint32_t u) { return SpmCharsmap::has_leaf(u); }
  static uint32_t label(uint32_t u) { return SpmCharsmap::label(u); }
  static uint32_t value(uint32_t u) { return SpmCharsmap::value(u); }

  // Copies the input up to the first byte that needs prefix() (see copy_rule_: one that may
  // start a key of the map or a user-defined symbol, a space after a space where extra
  // whitespace goes), escaping spaces, each byte aligned with its character's start; returns
  // how many input bytes it took, and says in prev_space whether the last was a space that
  // remove_extra_whitespaces counts. With `characters`, the alignment is in input characters
  // (`consumed` is the character at the start), and *characters says how many it took.
  template <class Alignment>
  size_t copy_plain(std::string_view input, uint32_t consumed, bool escape, bool& prev_space, std::string& out,
                    Alignment* norm_to_orig, uint32_t* characters = nullptr) const {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(input.data());
    const size_t n = input.size();
    size_t run = n, spaces = 0;
    if (!copies_all_) {
      bool after_space = prev_space;
      run = plain_run(s, n, after_space, spaces);
      if (run == 0) return 0;
      prev_space = after_space && options_.remove_extra_whitespaces;
    } else {
      if (run == 0) return 0;
      spaces = size_t(std::count(input.begin(), input.end(), ' '));
      prev_space = false;
    }
    if (!escape) spaces = 0;
    const size_t at = out.size();
    out.resize(at + run + 2 * spaces + kSlack);
    char* w = out.data() + at;
    if (!norm_to_orig) {
      if (escape) {
        w = write_escaped(s, run, n, w);
      } else {
        write_spaces(static_cast<char*>(std::memcpy(w, s, run)), run);
        w += run;
      }
      out.resize(size_t(w - out.data()));
      return run;
    }
    norm_to_orig->resize(out.size());
    uint32_t* o = norm_to_orig->data() + at;
    if (characters) {            // each byte: the number of the character it is part of
      uint32_t next = consumed;  // the next character's number
      if (!escape) {
        write_spaces(static_cast<char*>(std::memcpy(w, s, run)), run);
        next = align_characters(s, run, next, o);
        out.resize(at + run);
      } else {
        for (size_t k = 0; k < run; ++k) {
          const uint8_t c = s[k];
          const bool space = blank_[c];
          w = put_escaped(c, w);
          next += (c & 0xC0) != 0x80;
          o[0] = o[1] = o[2] = next - 1;
          o += space ? 3 : 1;
        }
        out.resize(size_t(w - out.data()));
      }
      norm_to_orig->resize(out.size());
      *characters = next - consumed;
      return run;
    }
    uint32_t start = consumed;  // of the current character
    if (!escape) {              // byte for byte: ASCII eight at a time
      write_spaces(static_cast<char*>(std::memcpy(w, s, run)), run);
      size_t k = 0;
      for (; k + 8 <= run; k += 8) {
        if (load8(s + k) & 0x8080808080808080ull) {
          for (size_t j = k; j < k + 8; ++j) o[j] = start = (s[j] & 0xC0) != 0x80 ? consumed + uint32_t(j) : start;
        } else {
          for (size_t j = k; j < k + 8; ++j) o[j] = consumed + uint32_t(j);
          start = consumed + uint32_t(k + 7);
        }
      }
      for (; k < run; ++k) o[k] = start = (s[k] & 0xC0) != 0x80 ? consumed + uint32_t(k) : start;
      out.resize(at + run);
      norm_to_orig->resize(out.size());
      return run;
    }
    for (size_t k = 0; k < run; ++k) {
      const uint8_t c = s[k];
      const bool space = blank_[c];
      w = put_escaped(c, w);
      start = (c & 0xC0) != 0x80 ? consumed + uint32_t(k) : start;
      o[0] = o[1] = o[2] = start;
      o += space ? 3 : 1;
    }
    out.resize(size_t(w - out.data()));
    norm_to_orig->resize(out.size());
    return run;
  }

  // How many bytes of s[0..n) copy_plain() takes as they are, and the spaces among them;
  // after_space: whether the byte before (then the last taken) is a space. ASCII is tested 16
  // bytes at a time, characters outside it one by one.
  size_t plain_run(const uint8_t* s, size_t n, bool& after_space, size_t& spaces) const {
    size_t run = 0;
    for (;;) {
#if defined(__SSSE3__)
      for (; run + 16 <= n; run += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + run));
        const uint32_t high = uint32_t(_mm_movemask_epi8(v));
        const AsciiSets sets(v);
        const uint32_t space = sets.in(blank_bytes_);
        const uint32_t high_next = (high >> 1) | (run + 16 < n && s[run + 16] >= 0x80 ? 0x8000u : 0u);
        uint32_t stop = high | sets.in(stop_bytes_) | (sets.in(before_ascii_bytes_)&high_next);
        if (options_.remove_extra_whitespaces) stop |= space & ((space << 1) | uint32_t(after_space));
        if (stop == 0) {
          spaces += size_t(__builtin_popcount(space));
          after_space = space >> 15;
          continue;
        }
        const int k = __builtin_ctz(stop);
        spaces += size_t(__builtin_popcount(space & ((1u << k) - 1)));
        if (k) after_space = (space >> (k - 1)) & 1;
        run += size_t(k);
        break;
      }
#endif
      // One character: the rest of the text (under 16 bytes), or where the blocks stopped.
      for (; run < n; ++run) {
        const uint8_t c = s[run], rule = copy_rule_[c];
        if (rule == kWhole) {  // a character outside ASCII, copied whole where no key starts
          size_t len;
          const uint32_t cp = decode_utf8(s + run, n - run, len);
          const uint8_t cls = cp < 0x10000 ? next_class_[cp] : kNeverPlain;
          if (cls != 0) {  // a key starts with it (0: none does, most characters)
            const bool more = run + len < n;
            const uint8_t next = more ? s[run + len] : 0;
            const bool may_go_on = cls == kNeverPlain || ((more & (next_sets_[cls][next >> 6] >> (next & 63) & 1)) &&
                                                          may_follow(s + run + len, n - run - len));
            if (TF_UNLIKELY(may_go_on) && key_at(s + run, n - run)) return run;
          }
          run += len;
          after_space = false;
          if (len == 2) {
            // After a 2-byte one (alphabets: Cyrillic, Greek, ...), more that no key takes (of
            // class 0, or whose next byte goes on no key, as above) and the single ASCII bytes
            // copied as they are between them (spaces, a comma before a space), without
            // decode_utf8's tests or a block that stops at once. Two ASCII bytes in a row go
            // back to the loop below (and its blocks).
            const uint8_t* p = s + run;
            const uint8_t* const last = s + n - 1;  // (p < last: two bytes left)
            bool after = false;                     // (locals: stores through the references would stay in the loop)
            size_t blanks = 0;
            while (p < last) {
              const uint8_t b = p[0], b1 = p[1];
              if (b < 0x80) {
                const uint8_t rule2 = copy_rule_[b];
                if (b1 < 0x80 || !(rule2 == kCopy || rule2 == kSpaceOnce)) break;  // (never after a space)
                after = blank_[b];
                blanks += after;
                ++p;
                continue;
              }
              if (uint8_t(b - 0xC0) >= 0x20 || (b1 & 0xC0) != 0x80) break;
              const uint8_t c2 = two_byte_class_[((b & 0x1Fu) << 6) | (b1 & 0x3Fu)];
              if (c2 != 0) {
                if (c2 == kNeverPlain) break;
                if (p + 2 <= last) {
                  const uint8_t next = p[2];
                  if (next_sets_[c2][next >> 6] >> (next & 63) & 1) break;  // (the loop below looks further)
                }
              }
              after = false;
              p += 2;
            }
            run = size_t(p - s);
            after_space = after;
            spaces += blanks;
          } else if (len == 3) {
            // After a 3-byte one, more that no key takes, without decode_utf8's tests: of class
            // 0 (most CJK and Hangul), or whose next byte goes on no key that starts with them,
            // or whose next character goes on none (kana before kana: keys go on with the
            // voicing marks); and a single ASCII byte between two of them as in the loop above
            // (a space between Hangul words). (What may go on a key goes back to the tests above.)
            const uint8_t* p = s + run;
            const uint8_t* const end = s + n;
            bool after = false;
            size_t blanks = 0;
            for (;;) {
              const uint8_t* const from = p;
              while (end - p >= 3 && (p[0] & 0xF0) == 0xE0) {
                const uint8_t c3 = next_class_[((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu)];
                if (c3 != 0) {
                  if (c3 == kNeverPlain) break;
                  if (end - p > 3) {
                    const uint8_t next = p[3];
                    if ((next_sets_[c3][next >> 6] >> (next & 63) & 1) && may_follow(p + 3, size_t(end - p - 3))) break;
                  }
                }
                p += 3;
              }
              if (p != from) after = false;
              // (The byte before is a 3-byte one's: a blank here follows no blank.)
              if (end - p < 4 || p[0] >= 0x80 || (p[1] & 0xF0) != 0xE0) break;
              const uint8_t rule3 = copy_rule_[p[0]];
              if (!(rule3 == kCopy || rule3 == kSpaceOnce)) break;
              after = blank_[p[0]];
              blanks += after;
              ++p;
            }
            run = size_t(p - s);
            after_space = after;
            spaces += blanks;
          }
          --run;
          continue;
        }
        const bool goes = rule == kCopy || (rule == kSpaceOnce && !after_space) ||
                          (rule == kAsciiNext && (run + 1 == n || s[run + 1] < 0x80 || !key_at(s + run, n - run)));
        if (!goes) return run;
        after_space = blank_[c];
        spaces += after_space;
#if defined(__SSSE3__)
        if (n - run > 16 && s[run + 1] < 0x80) {  // back to blocks (not for one ASCII byte between others)
          ++run;
          break;
        }
#endif
      }
      if (run >= n) return run;
    }
  }

  // Writes at o[0..8) the number of the character each of the 8 bytes of v (little-endian) is
  // part of, the first character that starts in them being `next`; returns the number after
  // the last. (A character's start is a byte other than 10xxxxxx; running counts of starts come
  // from one multiplication, each byte's count in its byte.)
  static TF_INLINE uint32_t number_characters(uint64_t v, uint32_t next, uint32_t* o) {
    const uint64_t continuation = v & ~(v << 1) & 0x8080808080808080ull;  // 0x80 on each 10xxxxxx
    const uint64_t starts = (~continuation & 0x8080808080808080ull) >> 7;
    const uint64_t counts = starts * 0x0101010101010101ull;  // byte j: the starts in bytes 0..j
    const uint32_t before = next - 1;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128(), base = _mm_set1_epi32(int(before));
    const __m128i wide = _mm_unpacklo_epi8(_mm_cvtsi64_si128(int64_t(counts)), zero);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_add_epi32(_mm_unpacklo_epi16(wide, zero), base));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 4), _mm_add_epi32(_mm_unpackhi_epi16(wide, zero), base));
#else
    for (int j = 0; j < 8; ++j) o[j] = before + uint32_t(counts >> (8 * j) & 0xFF);
#endif
    return next + uint32_t(counts >> 56);
  }

  // Writes at o[0..run) the number of the character each byte of s[0..run) is part of, the first
  // character that starts there being `next`; returns the number after the last.
  static TF_INLINE uint32_t align_characters(const uint8_t* s, size_t run, uint32_t next, uint32_t* o) {
    size_t k = 0;
    for (; k + 8 <= run; k += 8) {
      if (const uint64_t v = load8(s + k); v & 0x8080808080808080ull) {
        next = number_characters(v, next, o + k);
      } else {
        for (size_t j = k; j < k + 8; ++j) o[j] = next + uint32_t(j - k);
        next += 8;
      }
    }
    for (; k < run; ++k) o[k] = (next += (s[k] & 0xC0) != 0x80) - 1;
    return next;
  }

  // Writes s[0..run) at w with each blank as kSpace; returns the end. s may be read up to n.
  char* write_escaped(const uint8_t* s, size_t run, size_t n, char* w) const {
    size_t pos = 0;
#if defined(__SSSE3__)
    // A block's bytes go 16 at a time, each blank's followers again after its kSpace (the
    // loads may pass the block, so they stay 32 bytes short of n).
    for (; pos + 16 <= run && pos + 32 <= n; pos += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + pos));
      uint32_t space = AsciiSets(v).in(blank_bytes_);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(w), v);
      uint32_t from = 0;
      for (; space; space &= space - 1) {
        const uint32_t at = uint32_t(__builtin_ctz(space));
        w += at - from;
        std::memcpy(w, kSpace.data(), 3);
        w += 3;
        from = at + 1;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(w),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + pos + from)));
      }
      w += 16 - from;
    }
#endif
    for (; pos < run; ++pos) w = put_escaped(s[pos], w);
    return w;
  }

  // Writes byte c at w, a blank as kSpace; returns the end. (Without branches: spaces are
  // unpredictable. Three bytes are written either way.)
  char* put_escaped(uint8_t c, char* w) const {
    const bool space = blank_[c];
    w[0] = char(space ? 0xE2 : c), w[1] = char(0x96), w[2] = char(0x81);  // kSpace
    return w + (space ? 3 : 1);
  }

  // Turns the blanks of w[0..run) into spaces.
  void write_spaces(char* w, size_t run) const {
    if (!translates_) return;
    size_t pos = 0;
#if defined(__SSSE3__)
    for (; pos + 16 <= run; pos += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + pos));
      const __m128i blank = AsciiSets(v).mask(blank_bytes_);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(w + pos),
                       _mm_or_si128(_mm_andnot_si128(blank, v), _mm_and_si128(blank, _mm_set1_epi8(' '))));
    }
#endif
    for (; pos < run; ++pos)
      if (blank_[uint8_t(w[pos])]) w[pos] = ' ';
  }

  bool replaced_by_space(uint32_t at) const { return map_.replaced_by_space(at); }

  // Marks in followers_ the characters that keys go on with from trie node `node`, reached by
  // `bytes` bytes of such a character (whose bits so far are `code`).
  void mark_followers(size_t node, size_t bytes, uint32_t code) {
    const size_t len = bytes == 0 ? 0 : utf8_length(uint8_t(code >> 24));  // the lead byte, kept on top
    if (bytes > 0 && bytes == len) {
      size_t ignored;
      uint8_t utf8[4];
      for (size_t k = 0; k < len; ++k) utf8[k] = uint8_t(code >> (24 - 8 * k));
      const uint32_t c = decode_utf8(utf8, len, ignored);
      if (c < 0x10000) followers_[c >> 6] |= uint64_t(1) << (c & 63);
      return;
    }
    for (uint32_t b = bytes == 0 ? 0 : 0x80; b < (bytes == 0 ? 256u : 0xC0u); ++b) {
      const size_t child = node ^ b;
      if (child >= units().size() || label(units()[child]) != b) continue;
      const uint32_t next = code | (b << (24 - 8 * bytes));
      if (has_leaf(units()[child]) && bytes + 1 < utf8_length(uint8_t(next >> 24)))
        any_follows_ = true;  // a key ends inside a character
      mark_followers(child ^ offset(units()[child]), bytes + 1, next);
    }
  }

  // Whether the character at s[0..n) (n > 0) may go on a key: a follower, or outside the BMP.
  bool may_follow(const uint8_t* s, size_t n) const {
    if (any_follows_) return true;
    size_t len;
    const uint32_t c = decode_utf8(s, n, len);
    return c >= 0x10000 || (followers_[c >> 6] >> (c & 63) & 1);
  }

  // Whether a key of the map starts s[0..n): prefix() replaces something there.
  bool key_at(const uint8_t* s, size_t n) const {
    size_t node = offset(units()[0]);
    for (size_t i = 0; i < n; ++i) {
      node ^= s[i];
      if (node >= units().size()) return false;
      const uint32_t u = units()[node];
      if (label(u) != s[i]) return false;
      if (has_leaf(u)) return true;
      node ^= offset(u);
    }
    return false;
  }

  // The longest user-defined symbol at the start of s as it is; else the replacement of the
  // longest key there and the bytes it covers; else the first character itself.
  std::pair<std::string_view, size_t> prefix(std::string_view s) const {
    if (starts_user_defined_[uint8_t(s[0])])
      for (const std::string& u : user_defined_)  // longest first
        if (!u.empty() && s.substr(0, u.size()) == u) return {s.substr(0, u.size()), u.size()};
    size_t best_len = 0;
    std::string_view replacement;
    if (map_.longest_key(s, best_len, replacement)) return {replacement, best_len};
    const uint8_t b = uint8_t(s[0]);
    const size_t len = std::min(utf8_length(b), s.size());
    return {s.substr(0, len), len};
  }

  Options options_;
  std::vector<std::string> user_defined_;
  std::array<bool, 256> starts_user_defined_{};  // by first byte
  // How copy_plain() takes each byte: as it is (a blank as a space), not (prefix() does), a blank
  // that goes where it follows no blank (extra ones are dropped), an ASCII byte that goes where
  // the next byte is ASCII too.
  // kWhole: the first byte of a character outside ASCII, copied whole where no key starts there
  // (next_class_ says where none can, key_at() where one may).
  enum CopyRule : uint8_t { kCopy, kStop, kSpaceOnce, kAsciiNext, kWhole };
  std::array<uint8_t, 256> copy_rule_{};
  // Bytes copied as a space: " " where no key starts with it, and ASCII keys replaced by " " alone.
  std::array<bool, 256> blank_{};
  bool translates_ = false;  // blanks other than " " (written as spaces)
#if defined(__SSSE3__)
  // The ASCII bytes of a rule as pshufb tables: entry lo has bit h for byte h * 16 + lo.
  __m128i stop_bytes_ = _mm_setzero_si128(), before_ascii_bytes_ = _mm_setzero_si128(),
          blank_bytes_ = _mm_setzero_si128();
  // Which bytes of a block are in a set of ASCII bytes given as such a table.
  struct AsciiSets {
    __m128i lo, bit;
    explicit AsciiSets(__m128i v)
        : lo(_mm_and_si128(v, _mm_set1_epi8(0x0F))),
          bit(_mm_shuffle_epi8(kHighNibbleBit, _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)))) {}
    __m128i mask(__m128i table) const {  // 0xFF where the byte is in the set
      return _mm_xor_si128(_mm_cmpeq_epi8(_mm_and_si128(_mm_shuffle_epi8(table, lo), bit), _mm_setzero_si128()),
                           _mm_set1_epi8(-1));
    }
    uint32_t in(__m128i table) const { return uint32_t(_mm_movemask_epi8(mask(table))); }  // bit i: byte i
  };
  static inline const __m128i kHighNibbleBit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
#endif
  // By code point of the Basic Multilingual Plane (with a map): 0 where no key starts with it,
  // kNeverPlain where it is a key or starts keys too varied to keep (or, of three bytes, where
  // its first byte is not copied whole), else the index in next_sets_ of the bytes that keys
  // starting with it go on with.
  std::vector<uint8_t> next_class_;
  // By code point below 0x800 (the bits of a two-byte character): next_class_, or kNeverPlain
  // where its first byte is not copied whole (copy_rule_) or the character is overlong (C0, C1).
  std::vector<uint8_t> two_byte_class_;
  std::vector<std::array<uint64_t, 4>> next_sets_;
  // By code point of the BMP: whether some key goes on with it after a first character.
  std::array<uint64_t, 0x10000 / 64> followers_{};
  bool any_follows_ = false;  // followers_ does not apply: the map has keys that end inside a character
  bool copies_all_ = true;
  SpmCharsmap map_;
};

}  // namespace tokenforge
