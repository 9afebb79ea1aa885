// Inlining hints for the hot loops: per-character helpers that compilers otherwise leave as
// calls, and cold paths kept out of the loops they would bloat.
#pragma once

#if defined(__GNUC__)
#define TF_INLINE inline __attribute__((always_inline))
#define TF_NOINLINE __attribute__((noinline))
#else
#define TF_INLINE inline
#define TF_NOINLINE
#endif
