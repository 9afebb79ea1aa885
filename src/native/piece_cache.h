// Small caches of recently encoded pieces and their ids, checked before the vocabulary.
// The vocabulary tables are megabytes and each lookup tends to miss the CPU caches; these are
// small enough to stay in L2, so a frequent word costs one near probe. Short pieces are keyed
// exactly (bytes_key is injective for up to 8 bytes given the length); longer ones are compared
// byte for byte. Either way the cache never changes results, only speed.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hash_tables.h"

namespace tokenforge {

// Reusable buffers for merging long pieces, so a merge allocates nothing once warm.
struct MergeScratch {
  struct Part {
    uint32_t id, prev, next, rank;  // rank: of the pair (this, next); kNoToken if none
  };
  std::vector<Part> parts;
  std::vector<uint32_t> ids;
  std::vector<uint64_t> heap;
};

class PieceCache {
 public:
  static constexpr size_t kShortBytes = 8, kLongBytes = 22, kMaxBytes = 256;

  static bool fits(size_t n) { return n <= kMaxBytes; }

  // Starts loading the entry that get(p, n, key) will read, so that the miss overlaps with
  // encoding the piece before it.
  void prefetch(size_t n, uint64_t key) const {
    if (n <= kShortBytes)
      __builtin_prefetch(&short_[slot<kShortSlotsLog>(key, n) * kWays]);
    else if (n <= kLongBytes)
      __builtin_prefetch(&long_[slot<kLongSlotsLog>(key, n) * kWays]);
  }
  MergeScratch& scratch() { return scratch_; }

