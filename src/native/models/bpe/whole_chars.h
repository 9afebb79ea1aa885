// Starting a merge from whole characters instead of bytes, where that provably changes nothing.
//
// Byte-level BPE spends most of its rounds on CJK, Cyrillic and accented text rebuilding each
// multi-byte character from its bytes. Let c be a token that is exactly one such character.
// Call a token "crossing" for c if it joins a proper prefix of c's bytes to bytes before them,
// or a proper suffix of c's bytes to bytes after them. If, at an occurrence of c in a piece,
//   (1) BPE on c's bytes alone gives [c],
//   (2) every crossing token for c that could match the piece's neighbouring bytes ranks above c,
//   (3) every token of the vocabulary splits into two tokens of lower rank,
// then the rank-ordered merge completes c (ranks <= c) before anything can touch its bytes:
// crossing merges rank above c, and by (3) and induction every token strictly containing c
// ranks above c too (a split inside c would be a lower-ranked crossing token). So merging from
// c instead of its bytes only removes c's internal merges, which touch no other part; every
// other merge happens in the same order. Condition (2) is kept per neighbour class (ASCII or
// not) on each side, which is what keeps tokens such as " \xe7" from disqualifying characters
// inside a CJK run. Tests compare with tiktoken on every code point in context and on corpora.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/hash_tables.h"

namespace tokenforge {

class WholeCharacters {
 public:
  // `bpe_of(bytes)` runs the plain byte-level merge on `bytes` and returns its ids.
  template <class Bpe>
  void build(const std::vector<std::pair<const uint8_t*, size_t>>& tokens, Bpe bpe_of, bool every_token_splits_lower) {
    if (!every_token_splits_lower) return;  // condition (3) fails: never pre-merge
    // Lowest rank of a crossing token per (partial, neighbour class): [ASCII, non-ASCII].
    std::unordered_map<uint64_t, std::array<uint32_t, 2>> before, after;
    auto lower = [](std::array<uint32_t, 2>& slot, int cls, uint32_t rank) { slot[cls] = std::min(slot[cls], rank); };
    const std::array<uint32_t, 2> none{kNoToken, kNoToken};
    for (uint32_t id = 0; id < tokens.size(); ++id) {
      const uint8_t* t = tokens[id].first;
      const size_t n = tokens[id].second;
      Shape s = shape(t, n);
      if (!s.valid) continue;  // cannot occur in UTF-8 text, so never formed
      if (s.lead && s.lead < n) lower(after.emplace(pack(t, s.lead), none).first->second, t[s.lead] >= 0x80, id);
      if (s.trail && s.trail < n)
        lower(before.emplace(pack(t + n - s.trail, s.trail), none).first->second, t[n - s.trail - 1] >= 0x80, id);
    }
    auto lowest = [](const std::unordered_map<uint64_t, std::array<uint32_t, 2>>& m, uint64_t key,
                     std::array<uint32_t, 2>& acc) {
      auto it = m.find(key);
      if (it != m.end()) acc = {std::min(acc[0], it->second[0]), std::min(acc[1], it->second[1])};
    };
    for (uint32_t id = 0; id < tokens.size(); ++id) {
      const uint8_t* t = tokens[id].first;
      const size_t n = tokens[id].second;
      if (n < 2 || n > 4 || utf8_length(t[0]) != n || !continuation_run(t + 1, n - 1)) continue;
      const std::vector<uint32_t> alone = bpe_of(t, n);
      if (alone.size() != 1 || alone[0] != id) continue;  // condition (1)
      Entry e{id, none, none};
      for (size_t k = 1; k < n; ++k) {
        lowest(before, pack(t, k), e.left);
        lowest(after, pack(t + k, n - k), e.right);
      }
      if (id < std::max({e.left[0], e.left[1], e.right[0], e.right[1]})) keep(t, n, e);
    }
  }

  bool empty() const { return bmp_.empty() && entries_.empty(); }

  // The character token for the UTF-8 character at p[i..i+len) of a piece p[0..n), if
  // condition (2) holds for its actual neighbours there; kNoToken otherwise.
  uint32_t at(const uint8_t* p, size_t n, size_t i, size_t len) const {
    const Entry* e = find(p + i, len);
    if (!e) return kNoToken;
    const uint32_t left = i == 0 ? kNoToken : e->left[p[i - 1] >= 0x80];
    const uint32_t right = i + len == n ? kNoToken : e->right[p[i + len] >= 0x80];
    return e->id < std::min(left, right) ? e->id : kNoToken;
  }

