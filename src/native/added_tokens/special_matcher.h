// Finds special-token text (e.g. "<|endoftext|>") in a string: leftmost occurrence, longest
// token on ties. Built once per set of tokens and reused across calls; split_at_matches cuts a
// text at them for the pipelines.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tokenforge {

struct SpecialMatch {
  size_t pos, len;
  uint32_t id;
};

class SpecialMatcher {
 public:
  explicit SpecialMatcher(std::vector<std::pair<std::string, uint32_t>> tokens) : tokens_(std::move(tokens)) {
    for (const auto& [text, id] : tokens_) {
      if (text.empty()) continue;
      by_text_.emplace(std::string_view(text), id);
      lengths_.push_back(text.size());
      first_[uint8_t(text[0])] = true;
      shared_first_ = (shared_first_ == -1 || shared_first_ == uint8_t(text[0])) ? uint8_t(text[0]) : -2;
    }
    std::sort(lengths_.rbegin(), lengths_.rend());
    lengths_.erase(std::unique(lengths_.begin(), lengths_.end()), lengths_.end());
  }
  SpecialMatcher(const SpecialMatcher&) = delete;
  SpecialMatcher& operator=(const SpecialMatcher&) = delete;

  bool empty() const { return by_text_.empty(); }

  // The first match starting at or after `from`; pos == n when there is none.
  SpecialMatch find(const uint8_t* s, size_t n, size_t from) const {
    if (by_text_.empty()) return {n, 0, 0};
    for (size_t p = from; p < n; ++p) {
      if (shared_first_ >= 0) {
        const void* hit = std::memchr(s + p, shared_first_, n - p);
        if (!hit) break;
        p = static_cast<const uint8_t*>(hit) - s;
      } else if (!first_[s[p]]) {
        continue;
      }
      for (size_t len : lengths_) {
        if (len > n - p) continue;
        auto it = by_text_.find(std::string_view(reinterpret_cast<const char*>(s + p), len));
        if (it != by_text_.end()) return {p, len, it->second};
      }
    }
    return {n, 0, 0};
  }

 private:
  std::vector<std::pair<std::string, uint32_t>> tokens_;  // owns the text by_text_ views
  std::unordered_map<std::string_view, uint32_t> by_text_;
  std::vector<size_t> lengths_;  // distinct token lengths, longest first
  bool first_[256] = {};
  int shared_first_ = -1;  // the one first byte all tokens share, or -2
};

// Cuts s[0..n) at the matches of `added` (null: none), leftmost first: on_text(from, to) for each
// non-empty stretch of text between them and on_match(match) for each match, in text order. The
// one split loop of every pipeline (pipelines/): what lies between matches is encoded as a text
// of its own.
template <class OnText, class OnMatch>
void split_at_matches(const SpecialMatcher* added, const uint8_t* s, size_t n, OnText&& on_text, OnMatch&& on_match) {
  size_t pos = 0;
  if (added && !added->empty()) {
    while (pos < n) {
      const SpecialMatch m = added->find(s, n, pos);
      if (m.pos >= n) break;
      if (m.pos > pos) on_text(pos, m.pos);
      on_match(m);
      pos = m.pos + m.len;
    }
  }
  if (pos < n) on_text(pos, n);
}

}  // namespace tokenforge
