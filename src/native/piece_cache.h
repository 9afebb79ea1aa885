// Per-thread memory of pieces and their ids, checked before any merge.
//
// Short pieces (2..15 bytes, nearly all of them in real text) live in one open-addressing
// table keyed by their exact bytes. It starts as a copy of a seed holding every short token of
// the vocabulary, so "the piece is a token" and "the piece was seen before" are the same single
// probe, and a miss means the piece must be merged. Probes are computed ahead for a batch of
// pieces and prefetched, so the table may be far larger than the CPU caches. Longer pieces go
// to a small direct-mapped cache compared byte for byte. Either way results never change.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bytes.h"
#include "hash_tables.h"

namespace tokenforge {

constexpr size_t kShortPiece = 15;  // longest piece the short table holds

// The exact key of a piece of 1..15 bytes: the bytes, zero-padded, and the length in the top byte.
struct ShortKey {
  uint64_t lo, hi;
  uint64_t hash() const { return (lo ^ (hi * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull; }
};

// Key of p[0..n) for 1 <= n <= 15, reading only inside [begin, end) (which holds the piece).
inline ShortKey short_key(const uint8_t* p, size_t n, const uint8_t* begin, const uint8_t* end) {
  const uint64_t len = uint64_t(n) << 56;
  if (n > 8) return {load8(p), (load8(p + n - 8) >> (8 * (16 - n))) | len};
  if (end - p >= 8) return {n == 8 ? load8(p) : load8(p) & ((uint64_t(1) << (8 * n)) - 1), len};
  if (p + n - begin >= 8) return {load8(p + n - 8) >> (8 * (8 - n)), len};
  uint64_t lo = 0;
  std::memcpy(&lo, p, n);
  return {lo, len};
}

class ShortPieceTable {
 public:
  struct alignas(32) Entry {
    uint64_t lo = 0, hi = 0;  // hi == 0: empty (a stored piece has a length)
    uint32_t ids[3] = {0, 0, 0};
    uint32_t info = 0;  // id count (low 4 bits), kInexact, and above 3 ids the spill offset
    bool exact() const { return !(info & kInexact); }
  };
  // Marks a token whose bytes, merged, do not give the token itself (it is still the result for
  // a whole piece, as in tiktoken, but not for part of one).
  static constexpr uint32_t kInexact = 16;
  static constexpr int kSpillShift = 5;

  // The vocabulary's short tokens, laid out once per model and copied into each thread's table.
  class Seed {
   public:
    // inexact(id): the token's bytes do not merge back to it.
    template <class Tokens, class Inexact>
    void build(const Tokens& tokens, Inexact inexact) {
      size_t count = 0;
      for (const auto& t : tokens) count += t.second >= 2 && t.second <= kShortPiece;
      log_ = 12;
      while ((size_t(1) << log_) < count * 5 / 2) ++log_;  // load <= 0.4 before pieces are added
      slots_.assign(size_t(1) << log_, Entry{});
      for (uint32_t id = 0; id < tokens.size(); ++id) {
        const auto& t = tokens[id];
        if (t.second < 2 || t.second > kShortPiece) continue;
        Entry e;
        const ShortKey k = short_key(t.first, t.second, t.first, t.first + t.second);
        e.lo = k.lo;
        e.hi = k.hi;
        e.ids[0] = id;
        e.info = 1 | (inexact(id) ? kInexact : 0);
        place(slots_, log_, k.hash(), e);
      }
      count_ = count;
    }

   private:
    friend class ShortPieceTable;
    HugeArray<Entry> slots_;
    int log_ = 0;
    size_t count_ = 0;
  };

  explicit ShortPieceTable(const Seed& seed) : seed_(seed) { reset(); }

  void prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash >> shift_]); }

