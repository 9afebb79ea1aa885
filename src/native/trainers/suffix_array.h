// Suffix array by induced sorting (SA-IS, Nong, Zhang and Chan 2009): linear time, and no more
// memory than the text and the array themselves, so seed pieces can come from every substring
// of a corpus of tens of millions of characters.
#pragma once
#include <cstdint>
#include <vector>

namespace tokenforge {

namespace sais_detail {

// s[0..n) over [0, k), with s[n-1] == 0 the only 0 (the sentinel); sa gets the suffix order.
inline void sais(const int32_t* s, int32_t* sa, int32_t n, int32_t k) {
  std::vector<uint8_t> stype(n);  // 1: S-type (smaller than the suffix after it)
  stype[n - 1] = 1;
  for (int32_t i = n - 2; i >= 0; --i) stype[i] = s[i] < s[i + 1] || (s[i] == s[i + 1] && stype[i + 1]);
  const auto is_lms = [&](int32_t i) { return i > 0 && stype[i] && !stype[i - 1]; };
  std::vector<int32_t> bucket(k);
  const auto bucket_edges = [&](bool ends) {
    std::fill(bucket.begin(), bucket.end(), 0);
    for (int32_t i = 0; i < n; ++i) ++bucket[s[i]];
    int32_t sum = 0;
    for (int32_t c = 0; c < k; ++c) {
      sum += bucket[c];
      bucket[c] = ends ? sum : sum - bucket[c];
    }
  };
  const auto induce = [&] {
    bucket_edges(false);
    for (int32_t i = 0; i < n; ++i)
      if (const int32_t j = sa[i] - 1; sa[i] > 0 && !stype[j]) sa[bucket[s[j]]++] = j;
    bucket_edges(true);
    for (int32_t i = n - 1; i >= 0; --i)
      if (const int32_t j = sa[i] - 1; sa[i] > 0 && stype[j]) sa[--bucket[s[j]]] = j;
  };

  // Sort the LMS substrings by inducing from their bucket ends.
  bucket_edges(true);
  std::fill(sa, sa + n, -1);
  for (int32_t i = 1; i < n; ++i)
    if (is_lms(i)) sa[--bucket[s[i]]] = i;
  induce();

  // Name them (equal substrings, equal names) into the reduced string.
  int32_t n1 = 0;
  for (int32_t i = 0; i < n; ++i)
    if (is_lms(sa[i])) sa[n1++] = sa[i];
  std::fill(sa + n1, sa + n, -1);
  int32_t names = 0, prev = -1;
  for (int32_t i = 0; i < n1; ++i) {
    const int32_t pos = sa[i];
    bool differs = false;
    for (int32_t d = 0;; ++d) {
      if (prev == -1 || s[pos + d] != s[prev + d] || stype[pos + d] != stype[prev + d]) {
        differs = true;
        break;
      }
      if (d > 0 && (is_lms(pos + d) || is_lms(prev + d))) break;
    }
    if (differs) {
      ++names;
      prev = pos;
    }
    sa[n1 + pos / 2] = names - 1;
  }
  for (int32_t i = n - 1, j = n - 1; i >= n1; --i)
    if (sa[i] >= 0) sa[j--] = sa[i];

  // Order the LMS suffixes: recursively unless every name is already unique.
  int32_t* s1 = sa + n - n1;
  if (names < n1) {
    sais(s1, sa, n1, names);
  } else {
    for (int32_t i = 0; i < n1; ++i) sa[s1[i]] = i;
  }
  for (int32_t i = 1, j = 0; i < n; ++i)
    if (is_lms(i)) s1[j++] = i;
  for (int32_t i = 0; i < n1; ++i) sa[i] = s1[sa[i]];

  // Induce the whole order from the sorted LMS suffixes.
  bucket_edges(true);
  std::fill(sa + n1, sa + n, -1);
  for (int32_t i = n1 - 1; i >= 0; --i) {
    const int32_t j = sa[i];
    sa[i] = -1;
    sa[--bucket[s[j]]] = j;
  }
  induce();
}

}  // namespace sais_detail

// The suffix array of text[0..n) over [1, k) with a 0 sentinel at text[n-1].
inline std::vector<int32_t> suffix_array(const std::vector<int32_t>& text, int32_t k) {
  std::vector<int32_t> sa(text.size());
  if (!text.empty()) sais_detail::sais(text.data(), sa.data(), int32_t(text.size()), k);
  return sa;
}

// lcp[i]: how many leading symbols the suffixes sa[i - 1] and sa[i] share, counted only up to
// cap (lcp[0] = 0). Capping keeps the pass linear, and leaves the suffix tree's nodes of depth
// below cap exactly as they are.
inline std::vector<uint16_t> capped_lcp(const std::vector<int32_t>& text, const std::vector<int32_t>& sa,
                                        uint16_t cap) {
  const size_t n = sa.size();
  std::vector<uint16_t> lcp(n, 0);
  for (size_t i = 1; i < n; ++i) {
    const int32_t a = sa[i - 1], b = sa[i];
    uint16_t d = 0;
    while (d < cap && size_t(a) + d < n && size_t(b) + d < n && text[a + d] == text[b + d]) ++d;
    lcp[i] = d;
  }
  return lcp;
}

// Calls visit(depth, first, count) for every internal node of the suffix tree whose depth is
// below the cap lcp was computed with: `count` suffixes from sa[first] on share exactly `depth`
// leading symbols and branch after them.
template <class Visit>
void suffix_tree_nodes(const std::vector<uint16_t>& lcp, int32_t max_depth, Visit visit) {
  const int32_t n = int32_t(lcp.size());
  struct Open {
    int32_t depth, first;
  };
  std::vector<Open> stack{{0, 0}};
  for (int32_t i = 1; i <= n; ++i) {
    const int32_t depth = i < n ? lcp[i] : -1;
    int32_t first = i - 1;
    while (depth < stack.back().depth) {
      const Open node = stack.back();
      stack.pop_back();
      if (node.depth <= max_depth) visit(node.depth, node.first, i - node.first);
      first = node.first;
      if (stack.empty()) break;
    }
    if (stack.empty() || depth > stack.back().depth) stack.push_back({depth, first});
  }
}

}  // namespace tokenforge
