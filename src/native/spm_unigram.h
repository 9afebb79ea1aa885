// sentencepiece's Unigram model over normalized text, as sentencepiece 0.2.x computes it. Its
// lattice has a node per occurrence of a piece (found with a byte trie; unused pieces are
// skipped) and an unknown node for a character no piece covers alone, scored (lowest normal
// score - 10). A user-defined symbol scores 0.1 * (length - 1): above any path of normal pieces.
//
// encode is the Viterbi search as sentencepiece's EncodeOptimized does it: one pass, the lattice
// never stored, float sums rebased when they grow, a user-defined symbol's length in bytes.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "spm_vocab.h"
#include "wordpiece.h"

namespace tokenforge {

class SpmUnigramModel {
 public:
  explicit SpmUnigramModel(SpmVocab vocab) : vocab_(std::move(vocab)) {
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      const uint8_t t = vocab_.type(id);
      if (SpmVocab::producible(t)) {
        const std::string& text = vocab_.text(id);
        trie_.insert(reinterpret_cast<const uint8_t*>(text.data()), text.size(), id);
      }
      if (t == SpmVocab::kNormal) min_score_ = std::min(min_score_, vocab_.score(id));
    }
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Appends the ids of the best segmentation of normalized text s[0..n) to `ids`.
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids) const {
    struct Best {
      float score = 0;
      uint32_t id = SpmVocab::kNone;
      int64_t starts_at = -1;
    };
    std::vector<Best> best(n + 1);
    size_t reached = 0;  // the furthest end with a candidate
    float so_far = 0;    // the best score up to the current start
    // Float sums lose the small differences between paths as they grow: like sentencepiece,
    // when the best score at a start leaves [-1e5, 1e5], the scores from there on are rebased
    // to it (and so the ties that rounding makes are sentencepiece's).
    auto begin = [&](size_t start) {
      so_far = best[start].score;
      if (so_far >= -1e5f && so_far <= 1e5f) return;
      for (size_t i = start; i <= reached; ++i)
        if (i == start || best[i].starts_at != -1) best[i].score -= so_far;
      so_far = 0;
    };
    auto relax = [&](size_t start, size_t end, uint32_t id) {
      const float candidate = so_far + node_score(id, end - start);
      Best& target = best[end];
      if (target.starts_at == -1 || candidate > target.score) target = Best{candidate, id, int64_t(start)};
      reached = std::max(reached, end);
    };
    for_each_node(s, n, begin, relax);
    std::vector<std::pair<uint32_t, std::string_view>> path;
    for (int64_t end = int64_t(n); end > 0;) {
      const Best& b = best[end];
      path.emplace_back(b.id, std::string_view(reinterpret_cast<const char*>(s) + b.starts_at, end - b.starts_at));
      end = b.starts_at;
    }
    const size_t first = ids.size();
    for (auto it = path.rbegin(); it != path.rend(); ++it) vocab_.emit(it->first, it->second, first, ids);
  }

 private:
  // Calls node(start, end, id) for each node of the lattice over s[0..n), in sentencepiece's
  // order: by start, then by length, then the unknown (when no piece covers the character
  // alone); begin(start) comes before the nodes at each start.
  template <class Begin, class Visit>
  void for_each_node(const uint8_t* s, size_t n, Begin&& begin, Visit&& node) const {
    for (size_t start = 0; start < n;) {
      begin(start);
      const size_t char_len = std::min(utf8_length(s[start]), n - start);
      bool has_single = false;
      uint32_t t = ByteTrie::kRoot;
      for (size_t end = start; end < n;) {
        t = trie_.child(t, s[end++]);
        if (t == ByteTrie::kNone) break;
        const uint32_t id = trie_.value(t);
        if (id == kNoToken || vocab_.type(id) == SpmVocab::kUnused) continue;
        node(start, end, id);
        if (end - start == char_len) has_single = true;
      }
      if (!has_single) node(start, start + char_len, vocab_.unk_id());
      start += char_len;
    }
  }

  // A node's score; a user-defined symbol's depends on its length in bytes.
  float node_score(uint32_t id, size_t length) const {
    if (id == vocab_.unk_id()) return min_score_ - 10.0f;
    if (vocab_.type(id) == SpmVocab::kUserDefined) return float(double(length - 1) * 0.1);
    return vocab_.score(id);
  }

  SpmVocab vocab_;
  ByteTrie trie_;
  float min_score_ = FLT_MAX;
};

}  // namespace tokenforge
