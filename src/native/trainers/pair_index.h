// The merge machinery every merging trainer shares (bpe_trainer.h, wordpiece_trainer.h,
// spm_bpe_trainer.h): words as id sequences with counts, every adjacent pair's count and the
// words it occurs in, merging a pair everywhere while only the counts next to each merged
// occurrence change, and the queue entry of a candidate pair.
#pragma once
#include <algorithm>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tokenforge {

// Pair -> count, open addressing (pairs are never removed; a count may drop to zero). Each
// slot also remembers the last merge that changed it, so a merge lists each pair it touched once.
class PairCounts {
 public:
  struct Slot {
    uint64_t pair = kEmpty;
    int64_t count = 0;
    uint32_t stamp = 0;
  };

  PairCounts() { slots_.resize(size_t(1) << 16); }

  Slot& at(uint64_t pair) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot& s = slots_[index_of(slots_, pair)];
    if (s.pair == kEmpty) {
      s.pair = pair;
      ++size_;
    }
    return s;
  }
  int64_t count(uint64_t pair) const {
    const Slot& s = slots_[index_of(slots_, pair)];
    return s.pair == pair ? s.count : 0;
  }
  template <class Fn>
  void for_each(Fn fn) const {
    for (const Slot& s : slots_)
      if (s.pair != kEmpty) fn(s.pair, s.count);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);  // (2^32-1, 2^32-1): never a pair of ids
  // The slot holding pair, or the empty slot where it would go.
  static size_t index_of(const std::vector<Slot>& slots, uint64_t pair) {
    const size_t mask = slots.size() - 1;
    size_t i = mix64(pair) & mask;
    while (slots[i].pair != kEmpty && slots[i].pair != pair) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> bigger(slots_.size() * 2);
    for (const Slot& s : slots_)
      if (s.pair != kEmpty) bigger[index_of(bigger, s.pair)] = s;
    slots_.swap(bigger);
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// Words (chunks) as id sequences with counts, every adjacent pair's count, the chunks each pair
// occurs in, and merging a pair everywhere. A pair's count includes every position,
// overlapping ones too ("aaa" holds (a, a) twice), weighted by the chunk's count.
class PairIndex {
 public:
  static uint64_t key(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }

  void add_chunk(std::vector<uint32_t> ids, int64_t count) {
    if (count <= 0) throw std::invalid_argument("chunk counts must be positive");
    if (ids.size() >= 2) chunks_.push_back(Chunk{std::move(ids), count});
  }
  // Counts every pair once all chunks are in.
  void index() {
    seen_.assign(chunks_.size(), 0);
    for (uint32_t w = 0; w < chunks_.size(); ++w) {
      const Chunk& c = chunks_[w];
      for (size_t i = 0; i + 1 < c.ids.size(); ++i) {
        const uint64_t p = key(c.ids[i], c.ids[i + 1]);
        counts_.at(p).count += c.count;
        note_occurrence(p, w);
      }
    }
  }

  int64_t count(uint64_t pair) const { return counts_.count(pair); }
  template <class Fn>
  void for_each_pair(Fn fn) const {
    counts_.for_each(fn);
  }

  // Merges pair into id everywhere (left to right, without overlap); returns how many
  // occurrences were merged, weighted by chunk counts. touched() then lists the pairs whose
  // count changed.
  int64_t merge_everywhere(uint64_t pair, uint32_t id) {
    const uint32_t a = uint32_t(pair >> 32), b = uint32_t(pair);
    std::vector<uint32_t> where = std::move(where_[pair]);
    where_.erase(pair);
    ++stamp_;
    touched_.clear();
    int64_t merged = 0;
    for (uint32_t w : where) {
      if (seen_[w] == stamp_) continue;
      seen_[w] = stamp_;
      Chunk& c = chunks_[w];
      std::vector<uint32_t>& ids = c.ids;
      // At each merge the pairs with the neighbours change: (prev, a) becomes (prev, id) and
      // (b, next) becomes (id, next), where prev is what was written last (perhaps a merge just
      // made) and next is still unmerged.
      const int64_t n = c.count;
      size_t out = 0;
      for (size_t i = 0; i < ids.size();) {
        if (i + 1 < ids.size() && ids[i] == a && ids[i + 1] == b) {
          add(pair, -n);
          merged += n;
          if (out > 0) {
            add(key(ids[out - 1], a), -n);
            add(key(ids[out - 1], id), n);
            note_occurrence(key(ids[out - 1], id), w);
          }
          if (i + 2 < ids.size()) {
            add(key(b, ids[i + 2]), -n);
            add(key(id, ids[i + 2]), n);
            note_occurrence(key(id, ids[i + 2]), w);
          }
          ids[out++] = id;
          i += 2;
        } else {
          ids[out++] = ids[i++];
        }
      }
      ids.resize(out);  // unchanged if the pair was merged away here since it was noted
    }
    return merged;
  }
  const std::vector<uint64_t>& touched() const { return touched_; }

 private:
  struct Chunk {
    std::vector<uint32_t> ids;
    int64_t count;
  };

  void note_occurrence(uint64_t pair, uint32_t chunk) {
    std::vector<uint32_t>& where = where_[pair];
    if (where.empty() || where.back() != chunk) where.push_back(chunk);
  }
  void add(uint64_t pair, int64_t delta) {
    PairCounts::Slot& s = counts_.at(pair);
    s.count += delta;
    if (s.stamp != stamp_) {
      s.stamp = stamp_;
      touched_.push_back(pair);
    }
  }

  std::vector<Chunk> chunks_;
  PairCounts counts_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> where_;
  std::vector<uint64_t> touched_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
};

// A pair in the merge queue with its count when queued (stale once the count changes).
struct PairCandidate {
  int64_t count;
  uint64_t pair;
  // std::priority_queue pops the largest: the highest count, then the smallest pair.
  bool operator<(const PairCandidate& o) const { return count != o.count ? count < o.count : pair > o.pair; }
};

}  // namespace tokenforge
