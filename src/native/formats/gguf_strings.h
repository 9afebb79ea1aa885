// GGUF's string arrays (a vocabulary, its merges), the one part of a GGUF file's metadata too
// large to read string by string in Python: `count` strings, each a 64-bit length in the
// file's byte order and then that many bytes. formats/gguf.py (tokenforge/formats/gguf.py)
// reads the rest of the metadata and calls this through python/bind_gguf.cpp; every length is
// checked against the bytes that are left, so a damaged file is an error, never a read past
// its end or an allocation its lengths ask for.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tokenforge {

// Where each string lies ([start, start + length) in the file) and where the array ends.
struct GgufStringSpans {
  std::vector<std::pair<size_t, size_t>> spans;  // (start, length), empty unless kept
  size_t end = 0;
};

// The `count` strings starting at byte `pos` of data[0, size); big_endian: the file's byte
// order. Throws std::out_of_range saying which string and byte where one runs past the end.
inline GgufStringSpans gguf_string_spans(const uint8_t* data, size_t size, size_t pos, uint64_t count, bool big_endian,
                                         bool keep) {
  GgufStringSpans out;
  if (pos > size) throw std::out_of_range("the array starts past the end of the file (truncated?)");
  // Every string takes 8 bytes at least: a count beyond that cannot be, whatever the lengths.
  if (count > (size - pos) / 8)
    throw std::out_of_range("an array of " + std::to_string(count) + " strings cannot fit in the " +
                            std::to_string(size - pos) + " bytes left (truncated?)");
  if (keep) out.spans.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    if (size - pos < 8)
      throw std::out_of_range("string " + std::to_string(i) + " needs 8 bytes at byte " + std::to_string(pos) +
                              ", past the end of the file (truncated?)");
    uint64_t n = 0;
    for (int b = 0; b < 8; ++b) {
      const uint64_t byte = data[pos + (big_endian ? b : 7 - b)];
      n = (n << 8) | byte;
    }
    pos += 8;
    if (n > size - pos)
      throw std::out_of_range("string " + std::to_string(i) + " needs " + std::to_string(n) + " bytes at byte " +
                              std::to_string(pos) + ", past the end of the file (truncated?)");
    if (keep) out.spans.emplace_back(pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
  }
  out.end = pos;
  return out;
}

}  // namespace tokenforge
