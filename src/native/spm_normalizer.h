// sentencepiece's normalizer. The rule (nmt_nfkc, nfkc, ...) is a precompiled character map: a
// 4-byte size, a double-array trie (darts-clone units) over UTF-8 byte strings, then the
// replacement strings, NUL-terminated. At each position the longest key that prefixes the rest
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
#include <vector>

#include "unicode_classes.h"

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
      : options_(options), user_defined_(std::move(user_defined)) {
    std::sort(user_defined_.begin(), user_defined_.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const std::string& u : user_defined_)
      if (!u.empty()) starts_user_defined_[uint8_t(u[0])] = stops_copy_[uint8_t(u[0])] = true;
    stops_copy_[uint8_t(' ')] |= options_.remove_extra_whitespaces;
    stops_any_ = std::find(stops_copy_.begin(), stops_copy_.end(), true) != stops_copy_.end();
    if (charsmap.empty()) return;
    if (charsmap.size() < 4) throw std::invalid_argument("precompiled_charsmap: shorter than its 4-byte header");
    uint32_t trie_size;
    std::memcpy(&trie_size, charsmap.data(), 4);
    if (trie_size == 0 || trie_size % 4 || size_t(trie_size) + 4 > charsmap.size())
      throw std::invalid_argument("precompiled_charsmap: trie size " + std::to_string(trie_size) + " does not fit the " +
                                  std::to_string(charsmap.size()) + "-byte map (corrupt model)");
    units_.resize(trie_size / 4);
    std::memcpy(units_.data(), charsmap.data() + 4, trie_size);
    replacements_.assign(charsmap.data() + 4 + trie_size, charsmap.size() - 4 - trie_size);
  }

  // Whether normalizing a (non-empty) text only puts a space before it and escapes its spaces,
  // as escaping() says: no character map and no whitespace removed. Models may then read the
  // text as it is.
  bool escapes_only() const {
    return units_.empty() && !options_.remove_extra_whitespaces && !options_.whitespace_as_suffix;
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

  // The same into `out` (and `norm_to_orig`), whose memory is reused.
  void normalize(const uint8_t* s, size_t n, std::string& out, std::vector<uint32_t>* norm_to_orig) const {
    std::string_view input(reinterpret_cast<const char*>(s), n);
    out.clear();
    if (norm_to_orig) norm_to_orig->clear();
    uint32_t consumed = 0;
    if (options_.remove_extra_whitespaces) {
      while (!input.empty()) {
        const auto [piece, used] = prefix(input);
        if (piece != " ") break;
        input.remove_prefix(used);
        consumed += uint32_t(used);
      }
    }
    // sentencepiece gives empty text an empty alignment (not even the end).
    if (input.empty()) return;
    const std::string_view space = options_.escape_whitespaces ? kSpace : " ";
    auto append = [&](std::string_view bytes) {
      out += bytes;
      if (norm_to_orig) norm_to_orig->insert(norm_to_orig->end(), bytes.size(), consumed);
    };
    if (options_.add_dummy_prefix && !options_.whitespace_as_suffix) append(space);
    bool prev_space = options_.remove_extra_whitespaces;
    while (!input.empty()) {
      if (const size_t run = copy_unmapped(input, consumed, out, norm_to_orig)) {
        input.remove_prefix(run);
        consumed += uint32_t(run);
        prev_space = false;
        continue;
      }
      auto [piece, used] = prefix(input);
      if (prev_space)
        while (!piece.empty() && piece[0] == ' ') piece.remove_prefix(1);
      if (!piece.empty()) {
        for (const char& c : piece) {
          if (c == ' ' && options_.escape_whitespaces) append(kSpace);
          else append(std::string_view(&c, 1));
        }
        prev_space = piece.back() == ' ';
      }
      input.remove_prefix(used);
      consumed += uint32_t(used);
      if (!options_.remove_extra_whitespaces) prev_space = false;
    }
    if (options_.remove_extra_whitespaces) {
      // Trailing spaces go; the end then aligns where the first of them came from.
      while (out.size() >= space.size() && std::string_view(out).substr(out.size() - space.size()) == space) {
        out.resize(out.size() - space.size());
        if (norm_to_orig) {
          consumed = (*norm_to_orig)[out.size()];
          norm_to_orig->resize(out.size());
        }
      }
    }
    if (options_.add_dummy_prefix && options_.whitespace_as_suffix) append(space);
    if (norm_to_orig) norm_to_orig->push_back(consumed);
  }

 private:
  static constexpr std::string_view kSpace = "\xE2\x96\x81";

  // darts-clone unit fields
  static uint32_t offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
  static bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
  static uint32_t label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
  static uint32_t value(uint32_t u) { return u & ((1u << 31) - 1); }

  static std::invalid_argument corrupt(const std::string& what) {
    return std::invalid_argument("precompiled_charsmap: " + what + " (corrupt model)");
  }

  // Without a character map (identity) characters stay as they are: copies the input up to the
  // first byte that needs prefix() (a user-defined symbol may start there, or a space when extra
  // whitespace goes), escaping spaces, each byte aligned with its character's start; returns
  // how many input bytes it took.
  size_t copy_unmapped(std::string_view input, uint32_t consumed, std::string& out,
                       std::vector<uint32_t>* norm_to_orig) const {
    if (!units_.empty()) return 0;
    size_t run = input.size();
    if (stops_any_)
      for (run = 0; run < input.size() && !stops_copy_[uint8_t(input[run])]; ++run) {}
    if (run == 0) return 0;
    const bool escape = options_.escape_whitespaces;
    const size_t spaces = escape ? size_t(std::count(input.begin(), input.begin() + run, ' ')) : 0;
    const size_t at = out.size();
    out.resize(at + run + 2 * spaces + 2);  // (+2: each byte is written as 3)
    char* w = out.data() + at;
    uint32_t* o = nullptr;
    if (norm_to_orig) {
      norm_to_orig->resize(out.size());
      o = norm_to_orig->data() + at;
    }
    uint32_t start = consumed;  // of the current character
    for (size_t k = 0; k < run; ++k) {  // without branches: spaces are unpredictable
      const uint8_t c = uint8_t(input[k]);
      const bool space = c == ' ' && escape;
      w[0] = char(space ? 0xE2 : c), w[1] = char(0x96), w[2] = char(0x81);  // kSpace
      w += space ? 3 : 1;
      if (o) {
        start = (c & 0xC0) != 0x80 ? consumed + uint32_t(k) : start;
        o[0] = o[1] = o[2] = start;
        o += space ? 3 : 1;
      }
    }
    out.resize(size_t(w - out.data()));
    if (norm_to_orig) norm_to_orig->resize(out.size());
    return run;
  }

  // The longest user-defined symbol at the start of s as it is; else the replacement of the
  // longest key there and the bytes it covers; else the first character itself.
  std::pair<std::string_view, size_t> prefix(std::string_view s) const {
    if (starts_user_defined_[uint8_t(s[0])])
      for (const std::string& u : user_defined_)  // longest first
        if (!u.empty() && s.substr(0, u.size()) == u) return {s.substr(0, u.size()), u.size()};
    size_t best_len = 0;
    uint32_t best_value = 0;
    if (!units_.empty()) {
      size_t node = offset(units_[0]);
      for (size_t i = 0; i < s.size(); ++i) {
        const uint8_t c = uint8_t(s[i]);
        node ^= c;
        if (node >= units_.size()) break;
        const uint32_t u = units_[node];
        if (label(u) != c) break;
        node ^= offset(u);
        if (has_leaf(u)) {
          if (node >= units_.size()) throw corrupt("a leaf points outside the trie");
          best_len = i + 1;
          best_value = value(units_[node]);
        }
      }
    }
    if (best_len) {
      if (best_value >= replacements_.size()) throw corrupt("a replacement starts past the map");
      const size_t end = replacements_.find('\0', best_value);
      if (end == std::string::npos) throw corrupt("a replacement runs past the map");
      return {std::string_view(replacements_).substr(best_value, end - best_value), best_len};
    }
    const uint8_t b = uint8_t(s[0]);
    const size_t len = std::min(utf8_length(b), s.size());
    return {s.substr(0, len), len};
  }

  Options options_;
  std::vector<std::string> user_defined_;
  std::array<bool, 256> starts_user_defined_{};  // by first byte
  std::array<bool, 256> stops_copy_{};           // bytes copy_unmapped() leaves to prefix()
  bool stops_any_ = false;
  std::vector<uint32_t> units_;
  std::string replacements_;
};

}  // namespace tokenforge
