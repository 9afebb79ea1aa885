// A fixed-size array for the big lookup tables, backed by huge pages where the OS allows:
// random probes into megabytes of table otherwise miss the TLB on nearly every lookup.
//
// Asking for huge pages before the memory is first touched gets them at once, but the kernel
// may stop to compact memory on each fault (tens of milliseconds for 16 MiB on a VM). That
// suits tables built once per model. Tables made per thread ask after touching their memory,
// so the kernel can merge the pages into huge ones later, in the background.
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

enum class HugePages { kNow, kLater };

template <class T>
class HugeArray {
 public:
  explicit HugeArray(HugePages when = HugePages::kNow) : when_(when) {}
  HugeArray(size_t n, const T& fill, HugePages when = HugePages::kNow) : when_(when) { assign(n, fill); }

  void assign(size_t n, const T& fill) {
    build(n, [&](T* data) {
      for (size_t i = 0; i < n; ++i) new (&data[i]) T(fill);
    });
  }

  // n elements that construct(data) constructs, every one of them, in whatever order suits
  // it (a table that grows fills its new slots just ahead of the entries it moves there, so
  // that a fill of megabytes does not push them out of the cache first).
  template <class Construct>
  void build(size_t n, Construct construct) {
    constexpr size_t kHuge = size_t(2) << 20;
    const size_t bytes = n * sizeof(T);
    const size_t align = bytes >= kHuge ? kHuge : std::max(alignof(T), alignof(std::max_align_t));
    const size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded ? rounded : align);
    if (!p) throw std::bad_alloc();
    if (when_ == HugePages::kNow) advise_huge(p, align == kHuge ? rounded : 0);
    data_.reset(static_cast<T*>(p));
    size_ = n;
    construct(data_.get());
    if (when_ == HugePages::kLater) advise_huge(p, align == kHuge ? rounded : 0);
  }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  HugePages huge_pages() const { return when_; }

 private:
  static void advise_huge(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes) madvise(p, bytes, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
  }
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  HugePages when_;
  std::unique_ptr<T[], Free> data_;
  size_t size_ = 0;
};

}  // namespace tokenforge
