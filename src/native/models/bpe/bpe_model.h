// Byte-level BPE with tiktoken's semantics: a piece that is itself a token becomes that token;
// otherwise start from single bytes and repeatedly merge the adjacent pair whose concatenation
// has the lowest rank (leftmost on ties) until no adjacent pair forms a token.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/hash_tables.h"
#include "base/inline_hints.h"
#include "base/leftmost_min.h"
#include "models/bpe/piece_cache.h"
#include "models/bpe/split_points.h"
#include "models/bpe/whole_chars.h"

namespace tokenforge {

class BytePairModel {
 public:
  // tokens[rank] = the token's bytes; empty strings mark unused ranks.
  explicit BytePairModel(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
    views_.reserve(tokens_.size());
    for (const auto& t : tokens_) views_.emplace_back(reinterpret_cast<const uint8_t*>(t.data()), t.size());
    table_.build(views_);
    for (int b = 0; b < 256; ++b) {
      const uint8_t byte = uint8_t(b);
      byte_ids_[b] = table_.find(&byte, 1);
    }
    // Every way to write a token as the concatenation of two tokens is a pair that merges. Only
    // cuts where both sides have the length of some token are looked up: a vocabulary trained on
    // long runs of one byte holds a few very long tokens, and a lookup per cut (each hashing its
    // prefix) would cost the square of their length.
    size_t longest = 0;
    for (const auto& t : tokens_) longest = std::max(longest, t.size());
    std::vector<bool> is_length(longest + 1, false);
    std::vector<size_t> lengths;  // the lengths tokens have, ascending
    for (const auto& t : tokens_) is_length[t.size()] = true;
    for (size_t k = 1; k <= longest; ++k)
      if (is_length[k]) lengths.push_back(k);
    // Merges of two low ids come from a dense grid, filled as the pairs are found (the first
    // pair found wins, as in pairs_): single bytes (ids below 256 in tiktoken's vocabularies)
    // start every merge, and the next few hundred ids, the commonest short tokens, make most of
    // the rest of a new word's merges. 4 MiB, read without hashing, and without the misses of
    // the pair table's filter and slots when a thread meets text it has not seen.
    grid_ids_ = uint32_t(std::min<size_t>(tokens_.size(), kGridIds));
    grid_.assign(size_t(grid_ids_) * grid_ids_, kNoToken);
    bool every_token_splits_lower = true;
    // The pairs are gathered first so that the pair table and its filter are sized to their
    // count: 446,189 for o200k_base, where an estimate from the tokens' lengths (598,852) doubled
    // both, to 32 MiB and 1 MiB. A first pass over new text misses less in the smaller ones, and
    // a load has less memory to fault in.
    struct Found {
      uint32_t a, b, merged;
    };
    std::vector<Found> found;
    found.reserve(tokens_.size() * 3);
    for (uint32_t id = 0; id < tokens_.size(); ++id) {
      const auto& v = views_[id];
      bool splits_lower = v.second < 2;
      for (size_t k : lengths) {
        if (k >= v.second) break;
        if (!is_length[v.second - k]) continue;
        const uint32_t a = table_.find(v.first, k);
        if (a == kNoToken) continue;
        const uint32_t b = table_.find(v.first + k, v.second - k);
        if (b == kNoToken) continue;
        found.push_back({a, b, id});
        if (a < grid_ids_ && b < grid_ids_ && grid_[a * grid_ids_ + b] == kNoToken) grid_[a * grid_ids_ + b] = id;
        splits_lower |= a < id && b < id;
      }
      every_token_splits_lower &= splits_lower || v.second == 0;
    }
    pairs_.reserve(found.size());
    partners_.assign(tokens_.size(), 0);
    for (const Found& f : found) {
      pairs_.insert(f.a, f.b, f.merged);  // in order: the first found wins
      partners_[f.a] |= uint32_t(1u << partner_bit(f.b));
      partners_[f.b] |= uint32_t(0x10000u << partner_bit(f.a));
    }
    std::vector<Found>().swap(found);
    // Condition (1) runs the merge on each character's bytes while whole_chars_ is still being
    // filled; that merge can only start from the character itself, which is not in it yet.
    whole_chars_.build(
        views_,
        [&](const uint8_t* p, size_t n) {
          std::vector<uint32_t> out;
          merge_small(p, n, out, [&](uint32_t a, uint32_t b) { return pairs_.find(a, b); });
          return out;
        },
        every_token_splits_lower);
    split_points_.build(views_);
    for (const auto& v : views_) {
      if (v.second > kMediumPiece)
        long_tokens_.add(bytes_key(v.first, v.second), v.second);
      else if (v.second > kShortPiece)
        medium_tokens_.add(bytes_key(v.first, v.second), v.second);
    }
    // Tokens with non-ASCII bytes can be parts of a cut piece (split_points.h), where only a
    // merge's result counts; mark those their bytes do not merge back to.
    short_tokens_.fill_with_tokens(views_, [&](uint32_t id) {
      const auto& v = views_[id];
      bool ascii = true;
      for (size_t i = 0; i < v.second; ++i) ascii &= v.first[i] < 0x80;
      if (ascii) return false;
      std::vector<uint32_t> out;
      merge_small(v.first, v.second, out, [&](uint32_t a, uint32_t b) { return pairs_.find(a, b); });
      return !(out.size() == 1 && out[0] == id);
    });
  }

