// Work spread over threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tokenforge {

// Runs fn(i) for i in [0, n) on up to `threads` threads; rethrows the first exception. Threads
// take runs of indices, a share of what is left each time (large first, single ones at the end),
// so that many small items do not make every index a contended atomic update.
template <class Fn>
void parallel_for(size_t n, size_t threads, Fn fn) {
  threads = std::max<size_t>(1, std::min(threads, n));
  if (threads == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_lock;
  auto worker = [&] {
    try {
      for (;;) {
        size_t from = next.load(std::memory_order_relaxed), count;
        do {
          if (from >= n) return;
          count = std::max<size_t>(1, (n - from) / (4 * threads));
        } while (!next.compare_exchange_weak(from, from + count, std::memory_order_relaxed));
        for (size_t i = from; i < from + count; ++i) fn(i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> g(error_lock);
      if (!error) error = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tokenforge
