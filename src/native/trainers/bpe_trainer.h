// Byte-level BPE training with minbpe's semantics, made incremental. The merge machinery it
// shares with WordPiece and sentencepiece BPE training is trainers/pair_index.h.
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

#include "pipelines/encoder.h"
#include "trainers/chunk_counts.h"
#include "trainers/pair_index.h"

namespace tokenforge {

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
