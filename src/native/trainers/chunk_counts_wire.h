// The chunk table of trainers/chunk_counts.h as one byte string, so a worker of a cluster can
// send back what it counted and the client add it up (tokenforge/cluster.py and
// tokenforge/trainers/chunk_table.py drive it; python/bind_cluster.cpp binds it).
//
// Layout, little-endian whatever the machine: "TFCC", u32 version (1), u64 entries, then per
// entry u32 length, the chunk's bytes, i64 count (> 0). Entries come in the table's own order:
// the sum of several tables does not depend on it.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "trainers/chunk_counts.h"

namespace tokenforge {

namespace wire {
inline constexpr char kMagic[4] = {'T', 'F', 'C', 'C'};
inline constexpr uint32_t kVersion = 1;

template <class Int>
void put(std::string& out, Int v) {
  for (size_t i = 0; i < sizeof(Int); ++i) out.push_back(char(uint8_t(uint64_t(v) >> (8 * i))));
}

template <class Int>
Int get(const uint8_t* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(Int); ++i) v |= uint64_t(p[i]) << (8 * i);
  return Int(v);
}
}  // namespace wire

// The whole table as one byte string.
inline std::string dump_chunk_counts(const ChunkCounts& counts) {
  size_t total = 16;
  for (const auto& [chunk, n] : counts) total += 12 + chunk.size();
  std::string out;
  out.reserve(total);
  out.append(wire::kMagic, 4);
  wire::put<uint32_t>(out, wire::kVersion);
  wire::put<uint64_t>(out, counts.size());
  for (const auto& [chunk, n] : counts) {
    if (chunk.size() > UINT32_MAX) throw std::length_error("a chunk of over 4 GiB cannot be written");
    wire::put<uint32_t>(out, uint32_t(chunk.size()));
    out.append(chunk);
    wire::put<int64_t>(out, n);
  }
  return out;
}

// Adds the table held in data[0, size) (made by dump_chunk_counts) to `counts`. Data that is not
// such a table, cut short or with bytes left over, is an std::invalid_argument naming where;
// `counts` then holds the entries before that point.
inline void add_dumped_chunk_counts(ChunkCounts& counts, const uint8_t* data, size_t size) {
  auto bad = [](const std::string& why) { return std::invalid_argument("not a dumped chunk table: " + why); };
  if (size < 16 || std::memcmp(data, wire::kMagic, 4) != 0) throw bad("it does not start with TFCC");
  const uint32_t version = wire::get<uint32_t>(data + 4);
  if (version != wire::kVersion)
    throw bad("version " + std::to_string(version) + ", this build reads version " + std::to_string(wire::kVersion));
  const uint64_t entries = wire::get<uint64_t>(data + 8);
  size_t p = 16;
  for (uint64_t e = 0; e < entries; ++e) {
    if (size - p < 4) throw bad("cut short at entry " + std::to_string(e));
    const uint32_t length = wire::get<uint32_t>(data + p);
    p += 4;
    if (size - p < uint64_t(length) + 8) throw bad("cut short at entry " + std::to_string(e));
    std::string chunk(reinterpret_cast<const char*>(data + p), length);
    p += length;
    const int64_t n = wire::get<int64_t>(data + p);
    p += 8;
    if (n <= 0) throw bad("entry " + std::to_string(e) + " has count " + std::to_string(n));
    counts[std::move(chunk)] += n;
  }
  if (p != size) throw bad(std::to_string(size - p) + " bytes after the last entry");
}

}  // namespace tokenforge
