// Work spread over threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace tokenforge {

// The machine's cores (0 where unknown), read once: std::thread::hardware_concurrency reads a
// file under /sys on Linux each time, several microseconds, more than a short text's encode.
inline unsigned machine_cores() {
  static const unsigned cores = std::thread::hardware_concurrency();
  return cores;
}

// The threads worth starting for `units` of work (bytes of text, ids to convert) at
// `per_thread` units each: starting a thread costs tens of microseconds, more than a small
// batch takes on the threads there are. At least one, at most `threads`.
inline size_t threads_for(size_t threads, size_t units, size_t per_thread) {
  return std::max<size_t>(1, std::min(threads, units / per_thread + 1));
}
constexpr size_t kTextPerThread = 32 * 1024;  // bytes of text to encode (tokenforge.threads.batch_threads' 32 K)

// Does nothing: parallel_for's default poll.
struct NoPoll {
  void operator()() const {}
};

// Runs fn(i) for i in [0, n) on up to `threads` threads (no more than the machine has cores:
// the work is CPU-bound, and each thread beyond them only costs a stack and per-thread tables;
// fewer where the system refuses to start more); rethrows the first exception. Threads take
// runs of indices, a share of what is left each time (large first, single ones at the end), so
// that many small items do not make every index a contended atomic update. The calling thread
// calls poll() before each of its items (poll keeps its own clock: it must be cheap); an
// exception from poll (Ctrl-C, see python/convert.h's SignalPoll) stops every thread after its
// current item.
template <class Fn, class Poll = NoPoll>
void parallel_for(size_t n, size_t threads, Fn fn, Poll poll = Poll()) {
  if (const unsigned cores = machine_cores()) threads = std::min<size_t>(threads, cores);
  threads = std::max<size_t>(1, std::min(threads, n));
  if (threads == 1) {
    for (size_t i = 0; i < n; ++i) {
      poll();
      fn(i);
    }
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};  // an item or poll threw: every thread stops
  std::exception_ptr error;
  std::mutex error_lock;
  auto worker = [&](bool caller) {
    try {
      for (;;) {
        size_t from = next.load(std::memory_order_relaxed), count;
        do {
          if (from >= n) return;
          count = std::max<size_t>(1, (n - from) / (4 * threads));
        } while (!next.compare_exchange_weak(from, from + count, std::memory_order_relaxed));
        for (size_t i = from; i < from + count; ++i) {
          if (caller) poll();
          if (failed.load(std::memory_order_relaxed)) return;
          fn(i);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> g(error_lock);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  // A thread the system refuses to start (std::system_error, or std::bad_alloc for its state)
  // is no error: its share goes to the threads that did start, this one included. The pool must
  // never be destroyed with a joinable thread in it (std::terminate), so nothing between start
  // and join may throw.
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker, false);
    } catch (const std::system_error&) {
      break;
    } catch (const std::bad_alloc&) {
      break;
    }
  }
  worker(true);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tokenforge
