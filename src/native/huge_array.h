// A fixed-size array for the big lookup tables, backed by huge pages where the OS allows:
// random probes into megabytes of table otherwise miss the TLB on nearly every lookup.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tokenforge {

template <class T>
class HugeArray {
 public:
  HugeArray() = default;
  HugeArray(size_t n, const T& fill) { assign(n, fill); }

  void assign(size_t n, const T& fill) {
    constexpr size_t kHuge = size_t(2) << 20;
    const size_t bytes = n * sizeof(T);
    const size_t align = bytes >= kHuge ? kHuge : std::max(alignof(T), alignof(std::max_align_t));
    const size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded ? rounded : align);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    data_.reset(static_cast<T*>(p));
    size_ = n;
    for (size_t i = 0; i < n; ++i) new (&data_[i]) T(fill);
  }

  // Becomes a copy of other (T must be trivially copyable).
  void assign_copy(const HugeArray& other) {
    if (size_ != other.size_) assign(other.size_, T{});
    if (size_) std::memcpy(static_cast<void*>(data_.get()), other.data_.get(), size_ * sizeof(T));
  }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> data_;
  size_t size_ = 0;
};

}  // namespace tokenforge
