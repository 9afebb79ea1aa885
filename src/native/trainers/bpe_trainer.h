// Byte-level BPE training with minbpe's semantics, made incremental; and the merge machinery it
// shares with WordPiece training (wordpiece_trainer.h).
//
// The corpus arrives as a table of unique chunks (pre-split pieces, or whole texts) with their
// counts. Every chunk starts as its bytes (ids 0..255). Each round merges the most frequent
// adjacent pair everywhere, left to right without overlap, into a new id (256, 257, ...). A
// pair's frequency counts every adjacent position, overlapping ones included ("aaa" holds
// (a, a) twice), weighted by the chunk's count. Ties go to the smallest pair (left id, then
// right id), so the same input gives the same merges on every run and machine.
//
// Instead of recounting the corpus each round, the trainer keeps every pair's count, the
// chunks each pair occurs in, and a max-heap of (count, pair) whose stale entries are skipped
// when they surface. A merge only visits the chunks holding its pair and changes only the
// counts of the pairs next to each merged occurrence.
#pragma once
#include <algorithm>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trainers/chunk_counts.h"
#include "pipelines/encoder.h"

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

class BpeTrainer {
 public:
  using Merge = std::pair<uint32_t, uint32_t>;

  // chunks: (bytes, count) with count > 0. Without a base, chunks start as their bytes and
  // merges make ids from 256 on. With a base encoder (continued training), chunks start as
  // the base's ids for them, the base's merges are kept, and new merges make ids from
  // first_id on (past every id the base uses, its special tokens included).
  template <class Chunks>
  explicit BpeTrainer(const Chunks& chunks, const Encoder* base = nullptr, uint32_t first_id = 256)
      : next_id_(first_id) {
    if (base) {
      const BytePairModel& model = base->model();
      if (first_id < model.size()) throw std::invalid_argument("new ids must start past the base vocabulary");
      lengths_.assign(first_id, 0);
      for (uint32_t id = 0; id < model.size(); ++id) lengths_[id] = model.has(id) ? model.bytes_of(id).size() : 0;
    } else if (first_id != 256) {
      throw std::invalid_argument("without a base vocabulary, new ids start at 256");
    }
    for (const auto& [bytes, count] : chunks) {
      if (count <= 0) throw std::invalid_argument("chunk counts must be positive");
      if (bytes.size() < 2) continue;  // no pairs: it never changes
      const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
      std::vector<uint32_t> ids;
      if (base)
        base->encode_pieces({{b, bytes.size()}}, ids);
      else
        ids.assign(b, b + bytes.size());
      pairs_.add_chunk(std::move(ids), count);
    }
    pairs_.index();
    pairs_.for_each_pair([&](uint64_t p, int64_t n) { heap_.push({n, p}); });
  }

  // Up to `merges` more merges, stopping early when no pair occurs at least min_frequency
  // times (callers run it in steps to show progress). Pairs whose token would be longer than
  // max_length bytes (0: no limit) are never merged. Returns the merges made by this call, in
  // order; merge k of the whole training creates id first_id + k.
  std::vector<Merge> train(size_t merges, int64_t min_frequency, size_t max_length) {
    std::vector<Merge> made;
    while (made.size() < merges) {
      uint64_t pair;
      int64_t count;
      if (!best(pair, count, max_length) || count < min_frequency) break;
      const uint32_t id = next_id_++;
      lengths_.push_back(lengths_[pair >> 32] + lengths_[uint32_t(pair)]);
      pairs_.merge_everywhere(pair, id);
      for (uint64_t p : pairs_.touched()) {
        const int64_t n = pairs_.count(p);
        if (n > 0) heap_.push({n, p});
      }
      made.emplace_back(uint32_t(pair >> 32), uint32_t(pair));
    }
    return made;
  }

 private:
  // The most frequent pair allowed by max_length, with its count; false when none is left.
  bool best(uint64_t& pair, int64_t& count, size_t max_length) {
    while (!heap_.empty()) {
      const PairCandidate top = heap_.top();
      heap_.pop();
      if (pairs_.count(top.pair) != top.count) continue;  // stale
      if (max_length && lengths_[top.pair >> 32] + lengths_[uint32_t(top.pair)] > max_length) continue;
      pair = top.pair;
      count = top.count;
      return true;
    }
    return false;
  }

  PairIndex pairs_;
  std::priority_queue<PairCandidate> heap_;
  uint32_t next_id_;
  std::vector<size_t> lengths_ = std::vector<size_t>(256, 1);  // bytes of each id (0: none)
};

}  // namespace tokenforge
