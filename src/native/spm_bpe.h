// sentencepiece's BPE model: the normalized text (spaces already "▁") starts as characters
// (user-defined symbols whole and frozen), and the adjacent pair whose concatenation is a piece
// with the highest score is merged first (ties: the leftmost), until no pair is a piece. Merges
// may pass through unused pieces, which are then split back into the parts they were made of.
//
// Speed: a merge makes a piece, so no merge can join two adjacent characters that are never
// adjacent inside a piece. The text is cut between such characters (before most "▁", between
// most CJK characters) and encoded segment by segment: the same merges in the same order within
// each. Each thread keeps a cache of recent segments and their ids: natural text repeats.
#pragma once
#include <cstdint>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pool.h"
#include "spm_vocab.h"
#include "unicode_classes.h"

namespace tokenforge {

class SpmBpeModel {
 public:
  explicit SpmBpeModel(SpmVocab vocab) : vocab_(std::move(vocab)) {
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const std::string& t = vocab_.text(id);
      const auto* p = reinterpret_cast<const uint8_t*>(t.data());
      uint32_t prev = kNoChar;
      for (size_t i = 0; i < t.size();) {
        size_t len;
        const uint32_t cp = decode_utf8(p + i, t.size() - i, len);
        if (prev != kNoChar) inner_pairs_.insert(pair_key(prev, cp));
        prev = cp;
        i += len;
      }
    }
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Appends the ids of normalized text s[0..n) to `ids` (and to `lengths` the bytes each covers).
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr) const {
    Pool<SegmentCache>::Lease lease(caches_);
    SegmentCache& cache = lease.get();
    if (cache.size() > kMaxCached) cache.clear();
    const size_t first = ids.size();
    size_t start = 0;
    uint32_t prev = kNoChar;
    for (size_t i = 0; i <= n;) {
      size_t len = 0;
      const uint32_t cp = i < n ? decode_utf8(s + i, n - i, len) : kNoChar;
      if (i == n || (prev != kNoChar && !inner_pairs_.count(pair_key(prev, cp)))) {
        if (i > start) append_segment(s + start, i - start, cache, first, ids, lengths);
        start = i;
        if (i == n) break;
      }
      prev = cp;
      i += len;
    }
  }

 private:
  static constexpr size_t kMaxCached = 1 << 18;
  static constexpr uint32_t kNoChar = 0xFFFFFFFFu;
  struct Segment {
    std::vector<uint32_t> ids, lengths;
  };
  using SegmentCache = std::unordered_map<std::string, Segment>;

  static uint64_t pair_key(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }

  void append_segment(const uint8_t* s, size_t n, SegmentCache& cache, size_t first, std::vector<uint32_t>& ids,
                      std::vector<uint32_t>* lengths) const {
    std::string text(reinterpret_cast<const char*>(s), n);  // short: no allocation, mostly
    auto it = cache.find(text);
    if (it == cache.end()) {
      Segment segment;
      encode_segment(s, n, segment.ids, &segment.lengths);
      it = cache.emplace(std::move(text), std::move(segment)).first;
    }
    const Segment& segment = it->second;
    const size_t skip = !segment.ids.empty() && vocab_.continues_unknown_run(segment.ids[0], first, ids);
    ids.insert(ids.end(), segment.ids.begin() + skip, segment.ids.end());
    if (lengths) {
      if (skip) lengths->back() += segment.lengths[0];
      lengths->insert(lengths->end(), segment.lengths.begin() + skip, segment.lengths.end());
    }
  }

  void encode_segment(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths) const {
    const std::string_view text(reinterpret_cast<const char*>(s), n);
    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < n;) {
      bool freeze = false;
      const size_t len = vocab_.symbol_length(text.substr(pos), freeze);
      symbols.push_back(Symbol{uint32_t(pos), uint32_t(len), int(symbols.size()) - 1,
                               pos + len < n ? int(symbols.size()) + 1 : -1, freeze});
      pos += len;
    }
    std::priority_queue<Pair> agenda;
    std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> rev_merge;
    auto add_pair = [&](int left, int right) {
      if (left < 0 || right < 0 || symbols[left].freeze || symbols[right].freeze) return;
      const std::string_view merged = text.substr(symbols[left].start, symbols[left].len + symbols[right].len);
      const uint32_t id = vocab_.find(merged);
      if (id == SpmVocab::kNone) return;
      agenda.push(Pair{vocab_.score(id), left, right, uint32_t(merged.size())});
      if (vocab_.type(id) == SpmVocab::kUnused)
        rev_merge[merged] = {text.substr(symbols[left].start, symbols[left].len),
                             text.substr(symbols[right].start, symbols[right].len)};
    };
    for (size_t i = 1; i < symbols.size(); ++i) add_pair(int(i) - 1, int(i));
    while (!agenda.empty()) {
      const Pair top = agenda.top();
      agenda.pop();
      Symbol& l = symbols[top.left];
      Symbol& r = symbols[top.right];
      if (l.len == 0 || r.len == 0 || l.len + r.len != top.size) continue;  // stale
      l.len += r.len;
      l.next = r.next;
      if (r.next >= 0) symbols[r.next].prev = top.left;
      r.len = 0;
      add_pair(l.prev, top.left);
      add_pair(top.left, l.next);
    }
    const size_t first = ids.size();
    for (int i = symbols.empty() ? -1 : 0; i != -1; i = symbols[i].next)
      emit(text.substr(symbols[i].start, symbols[i].len), rev_merge, first, ids, lengths);
  }

  struct Symbol {
    uint32_t start, len;
    int prev, next;
    bool freeze;
  };
  struct Pair {
    float score;
    int left, right;
    uint32_t size;
    // priority_queue pops the largest: the highest score, then the leftmost.
    bool operator<(const Pair& o) const { return score != o.score ? score < o.score : left > o.left; }
  };

  // A symbol made through an unused piece goes back to the parts it was merged from.
  void emit(std::string_view piece,
            const std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>>& rev_merge,
            size_t first, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths) const {
    const uint32_t id = vocab_.piece_to_id(piece);
    if (vocab_.type(id) == SpmVocab::kUnused) {
      const auto it = rev_merge.find(piece);
      if (it != rev_merge.end()) {
        emit(it->second.first, rev_merge, first, ids, lengths);
        emit(it->second.second, rev_merge, first, ids, lengths);
        return;
      }
    }
    vocab_.emit(id, piece, first, ids, lengths);
  }

  SpmVocab vocab_;
  std::unordered_set<uint64_t> inner_pairs_;  // (character, next character) adjacent in some piece
  mutable Pool<SegmentCache> caches_;
};

}  // namespace tokenforge
