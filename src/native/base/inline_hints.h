// Inlining hints for the hot loops: per-character helpers that compilers otherwise leave as
// calls, and cold paths kept out of the loops they would bloat.
#pragma once

#if defined(__GNUC__)
#define TF_INLINE inline __attribute__((always_inline))
#define TF_NOINLINE __attribute__((noinline))
#define TF_LIKELY(x) __builtin_expect(!!(x), 1)
#define TF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TF_INLINE inline
#define TF_NOINLINE
#define TF_LIKELY(x) (x)
#define TF_UNLIKELY(x) (x)
#endif
