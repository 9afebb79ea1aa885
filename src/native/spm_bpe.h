// sentencepiece's BPE model: the normalized text (spaces already "▁") starts as characters
// (user-defined symbols whole and frozen), and the adjacent pair whose concatenation is a piece
// with the highest score is merged first (ties: the leftmost), until no pair is a piece. Merges
// may pass through unused pieces, which are then split back into the parts they were made of.
//
// Speed: when no piece holds "▁" after its start (other than runs of "▁" alone), no merge can
// cross the point before a "▁" that follows another character, so the text is encoded segment
// by segment (same merges, same order within each), and each thread keeps a cache of recent
// segments and their ids: natural text repeats its words.
#pragma once
#include <cstdint>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pool.h"
#include "spm_vocab.h"

namespace tokenforge {

class SpmBpeModel {
 public:
  explicit SpmBpeModel(SpmVocab vocab) : vocab_(std::move(vocab)) {
    segmentable_ = true;
    for (uint32_t id = 0; id < vocab_.size() && segmentable_; ++id) {
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const std::string& t = vocab_.text(id);
      const size_t inner = t.find(kSpace, 1);
      if (inner == std::string::npos) continue;
      bool only_spaces = t.size() % kSpace.size() == 0;
      for (size_t i = 0; only_spaces && i < t.size(); i += kSpace.size()) only_spaces = t.compare(i, 3, kSpace) == 0;
      if (!only_spaces) segmentable_ = false;
    }
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Appends the ids of normalized text s[0..n) to `ids`.
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids) const {
    if (!segmentable_) {
      encode_segment(s, n, ids);
      return;
    }
    Pool<SegmentCache>::Lease lease(caches_);
    SegmentCache& cache = lease.get();
    if (cache.size() > kMaxCached) cache.clear();
    const std::string_view text(reinterpret_cast<const char*>(s), n);
    const size_t first = ids.size();
    for (size_t start = 0; start < n;) {
      size_t end = start + 1;
      for (;; ++end) {  // the next "▁" after another character
        end = text.find(kSpace, end);
        if (end == std::string_view::npos) {
          end = n;
          break;
        }
        if (end >= kSpace.size() && text.compare(end - kSpace.size(), kSpace.size(), kSpace) != 0) break;
      }
      std::string segment(text.substr(start, end - start));  // short: no allocation, mostly
      auto it = cache.find(segment);
      if (it == cache.end()) {
        std::vector<uint32_t> seg_ids;
        encode_segment(s + start, end - start, seg_ids);
        it = cache.emplace(std::move(segment), std::move(seg_ids)).first;
      }
      const std::vector<uint32_t>& seg_ids = it->second;
      size_t skip = 0;  // an unknown run continuing across the cut is one unknown id
      if (!seg_ids.empty() && ids.size() > first && seg_ids[0] == vocab_.unk_id() && ids.back() == vocab_.unk_id() &&
          !vocab_.byte_fallback())
        skip = 1;
      ids.insert(ids.end(), seg_ids.begin() + skip, seg_ids.end());
      start = end;
    }
  }

 private:
  static constexpr std::string_view kSpace = "\xE2\x96\x81";
  static constexpr size_t kMaxCached = 1 << 18;
  using SegmentCache = std::unordered_map<std::string, std::vector<uint32_t>>;

  void encode_segment(const uint8_t* s, size_t n, std::vector<uint32_t>& ids) const {
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
  bool segmentable_;
  mutable Pool<SegmentCache> caches_;
};

}  // namespace tokenforge