  // The tables point into tokens_, so the model stays where it was built.
  BytePairModel(const BytePairModel&) = delete;
  BytePairModel& operator=(const BytePairModel&) = delete;

  size_t size() const { return tokens_.size(); }
  bool has(uint32_t id) const { return id < tokens_.size() && !tokens_[id].empty(); }
  const std::string& bytes_of(uint32_t id) const { return tokens_[id]; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  uint32_t find(const uint8_t* p, size_t n) const { return table_.find(p, n); }

  // The id of a one-byte piece.
  TF_INLINE uint32_t byte_token(uint8_t b) const {
    const uint32_t id = byte_ids_[b];
    if (id == kNoToken) no_byte_token(b);
    return id;
  }

  // Starts loading the model's entry for a short piece that the thread's table lacks (the
  // piece is new to the thread), so that encode_short finds it without waiting.
  void prefetch_short_token(uint64_t hash) const { short_tokens_.prefetch(hash); }

  // A piece of 2..15 bytes with its key and key hash: writes its ids at w (room for n + 3)
  // and returns the end. The thread's table remembers every short piece it has seen.
  uint32_t* encode_short(const uint8_t* p, size_t n, const ShortKey& key, uint64_t hash, uint32_t* w,
                         PieceCache& cache) const {
    if (const ShortPieceTable::Entry* e = cache.shorts.find(key, hash)) return cache.shorts.emit(*e, w);
    return first_short(p, n, key, hash, w, cache);
  }

  // A piece of 16..31 bytes with its key and key hash: writes its ids at w (room for n + 3)
  // and returns the end.
  uint32_t* encode_medium(const uint8_t* p, size_t n, const MediumKey& key, uint64_t hash, uint32_t* w,
                          PieceCache& cache) const {
    if (const MediumPieceTable::Entry* e = cache.mediums.find(key, hash)) return cache.mediums.emit(*e, w);
    std::vector<uint32_t>& ids = cache.ids;
    ids.clear();
    const uint64_t bytes = bytes_key(p, n);
    const uint32_t whole = medium_tokens_.may_hold(bytes, n) ? table_.find(p, n, bytes) : kNoToken;
    if (whole != kNoToken)
      ids.push_back(whole);
    else
      merge_parts(p, n, ids, cache);
    cache.mediums.insert(key, hash, ids.data(), ids.size());
    std::memcpy(w, ids.data(), ids.size() * sizeof(uint32_t));
    return w + ids.size();
  }

  // A piece of more than 31 bytes: appends its ids to out.
  void encode_long(const uint8_t* p, size_t n, std::vector<uint32_t>& out, PieceCache& cache) const {
    const uint64_t key = bytes_key(p, n);
    const bool remembered = n <= PieceCache::kMaxBytes;
    if (remembered && cache.get_long(p, n, key, out)) return;
    const size_t before = out.size();
    const uint32_t whole = long_tokens_.may_hold(key, n) ? table_.find(p, n, key) : kNoToken;
    if (whole != kNoToken)
      out.push_back(whole);
    else
      merge_parts(p, n, out, cache);
    if (remembered) cache.put_long(p, n, key, out.data() + before, out.size() - before);
  }

  // Raw bytes that need not be UTF-8 (tiktoken's byte_pair_encode, for the unstable-token
  // search): the rank-ordered merge from single bytes, without WholeCharacters' shortcut (it
  // assumes UTF-8 around each character) and without the caches. Appends its ids to out.
  void encode_bytes(const uint8_t* p, size_t n, std::vector<uint32_t>& out) const {
    if (n == 0) return;
    if (const uint32_t whole = table_.find(p, n); whole != kNoToken) return out.push_back(whole);
    auto merged = [&](uint32_t a, uint32_t b) { return merged_pair(a, b); };
    if (n <= kSmallPiece) return merge_small<false>(p, n, out, merged);
    MergeScratch scratch;
    merge_large<false>(p, n, out, merged, scratch);
  }

  // Any piece: appends its ids to out.
  void encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>& out, PieceCache& cache) const {
    if (n == 0) return;
    if (n == 1) return out.push_back(byte_token(p[0]));
    if (n > kMediumPiece) return encode_long(p, n, out, cache);
    const size_t before = out.size();
    out.resize(before + n + 3);
    uint32_t* end;
    if (n <= kShortPiece) {
      const ShortKey key = short_key(p, n, p, p + n);
      end = encode_short(p, n, key, key.hash(), out.data() + before, cache);
    } else {
      const MediumKey key = medium_key(p, n);
      end = encode_medium(p, n, key, key.hash(), out.data() + before, cache);
    }
    out.resize(size_t(end - out.data()));
  }

