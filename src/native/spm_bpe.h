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
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "inline_hints.h"
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

  // Appends the ids of normalized text s[0..n) to `ids`.
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids) const {
    Pool<SegmentCache>::Lease lease(caches_);
    SegmentCache& cache = lease.get();
    if (cache.size() > kMaxCached) cache.clear();
    const size_t first = ids.size();
    for (size_t start = 0, end; start < n; start = end) {
      end = segment_end(s, n, start);
      append_segment(s + start, end - start, cache, first, ids);
    }
  }

  // BPE-dropout (sentencepiece's SampleEncode): as encode, but each merge is skipped with
  // probability alpha when its turn comes. A skipped pair is never merged later, and merges in
  // different segments never meet, so segment by segment draws from the same distribution.
  void sample_encode(const uint8_t* s, size_t n, double alpha, std::mt19937_64& rng,
                     std::vector<uint32_t>& ids) const {
    if (alpha <= 0.0) return encode(s, n, ids);
    std::bernoulli_distribution skip(std::min(alpha, 1.0));
    const size_t first = ids.size();
    for (size_t start = 0, end; start < n; start = end) {
      end = segment_end(s, n, start);
      encode_segment(s + start, end - start, first, ids, [&] { return skip(rng); });
    }
  }

 private:
  static constexpr size_t kMaxCached = 1 << 18;
  static constexpr uint32_t kNoChar = 0xFFFFFFFFu;
  using SegmentCache = std::unordered_map<std::string, std::vector<uint32_t>>;

  static uint64_t pair_key(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }

  // Where the segment starting at s[start] ends: before the first character that is never
  // adjacent inside a piece to the one before it, or at n.
  size_t segment_end(const uint8_t* s, size_t n, size_t start) const {
    size_t len;
    uint32_t prev = decode_utf8(s + start, n - start, len);
    for (size_t i = start + len; i < n; i += len) {
      const uint32_t cp = decode_utf8(s + i, n - i, len);
      if (!inner_pairs_.count(pair_key(prev, cp))) return i;
      prev = cp;
    }
    return n;
  }

  void append_segment(const uint8_t* s, size_t n, SegmentCache& cache, size_t first,
                      std::vector<uint32_t>& ids) const {
    std::string segment(reinterpret_cast<const char*>(s), n);  // short: no allocation, mostly
    auto it = cache.find(segment);
    if (it == cache.end()) {
      std::vector<uint32_t> seg_ids;
      encode_segment(s, n, 0, seg_ids, [] { return false; });
      it = cache.emplace(std::move(segment), std::move(seg_ids)).first;
    }
    const std::vector<uint32_t>& seg_ids = it->second;
    const size_t skip = !seg_ids.empty() && vocab_.continues_unknown_run(seg_ids[0], first, ids);
    ids.insert(ids.end(), seg_ids.begin() + skip, seg_ids.end());
  }

  // Appends the ids of segment s[0..n) to ids (ids[first..] are this text's), passing over each
  // merge whose turn comes when skip_merge() says so.
  template <class SkipMerge>
  TF_NOINLINE void encode_segment(const uint8_t* s, size_t n, size_t first, std::vector<uint32_t>& ids,
                                  SkipMerge&& skip_merge) const {
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
      if (skip_merge()) continue;
      l.len += r.len;
      l.next = r.next;
      if (r.next >= 0) symbols[r.next].prev = top.left;
      r.len = 0;
      add_pair(l.prev, top.left);
      add_pair(top.left, l.next);
    }
    for (int i = symbols.empty() ? -1 : 0; i != -1; i = symbols[i].next)
      emit(text.substr(symbols[i].start, symbols[i].len), rev_merge, first, ids);
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
            size_t first, std::vector<uint32_t>& ids) const {
    const uint32_t id = vocab_.piece_to_id(piece);
    if (vocab_.type(id) == SpmVocab::kUnused) {
      const auto it = rev_merge.find(piece);
      if (it != rev_merge.end()) {
        emit(it->second.first, rev_merge, first, ids);
        emit(it->second.second, rev_merge, first, ids);
        return;
      }
    }
    vocab_.emit(id, piece, first, ids);
  }

  SpmVocab vocab_;
  std::unordered_set<uint64_t> inner_pairs_;  // (character, next character) adjacent in some piece
  mutable Pool<SegmentCache> caches_;
};

}  // namespace tokenforge