  // The merge of two adjacent tokens, through a small cache in front of the pair table: long
  // pieces (CJK runs, say) look up the same few pairs again and again.
  // Entries pack a (20 bits) | b (20 bits) | merged (24 bits) into 8 bytes; ids must be < 2^20.
  static constexpr uint32_t kPairIdLimit = 1u << 20;
  template <class Table>
  uint32_t merged(uint32_t a, uint32_t b, const Table& table) {
    const uint64_t key = uint64_t(a) | (uint64_t(b) << 20);
    uint64_t& e = pairs_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kPairSlotsLog)];
    if ((e & kKeyMask) != key || e == kEmptyPair) {
      const uint32_t m = table.find(a, b);
      e = key | (uint64_t(m == kNoToken ? kNoMerge : m) << 40);
    }
    const uint32_t m = uint32_t(e >> 40);
    return m == kNoMerge ? kNoToken : m;
  }

  // Appends the cached ids of piece p[0..n) (with key = bytes_key(p, n)) to out; false on a miss.
  bool get(const uint8_t* p, size_t n, uint64_t key, std::vector<uint32_t>& out) const {
    if (n <= kShortBytes) {
      const Short* set = &short_[slot<kShortSlotsLog>(key, n) * kWays];
      for (size_t w = 0; w < kWays; ++w) {
        const Short& e = set[w];
        if (e.key == key && e.len == n) {
          for (size_t i = 0; i < e.count; ++i) out.push_back(e.ids[i]);
          return true;
        }
      }
      return false;
    }
    if (n <= kLongBytes) {
      const Long* set = &long_[slot<kLongSlotsLog>(key, n) * kWays];
      for (size_t w = 0; w < kWays; ++w) {
        const Long& e = set[w];
        if (e.key == key && e.len == n && std::memcmp(e.bytes, p, n) == 0) {
          for (size_t i = 0; i < e.count; ++i) out.push_back(e.ids[i]);
          return true;
        }
      }
      return false;
    }
    const Big& e = big_[slot<kBigSlotsLog>(key, n)];
    if (e.key != key || e.bytes.size() != n || std::memcmp(e.bytes.data(), p, n) != 0) return false;
    out.insert(out.end(), e.ids.begin(), e.ids.end());
    return true;
  }

  void put(const uint8_t* p, size_t n, uint64_t key, const uint32_t* ids, size_t count) {
    if (n <= kShortBytes) {
      if (count > kShortIds) return;
      Short* set = &short_[slot<kShortSlotsLog>(key, n) * kWays];
      set[1] = set[0];  // the newest entry takes way 0; the older one is kept in way 1
      Short& e = set[0];
      e.key = key;
      e.len = uint8_t(n);
      e.count = uint8_t(count);
      std::memcpy(e.ids, ids, count * sizeof(uint32_t));
    } else if (n > kLongBytes) {
      Big& e = big_[slot<kBigSlotsLog>(key, n)];
      e.key = key;
      e.bytes.assign(reinterpret_cast<const char*>(p), n);
      e.ids.assign(ids, ids + count);
    } else if (count <= kLongIds) {
      Long* set = &long_[slot<kLongSlotsLog>(key, n) * kWays];
      set[1] = set[0];
      Long& e = set[0];
      e.key = key;
      e.len = uint8_t(n);
      e.count = uint8_t(count);
      std::memcpy(e.bytes, p, n);
      std::memcpy(e.ids, ids, count * sizeof(uint32_t));
    }
  }

 private:
  static constexpr size_t kShortIds = 5, kLongIds = 6;
  // Short and long caches are 2-way sets (a set shares one or two cache lines).
  static constexpr size_t kWays = 2;
  static constexpr int kShortSlotsLog = 12, kLongSlotsLog = 13, kBigSlotsLog = 11, kPairSlotsLog = 15;
  static constexpr uint64_t kKeyMask = (uint64_t(1) << 40) - 1, kEmptyPair = ~uint64_t(0);
  static constexpr uint32_t kNoMerge = 0xFFFFFF;
  struct alignas(32) Short {  // 32 bytes
    uint64_t key = 0;
    uint8_t len = 0, count = 0;
    uint32_t ids[kShortIds];
  };
  struct alignas(64) Long {  // 64 bytes
    uint64_t key = 0;
    uint32_t ids[kLongIds];
    uint8_t len = 0, count = 0;
    uint8_t bytes[kLongBytes];
  };
  struct Big {  // rare long pieces (rules of dashes, CJK runs): heap-allocated, reused
    uint64_t key = 0;
    std::string bytes;
    std::vector<uint32_t> ids;
  };
  template <int Log>
  static size_t slot(uint64_t key, size_t n) {
    return ((key ^ n) * 0x9E3779B97F4A7C15ull) >> (64 - Log);
  }
  std::vector<Short> short_ = std::vector<Short>(kWays << kShortSlotsLog);
  std::vector<Long> long_ = std::vector<Long>(kWays << kLongSlotsLog);
  std::vector<Big> big_ = std::vector<Big>(size_t(1) << kBigSlotsLog);
  MergeScratch scratch_;
  std::vector<uint64_t> pairs_ = std::vector<uint64_t>(size_t(1) << kPairSlotsLog, kEmptyPair);
};

// Caches are kept by the encoder between calls (so they warm up) and lent to one thread at a time.
class PieceCachePool {
 public:
  class Lease {
   public:
    explicit Lease(PieceCachePool& pool) : pool_(pool), cache_(pool.take()) {}
    ~Lease() { pool_.give(std::move(cache_)); }
    PieceCache* get() const { return cache_.get(); }

   private:
    PieceCachePool& pool_;
    std::unique_ptr<PieceCache> cache_;
  };

 private:
  std::unique_ptr<PieceCache> take() {
    std::lock_guard<std::mutex> g(lock_);
    if (idle_.empty()) return std::make_unique<PieceCache>();
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }
  void give(std::unique_ptr<PieceCache> c) {
    std::lock_guard<std::mutex> g(lock_);
    idle_.push_back(std::move(c));
  }
  std::mutex lock_;
  std::vector<std::unique_ptr<PieceCache>> idle_;
};

}  // namespace tokenforge
