// The smallest of a padded array of merge ranks and the first place that holds it: the scan
// the rank-ordered merges of short pieces run each round (models/bpe/bpe_model.h, tiktoken's
// merge; models/bpe/hf_bpe_model.h, HF's), four ranks a step where SSE4.1 is there; and, for
// merges of more parts, the minimum of a block of 16 ranks and the first place in a block that
// holds a rank, so that a round reads the blocks' minima and one block instead of every rank.
#pragma once
#include <cstddef>
#include <cstdint>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

namespace tokenforge {

#if defined(__SSE4_1__)
namespace leftmost_min_detail {
// The smallest of the four lanes of v, in every lane.
inline __m128i spread_min(__m128i v) {
  v = _mm_min_epu32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_min_epu32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
}
// The first index of ranks that holds the rank in every lane of `want`, which one of them does.
inline size_t first_equal(const uint32_t* ranks, __m128i want) {
  for (size_t i = 0;; i += 4) {
    const __m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ranks + i)), want);
    if (const int mask = _mm_movemask_ps(_mm_castsi128_ps(eq))) return i + size_t(__builtin_ctz(unsigned(mask)));
  }
}
}  // namespace leftmost_min_detail
#endif

// The smallest of ranks[0..n) (n a multiple of 4, at least 4) and, in `at`, its first index.
inline uint32_t leftmost_min(const uint32_t* ranks, size_t n, size_t& at) {
#if defined(__SSE4_1__)
  __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ranks));
  for (size_t i = 4; i < n; i += 4)
    lo = _mm_min_epu32(lo, _mm_loadu_si128(reinterpret_cast<const __m128i*>(ranks + i)));
  lo = leftmost_min_detail::spread_min(lo);
  at = leftmost_min_detail::first_equal(ranks, lo);
  return uint32_t(_mm_cvtsi128_si32(lo));
#else
  uint32_t best = ranks[0];
  at = 0;
  for (size_t i = 1; i < n; ++i)
    if (ranks[i] < best) best = ranks[i], at = i;
  return best;
#endif
}

// The smallest of ranks[0..16).
inline uint32_t min16(const uint32_t* ranks) {
#if defined(__SSE4_1__)
  auto load = [&](size_t i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(ranks + i)); };
  const __m128i lo = _mm_min_epu32(_mm_min_epu32(load(0), load(4)), _mm_min_epu32(load(8), load(12)));
  return uint32_t(_mm_cvtsi128_si32(leftmost_min_detail::spread_min(lo)));
#else
  uint32_t best = ranks[0];
  for (size_t i = 1; i < 16; ++i) best = ranks[i] < best ? ranks[i] : best;
  return best;
#endif
}

// The first index of ranks[0..16) that holds `rank`, which one of them does.
inline size_t first_of16(const uint32_t* ranks, uint32_t rank) {
#if defined(__SSE4_1__)
  return leftmost_min_detail::first_equal(ranks, _mm_set1_epi32(int(rank)));
#else
  size_t i = 0;
  while (ranks[i] != rank) ++i;
  return i;
#endif
}

}  // namespace tokenforge
