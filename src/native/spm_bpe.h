// sentencepiece's BPE model: the normalized text (spaces already "▁") starts as characters
// (user-defined symbols whole and frozen), and the adjacent pair whose concatenation is a piece
// with the highest score is merged first (ties: the leftmost), until no pair is a piece. Merges
// may pass through unused pieces, which are then split back into the parts they were made of.
//
// Speed: a merge makes a piece, so no merge can join two adjacent characters that are never
// adjacent inside a piece. The text is cut between such characters (before most "▁", between
// most CJK characters) and encoded segment by segment: the same merges in the same order within
// each. Each thread remembers the segments it has seen with their ids, keyed by their exact
// bytes (piece_cache.h's tables): natural text repeats. A new segment is merged on ids: which
// pairs merge, and into what, comes from a pair table, and the next merge from a heap, so no
// segment takes more than O(n log n).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hash_tables.h"
#include "inline_hints.h"
#include "piece_cache.h"
#include "pool.h"
#include "spm_vocab.h"
#include "unicode_classes.h"

namespace tokenforge {

class SpmBpeModel {
 public:
  explicit SpmBpeModel(SpmVocab vocab) : vocab_(std::move(vocab)) {
    index_characters();
    index_pairs();
    rank_scores();
    index_one_character_segments();
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Appends the ids of normalized text s[0..n) to `ids` (and to `lengths` the bytes each covers).
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr) const {
    if (n == 0) return;
    Pool<Cache>::Lease lease(caches_);
    Cache& cache = lease.get();
    IdBuffer& buf = cache.pieces.out;
    // At most one id per byte, and a table hit writes all its inline slots.
    buf.reserve(n + MediumPieceTable::kInlineIds);
    if (lengths) cache.out_lengths.reserve(n);
    Out out{buf.begin(), buf.begin(), lengths ? cache.out_lengths.begin() : nullptr};
    size_t start = 0, len;
    uint32_t prev = decode_utf8(s, n, len), first = prev;  // first: the segment's first character
    for (size_t i = len; i < n; i += len) {
      const uint32_t c = decode_utf8(s + i, n - i, len);
      if (!joins(prev, c)) {
        append_segment(s, n, start, i - start, first, out, cache);
        start = i;
        first = c;
      }
      prev = c;
    }
    append_segment(s, n, start, n - start, first, out, cache);
    ids.insert(ids.end(), out.begin, out.end);
    if (lengths) lengths->insert(lengths->end(), cache.out_lengths.begin(), out.lengths);
  }

 private:
  struct Symbol {
    uint32_t id;      // a piece, a character found only inside pieces (virtual id), or kNone
    uint32_t start;   // byte offset in the segment
    uint32_t prev, next;
    uint32_t rank;    // of the pair (this, next): its piece's rank, or kNoToken if none
    uint32_t merged;  // that piece
    bool frozen;      // a user-defined symbol: never merges
  };
  // A merge's working state, reused.
  struct MergeState {
    std::vector<Symbol> symbols;
    std::vector<uint64_t> agenda;  // (rank << 32) | left symbol, a min-heap
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> splits;  // unused piece -> its last parts
  };
  // Per thread: segments seen (ids written to pieces.out), a merge's state, a segment's lengths.
  struct Cache {
    PieceCache pieces;
    MergeState merge;
    std::vector<uint32_t> lengths;  // a merged segment's
    IdBuffer out_lengths;           // a text's, in step with pieces.out
  };
  // Where a text's ids go (begin..end of the thread's buffer), and its lengths if wanted.
  struct Out {
    uint32_t* begin;
    uint32_t* end;
    uint32_t* lengths;  // null, or where the next id's length goes
  };
  static constexpr uint32_t kEnd = kNoToken;

  // Characters inside pieces that are no piece themselves get virtual ids past the vocabulary,
  // so that every symbol that can merge has an id.
  void index_characters() {
    const uint32_t size = uint32_t(vocab_.size());
    for (uint32_t id = 0; id < size; ++id) {
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const std::string_view t = vocab_.text(id);
      for (size_t i = 0; i < t.size(); i += utf8_length(uint8_t(t[i]))) {
        const std::string c(t.substr(i, utf8_length(uint8_t(t[i]))));
        if (vocab_.find(c) == SpmVocab::kNone && virtual_ids_.emplace(c, size + virtual_texts_.size()).second)
          virtual_texts_.push_back(c);
      }
    }
  }

