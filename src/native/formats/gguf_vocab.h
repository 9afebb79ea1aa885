// The two whole-vocabulary passes of reading a GGUF tokenizer (tokenforge/formats/gguf.py),
// done here rather than token by token in Python, so that a 150,000-token file loads in a
// fraction of a second: checking tokenizer.ggml.merges against the tokens (llama.cpp splits each
// merge at its first space after the first byte), and deriving the BPE merges that llama.cpp's
// SPM tokenizer implies (every split of a token into two tokens, ranked by the token's score).
// Tokens and merges come in as views of UTF-8 strings (python/bind_gguf.cpp takes them from
// Python lists); formats/gguf_strings.h reads the string arrays out of the file.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "base/hash_tables.h"

namespace tokenforge {

// What gguf_check_merges found: the first merge that is not two tokens joined by a space (or
// whose join is no token), -1 for none; and whether every merge holds exactly one space (then
// tokenizer.json's "a b" strings say the same as pairs).
struct GgufMergesCheck {
  int64_t first_bad = -1;
  bool one_space_each = true;
};

// The tokens as a BytesTable (base/hash_tables.h; empty tokens left out). The reader refuses a
// token given twice before these passes run; the table throws std::invalid_argument on one.
inline BytesTable gguf_token_table(const std::vector<std::string_view>& tokens,
                                   std::vector<std::pair<const uint8_t*, size_t>>& views) {
  views.clear();
  views.reserve(tokens.size());
  for (const std::string_view t : tokens) views.emplace_back(reinterpret_cast<const uint8_t*>(t.data()), t.size());
  BytesTable table;
  table.build(views);
  return table;
}

inline bool gguf_has(const BytesTable& table, std::string_view s) {
  return !s.empty() && table.find(reinterpret_cast<const uint8_t*>(s.data()), s.size()) != kNoToken;
}

inline GgufMergesCheck gguf_check_merges(const std::vector<std::string_view>& tokens,
                                         const std::vector<std::string_view>& merges) {
  std::vector<std::pair<const uint8_t*, size_t>> views;
  const BytesTable index = gguf_token_table(tokens, views);
  GgufMergesCheck out;
  std::string joined;
  for (size_t k = 0; k < merges.size(); ++k) {
    const std::string_view m = merges[k];
    const size_t cut = m.size() < 2 ? std::string_view::npos : m.find(' ', 1);
    if (cut == std::string_view::npos || cut + 1 >= m.size()) {
      out.first_bad = int64_t(k);
      return out;
    }
    const std::string_view left = m.substr(0, cut), right = m.substr(cut + 1);
    if (out.one_space_each && right.find(' ') != std::string_view::npos) out.one_space_each = false;
    joined.assign(left);
    joined.append(right);
    if (!gguf_has(index, left) || !gguf_has(index, right) || !gguf_has(index, joined)) {
      out.first_bad = int64_t(k);
      return out;
    }
  }
  return out;
}

// The merges of llama.cpp's SPM tokenizer as BPE merges, as (left id, right id) pairs: every
// split of a token (at a code point boundary) into two tokens, ordered by the token's score
// (highest first), then by the token's id, then by the cut (shorter left part first). llama.cpp
// merges the adjacent pair whose concatenation scores highest, so these ranks give its merges;
// the splits of one token never compete (one word holds one of them at a time).
inline std::vector<std::pair<uint32_t, uint32_t>> gguf_spm_merges(const std::vector<std::string_view>& tokens,
                                                                  const std::vector<double>& scores) {
  std::vector<std::pair<const uint8_t*, size_t>> views;
  const BytesTable index = gguf_token_table(tokens, views);
  struct Found {
    double score;
    uint32_t id, cut, left, right;
  };
  std::vector<Found> found;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    for (size_t cut = 1; cut < t.size(); ++cut) {
      if ((uint8_t(t[cut]) & 0xC0) == 0x80) continue;  // inside a code point
      const auto* p = reinterpret_cast<const uint8_t*>(t.data());
      const uint32_t l = index.find(p, cut);
      if (l == kNoToken) continue;
      const uint32_t r = index.find(p + cut, t.size() - cut);
      if (r == kNoToken) continue;
      double score = i < scores.size() ? scores[i] : 0.0;
      if (std::isnan(score)) score = -std::numeric_limits<double>::infinity();  // keeps the order strict
      found.push_back({score, uint32_t(i), uint32_t(cut), l, r});
    }
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (a.score != b.score) return a.score > b.score;
    return std::tie(a.id, a.cut) < std::tie(b.id, b.cut);
  });
  std::vector<std::pair<uint32_t, uint32_t>> out;
  out.reserve(found.size());
  for (const Found& f : found) out.emplace_back(f.left, f.right);
  return out;
}

}  // namespace tokenforge
