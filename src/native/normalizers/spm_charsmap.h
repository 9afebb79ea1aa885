// sentencepiece's precompiled character map (a normalization rule: nmt_nfkc, nfkc, ...), as
// .model files and tokenizer.json's Precompiled normalizer carry it: a 4-byte little-endian size,
// a double-array trie (darts-clone units) over UTF-8 byte strings, then the replacement strings,
// NUL-terminated, that the trie's values point into. The one reader of these maps: sentencepiece's
// own normalizer (normalizers/spm_normalizer.h) takes the longest key at each position
// (longest_key), HF's Precompiled (normalizers/precompiled.h, the spm_precompiled crate) the
// first key its common-prefix search finds, the shortest (first_key). A map that leads outside
// itself is an error when a lookup gets there.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tokenforge {

class SpmCharsmap {
 public:
  SpmCharsmap() = default;
  // An empty map has no keys.
  explicit SpmCharsmap(std::string_view charsmap) {
    if (charsmap.empty()) return;
    if (charsmap.size() < 4) throw std::invalid_argument("precompiled_charsmap: shorter than its 4-byte header");
    uint32_t trie_size;
    std::memcpy(&trie_size, charsmap.data(), 4);
    if (trie_size == 0 || trie_size % 4 || size_t(trie_size) + 4 > charsmap.size())
      throw std::invalid_argument("precompiled_charsmap: trie size " + std::to_string(trie_size) +
                                  " does not fit the " + std::to_string(charsmap.size()) + "-byte map (corrupt model)");
    units_.resize(trie_size / 4);
    std::memcpy(units_.data(), charsmap.data() + 4, trie_size);
    replacements_.assign(charsmap.data() + 4 + trie_size, charsmap.size() - 4 - trie_size);
  }

  bool empty() const { return units_.empty(); }
  const std::vector<uint32_t>& units() const { return units_; }
  const std::string& replacements() const { return replacements_; }  // the NUL-terminated strings

  // darts-clone unit fields
  static uint32_t offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
  static bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
  static uint32_t label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
  static uint32_t value(uint32_t u) { return u & ((1u << 31) - 1); }

  // Whether the replacement at `at` is " " alone.
  bool replaced_by_space(uint32_t at) const {
    return at + 1 < replacements_.size() && replacements_[at] == ' ' && replacements_[at + 1] == '\0';
  }

  // The longest key that prefixes s (sentencepiece): its byte length in `len` and its
  // replacement; false (len 0) if none.
  bool longest_key(std::string_view s, size_t& len, std::string_view& replacement) const {
    len = 0;
    uint32_t best = 0;
    search(s, false, [&](size_t key_len, uint32_t v) {
      len = key_len;
      best = v;
      return true;
    });
    if (len) replacement = replacement_at(best);
    return len != 0;
  }

  // The first key the trie's common-prefix search finds in s, the shortest, and its replacement
  // (spm_precompiled's transform: the search stops at a NUL byte); false if none.
  bool first_key(std::string_view s, std::string_view& replacement) const {
    bool found = false;
    uint32_t first = 0;
    search(s, true, [&](size_t, uint32_t v) {
      found = true;
      first = v;
      return false;
    });
    if (found) replacement = replacement_at(first);
    return found;
  }

 private:
  static std::invalid_argument corrupt(const std::string& what) {
    return std::invalid_argument("precompiled_charsmap: " + what + " (corrupt model)");
  }

  // Walks the keys that prefix s, shortest first: on_key(byte length, value) says whether to
  // go on. stop_at_nul: a NUL byte ends s.
  template <class F>
  void search(std::string_view s, bool stop_at_nul, F&& on_key) const {
    if (units_.empty()) return;
    size_t node = offset(units_[0]);
    for (size_t i = 0; i < s.size(); ++i) {
      const uint8_t c = uint8_t(s[i]);
      if (c == 0 && stop_at_nul) return;
      node ^= c;
      if (node >= units_.size()) return;
      const uint32_t u = units_[node];
      if (label(u) != c) return;
      node ^= offset(u);
      if (has_leaf(u)) {
        if (node >= units_.size()) throw corrupt("a leaf points outside the trie");
        if (!on_key(i + 1, value(units_[node]))) return;
      }
    }
  }

  std::string_view replacement_at(uint32_t at) const {
    if (at >= replacements_.size()) throw corrupt("a replacement starts past the map");
    const size_t end = replacements_.find('\0', at);
    if (end == std::string::npos) throw corrupt("a replacement runs past the map");
    return std::string_view(replacements_).substr(at, end - at);
  }

  std::vector<uint32_t> units_;
  std::string replacements_;
};

}  // namespace tokenforge
