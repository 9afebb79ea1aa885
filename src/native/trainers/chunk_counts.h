// The chunk table of a training corpus ({chunk bytes: count}): counted on threads, and spilled
// to disk and read back when it would outgrow a memory budget.
//
// Spill files are a run of records: u32 length, the chunk's bytes, i64 count (native byte
// order; they live only for one training run). Spilling splits the table by hash into
// partition files, so each partition can later be added up on its own.
#pragma once
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "pre_tokenizers/scanner.h"

namespace tokenforge {

using ChunkCounts = std::unordered_map<std::string, int64_t>;

// Counts the pieces the built-in scanner `pattern` cuts each text into, texts spread over up to
// `threads` threads (each counts its share into a table of its own; the tables are then added).
template <class Texts>
void count_chunks(const Texts& texts, Pattern pattern, size_t threads, ChunkCounts& into) {
  threads = std::max<size_t>(1, std::min(threads, texts.size()));
  std::vector<ChunkCounts> parts(threads);
  parallel_for(threads, threads, [&](size_t part) {
    ChunkCounts& counts = parts[part];
    for (size_t i = part; i < texts.size(); i += threads) {
      const auto& [s, n] = texts[i];
      Scanner scan(s, n);
      for (size_t p = 0; p < n;) {
        const size_t e = scan.next(pattern, p);
        ++counts[std::string(reinterpret_cast<const char*>(s) + p, e - p)];
        p = e;
      }
    }
  });
  for (ChunkCounts& part : parts) {
    if (into.empty())
      into.swap(part);
    else
      for (const auto& [chunk, n] : part) into[chunk] += n;
  }
}

// Heap bytes one entry takes in libstdc++: the node (next pointer, key string, count, cached
// hash) and, past the string's 15-byte inline buffer, the key's own allocation.
inline size_t entry_memory(size_t key_size) { return 64 + (key_size > 15 ? (key_size + 1 + 8 + 15) / 16 * 16 : 0); }

// Estimated heap bytes of the whole table, bucket array included.
inline size_t table_memory(const ChunkCounts& counts) {
  size_t bytes = counts.bucket_count() * sizeof(void*);
  for (const auto& entry : counts) bytes += entry_memory(entry.first.size());
  return bytes;
}

// For each count c: how many chunks are seen exactly c times, and the table memory they take.
inline std::map<int64_t, std::pair<size_t, size_t>> memory_by_count(const ChunkCounts& counts) {
  std::map<int64_t, std::pair<size_t, size_t>> out;
  for (const auto& [chunk, n] : counts) {
    auto& [chunks, bytes] = out[n];
    ++chunks;
    bytes += entry_memory(chunk.size());
  }
  return out;
}

namespace detail {
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

inline File open_file(const std::string& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode));
  if (!f) throw std::runtime_error("cannot open spill file " + path + ": " + std::strerror(errno));
  return f;
}
inline void write_all(std::FILE* f, const void* data, size_t n, const std::string& path) {
  if (std::fwrite(data, 1, n, f) != n)
    throw std::runtime_error("cannot write spill file " + path + ": " + std::strerror(errno));
}
}  // namespace detail

// Appends every entry to partition file paths[hash % paths.size()], then empties the table.
inline void spill_chunks(ChunkCounts& counts, const std::vector<std::string>& paths) {
  std::vector<detail::File> files;
  for (const std::string& path : paths) files.push_back(detail::open_file(path, "ab"));
  const std::hash<std::string> hash;
  for (const auto& [chunk, n] : counts) {
    const size_t part = hash(chunk) % paths.size();
    const uint32_t size = uint32_t(chunk.size());
    detail::write_all(files[part].get(), &size, sizeof size, paths[part]);
    detail::write_all(files[part].get(), chunk.data(), chunk.size(), paths[part]);
    detail::write_all(files[part].get(), &n, sizeof n, paths[part]);
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (std::fclose(files[i].release()) != 0)
      throw std::runtime_error("cannot write spill file " + paths[i] + ": " + std::strerror(errno));
  ChunkCounts().swap(counts);  // frees the buckets too
}

// Adds the records of spill file `path` whose count is at least min_count to the table.
inline void read_spilled(ChunkCounts& counts, const std::string& path, int64_t min_count) {
  detail::File f = detail::open_file(path, "rb");
  std::string chunk;
  for (uint64_t record = 0;; ++record) {
    uint32_t size;
    const size_t got = std::fread(&size, 1, sizeof size, f.get());
    if (got == 0 && std::feof(f.get())) return;
    int64_t n = 0;
    chunk.resize(got == sizeof size ? size : 0);
    if (got != sizeof size || std::fread(chunk.data(), 1, size, f.get()) != size ||
        std::fread(&n, 1, sizeof n, f.get()) != sizeof n || n <= 0)
      throw std::invalid_argument("spill file " + path + " is cut short or corrupt at record " +
                                  std::to_string(record));
    if (n >= min_count) counts[chunk] += n;
  }
}

}  // namespace tokenforge
