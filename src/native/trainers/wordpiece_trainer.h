// WordPiece training: words start as characters (the first as itself, the rest with the
// continuation prefix, two separate alphabets), and each round merges the adjacent pair with
// the highest likelihood gain, score(a, b) = count(ab) / (count(a) * count(b)), where counts are
// occurrences in the corpus's words weighted by word frequency. Ties go to the higher pair count,
// then the smaller pair (left id, right id), so the same input gives the same vocabulary.
//
// The score alone favours pairs of rare parts: a pair seen twice whose parts occur nowhere else
// scores 1/2, above every pair of common parts, so a small vocabulary fills with one-off strings
// before "the" is whole. With floor_decay > 0 only pairs occurring at least `floor` times compete:
// the floor starts at the highest pair count and, whenever no pair is left at or above it, falls
// to floor * floor_decay (or to the highest count below it, if that is lower; never below
// min_frequency). Frequent strings are built first, as count-ordered merging (BPE, HF's
// WordPieceTrainer) builds them, and among the pairs above the floor the likelihood still decides.
// floor_decay 0 is the score alone (the floor is min_frequency throughout); 1 lowers the floor one
// count at a time (merging by count, the score breaking ties of equal counts).
//
// Incremental like the BPE trainer (same PairIndex). A merge lowers count(a) and count(b), which
// raises the score of every other pair holding a or b, so those pairs are re-queued too (each
// token keeps the list of pairs it has been part of); queue entries whose score is no longer
// current are skipped when they surface.
#pragma once
#include <algorithm>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "trainers/pair_index.h"
#include "trainers/chunk_counts.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class WordPieceTrainer {
 public:
  using Merge = std::pair<uint32_t, uint32_t>;

  // A trainer over a table of words (UTF-8): the alphabet is every word-initial character, then
  // every later character with `prefix`, each sorted by code point, with ids from first_id;
  // `alphabet` receives their texts in id order. Words of more than max_chars characters (0: no
  // limit) are left out: the tokenizer reads such a word as its unknown token whole, so its parts
  // would only spend merges (and memory: a word of 100 MB) on tokens it never uses.
  static WordPieceTrainer from_words(const ChunkCounts& words, const std::string& prefix, uint32_t first_id,
                                     std::vector<std::string>& alphabet, size_t max_chars = 0, double floor_decay = 0) {
    auto too_long = [max_chars](const std::string& w) {
      if (!max_chars || w.size() <= max_chars) return false;
      size_t chars = 0;
      for (char c : w) chars += (uint8_t(c) & 0xC0) != 0x80;
      return chars > max_chars;
    };
    // Calls fn(i, character) for each character of w, as views into w (a word of millions of
    // characters must not become a string per character).
    auto each_char = [](const std::string& w, auto fn) {
      size_t k = 0;
      for (size_t i = 0; i < w.size(); ++k) {
        const size_t len = std::min(utf8_length(uint8_t(w[i])), w.size() - i);
        fn(k, std::string_view(w.data() + i, len));
        i += len;
      }
    };
    std::vector<std::string> initial, later;
    {
      std::unordered_set<std::string_view> first_set, rest_set;  // views into `words`' keys
      for (const auto& [word, count] : words)
        if (!too_long(word))
          each_char(word, [&](size_t i, std::string_view c) { (i ? rest_set : first_set).insert(c); });
      initial.assign(first_set.begin(), first_set.end());
      later.assign(rest_set.begin(), rest_set.end());
    }
    std::sort(initial.begin(), initial.end());  // UTF-8 byte order is code point order
    std::sort(later.begin(), later.end());
    std::unordered_map<std::string, uint32_t> first_ids, rest_ids;
    alphabet.clear();
    for (const std::string& c : initial) {
      first_ids[c] = first_id + uint32_t(alphabet.size());
      alphabet.push_back(c);
    }
    for (const std::string& c : later) {
      rest_ids[c] = first_id + uint32_t(alphabet.size());
      alphabet.push_back(prefix + c);
    }
    const uint32_t next = first_id + uint32_t(alphabet.size());
    std::vector<int64_t> token_counts(next, 0);
    std::vector<std::pair<std::vector<uint32_t>, int64_t>> sequences;
    sequences.reserve(words.size());
    for (const auto& [word, count] : words) {
      if (too_long(word)) continue;
      std::vector<uint32_t> ids;
      each_char(word, [&](size_t i, std::string_view c) {
        const std::string key(c);  // short: no allocation
        ids.push_back(i ? rest_ids[key] : first_ids[key]);
        token_counts[ids.back()] += count;
      });
      sequences.emplace_back(std::move(ids), count);
    }
    return WordPieceTrainer(std::move(sequences), std::move(token_counts), next, floor_decay);
  }

  // words: id sequences with counts; token_counts: each id's weighted occurrences; new ids
  // start at first_id; floor_decay in [0, 1] (see the top of this file).
  WordPieceTrainer(std::vector<std::pair<std::vector<uint32_t>, int64_t>> words, std::vector<int64_t> token_counts,
                   uint32_t first_id, double floor_decay = 0)
      : token_counts_(std::move(token_counts)), next_id_(first_id), floor_decay_(floor_decay) {
    if (!(floor_decay >= 0 && floor_decay <= 1)) throw std::invalid_argument("floor_decay must be in [0, 1]");
    token_counts_.resize(first_id, 0);
    pairs_of_.resize(first_id);
    for (auto& [ids, count] : words) pairs_.add_chunk(std::move(ids), count);
    pairs_.index();
    pairs_.for_each_pair([&](uint64_t p, int64_t n) {
      note_pair(p);
      if (floor_decay_ > 0) floor_ = std::max(floor_, n);
    });
    pairs_.for_each_pair([&](uint64_t p, int64_t n) { queue(p, n); });
  }

  // Up to `merges` more merges, stopping when no pair occurs min_frequency times; merge k of
  // the whole training makes id first_id + k.
  std::vector<Merge> train(size_t merges, int64_t min_frequency) {
    min_frequency_ = min_frequency;
    // Without a decay the floor is min_frequency; with one it only falls, and not below it.
    floor_ = floor_decay_ > 0 ? std::max(floor_, min_frequency) : min_frequency;
    std::vector<Merge> made;
    while (made.size() < merges) {
      uint64_t pair;
      if (!best(pair)) break;
      const uint32_t a = uint32_t(pair >> 32), b = uint32_t(pair);
      const uint32_t id = next_id_++;
      token_counts_.push_back(0);
      pairs_of_.emplace_back();
      const int64_t merged = pairs_.merge_everywhere(pair, id);
      token_counts_[a] -= merged;
      token_counts_[b] -= merged;
      token_counts_[id] = merged;
      for (uint64_t p : pairs_.touched()) note_pair(p);
      for (uint64_t p : pairs_.touched()) queue(p, pairs_.count(p));
      for (uint32_t t : {a, b}) requeue_pairs_of(t);
      made.emplace_back(a, b);
    }
    return made;
  }

 private:
  struct Candidate {
    double score;
    int64_t count;
    uint64_t pair;
    // std::priority_queue pops the largest: the highest score, then count, then smallest pair.
    bool operator<(const Candidate& o) const {
      if (score != o.score) return score < o.score;
      if (count != o.count) return count < o.count;
      return pair > o.pair;
    }
  };

  double score(uint64_t pair, int64_t n) const {
    return double(n) / (double(token_counts_[pair >> 32]) * double(token_counts_[uint32_t(pair)]));
  }
  // Pairs below the floor wait outside the queue; lower_floor() queues them, scored then.
  void queue(uint64_t pair, int64_t n) {
    if (n > 0 && n >= floor_) heap_.push({score(pair, n), n, pair});
  }
  // t's count fell: every pair holding it scores higher now. A pair's count never grows back
  // (merges only make new pairs), so pairs below min_frequency leave t's list (for good, unless
  // a later call lowers min_frequency: lower_floor() notes them again).
  void requeue_pairs_of(uint32_t t) {
    std::vector<uint64_t>& list = pairs_of_[t];
    size_t kept = 0;
    for (uint64_t p : list) {
      const int64_t n = pairs_.count(p);
      if (n <= 0 || n < min_frequency_) {
        if (n > 0) known_.erase(p);
        continue;
      }
      queue(p, n);
      list[kept++] = p;
    }
    list.resize(kept);
  }
  void note_pair(uint64_t pair) {
    if (!known_.insert(pair).second) return;
    pairs_of_[pair >> 32].push_back(pair);
    if (uint32_t(pair) != uint32_t(pair >> 32)) pairs_of_[uint32_t(pair)].push_back(pair);
  }
  bool best(uint64_t& pair) {
    do {
      while (!heap_.empty()) {
        const Candidate top = heap_.top();
        heap_.pop();
        const int64_t n = pairs_.count(top.pair);
        if (n != top.count || score(top.pair, n) != top.score) continue;  // stale
        if (n < floor_) continue;                                         // queued again when the floor reaches it
        pair = top.pair;
        return true;
      }
    } while (lower_floor());
    return false;
  }
  // No pair is left at or above the floor: lowers it (see the top of this file) and queues the
  // pairs it now admits. False when it is at min_frequency already, or no pair reaches that.
  bool lower_floor() {
    if (floor_decay_ == 0 || floor_ <= min_frequency_) return false;
    const int64_t old = floor_;
    int64_t below = 0;  // the highest count under the old floor
    pairs_.for_each_pair([&](uint64_t, int64_t n) {
      if (n < old) below = std::max(below, n);
    });
    if (below < min_frequency_) return false;
    floor_ = std::max(min_frequency_, std::min(below, int64_t(double(old) * floor_decay_)));
    pairs_.for_each_pair([&](uint64_t p, int64_t n) {
      if (n >= floor_ && n < old) {
        note_pair(p);  // back on its tokens' lists if a higher min_frequency took it off
        queue(p, n);
      }
    });
    return true;
  }

  PairIndex pairs_;
  std::vector<int64_t> token_counts_;
  std::vector<std::vector<uint64_t>> pairs_of_;  // pairs each token has been part of
  std::unordered_set<uint64_t> known_;
  std::priority_queue<Candidate> heap_;
  uint32_t next_id_;
  int64_t min_frequency_ = 1;
  double floor_decay_ = 0;
  int64_t floor_ = 1;  // only pairs occurring this often are queued
};

}  // namespace tokenforge