 private:
  static constexpr size_t kSmallPiece = 128;  // above this the heap beats rescanning (< 256)
  static constexpr size_t kScanParts = 40;    // above this merge_small keeps blocks' minima

  // A short piece new to this thread: a token (copied from the model's table, with its flag)
  // or merged, and remembered either way.
  TF_NOINLINE uint32_t* first_short(const uint8_t* p, size_t n, const ShortKey& key, uint64_t hash, uint32_t* w,
                                    PieceCache& cache) const {
    if (const ShortPieceTable::Entry* token = copy_token(key, hash, cache)) return short_tokens_.emit(*token, w);
    cache.ids.clear();
    merge(p, n, cache.ids, cache);
    cache.shorts.insert(key, hash, cache.ids.data(), cache.ids.size());
    std::memcpy(w, cache.ids.data(), cache.ids.size() * sizeof(uint32_t));
    return w + cache.ids.size();
  }
  // The model's entry for a short token, copied into the thread's table; nullptr if the
  // piece is not a token.
  const ShortPieceTable::Entry* copy_token(const ShortKey& key, uint64_t hash, PieceCache& cache) const {
    const ShortPieceTable::Entry* token = short_tokens_.find(key, hash);
    if (token) cache.shorts.insert_entry(*token, hash);
    return token;
  }