  static size_t utf8_length(uint8_t lead) {
    return lead < 0x80 ? 1 : lead < 0xC0 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF8 ? 4 : 0;
  }

 private:
  struct Entry {
    uint32_t id;
    std::array<uint32_t, 2> left, right;  // lowest crossing rank by neighbour class
  };
  struct Shape {
    size_t lead = 0, trail = 0;  // bytes of a partial character at the start / at the end
    bool valid = true;           // the bytes can occur inside UTF-8 text
  };

  static bool continuation_run(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if ((p[i] & 0xC0) != 0x80) return false;
    return true;
  }
  static uint64_t pack(const uint8_t* p, size_t n) {  // n <= 4 bytes, and the length
    uint64_t v = uint64_t(n) << 32;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
  }
  // A token's shape as a piece of UTF-8 text: [suffix of a character] [whole characters]
  // [prefix of a character].
  static Shape shape(const uint8_t* t, size_t n) {
    Shape s;
    while (s.lead < n && (t[s.lead] & 0xC0) == 0x80) ++s.lead;
    if (s.lead == n) {
      s.valid = n <= 3;
      s.lead = 0;  // all continuation bytes: inside one character, not crossing
      return s;
    }
    if (s.lead > 3) s.valid = false;
    for (size_t i = s.lead; i < n;) {
      const size_t len = utf8_length(t[i]);
      if (len == 0) return s.valid = false, s;
      size_t j = i + 1;
      while (j < n && j < i + len && (t[j] & 0xC0) == 0x80) ++j;
      if (j < i + len) {
        if (j < n) return s.valid = false, s;  // an unfinished character before another one
        s.trail = n - i;
      }
      i = j;
    }
    if (s.trail == n) s.trail = 0;  // a lone prefix of one character: not crossing
    return s;
  }

  // Where an entry is kept: a character of two or three bytes (every BMP character, a first
  // pass over CJK, Cyrillic or Thai text asks for each one) in bmp_, found through the slot of
  // its payload bits (a character's bytes and those bits determine each other, given its length
  // and continuation bytes); a longer one in entries_, by its bytes.
  void keep(const uint8_t* t, size_t n, const Entry& e) {
    if (n == 4) {
      entries_.emplace(pack(t, n), e);
      return;
    }
    if (bmp_.empty()) {
      two_.assign(size_t(1) << 11, 0);
      three_.assign(size_t(1) << 16, 0);
    }
    uint16_t& slot = n == 2 ? two_[bits2(t)] : three_[bits3(t)];
    if (slot) return;   // (the first of two tokens of the same bytes, as entries_.emplace keeps)
    bmp_.push_back(e);  // (at most 63,488 + 1,920 characters: slots of 16 bits)
    slot = uint16_t(bmp_.size());
  }
  const Entry* find(const uint8_t* c, size_t len) const {
    if (len == 3 && !bmp_.empty()) {
      if ((c[1] & 0xC0) != 0x80 || (c[2] & 0xC0) != 0x80) return nullptr;
      const uint16_t slot = three_[bits3(c)];
      return slot ? &bmp_[slot - 1] : nullptr;
    }
    if (len == 2 && !bmp_.empty()) {
      if ((c[1] & 0xC0) != 0x80) return nullptr;
      const uint16_t slot = two_[bits2(c)];
      return slot ? &bmp_[slot - 1] : nullptr;
    }
    if (len != 4 || entries_.empty()) return nullptr;
    auto it = entries_.find(pack(c, len));
    return it == entries_.end() ? nullptr : &it->second;
  }
  static size_t bits2(const uint8_t* c) { return size_t(c[0] & 0x1F) << 6 | (c[1] & 0x3F); }
  static size_t bits3(const uint8_t* c) { return size_t(c[0] & 0x0F) << 12 | size_t(c[1] & 0x3F) << 6 | (c[2] & 0x3F); }

  std::vector<Entry> bmp_;
  std::vector<uint16_t> two_, three_;            // slot + 1 in bmp_, 0 for none
  std::unordered_map<uint64_t, Entry> entries_;  // four-byte characters
};

}  // namespace tokenforge
