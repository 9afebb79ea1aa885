// Per-thread working state lent out by the object that owns it: a call borrows one (made on
// first need), uses it without locks, and gives it back, so state stays warm between calls
// without thread_local state outliving or mixing owners.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace tokenforge {

template <class T>
class Pool {
 public:
  class Lease {
   public:
    explicit Lease(Pool& pool) : pool_(pool), item_(pool.take()) {}
    ~Lease() { pool_.give(std::move(item_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    T& get() const { return *item_; }

   private:
    Pool& pool_;
    std::unique_ptr<T> item_;
  };

 public:
  ~Pool() { delete spare_.exchange(nullptr); }

 private:
  // One spare item behind an atomic swap, so a single thread's calls take no lock.
  std::unique_ptr<T> take() {
    if (T* spare = spare_.exchange(nullptr, std::memory_order_acquire)) return std::unique_ptr<T>(spare);
    {
      std::lock_guard<std::mutex> g(lock_);
      if (!idle_.empty()) {
        auto item = std::move(idle_.back());
        idle_.pop_back();
        return item;
      }
    }
    return std::make_unique<T>();  // outside the lock
  }
  void give(std::unique_ptr<T> item) {
    T* expected = nullptr;
    if (spare_.compare_exchange_strong(expected, item.get(), std::memory_order_release)) {
      item.release();
      return;
    }
    std::lock_guard<std::mutex> g(lock_);
    idle_.push_back(std::move(item));
  }
  std::atomic<T*> spare_{nullptr};
  std::mutex lock_;
  std::vector<std::unique_ptr<T>> idle_;
};

}  // namespace tokenforge
