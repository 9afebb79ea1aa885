// Unaligned loads of raw bytes, for hashing keys and testing several bytes at once.
#pragma once
#include <cstdint>
#include <cstring>

namespace tokenforge {

inline uint64_t load8(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

}  // namespace tokenforge
