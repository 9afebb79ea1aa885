// Per-thread working state lent out by the object that owns it: a call borrows one (made on
// first need), uses it without locks, and gives it back, so state stays warm between calls
// without thread_local state outliving or mixing owners.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace tokenforge {

// Frees a working buffer that grew past `limit` bytes for one huge input, so that it does not
// stay allocated (per thread) after the call; smaller ones are kept warm for the next call.
template <class V>
void release_if_large(V& v, size_t limit = size_t(1) << 24) {
  if (v.capacity() * sizeof(typename V::value_type) > limit) V().swap(v);
}

// Whether T has a trim() that a Lease calls when it gives T back (see release_if_large).
template <class T, class = void>
struct HasTrim : std::false_type {};
template <class T>
struct HasTrim<T, std::void_t<decltype(std::declval<T&>().trim())>> : std::true_type {};

// A small number for each running thread, given to a new thread once its owner has ended, so
// that the threads of successive batch calls reuse the numbers (and a pool's items) of earlier ones.
inline size_t thread_number() {
  struct Numbers {
    std::mutex lock;
    std::vector<size_t> free;
    size_t next = 0;
  };
  static Numbers* numbers = new Numbers();  // never destroyed: threads may end after static destructors
  struct Mine {
    size_t number;
    Mine() {
      std::lock_guard<std::mutex> g(numbers->lock);
      if (numbers->free.empty()) {
        number = numbers->next++;
      } else {
        number = numbers->free.back();
        numbers->free.pop_back();
      }
    }
    ~Mine() {
      std::lock_guard<std::mutex> g(numbers->lock);
      numbers->free.push_back(number);
    }
  };
  thread_local Mine mine;
  return mine.number;
}

template <class T>
class Pool {
 public:
  class Lease {
   public:
    explicit Lease(Pool& pool) : pool_(pool), slot_(thread_number()), item_(pool.take(slot_)) {}
    ~Lease() {
      if constexpr (HasTrim<T>::value) item_->trim();
      pool_.give(slot_, std::move(item_));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    T& get() const { return *item_; }

   private:
    Pool& pool_;
    size_t slot_;
    std::unique_ptr<T> item_;
  };

 public:
  ~Pool() {
    for (Slot& slot : slots_) delete slot.value.exchange(nullptr);
  }

 private:
  // Each thread number has a slot behind an atomic swap: a thread takes back the item it gave
  // (still in its core's caches, with no lock and no line shared with other threads). Past the
  // slots, or where a thread borrows twice at once, items wait behind a lock.
  static constexpr size_t kSlots = 64;

  std::unique_ptr<T> take(size_t slot) {
    if (slot < kSlots)
      if (T* mine = slots_[slot].value.exchange(nullptr, std::memory_order_acquire)) return std::unique_ptr<T>(mine);
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
  void give(size_t slot, std::unique_ptr<T> item) {
    T* expected = nullptr;
    if (slot < kSlots && slots_[slot].value.compare_exchange_strong(expected, item.get(), std::memory_order_release)) {
      item.release();
      return;
    }
    std::lock_guard<std::mutex> g(lock_);
    idle_.push_back(std::move(item));
  }
  struct alignas(64) Slot {  // one cache line each: threads never share one
    std::atomic<T*> value{nullptr};
  };
  Slot slots_[kSlots];
  std::mutex lock_;
  std::vector<std::unique_ptr<T>> idle_;
};

}  // namespace tokenforge