  // The merge of p[0..n), not itself a token, as the merges of the parts between the points
  // where no merge can cross (split_points.h). The cuts are found first, so that the parts'
  // short-table slots can be prefetched together.
  void merge_parts(const uint8_t* p, size_t n, std::vector<uint32_t>& out, PieceCache& cache) const {
    std::vector<size_t>& cuts = cache.scratch.cuts;  // part boundaries: 0, ..., n
    cuts.assign(1, 0);
    constexpr uint32_t kAscii = ~0u;
    uint32_t prev = kAscii;  // the previous character if non-ASCII
    for (size_t i = 0; i < n;) {
      const uint8_t lead = p[i];
      if (lead < 0x80) {
        prev = kAscii;
        ++i;
        continue;
      }
      size_t len;
      uint32_t cp;
      if (uint8_t(lead - 0xE0) < 16 && i + 3 <= n) {  // three bytes (CJK, kana) and two, decoded here
        len = 3;
        cp = uint32_t(lead & 0x0F) << 12 | uint32_t(p[i + 1] & 0x3F) << 6 | (p[i + 2] & 0x3F);
      } else if (uint8_t(lead - 0xC0) < 32 && i + 2 <= n) {
        len = 2;
        cp = uint32_t(lead & 0x1F) << 6 | (p[i + 1] & 0x3F);
      } else {
        len = WholeCharacters::utf8_length(lead);
        if (len == 0 || i + len > n) return merge(p, n, out, cache);  // not UTF-8 (not from a str)
        size_t decoded;
        cp = decode_utf8(p + i, len, decoded);
      }
      if (prev != kAscii && !split_points_.may_join(prev, cp, unsigned(p[i - 1]) << 8 | p[i])) cuts.push_back(i);
      prev = cp;
      i += len;
    }
    if (cuts.size() == 1) return merge(p, n, out, cache);
    cuts.push_back(n);
    const size_t parts = cuts.size() - 1;
    auto& keys = cache.scratch.part_keys;
    keys.resize(parts);
    for (size_t k = 0; k < parts; ++k) {
      const size_t len = cuts[k + 1] - cuts[k];
      if (len > kShortPiece) continue;
      keys[k].key = short_key(p + cuts[k], len, p, p + n);
      keys[k].hash = keys[k].key.hash();
      cache.shorts.prefetch(keys[k].hash);
    }
    // The parts are looked up in the thread's table first, all of them, and the model's slots
    // of those it lacks are prefetched (as Encoder::run does for a batch of pieces): on text
    // new to the thread their misses overlap instead of coming one by one. Storing a part may
    // move the table; then the later parts look up again.
    auto& found = cache.scratch.part_found;
    found.resize(parts);
    for (size_t k = 0; k < parts; ++k) {
      if (cuts[k + 1] - cuts[k] > kShortPiece) continue;
      found[k] = cache.shorts.find(keys[k].key, keys[k].hash);
      if (!found[k]) short_tokens_.prefetch(keys[k].hash);
    }
    const uint32_t generation = cache.shorts.generation();
    // At most n ids in all, and emit() writes up to 3 slots past a part's last id.
    const size_t before = out.size();
    out.resize(before + n + 3);
    uint32_t* w = out.data() + before;
    std::vector<uint32_t>& merged = cache.scratch.part_ids;
    for (size_t k = 0; k < parts; ++k) {
      const uint8_t* part = p + cuts[k];
      const size_t len = cuts[k + 1] - cuts[k];
      const bool is_short = len <= kShortPiece;
      const ShortPieceTable::Entry* e = nullptr;
      if (is_short) {
        // A part missing before may have been stored since (the same part earlier in the piece).
        e = found[k] && cache.shorts.generation() == generation ? found[k]
                                                                : cache.shorts.find(keys[k].key, keys[k].hash);
        if (!e) e = copy_token(keys[k].key, keys[k].hash, cache);
      }
      if (e && e->exact()) {  // (a token's entry has one id, so either table can write it)
        w = cache.shorts.emit(*e, w);
        continue;
      }
      merged.clear();
      merge(part, len, merged, cache);
      if (!e && is_short) cache.shorts.insert(keys[k].key, keys[k].hash, merged.data(), merged.size());
      std::memcpy(w, merged.data(), merged.size() * sizeof(uint32_t));
      w += merged.size();
    }
    out.resize(size_t(w - out.data()));
  }

