// sentencepiece's BPE trainer: words start as their characters, and each round the most frequent
// adjacent pair that makes a valid piece (sentencepiece's rules: one script, "▁" only in front,
// at most max_piece_length characters, never the unknown character) becomes a new piece with
// score -(its rank). A pair whose text is already a piece (made along another path: "aa" + "a"
// and "a" + "aa") is dropped rather than merged, as sentencepiece does. The characters come
// last, most frequent first. Pair counts are kept incrementally (PairIndex, shared with the
// byte-level BPE trainer); ties go to the smaller pair of ids, so runs are repeatable.
#pragma once
#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "trainers/pair_index.h"
#include "trainers/spm_training_corpus.h"

namespace tokenforge {

class SpmBpeTrainer {
 public:
  using Pieces = std::vector<std::pair<std::string, float>>;

  explicit SpmBpeTrainer(SpmTrainingCorpus corpus) : corpus_(std::move(corpus)) {}

  SpmTrainingCorpus& corpus() { return corpus_; }

  // Chooses the alphabet, counts the words and indexes their pairs; returns the alphabet size.
  size_t prepare(size_t meta_count, size_t vocab_size) {
    corpus_.choose_alphabet(meta_count, vocab_size);
    for (const auto& [cp, count] : corpus_.alphabet()) symbols_.push_back({cp});
    unknown_ = uint32_t(symbols_.size());
    symbols_.push_back({kSpmUnknown});
    std::vector<uint32_t> symbol_of(0x110000, unknown_);  // by code point
    for (uint32_t id = 0; id < unknown_; ++id) symbol_of[symbols_[id][0]] = id;
    for (auto& [word, count] : corpus_.count_words()) {
      std::vector<uint32_t> ids;
      SpmTrainingCorpus::for_each_char(
          word, [&](uint32_t cp) { ids.push_back(symbol_of[std::min<uint32_t>(cp, 0x10FFFF)]); });
      pairs_.add_chunk(std::move(ids), count);
      std::string().swap(word);
    }
    pairs_.index();
    pairs_.for_each_pair([&](uint64_t p, int64_t n) { heap_.push({n, p}); });
    return corpus_.alphabet().size();
  }

  // Learns up to `wanted` more pieces; returns how many it learned (fewer: no valid pair is left).
  size_t train(size_t wanted) {
    size_t learned = 0;
    while (learned < wanted) {
      uint64_t pair;
      std::string text;
      if (!best(pair, text)) break;
      const uint32_t id = uint32_t(symbols_.size());
      std::vector<uint32_t> cps = symbols_[pair >> 32];
      const std::vector<uint32_t>& right = symbols_[uint32_t(pair)];
      cps.insert(cps.end(), right.begin(), right.end());
      symbols_.push_back(std::move(cps));
      pairs_.merge_everywhere(pair, id);
      for (uint64_t p : pairs_.touched())
        if (const int64_t n = pairs_.count(p); n > 0) heap_.push({n, p});
      learned_.push_back(std::move(text));
      ++learned;
    }
    return learned;
  }

  size_t learned() const { return learned_.size(); }

  // The learned pieces in order, then the characters, each scored -(its position).
  Pieces finalize() const {
    Pieces out;
    for (const std::string& piece : learned_) out.emplace_back(piece, -float(out.size()));
    for (const auto& [cp, count] : corpus_.alphabet())
      out.emplace_back(SpmTrainingCorpus::utf8(&cp, 1), -float(out.size()));
    return out;
  }

 private:
  // The most frequent pair that makes a new valid piece, and that piece's text.
  bool best(uint64_t& pair, std::string& text) {
    while (!heap_.empty()) {
      const PairCandidate top = heap_.top();
      heap_.pop();
      if (pairs_.count(top.pair) != top.count || rejected_.count(top.pair)) continue;  // stale or refused
      const uint32_t a = uint32_t(top.pair >> 32), b = uint32_t(top.pair);
      std::vector<uint32_t> cps = symbols_[a];
      cps.insert(cps.end(), symbols_[b].begin(), symbols_[b].end());
      if (a == unknown_ || b == unknown_ || !corpus_.options().rules.valid(cps.data(), cps.size())) {
        rejected_.insert(top.pair);
        continue;
      }
      text = SpmTrainingCorpus::utf8(cps.data(), cps.size());
      if (!made_.insert(text).second) {
        rejected_.insert(top.pair);
        continue;
      }
      pair = top.pair;
      return true;
    }
    return false;
  }

  SpmTrainingCorpus corpus_;
  PairIndex pairs_;
  std::priority_queue<PairCandidate> heap_;
  std::vector<std::vector<uint32_t>> symbols_;  // id -> code points
  uint32_t unknown_ = 0;
  std::unordered_set<uint64_t> rejected_;
  std::unordered_set<std::string> made_;
  std::vector<std::string> learned_;
};

}  // namespace tokenforge
