// Which vector paths this CPU runs, decided once at run time (the extension is built for any
// x86-64, or for another architecture, and picks wider paths where the CPU has them).
//
// The AVX2 paths are functions compiled for AVX2 (TF_TARGET_AVX2) next to their portable
// twins; callers choose between the two with avx2_enabled(). Users: the scanner windows of
// pre_tokenizers/block_scanner.h and scanner.h. TOKENFORGE_NO_AVX2=1 in the environment, or
// set_avx2_enabled(false) (tokenforge._core._avx2_windows, for tests), forces the portable path.
#pragma once
#include <atomic>
#include <cstdlib>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TF_HAVE_AVX2_PATH 1
// AVX2 with BMI1/BMI2 (every CPU with AVX2 but a few early low-power ones has them; all three
// are checked at run time).
#define TF_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2")))
#else
#define TF_HAVE_AVX2_PATH 0
#define TF_TARGET_AVX2
#endif

namespace tokenforge {

// Whether this CPU can run the AVX2 paths.
inline bool cpu_has_avx2() {
#if TF_HAVE_AVX2_PATH
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  }();
  return has;
#else
  return false;
#endif
}

namespace detail {
inline std::atomic<bool>& avx2_switch() {
  static std::atomic<bool> on{[] {
    const char* no = std::getenv("TOKENFORGE_NO_AVX2");
    return cpu_has_avx2() && !(no && *no && *no != '0');
  }()};
  return on;
}
}  // namespace detail

// Whether the AVX2 paths are in use (read once per scan, so a switch takes effect at the next).
inline bool avx2_enabled() { return detail::avx2_switch().load(std::memory_order_relaxed); }

// Turns the AVX2 paths on (where the CPU has them) or off; returns whether they are now on.
inline bool set_avx2_enabled(bool on) {
  const bool now = on && cpu_has_avx2();
  detail::avx2_switch().store(now, std::memory_order_relaxed);
  return now;
}

}  // namespace tokenforge