  // The rank-ordered merge of p[0..n), which is not itself a token.
  void merge(const uint8_t* p, size_t n, std::vector<uint32_t>& out, PieceCache& cache) const {
    auto merged = [&](uint32_t a, uint32_t b) { return merged_pair(a, b); };
    if (n <= kSmallPiece)
      merge_small(p, n, out, merged);
    else
      merge_large(p, n, out, merged, cache.scratch);
  }

  // The token that a followed by b merges into, or kNoToken. Low ids come from the grid;
  // other pairs pass partners_ before the pair table. (No per-thread cache of pairs in front:
  // a merge runs only on a piece new to the thread, whose pairs are mostly new too, and one
  // met again finds its filter word and slot in the CPU's caches. Simulated, a first pass over
  // man-zh_CN misses the last level 2% less without it, en-linuxdoc 7%.)
  TF_INLINE uint32_t merged_pair(uint32_t a, uint32_t b) const {
    if (a < grid_ids_ && b < grid_ids_) return grid_[a * grid_ids_ + b];
    return may_pair(a, b) ? pairs_.find(a, b) : kNoToken;
  }

  // Which of 16 classes an id falls in, for partners_.
  static unsigned partner_bit(uint32_t id) { return (id * 0x9E3779B1u) >> 28; }
  // False when a and b certainly do not merge: no token merges a with a right partner of b's
  // class, or b with a left partner of a's class.
  bool may_pair(uint32_t a, uint32_t b) const {
    return (partners_[a] >> partner_bit(b)) & (partners_[b] >> (16 + partner_bit(a))) & 1;
  }

  [[noreturn]] TF_NOINLINE static void no_byte_token(uint8_t b) {
    throw std::invalid_argument("byte 0x" + hex(b) + " has no token in this vocabulary, so it cannot be encoded");
  }

  static std::string hex(uint8_t b) {
    const char* d = "0123456789ABCDEF";
    return std::string{d[b >> 4], d[b & 15]};
  }

  // Short pieces: rescan for the lowest-ranked pair each round. O(n^2), but the scan is a
  // vectorized min over a few cache lines, which beats a heap's bookkeeping up to ~100 bytes.
  // Parts merged away stay in the arrays as tombstones (rank kNoToken), so nothing shifts.
  template <bool kWhole = true, class Merged>
  void merge_small(const uint8_t* p, size_t n, std::vector<uint32_t>& out, Merged merged) const {
    uint32_t ids[kSmallPiece], ranks[kSmallPiece + 3];  // ranks[i]: of the pair (i, next[i])
    uint8_t next[kSmallPiece], prev[kSmallPiece];
    n = initial_parts(p, n, ids, kWhole);  // from here on, n counts parts
    for (size_t i = 0; i < n; ++i) {
      next[i] = uint8_t(i + 1);
      prev[i] = uint8_t(i - 1);
    }
    for (size_t i = 0; i + 1 < n; ++i) ranks[i] = merged(ids[i], ids[i + 1]);
    if (n > kScanParts) return merge_blocks(n, ids, ranks, next, prev, out, merged);
    const size_t padded = (n + 3) & ~size_t(3);  // whole groups of 4 for the vector scan
    for (size_t i = n - 1; i < padded; ++i) ranks[i] = kNoToken;
    for (;;) {
      size_t at;
      const uint32_t best = leftmost_min(ranks, padded, at);
      if (best == kNoToken) break;
      const size_t gone = next[at];
      ids[at] = best;
      ranks[gone] = kNoToken;
      next[at] = next[gone];
      if (next[at] < n) {
        prev[next[at]] = uint8_t(at);
        ranks[at] = merged(best, ids[next[at]]);
      } else {
        ranks[at] = kNoToken;
      }
      if (at > 0) ranks[prev[at]] = merged(ids[prev[at]], best);
    }
    for (size_t i = 0; i < n; i = next[i]) out.push_back(ids[i]);
  }