  // The entry for key, or nullptr if the piece is neither a token nor seen before.
  const Entry* find(const ShortKey& k, uint64_t hash) const {
    for (size_t i = hash >> shift_;; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.hi == k.hi && e.lo == k.lo) return &e;
      if (e.hi == 0) return nullptr;
    }
  }

  // Writes the entry's ids at w (which has room for 3 more than the count) and returns the end.
  uint32_t* emit(const Entry& e, uint32_t* w) const {
    const uint32_t count = e.info & 15;
    if (count <= 3) {
      w[0] = e.ids[0];
      w[1] = e.ids[1];
      w[2] = e.ids[2];
    } else {
      std::memcpy(w, spill_.data() + (e.info >> kSpillShift), count * sizeof(uint32_t));
    }
    return w + count;
  }

  void insert(const ShortKey& k, uint64_t hash, const uint32_t* ids, size_t count) {
    if ((size_ + 1) * 2 > slots_.size()) {
      if (log_ <= seed_.log_) grow();
      else reset();  // full after one doubling: forget the pieces, keep the tokens
    }
    Entry e;
    e.lo = k.lo;
    e.hi = k.hi;
    if (count <= 3) {
      std::memcpy(e.ids, ids, count * sizeof(uint32_t));
      e.info = uint32_t(count);
    } else {
      e.info = uint32_t(count) | uint32_t(spill_.size() << kSpillShift);
      spill_.insert(spill_.end(), ids, ids + count);
    }
    place(slots_, log_, hash, e);
    ++size_;
  }

 private:
  static void place(HugeArray<Entry>& slots, int log, uint64_t hash, const Entry& e) {
    const size_t mask = slots.size() - 1;
    size_t i = hash >> (64 - log);
    while (slots[i].hi != 0) i = (i + 1) & mask;
    slots[i] = e;
  }
  void resize_to(int log) {
    log_ = log;
    shift_ = 64 - log;
    mask_ = (size_t(1) << log) - 1;
  }
  void reset() {
    slots_.assign_copy(seed_.slots_);
    resize_to(seed_.log_);
    size_ = seed_.count_;
    spill_.clear();
  }
  void grow() {
    HugeArray<Entry> bigger(slots_.size() * 2, Entry{});
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].hi != 0) place(bigger, log_ + 1, ShortKey{slots_[i].lo, slots_[i].hi}.hash(), slots_[i]);
    slots_ = std::move(bigger);
    resize_to(log_ + 1);
  }

  const Seed& seed_;
  HugeArray<Entry> slots_;
  int log_ = 0, shift_ = 64;
  size_t mask_ = 0, size_ = 0;
  std::vector<uint32_t> spill_;
};

// Reusable buffers for merging, so a merge allocates nothing once warm.
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
  static constexpr size_t kMaxBytes = 256;  // longest piece remembered

  explicit PieceCache(const ShortPieceTable::Seed& seed) : shorts(seed) {}

  ShortPieceTable shorts;
  MergeScratch scratch;
  std::vector<uint32_t> ids;  // a missed piece's ids, before they are stored

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

  // Pieces of 16..256 bytes (with key = bytes_key(p, n)): appends the cached ids to out, or
  // returns false.
  bool get_long(const uint8_t* p, size_t n, uint64_t key, std::vector<uint32_t>& out) const {
    const Long& e = long_[slot(key, n)];
    if (e.key != key || e.bytes.size() != n || std::memcmp(e.bytes.data(), p, n) != 0) return false;
    out.insert(out.end(), e.ids.begin(), e.ids.end());
    return true;
  }
  void put_long(const uint8_t* p, size_t n, uint64_t key, const uint32_t* ids, size_t count) {
    Long& e = long_[slot(key, n)];
    e.key = key;
    e.bytes.assign(reinterpret_cast<const char*>(p), n);
    e.ids.assign(ids, ids + count);
  }

 private:
  static constexpr int kLongSlotsLog = 12, kPairSlotsLog = 15;
  static constexpr uint64_t kKeyMask = (uint64_t(1) << 40) - 1, kEmptyPair = ~uint64_t(0);
  static constexpr uint32_t kNoMerge = 0xFFFFFF;
  struct Long {  // heap-allocated, reused
    uint64_t key = 0;
    std::string bytes;
    std::vector<uint32_t> ids;
  };
  static size_t slot(uint64_t key, size_t n) {
    return ((key ^ n) * 0x9E3779B97F4A7C15ull) >> (64 - kLongSlotsLog);
  }
  std::vector<Long> long_ = std::vector<Long>(size_t(1) << kLongSlotsLog);
  std::vector<uint64_t> pairs_ = std::vector<uint64_t>(size_t(1) << kPairSlotsLog, kEmptyPair);
};

// Caches are kept by the encoder between calls (so they warm up) and lent to one thread at a time.
class PieceCachePool {
 public:
  explicit PieceCachePool(const ShortPieceTable::Seed& seed) : seed_(seed) {}

  class Lease {
   public:
    explicit Lease(PieceCachePool& pool) : pool_(pool), cache_(pool.take()) {}
    ~Lease() { pool_.give(std::move(cache_)); }
    PieceCache& get() const { return *cache_; }

   private:
    PieceCachePool& pool_;
    std::unique_ptr<PieceCache> cache_;
  };

 private:
  std::unique_ptr<PieceCache> take() {
    {
      std::lock_guard<std::mutex> g(lock_);
      if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        return c;
      }
    }
    return std::make_unique<PieceCache>(seed_);  // copies the seed: outside the lock
  }
  void give(std::unique_ptr<PieceCache> c) {
    std::lock_guard<std::mutex> g(lock_);
    idle_.push_back(std::move(c));
  }
  const ShortPieceTable::Seed& seed_;
  std::mutex lock_;
  std::vector<std::unique_ptr<PieceCache>> idle_;
};

}  // namespace tokenforge
