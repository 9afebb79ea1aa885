// sentencepiece's Unigram model: the segmentation of the normalized text with the highest total
// piece score (Viterbi over the lattice of pieces, found with a byte trie). Unused pieces are
// skipped; a user-defined symbol scores length * (best normal score) - 0.1, so it always wins;
// a character no piece starts with gets the unknown id at (lowest normal score - 10). Scores
// add up in single precision, in sentencepiece's order, so ties break the same way.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <string_view>
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
      if (t == SpmVocab::kNormal) {
        min_score_ = std::min(min_score_, vocab_.score(id));
        max_score_ = std::max(max_score_, vocab_.score(id));
      }
    }
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Appends the ids of normalized text s[0..n) to `ids` (and to `lengths` the bytes each covers).
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr) const {
    struct Best {
      uint32_t id = SpmVocab::kNone;
      float score = 0;
      int64_t starts_at = -1;
    };
    std::vector<Best> best(n + 1);
    const float unk_score = min_score_ - 10.0f;
    for (size_t start = 0; start < n;) {
      const float so_far = best[start].score;
      const uint8_t lead = s[start];
      const size_t char_len = std::min(utf8_length(lead), n - start);
      bool has_single = false;
      uint32_t node = ByteTrie::kRoot;
      for (size_t end = start; end < n;) {
        node = trie_.child(node, s[end++]);
        if (node == ByteTrie::kNone) break;
        const uint32_t id = trie_.value(node);
        if (id == kNoToken || vocab_.type(id) == SpmVocab::kUnused) continue;
        const size_t length = end - start;
        const float score =
            vocab_.type(id) == SpmVocab::kUserDefined ? float(length) * max_score_ - 0.1f : vocab_.score(id);
        const float candidate = score + so_far;
        Best& target = best[end];
        if (target.starts_at == -1 || candidate > target.score) target = Best{id, candidate, int64_t(start)};
        if (length == char_len) has_single = true;
      }
      if (!has_single) {
        Best& target = best[start + char_len];
        const float candidate = unk_score + so_far;
        if (target.starts_at == -1 || candidate > target.score)
          target = Best{vocab_.unk_id(), candidate, int64_t(start)};
      }
      start += char_len;
    }
    std::vector<std::pair<uint32_t, std::string_view>> path;
    for (int64_t end = int64_t(n); end > 0;) {
      const Best& b = best[end];
      path.emplace_back(b.id, std::string_view(reinterpret_cast<const char*>(s) + b.starts_at, end - b.starts_at));
      end = b.starts_at;
    }
    const size_t first = ids.size();
    for (auto it = path.rbegin(); it != path.rend(); ++it) vocab_.emit(it->first, it->second, first, ids, lengths);
  }

 private:
  SpmVocab vocab_;
  ByteTrie trie_;
  float min_score_ = FLT_MAX, max_score_ = FLT_MIN;
};

}  // namespace tokenforge