  // merge_small's rounds over more than kScanParts parts (byte-level text of a script whose
  // characters the vocabulary does not hold whole, Thai say, in pieces of 40 to 128 bytes): the
  // same merges, with the minimum of each block of 16 ranks kept, so that a round reads the
  // 8 blocks' minima and the one block that holds the leftmost lowest rank, and then recomputes
  // the blocks its three changed ranks lie in, instead of scanning up to 128 ranks.
  template <class Merged>
  void merge_blocks(size_t n, uint32_t* ids, uint32_t* ranks, uint8_t* next, uint8_t* prev, std::vector<uint32_t>& out,
                    Merged merged) const {
    constexpr size_t kBlocks = kSmallPiece / 16;
    const size_t padded = (n + 15) & ~size_t(15);
    for (size_t i = n - 1; i < padded; ++i) ranks[i] = kNoToken;
    uint32_t least[kBlocks];  // least[b]: the lowest of ranks[16b..16b+16)
    for (size_t b = 0; b < kBlocks; ++b) least[b] = 16 * b < padded ? min16(ranks + 16 * b) : kNoToken;
    for (;;) {
      size_t block;
      const uint32_t best = leftmost_min(least, kBlocks, block);
      if (best == kNoToken) break;
      const size_t at = 16 * block + first_of16(ranks + 16 * block, best);
      const size_t gone = next[at];
      ids[at] = best;
      ranks[gone] = kNoToken;
      next[at] = next[gone];
      if (next[at] < n) {
        prev[next[at]] = uint8_t(at);
        ranks[at] = merged(best, ids[next[at]]);
      } else {
        ranks[at] = kNoToken;
      }
      const size_t before = at > 0 ? prev[at] : at;  // (the first part is never merged away)
      if (at > 0) ranks[before] = merged(ids[before], best);
      least[block] = min16(ranks + 16 * block);
      if (gone / 16 != block) least[gone / 16] = min16(ranks + (gone & ~size_t(15)));
      if (before / 16 != block) least[before / 16] = min16(ranks + (before & ~size_t(15)));
    }
    for (size_t i = 0; i < n; i = next[i]) out.push_back(ids[i]);
  }

  // The parts a merge of p[0..n) starts from: single bytes, or a whole character where
  // WholeCharacters proves that equivalent (where `whole`). Writes ids[0..count) and returns count.
  size_t initial_parts(const uint8_t* p, size_t n, uint32_t* ids, bool whole) const {
    size_t m = 0;
    for (size_t i = 0; i < n;) {
      if (whole && p[i] >= 0xC0 && !whole_chars_.empty()) {
        const size_t len = WholeCharacters::utf8_length(p[i]);
        const uint32_t c = len && i + len <= n ? whole_chars_.at(p, n, i, len) : kNoToken;
        if (c != kNoToken) {
          ids[m++] = c;
          i += len;
          continue;
        }
      }
      ids[m++] = byte_token(p[i++]);
    }
    return m;
  }

