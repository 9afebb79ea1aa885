// A byte trie laid out as a double array, for the models whose every position walks the trie
// (models/sentencepiece/spm_unigram.h; sentencepiece itself walks a darts-clone double array).
// It answers what base/byte_trie.h answers (child, value) but is built once from all the keys:
// the children of a node sit at base + byte of one array, each unit naming its parent, so a step
// is one load from a small neighbourhood instead of a probe of a hash table of edges.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "base/hash_tables.h"

namespace tokenforge {

class DoubleArrayTrie {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  DoubleArrayTrie() : units_(257) {}

  // From (key, id) pairs; where a key comes more than once the first pair's id is kept (as
  // ByteTrie::insert keeps the first). Empty keys are ignored.
  explicit DoubleArrayTrie(std::vector<std::pair<std::string_view, uint32_t>> keys) {
    std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    keys.erase(std::unique(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
               keys.end());
    keys.erase(std::remove_if(keys.begin(), keys.end(), [](const auto& k) { return k.first.empty(); }), keys.end());
    if (keys.size() >= kNone / 4) throw std::length_error("too many keys for a double-array trie");
    units_.clear();
    grow(257);
    take(kRoot);  // the root, nobody's child (its check stays kNone)
    build(keys, 0, keys.size(), 0, kRoot);
    units_.resize(size_t(highest_base_) + 257);  // every child is below; child() never reads past the end
    units_.shrink_to_fit();
    std::vector<bool>().swap(used_);
    std::vector<uint32_t>().swap(next_free_);
    std::vector<uint32_t>().swap(previous_free_);
  }

  uint32_t child(uint32_t node, uint8_t b) const {
    const uint32_t i = units_[node].base + b;
    return units_[i].check == node ? i : kNone;
  }
  // The id of the key that ends at node, or kNoToken.
  uint32_t value(uint32_t node) const { return units_[node].value; }

 private:
  struct Unit {
    uint32_t base = 0;
    uint32_t check = kNone;  // the parent; kNone: free
    uint32_t value = kNoToken;
  };

  // Places the children of `node` for keys[lo, hi), which share their first `depth` bytes.
  void build(const std::vector<std::pair<std::string_view, uint32_t>>& keys, size_t lo, size_t hi, size_t depth,
             uint32_t node) {
    if (lo < hi && keys[lo].first.size() == depth) units_[node].value = keys[lo++].second;  // (sorted: first)
    if (lo == hi) return;
    labels_.clear();
    for (size_t i = lo; i < hi; ++i) {
      const uint8_t b = uint8_t(keys[i].first[depth]);
      if (labels_.empty() || labels_.back() != b) labels_.push_back(b);
    }
    const uint32_t base = find_base(labels_);
    units_[node].base = base;
    highest_base_ = std::max(highest_base_, base);
    const std::vector<uint8_t> labels = labels_;  // (build() below reuses labels_)
    for (uint8_t b : labels) {
      take(base + b);
      units_[base + b].check = node;
    }
    for (size_t i = lo; i < hi;) {
      const uint8_t b = uint8_t(keys[i].first[depth]);
      size_t j = i;
      while (j < hi && uint8_t(keys[j].first[depth]) == b) ++j;
      build(keys, i, j, depth + 1, base + b);
      i = j;
    }
  }

  // The lowest base whose units for all labels are free, growing the array. Only free units
  // are tried (a list of them in order): single children fill the holes, so the list stays short.
  uint32_t find_base(const std::vector<uint8_t>& labels) {
    for (uint32_t at = first_free_;;) {
      if (at == kNone) {  // past the end: more units
        at = uint32_t(units_.size());
        grow(units_.size() + 256);
        continue;
      }
      if (at > labels[0]) {
        const uint32_t base = at - labels[0];
        grow(size_t(base) + 256);
        bool fits = true;
        for (uint8_t b : labels) fits &= !used_[base + b];
        if (fits) return base;
      }
      at = next_free_[at];
    }
  }
  // Makes the array at least `size` units long, the new units free.
  void grow(size_t size) {
    if (size <= units_.size()) return;
    if (size >= kNone / 2) throw std::length_error("the double-array trie grew too large");
    const size_t old = units_.size(), grown = std::max(size, old * 2);
    units_.resize(grown);
    used_.resize(grown, false);
    next_free_.resize(grown);
    previous_free_.resize(grown);
    for (size_t i = old; i < grown; ++i) {
      previous_free_[i] = last_free_;
      next_free_[i] = kNone;
      if (last_free_ == kNone)
        first_free_ = uint32_t(i);
      else
        next_free_[last_free_] = uint32_t(i);
      last_free_ = uint32_t(i);
    }
  }
  // Marks unit i used, out of the free list.
  void take(uint32_t i) {
    used_[i] = true;
    const uint32_t before = previous_free_[i], after = next_free_[i];
    (before == kNone ? first_free_ : next_free_[before]) = after;
    (after == kNone ? last_free_ : previous_free_[after]) = before;
  }

  std::vector<Unit> units_;
  // While building: the units taken, the free ones as a list in order, a node's child bytes.
  std::vector<bool> used_;
  std::vector<uint32_t> next_free_, previous_free_;
  uint32_t first_free_ = kNone, last_free_ = kNone;
  std::vector<uint8_t> labels_;
  uint32_t highest_base_ = 0;
};

}  // namespace tokenforge
