// Per-thread memory of pieces and their ids, checked before any merge.
//
// Short pieces (2..15 bytes, nearly all of them in real text) are looked up by their exact
// bytes in a table per thread that remembers every short piece the thread has seen: its ids
// come from the vocabulary's table of short tokens (one per model, shared, read only) or from a
// merge. (The tiktoken-style encoder, pipelines/encoder.h, keeps its one-byte pieces there too,
// so that a piece's length picks no path of its own.) The table starts small and holds the
// working set, not the vocabulary. Pieces of 16..31 bytes (words of two-byte scripts) have a
// per-thread table of their own. Probes are computed ahead for a batch of pieces and
// prefetched, so the tables may be far larger than the CPU caches. Longer pieces go to a small
// two-way cache compared byte for byte. Either way results never change.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "base/default_init.h"
#include "base/hash_tables.h"
#include "base/inline_hints.h"
#include "base/pool.h"

namespace tokenforge {

constexpr size_t kShortPiece = 15;   // longest piece the short table holds
constexpr size_t kMediumPiece = 31;  // longest piece the medium table holds

// The exact key of a piece of up to 8*W - 1 bytes: the bytes, zero-padded to W words, and the
// length in the top byte (so a stored key is never all zero).
template <int W>
struct PieceKey {
  uint64_t w[W];
  bool operator==(const PieceKey& o) const {
    bool same = true;
    for (int i = 0; i < W; ++i) same &= w[i] == o.w[i];
    return same;
  }
  uint64_t hash() const {
    uint64_t h = w[0] ^ (w[1] * 0xC2B2AE3D27D4EB4Full);
    if constexpr (W == 4) h ^= (w[2] ^ (w[3] * 0xC2B2AE3D27D4EB4Full)) * 0xBF58476D1CE4E5B9ull;
    return h * 0x9E3779B97F4A7C15ull;
  }
};
using ShortKey = PieceKey<2>;
using MediumKey = PieceKey<4>;

// Which bytes of a short key's words hold the piece's bytes, by length: kShortKeyMasks[n][0]
// of the first word, [1] of the second (never its top byte, the length).
// length[n]: the length's part of the second word (n in its top byte).
struct ShortKeyMasks {
  uint64_t of[16][2];
  uint64_t length[16];
  constexpr ShortKeyMasks() : of(), length() {
    for (int n = 0; n < 16; ++n) {
      of[n][0] = n >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * n)) - 1;
      of[n][1] = n <= 8 ? 0 : (uint64_t(1) << (8 * (n - 8))) - 1;
      length[n] = uint64_t(n) << 56;
    }
  }
};
inline constexpr ShortKeyMasks kShortKeyMasks{};

// Key of p[0..n) for 1 <= n <= 15, reading only inside [begin, end) (which holds the piece).
// Away from the end of the text (the common case) two loads and masks, with no branch on n,
// whose value a CPU cannot guess.
TF_INLINE ShortKey short_key(const uint8_t* p, size_t n, const uint8_t* begin, const uint8_t* end) {
  const uint64_t len = uint64_t(n) << 56;
  if (end - p >= 16) return {{load8(p) & kShortKeyMasks.of[n][0], (load8(p + 8) & kShortKeyMasks.of[n][1]) | len}};
  if (n > 8) return {{load8(p), (load8(p + n - 8) >> (8 * (16 - n))) | len}};
  if (end - p >= 8) return {{load8(p) & (~uint64_t(0) >> (64 - 8 * n)), len}};
  if (p + n - begin >= 8) return {{load8(p + n - 8) >> (8 * (8 - n)), len}};
  uint64_t lo = 0;
  std::memcpy(&lo, p, n);
  return {{lo, len}};
}