  // Longer pieces: a min-heap of (rank, position) over a linked list of parts, O(n log n), so
  // no input (a megabyte of one letter, say) makes encoding quadratic. Equal ranks pop in
  // position order, which is tiktoken's leftmost-first tie-break.
  template <bool kWhole = true, class Merged>
  void merge_large(const uint8_t* p, size_t n, std::vector<uint32_t>& out, Merged merged, MergeScratch& scratch) const {
    constexpr uint32_t kEnd = kNoToken;
    auto& parts = scratch.parts;
    auto& heap = scratch.heap;
    scratch.ids.resize(n);
    n = initial_parts(p, n, scratch.ids.data(), kWhole);  // from here on, n counts parts
    parts.resize(n);
    heap.clear();
    const auto later = std::greater<uint64_t>();
    for (size_t i = 0; i < n; ++i)
      parts[i] =
          MergeScratch::Part{scratch.ids[i], i ? uint32_t(i - 1) : kEnd, i + 1 < n ? uint32_t(i + 1) : kEnd, kNoToken};
    auto rerank = [&](uint32_t i) {
      MergeScratch::Part& part = parts[i];
      part.rank = part.next == kEnd ? kNoToken : merged(part.id, parts[part.next].id);
      if (part.rank != kNoToken) {
        heap.push_back((uint64_t(part.rank) << 32) | i);
        std::push_heap(heap.begin(), heap.end(), later);
      }
    };
    for (uint32_t i = 0; i + 1 < n; ++i) {
      parts[i].rank = merged(parts[i].id, parts[i + 1].id);
      if (parts[i].rank != kNoToken) heap.push_back((uint64_t(parts[i].rank) << 32) | i);
    }
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const uint64_t top = heap.back();
      heap.pop_back();
      const uint32_t i = uint32_t(top), rank = uint32_t(top >> 32);
      if (parts[i].rank != rank) continue;  // stale: this pair changed since it was pushed
      MergeScratch::Part& part = parts[i];
      const uint32_t gone = part.next;
      part.id = rank;
      part.next = parts[gone].next;
      parts[gone].rank = kNoToken;
      if (part.next != kEnd) parts[part.next].prev = i;
      rerank(i);
      if (part.prev != kEnd) rerank(part.prev);
    }
    for (uint32_t i = 0; i != kEnd; i = parts[i].next) out.push_back(parts[i].id);
  }

  std::vector<std::string> tokens_;
  std::vector<std::pair<const uint8_t*, size_t>> views_;
  BytesTable table_;
  PairTable pairs_;
  static constexpr uint32_t kGridIds = 1024;
  uint32_t grid_ids_ = 0;  // the grid holds the pairs of ids below this
  HugeArray<uint32_t> grid_;
  // Per id, the classes (partner_bit) of the ids it merges with: bit k of the low half when a
  // token merges it with a right partner of class k, bit 16 + k when with a left partner of
  // class k. Outside the grid most pairs that a new piece looks up do not merge (two CJK
  // characters, say): of the distinct ones a first pass meets, 87% fail here on man-zh_CN, 74%
  // on man-ru, 63% on en-linuxdoc, without a miss in the pair table's filter (512 KiB for
  // o200k_base) and often its slots (16 MiB). This is 800 KiB, but a first pass reads it for
  // a few thousand ids (7,400 on man-zh_CN), which stay cached. 8 classes a side (half the
  // size) stop 78% on man-zh_CN; simulated, the last level misses 3% more there.
  std::vector<uint32_t> partners_;
  WholeCharacters whole_chars_;
  SplitPoints split_points_;
  // Tokens of 16 bytes and more are few (o200k_base: 5,215 of 16..31 bytes, 277 longer): a
  // one-hash filter of 2^kLog bits in front of the token table spares most new medium and long
  // pieces (words of two-byte scripts, CJK runs) its cache miss.
  template <int kLog>
  struct TokenFilter {
    uint64_t bits[(size_t(1) << kLog) / 64] = {};
    static size_t bit(uint64_t key, size_t n) { return ((key ^ n) * 0x9E3779B97F4A7C15ull) >> (64 - kLog); }
    void add(uint64_t key, size_t n) { bits[bit(key, n) >> 6] |= uint64_t(1) << (bit(key, n) & 63); }
    bool may_hold(uint64_t key, size_t n) const { return bits[bit(key, n) >> 6] >> (bit(key, n) & 63) & 1; }
  };
  TokenFilter<15> long_tokens_;    // 4 KiB
  TokenFilter<16> medium_tokens_;  // 8 KiB: about 8% of new medium pieces look in the table for nothing
  ShortPieceTable short_tokens_{12, 12, HugePages::kNow};  // tokens of 2..15 bytes, read only
  uint32_t byte_ids_[256];
};

}  // namespace tokenforge