  // Every way to cut a piece in two symbols is a pair that merges into it, and every two
  // characters next to each other in a piece may join.
  void index_pairs() {
    size_t boundaries = 0;
    for (uint32_t id = 0; id < vocab_.size(); ++id)
      if (SpmVocab::producible(vocab_.type(id)))
        for (char c : vocab_.text(id)) boundaries += (uint8_t(c) & 0xC0) != 0x80;
    merges_.reserve(boundaries);
    inner_pairs_.reserve(boundaries);
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const std::string_view t = vocab_.text(id);
      if (t.empty()) continue;
      size_t before = 0;  // the previous character's start
      for (size_t i = utf8_length(uint8_t(t[0])); i < t.size(); i += utf8_length(uint8_t(t[i]))) {
        add_inner_pair(code_point(t.substr(before)), code_point(t.substr(i)));
        before = i;
        const uint32_t left = symbol_id(t.substr(0, i)), right = symbol_id(t.substr(i));
        if (left != SpmVocab::kNone && right != SpmVocab::kNone) merges_.insert(left, right, id);
      }
    }
  }

  // Merges go highest score first: a rank per distinct score, 0 for the highest, so that equal
  // scores tie (and the leftmost pair goes first).
  void rank_scores() {
    std::vector<float> scores;
    for (uint32_t id = 0; id < vocab_.size(); ++id)
      if (SpmVocab::producible(vocab_.type(id))) scores.push_back(vocab_.score(id));
    std::sort(scores.begin(), scores.end(), std::greater<float>());
    scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
    ranks_.assign(vocab_.size(), kNoToken);
    piece_bytes_.resize(vocab_.size());
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      piece_bytes_[id] = vocab_.type(id) == SpmVocab::kByte ? 1 : uint32_t(vocab_.text(id).size());
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const auto at = std::lower_bound(scores.begin(), scores.end(), vocab_.score(id), std::greater<float>());
      ranks_[id] = uint32_t(at - scores.begin());
    }
  }

  // A segment of one character is mostly a piece: its id comes from a table over the Basic
  // Multilingual Plane (kNone where it is not a single id: byte fallback, unknown).
  void index_one_character_segments() {
    one_character_ids_.assign(0x10000, SpmVocab::kNone);
    MergeState state;
    std::vector<uint32_t> ids;
    for (uint32_t c = 0; c < 0x10000; ++c) {
      if (c >= 0xD800 && c < 0xE000) continue;  // surrogates: not in UTF-8 text
      uint8_t bytes[4];
      const size_t len = encode_utf8(c, bytes);
      if (c >= 0x80 && vocab_.find(std::string_view(reinterpret_cast<const char*>(bytes), len)) == SpmVocab::kNone)
        continue;  // (quick: no piece, so not one id unless ASCII)
      ids.clear();
      encode_segment(bytes, len, 0, ids, nullptr, state);
      if (ids.size() == 1 && ids[0] != vocab_.unk_id()) one_character_ids_[c] = ids[0];
    }
  }

  static uint32_t code_point(std::string_view s) {
    size_t len;
    return decode_utf8(reinterpret_cast<const uint8_t*>(s.data()), s.size(), len);
  }
  void add_inner_pair(uint32_t a, uint32_t b) {
    if ((a | b) < 0x80) ascii_pairs_[a][b >> 6] |= uint64_t(1) << (b & 63);
    else inner_pairs_.insert(a, b, 0);
  }
  // Whether characters a and b are next to each other in some piece.
  bool joins(uint32_t a, uint32_t b) const {
    if ((a | b) < 0x80) return ascii_pairs_[a][b >> 6] >> (b & 63) & 1;
    return inner_pairs_.may_merge(a, b) && inner_pairs_.find(a, b) != kNoToken;  // (most pairs stop at the filter)
  }

  // The id of a symbol with text t in merges: its piece, or the virtual id of a character
  // found only inside pieces; kNone if it never merges.
  uint32_t symbol_id(std::string_view t) const {
    const uint32_t id = vocab_.find(t);
    if (id != SpmVocab::kNone || virtual_ids_.empty()) return id;
    const auto it = virtual_ids_.find(std::string(t));
    return it == virtual_ids_.end() ? SpmVocab::kNone : it->second;
  }

  // Appends segment s[start..start+len) of text s[0..n), whose first character is `first`: from
  // the table of one-character segments or the thread's tables, else merged (and remembered).
  void append_segment(const uint8_t* s, size_t n, size_t start, size_t len, uint32_t first, Out& out,
                      Cache& cache) const {
    const uint8_t* p = s + start;
    if (first < 0x10000 && len == utf8_length(p[0]) && one_character_ids_[first] != SpmVocab::kNone) {
      *out.end = one_character_ids_[first];
      return commit(1, len, nullptr, out);
    }
    PieceCache& pieces = cache.pieces;
    if (len <= kShortPiece) {
      const ShortKey key = short_key(p, len, s, s + n);
      const uint64_t hash = key.hash();
      if (const ShortPieceTable::Entry* e = pieces.shorts.find(key, hash)) return commit_entry(pieces.shorts, *e, len, out);
      if (merge(p, len, cache)) pieces.shorts.insert(key, hash, pieces.ids.data(), pieces.ids.size());
    } else if (len <= kMediumPiece) {
      const MediumKey key = medium_key(p, len);
      const uint64_t hash = key.hash();
      if (const MediumPieceTable::Entry* e = pieces.mediums.find(key, hash)) return commit_entry(pieces.mediums, *e, len, out);
      if (merge(p, len, cache)) pieces.mediums.insert(key, hash, pieces.ids.data(), pieces.ids.size());
    } else if (len <= PieceCache::kMaxBytes) {
      const uint64_t key = bytes_key(p, len);
      pieces.ids.clear();
      if (pieces.get_long(p, len, key, pieces.ids)) {
        std::memcpy(out.end, pieces.ids.data(), pieces.ids.size() * sizeof(uint32_t));
        return commit(pieces.ids.size(), len, nullptr, out);
      }
      if (merge(p, len, cache)) pieces.put_long(p, len, key, pieces.ids.data(), pieces.ids.size());
    } else {
      merge(p, len, cache);
    }
    std::memcpy(out.end, pieces.ids.data(), pieces.ids.size() * sizeof(uint32_t));
    commit(pieces.ids.size(), len, cache.lengths.empty() ? nullptr : cache.lengths.data(), out);
  }

  // Merges segment p[0..len) into cache.pieces.ids. Returns whether they may be remembered: their
  // lengths follow from the ids (else they are in cache.lengths). Segments too long to remember
  // keep their lengths too.
  bool merge(const uint8_t* p, size_t len, Cache& cache) const {
    std::vector<uint32_t>& ids = cache.pieces.ids;
    ids.clear();
    cache.lengths.clear();
    encode_segment(p, len, 0, ids, &cache.lengths, cache.merge);
    // An unknown id covers what the others leave, which is known only when it stands alone.
    const bool unknown = std::find(ids.begin(), ids.end(), vocab_.unk_id()) != ids.end();
    if ((unknown && ids.size() > 1) || len > PieceCache::kMaxBytes) return false;
    cache.lengths.clear();
    return true;
  }

  template <class Table>
  void commit_entry(const Table& table, const typename Table::Entry& e, size_t len, Out& out) const {
    const uint32_t* end = table.emit(e, out.end);
    commit(size_t(end - out.end), len, nullptr, out);
  }

  // Takes the `count` ids just written at out.end as a segment's of `len` bytes, with their
  // `lengths` (null: those of the pieces; an unknown id then stands alone and covers it all).
  TF_INLINE void commit(size_t count, size_t len, const uint32_t* lengths, Out& out) const {
    if (TF_UNLIKELY(out.end[0] == vocab_.unk_id())) return commit_unknown(count, len, lengths, out);
    if (out.lengths) {
      for (size_t i = 0; i < count; ++i) out.lengths[i] = lengths ? lengths[i] : piece_bytes_[out.end[i]];
      out.lengths += count;
    }
    out.end += count;
  }
  // commit() where the first id is the unknown id: one that continues a run of them is dropped,
  // its bytes added to the run's.
  TF_NOINLINE void commit_unknown(size_t count, size_t len, const uint32_t* lengths, Out& out) const {
    uint32_t* ids = out.end;
    const bool skip = out.end > out.begin && vocab_.continues_unknown_run(ids[0], out.end[-1]);
    if (out.lengths) {
      if (skip) out.lengths[-1] += lengths ? lengths[0] : uint32_t(len);
      for (size_t i = skip; i < count; ++i) *out.lengths++ = lengths ? lengths[i] : i ? piece_bytes_[ids[i]] : uint32_t(len);
    }
    if (skip) std::memmove(ids, ids + 1, (count - 1) * sizeof(uint32_t));
    out.end += count - skip;
  }

  // The merges of one segment s[0..n) in sentencepiece's order; appends the ids of its final
  // symbols (and with `lengths` the bytes each covers); ids[first..] are this text's.
  void encode_segment(const uint8_t* s, size_t n, size_t first, std::vector<uint32_t>& ids,
                      std::vector<uint32_t>* lengths, MergeState& state) const {
    const std::string_view text(reinterpret_cast<const char*>(s), n);
    std::vector<Symbol>& symbols = state.symbols;
    std::vector<uint64_t>& agenda = state.agenda;
    symbols.clear();
    agenda.clear();
    state.splits.clear();
    for (size_t pos = 0; pos < n;) {
      bool frozen = false;
      const size_t len = vocab_.symbol_length(text.substr(pos), frozen);
      const uint32_t i = uint32_t(symbols.size());
      symbols.push_back(Symbol{symbol_id(text.substr(pos, len)), uint32_t(pos), i ? i - 1 : kEnd,
                               pos + len < n ? i + 1 : kEnd, kNoToken, kNoToken, frozen});
      pos += len;
    }
    const auto later = std::greater<uint64_t>();
    // Ranks the pair (i, next); an unused piece it would make remembers the parts.
    auto rank_pair = [&](uint32_t i) {
      Symbol& l = symbols[i];
      l.rank = l.merged = kNoToken;
      if (l.next == kEnd || l.frozen || symbols[l.next].frozen) return false;
      const Symbol& r = symbols[l.next];
      l.merged = merges_.find(l.id, r.id);
      if (l.merged == kNoToken) return false;
      l.rank = ranks_[l.merged];
      if (vocab_.type(l.merged) == SpmVocab::kUnused) state.splits[l.merged] = {l.id, r.id};
      return true;
    };
    for (uint32_t i = 0; i + 1 < symbols.size(); ++i)
      if (rank_pair(i)) agenda.push_back((uint64_t(symbols[i].rank) << 32) | i);
    std::make_heap(agenda.begin(), agenda.end(), later);
    auto push = [&](uint32_t i) {
      if (!rank_pair(i)) return;
      agenda.push_back((uint64_t(symbols[i].rank) << 32) | i);
      std::push_heap(agenda.begin(), agenda.end(), later);
    };
    while (!agenda.empty()) {
      std::pop_heap(agenda.begin(), agenda.end(), later);
      const uint64_t top = agenda.back();
      agenda.pop_back();
      const uint32_t i = uint32_t(top);
      Symbol& l = symbols[i];
      // Stale if the pair changed since; a pair of the same rank at the same place goes now anyway.
      if (l.rank != uint32_t(top >> 32)) continue;
      Symbol& r = symbols[l.next];
      l.id = l.merged;
      l.next = r.next;
      if (r.next != kEnd) symbols[r.next].prev = i;
      r.rank = kNoToken;
      if (l.prev != kEnd) push(l.prev);
      push(i);
    }
    for (uint32_t i = 0; i != kEnd; i = symbols[i].next) {
      const Symbol& sym = symbols[i];
      const uint32_t end = sym.next == kEnd ? uint32_t(n) : symbols[sym.next].start;
      emit(sym.id, text.substr(sym.start, end - sym.start), state, first, ids, lengths);
    }
  }

  // A final symbol (id: its id in merges): an unused piece goes back to the parts it was last
  // made from; a symbol that is no piece is unknown (as in sentencepiece, also where its text is
  // a control piece's); the vocabulary emits the rest (byte fallback, unknown runs).
  void emit(uint32_t id, std::string_view text, const MergeState& state, size_t first, std::vector<uint32_t>& ids,
            std::vector<uint32_t>* lengths) const {
    if (id < vocab_.size() && vocab_.type(id) == SpmVocab::kUnused) {
      const auto it = state.splits.find(id);
      if (it != state.splits.end()) {
        const auto [left, right] = it->second;
        const size_t cut = left < vocab_.size() ? vocab_.text(left).size() : virtual_texts_[left - vocab_.size()].size();
        emit(left, text.substr(0, cut), state, first, ids, lengths);
        emit(right, text.substr(cut), state, first, ids, lengths);
        return;
      }
    }
    vocab_.emit(id < vocab_.size() ? id : vocab_.unk_id(), text, first, ids, lengths);
  }

  SpmVocab vocab_;
  PairTable merges_;                      // (symbol, symbol) -> the piece they make
  std::vector<uint32_t> ranks_;           // by piece: its score's rank
  std::vector<uint32_t> piece_bytes_;     // by id: the bytes it covers (unknown: see commit)
  std::unordered_map<std::string, uint32_t> virtual_ids_;
  std::vector<std::string> virtual_texts_;
  uint64_t ascii_pairs_[128][2] = {};     // ASCII characters next to each other in a piece
  PairTable inner_pairs_;                 // the other such pairs (code points)
  HugeArray<uint32_t> one_character_ids_;  // by code point below 0x10000
  mutable Pool<Cache> caches_;
};

}  // namespace tokenforge