// short_key() where at least 16 bytes from p on can be read (the caller checked): two loads
// and masks.
TF_INLINE ShortKey short_key_inside(const uint8_t* p, size_t n) {
  return {{load8(p) & kShortKeyMasks.of[n][0], (load8(p + 8) & kShortKeyMasks.of[n][1]) | kShortKeyMasks.length[n]}};
}

// Key of p[0..n) for 16 <= n <= 31; reads only the piece.
inline MediumKey medium_key(const uint8_t* p, size_t n) {
  const uint64_t len = uint64_t(n) << 56;
  const size_t rest = n - 16;  // bytes after the first two words: 0..15
  if (rest > 8) return {{load8(p), load8(p + 8), load8(p + 16), (load8(p + n - 8) >> (8 * (32 - n))) | len}};
  const uint64_t third = rest == 0 ? 0 : load8(p + n - 8) >> (8 * (8 - rest));
  return {{load8(p), load8(p + 8), third, len}};
}

// Pieces and their ids in one open-addressing table keyed by the piece's exact bytes; an
// entry fills a cache line's half (W = 2) or all of it (W = 4), ids inline up to a few.
template <int W>
class PieceTable {
 public:
  using Key = PieceKey<W>;
  static constexpr uint32_t kInlineIds = W == 2 ? 3 : 7;
  struct alignas(W * 16) Entry {
    Key key = {};  // all zero: empty
    uint32_t ids[kInlineIds] = {};
    uint32_t info = 0;  // id count (low 5 bits), kInexact, and above kInlineIds ids the spill offset
    bool empty() const { return key.w[W - 1] == 0; }
    bool exact() const { return !(info & kInexact); }
  };
  static_assert(sizeof(Entry) == W * 16, "an entry fills its share of a cache line");
  static_assert(sizeof(Entry) - sizeof(Key) == (kInlineIds + 1) * sizeof(uint32_t), "the ids, then info, end an entry");
  // Marks a token whose bytes, merged, do not give the token itself (it is still the result for
  // a whole piece, as in tiktoken, but not for part of one).
  static constexpr uint32_t kInexact = 32;
  static constexpr int kSpillShift = 6;

  // An empty table of 2^min_log slots that doubles as pieces come, up to 2^max_log slots, and
  // then starts over empty: memory stays bounded.
  PieceTable(int min_log, int max_log, HugePages when) : min_log_(min_log), max_log_(max_log), slots_(when) { reset(); }

  // Holds the vocabulary's tokens of 2..15 bytes (tokens[id] = (bytes, length)), at most 40%
  // full; meant to be only read from then on. inexact(id): the token's bytes do not merge back
  // to it.
  template <class Tokens, class Inexact>
  void fill_with_tokens(const Tokens& tokens, Inexact inexact) {
    static_assert(W == 2, "tokens of 2..15 bytes have short keys");
    size_t count = 0;
    for (const auto& t : tokens) count += t.second >= 2 && t.second <= kShortPiece;
    int log = min_log_;
    while ((size_t(1) << log) < count * 5 / 2) ++log;
    min_log_ = max_log_ = log;
    reset();
    for (uint32_t id = 0; id < tokens.size(); ++id) {
      const auto& t = tokens[id];
      if (t.second < 2 || t.second > kShortPiece) continue;
      Entry e;
      e.key = short_key(t.first, t.second, t.first, t.first + t.second);
      e.ids[0] = id;
      e.info = 1 | (inexact(id) ? kInexact : 0);
      place(slots_, log_, e.key.hash(), e);
    }
    size_ = count;
  }

