// A std::vector whose resize() leaves new elements of trivial types unset (default-initialized,
// not zeroed): for buffers that are grown piece by piece and then written, such as the
// normalizer's alignment (normalizers/spm_normalizer.h), where zeroing each piece first costs a
// call and a pass over memory each time.
#pragma once
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tokenforge {

template <class T, class Base = std::allocator<T>>
struct DefaultInitAllocator : Base {
  using Base::Base;
  DefaultInitAllocator() = default;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename std::allocator_traits<Base>::template rebind_alloc<U>>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;  // default-initialized: nothing written for trivial U
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<Base>::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

template <class T>
using DefaultInitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace tokenforge