  void prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash >> shift_]); }

  // Changes whenever the table moves or forgets its entries (grows or starts over), so that a
  // caller holding entries from find() knows when they are no longer valid.
  uint32_t generation() const { return generation_; }
  // Pieces stored (since it last started over).
  size_t size() const { return size_; }

  // Where the slots are, for a run of lookups held in registers (a table member read through
  // `this` is read again after every store the compiler cannot tell apart from it, such as
  // ids written through a uint32_t*). Valid while generation() stays the same.
  struct View {
    const Entry* slots;
    size_t mask;
    int shift;
    TF_INLINE const Entry* find(const Key& k, uint64_t hash) const {
      for (size_t i = hash >> shift;; i = (i + 1) & mask) {
        const Entry& e = slots[i];
        if (e.key == k) return &e;
        if (e.empty()) return nullptr;
      }
    }
  };
  View view() const { return {&slots_[0], mask_, shift_}; }

  // The entry for key, or nullptr.
  const Entry* find(const Key& k, uint64_t hash) const {
    for (size_t i = hash >> shift_;; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.key == k) return &e;
      if (e.empty()) return nullptr;
    }
  }

  // Writes the entry's ids at w (which has room for kInlineIds) and returns the end.
  // (Ids that spilled, rare, take a call of their own, so that the common case is a copy.)
  TF_INLINE uint32_t* emit(const Entry& e, uint32_t* w) const {
    const uint32_t count = e.info & 31;
    if (TF_UNLIKELY(count > kInlineIds)) return emit_spilled(e, w);
    std::memcpy(w, e.ids, sizeof(e.ids));
    return w + count;
  }

  // emit(), writing the inline slots and the word after them whole (16 or 32 bytes, one or two
  // vector moves): w needs room for kInlineIds + 1; past the ids the slots hold garbage.
  TF_INLINE uint32_t* emit_whole(const Entry& e, uint32_t* w) const {
    const uint32_t count = e.info & 31;
    if (TF_UNLIKELY(count > kInlineIds)) return emit_spilled(e, w);
    std::memcpy(w, reinterpret_cast<const char*>(&e) + sizeof(Key), sizeof(Entry) - sizeof(Key));
    return w + count;
  }

  // Stores a copy of an entry of another table (one with its ids inline).
  void insert_entry(const Entry& e, uint64_t hash) {
    make_room();
    place(slots_, log_, hash, e);
    ++size_;
  }

  void insert(const Key& k, uint64_t hash, const uint32_t* ids, size_t count) {
    make_room();
    Entry e;
    e.key = k;
    if (count <= kInlineIds) {
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
  TF_NOINLINE uint32_t* emit_spilled(const Entry& e, uint32_t* w) const {
    const uint32_t count = e.info & 31;
    std::memcpy(w, spill_.data() + (e.info >> kSpillShift), count * sizeof(uint32_t));
    return w + count;
  }
  void make_room() {
    if ((size_ + 1) * 2 <= slots_.size()) return;
    if (log_ < max_log_)
      grow();
    else
      reset();  // full: forget the pieces
  }
  static void place(HugeArray<Entry>& slots, int log, uint64_t hash, const Entry& e) {
    const size_t mask = slots.size() - 1;
    size_t i = hash >> (64 - log);
    while (!slots[i].empty()) i = (i + 1) & mask;
    slots[i] = e;
  }
  void resize_to(int log) {
    log_ = log;
    shift_ = 64 - log;
    mask_ = (size_t(1) << log) - 1;
  }
  void reset() {
    ++generation_;
    slots_.assign(size_t(1) << min_log_, Entry{});
    resize_to(min_log_);
    size_ = 0;
    spill_.clear();
  }
  // Moves the entries to a table twice the size. An entry's slot is the top bits of its hash,
  // so old slot h's entries go to new slots 2h and 2h + 1 or just after: a scan of the old
  // table in order writes the new one nearly in order too. Its slots are emptied just ahead
  // of that scan rather than all first: a table of megabytes, emptied whole, has left the
  // cache by the time the entries come, and each then missed it again (about a third of the
  // cache misses of a first pass over Polish text, simulated).
  void grow() {
    ++generation_;
    const size_t old_size = slots_.size(), size = old_size * 2, mask = size - 1;
    const int log = log_ + 1;
    // The scan starts just after an empty slot (the table is at most half full), so it meets
    // each run of occupied slots whole: every entry's home slot lies between that start and
    // the entry, and its new home at or after twice the start (all positions taken circularly).
    size_t start = 0;
    while (!slots_[start].empty()) ++start;
    start = (start + 1) & (old_size - 1);
    const size_t origin = 2 * start;
    HugeArray<Entry> bigger(slots_.huge_pages());
    bigger.build(size, [&](Entry* to) {
      size_t emptied = 0;  // to[origin + k] (mod size) is an empty entry for k < emptied
      auto empty_up_to = [&](size_t k) {
        if (k < emptied) return;
        const size_t end = std::min(size, std::max(k + 1, emptied + 64));
        while (emptied < end) {  // in at most two stretches: the slots wrap around once
          const size_t from = (origin + emptied) & mask, count = std::min(end - emptied, size - from);
          for (size_t x = from; x < from + count; ++x) new (&to[x]) Entry{};
          emptied += count;
        }
      };
      for (size_t j = 0; j < old_size; ++j) {
        const Entry& e = slots_[(start + j) & (old_size - 1)];
        if (e.empty()) continue;
        size_t i = e.key.hash() >> (64 - log);
        for (;; i = (i + 1) & mask) {
          empty_up_to((i - origin) & mask);
          if (to[i].empty()) break;
        }
        to[i] = e;
      }
      empty_up_to(size - 1);
    });
    slots_ = std::move(bigger);
    resize_to(log);
  }

  int min_log_, max_log_;
  HugeArray<Entry> slots_;
  int log_ = 0, shift_ = 64;
  size_t mask_ = 0, size_ = 0;
  uint32_t generation_ = 0;
  std::vector<uint32_t> spill_;
};
using ShortPieceTable = PieceTable<2>;
using MediumPieceTable = PieceTable<4>;

// Reusable buffers for merging, so a merge allocates nothing once warm.
struct MergeScratch {
  struct Part {
    uint32_t id, prev, next, rank;  // rank: of the pair (this, next); kNoToken if none
  };
  std::vector<Part> parts;
  std::vector<uint32_t> ids;
  std::vector<uint64_t> heap;
  std::vector<size_t> cuts;  // where a long piece is cut into parts (split_points.h)
  struct PartKey {
    ShortKey key;
    uint64_t hash;
  };
  // (Both resized for each cut piece and then written: not zeroed first.)
  DefaultInitVector<PartKey> part_keys;                       // the parts' short keys and hashes
  DefaultInitVector<const PieceTable<2>::Entry*> part_found;  // the parts' entries in the thread's table
  std::vector<uint32_t> part_ids;                             // a part's merge
};

// Room for ids that is reused and never initialized.
class IdBuffer {
 public:
  uint32_t* begin() { return data_.get(); }
  uint32_t* end() { return data_.get() + size_; }
  // Makes room for at least n ids (the contents are lost).
  void reserve(size_t n) {
    if (n <= size_) return;
    size_ = std::max(n, size_t(1) << 14);
    data_.reset(new uint32_t[size_]);
  }
  // Frees the room when it grew past 16 MiB for one huge input (see release_if_large).
  void trim() {
    if (size_ > (size_t(1) << 22)) {
      data_.reset();
      size_ = 0;
    }
  }

 private:
  std::unique_ptr<uint32_t[]> data_;
  size_t size_ = 0;
};

class PieceCache {
 public:
  static constexpr size_t kMaxBytes = 256;  // longest piece remembered

  // Per thread, so made often: quick to fault in (huge pages later, if at all).
  ShortPieceTable shorts{12, 20, HugePages::kLater};    // pieces of (1)2..15 bytes: up to 32 MiB
  MediumPieceTable mediums{12, 17, HugePages::kLater};  // pieces of 16..31 bytes: up to 8 MiB
  MergeScratch scratch;
  std::vector<uint32_t> ids;  // a missed piece's ids, before they are stored
  IdBuffer out;               // an encode's ids before they go to the caller's vector

  // Frees what one huge input grew (the tables keep their own bounds); a Lease calls it.
  void trim() {
    out.trim();
    release_if_large(ids);
    release_if_large(scratch.parts);
    release_if_large(scratch.ids);
    release_if_large(scratch.heap);
    release_if_large(scratch.cuts);
    release_if_large(scratch.part_keys);
    release_if_large(scratch.part_found);
    release_if_large(scratch.part_ids);
  }

  // The merge of two adjacent tokens, through a small cache in front of the pair table: long
  // pieces (CJK runs, say) look up the same few pairs again and again. (Sentencepiece BPE's;
  // byte-level BPE goes to its model's tables, so its threads never make this cache.)
  // Entries pack a (20 bits) | b (20 bits) | merged (24 bits) into 8 bytes; ids must be < 2^20.
  static constexpr uint32_t kPairIdLimit = 1u << 20;
  template <class Table>
  uint32_t merged(uint32_t a, uint32_t b, const Table& table) {
    if (TF_UNLIKELY(pairs_.empty())) pairs_.assign(size_t(1) << kPairSlotsLog, kEmptyPair);  // 256 KiB, on first use
    const uint64_t key = uint64_t(a) | (uint64_t(b) << 20);
    uint64_t& e = pairs_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kPairSlotsLog)];
    if ((e & kKeyMask) != key || e == kEmptyPair) {
      const uint32_t m = table.find(a, b);
      e = key | (uint64_t(m == kNoToken ? kNoMerge : m) << 40);
    }
    const uint32_t m = uint32_t(e >> 40);
    return m == kNoMerge ? kNoToken : m;
  }

  // Pieces of 32..256 bytes (with key = bytes_key(p, n)): appends the cached ids to out, or
  // returns false. Two ways per set, the newer entry first: a new piece pushes the older out.
  bool get_long(const uint8_t* p, size_t n, uint64_t key, std::vector<uint32_t>& out) const {
    if (!long_) return false;
    const LongSet& set = long_.get()[set_of(key, n)];
    for (const Long& e : set.ways) {
      if (e.key != key || e.n != n || e.era != era_ || std::memcmp(e.bytes(), p, n) != 0) continue;
      out.insert(out.end(), e.data, e.data + e.count);
      return true;
    }
    return false;
  }
  void put_long(const uint8_t* p, size_t n, uint64_t key, const uint32_t* ids, size_t count) {
    const size_t words = count + (n + 3) / 4;  // the ids, then the bytes
    if (words > kChunkWords) return;           // (no piece of up to 256 bytes has so many ids)
    if (!long_) make_long();
    LongSet& set = long_.get()[set_of(key, n)];
    std::swap(set.ways[0], set.ways[1]);  // the older entry's room is reused for the new one
    Long& e = set.ways[0];
    if (e.era != era_ || e.capacity < words) {
      e.data = long_room(words);  // (may start a new era: then e is the only entry of it)
      e.capacity = uint32_t(words);
    }
    e.key = key;
    e.n = uint32_t(n);
    e.count = uint32_t(count);
    e.era = era_;
    std::memcpy(e.data, ids, count * sizeof(uint32_t));
    std::memcpy(e.bytes(), p, n);
  }

 private:
  // 2^15 sets of two (2 MiB): a megabyte of Chinese text has some 5,000 distinct runs of
  // 32..256 bytes (a quarter of its bytes), Thai (words written together, a piece per phrase)
  // some 7,000. Pieces read in turn through a set that three or more of them share all miss,
  // and with 2^13 sets (the size till 2026-11) that was a quarter of Thai's pieces on every
  // pass: o200k's warm pass 40 MB/s, 138 with these (Japanese 75 -> 88).
  static constexpr int kLongSetsLog = 15, kPairSlotsLog = 15;
  static constexpr uint64_t kKeyMask = (uint64_t(1) << 40) - 1, kEmptyPair = ~uint64_t(0);
  static constexpr uint32_t kNoMerge = 0xFFFFFF;
  // An entry: its ids and bytes in room taken from the cache's arena (long_chunks_), reused by
  // the entries that replace it where it is large enough. 32 bytes, so that a set is one cache
  // line (one miss to look up a piece). Nothing in it needs constructing or destroying: the
  // sets come zeroed from calloc (fresh pages from the kernel where the allocator maps the
  // block anew; after a model's load has freed large blocks glibc takes it from its heap and
  // zeroes it itself, 0.52 M instructions, as the constructors did), and an all-zero entry
  // matches no piece (its n is 0, its era 0). (Each entry once had a buffer of its own: 4,424
  // allocations in a first pass over 0.5 MB of man/ja, about a million instructions.)
  struct Long {
    uint64_t key;
    uint32_t* data;          // count ids, then n bytes; inside the arena of era `era`
    uint32_t n, count;       // the piece's bytes, its ids
    uint32_t capacity, era;  // capacity: of data, in words
    uint8_t* bytes() const { return reinterpret_cast<uint8_t*>(data + count); }
  };
  struct alignas(64) LongSet {
    Long ways[2];
  };
  static_assert(sizeof(LongSet) == 64, "a set fills a cache line");
  static_assert(std::is_trivially_copyable<Long>::value, "entries live in zeroed memory");
  static size_t set_of(uint64_t key, size_t n) { return ((key ^ n) * 0x9E3779B97F4A7C15ull) >> (64 - kLongSetsLog); }

  // The sets, zeroed, on first use; aligned to a cache line inside a calloc'd block.
  struct FreeSets {
    void* block;  // (no default member initializer: the class is not complete here)
    void operator()(LongSet*) const { std::free(block); }
  };
  void make_long() {
    constexpr size_t kSets = size_t(1) << kLongSetsLog;
    void* block = std::calloc(kSets + 1, sizeof(LongSet));
    if (!block) throw std::bad_alloc();
    const uintptr_t aligned = (reinterpret_cast<uintptr_t>(block) + 63) & ~uintptr_t(63);
    long_ = std::unique_ptr<LongSet, FreeSets>(reinterpret_cast<LongSet*>(aligned), FreeSets{block});
  }
  // Room for `words` (at most kChunkWords) in the arena: chunks of kChunkWords, taken in turn.
  // When kMaxChunks are full the arena starts over in a new era, and the entries of the old
  // one no longer match (their room is written over): memory stays bounded (16 MiB, room
  // for the ids and bytes of a few megabytes of distinct long pieces).
  static constexpr size_t kChunkWords = size_t(1) << 16, kMaxChunks = 64;
  uint32_t* long_room(size_t words) {
    if (long_at_ + words > kChunkWords) {
      long_at_ = 0;
      if (++long_chunk_ == kMaxChunks) {
        long_chunk_ = 0;
        ++era_;
      }
    }
    if (long_chunk_ == long_chunks_.size()) long_chunks_.emplace_back(new uint32_t[kChunkWords]);
    uint32_t* room = long_chunks_[long_chunk_].get() + long_at_;
    long_at_ += words;
    return room;
  }
  std::unique_ptr<LongSet, FreeSets> long_;  // 2^kLongSetsLog sets once a long piece is stored
  std::vector<std::unique_ptr<uint32_t[]>> long_chunks_;
  size_t long_chunk_ = 0, long_at_ = 0;  // where the arena's free room starts
  uint32_t era_ = 1;
  std::vector<uint64_t> pairs_;  // 2^kPairSlotsLog entries once merged() is first called
};

// Caches are kept by the encoder between calls (so they warm up) and lent to one thread at a time.
using PieceCachePool = Pool<PieceCache>;

}  // namespace tokenforge
