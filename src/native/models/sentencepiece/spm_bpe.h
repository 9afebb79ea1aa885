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
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/hash_tables.h"
#include "base/inline_hints.h"
#include "models/bpe/piece_cache.h"
#include "base/pool.h"
#include "models/sentencepiece/spm_adjacency.h"
#include "normalizers/spm_normalizer.h"
#include "models/sentencepiece/spm_vocab.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class SpmBpeModel {
 public:
  explicit SpmBpeModel(SpmVocab vocab) : vocab_(std::move(vocab)) {
    if (vocab_.size() >= PieceAdjacency::kNoOne) throw std::invalid_argument("too many pieces");
    index_characters();
    index_pairs();
    rank_scores();
    index_one_character_segments();
  }
  const SpmVocab& vocab() const { return vocab_; }

  // Appends the ids of normalized text s[0..n) to `ids`. With `how`, s is instead a text that
  // its normalizer only escapes (SpmNormalizer::escapes_only): the model reads it as normalized.
  // With `lengths`, also the characters of s each id covers (an id that ends inside a character
  // covers none of it, the one that ends it all of it; the prefix is none).
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr,
              SpmEscaping how = {}) const {
    if (n == 0) return;  // (the normalizer gives empty text no prefix)
    Pool<Cache>::Lease lease(caches_);
    Cache& cache = lease.get();
    if (cache.escape != how.escape) {  // " " stands for something else in the remembered keys
      cache.pieces = PieceCache();
      cache.escape = how.escape;
    }
    IdBuffer& buf = cache.pieces.out;
    // At most one id per byte (and the prefix), and a table hit writes all its inline slots.
    buf.reserve(n + 1 + MediumPieceTable::kInlineIds);
    if (lengths) cache.out_lengths.reserve(n + 1);
    Out out{buf.begin(), buf.begin(), lengths ? cache.out_lengths.begin() : nullptr};
    const Text text{s, n, how};
    adjacency_.cut(s, n, how.escape, how.prefix, cache.cuts);  // (the first segment holds the prefix)
    const uint32_t* cuts = cache.cuts.data();
    for (size_t k = 0; k + 1 < cache.cuts.size(); ++k)
      append_segment(text, Segment{s + cuts[k], cuts[k + 1] - cuts[k], k == 0 && how.prefix}, out, cache);
    ids.insert(ids.end(), out.begin, out.end);
    if (lengths) lengths->insert(lengths->end(), cache.out_lengths.begin(), out.lengths);
  }

  // BPE-dropout (sentencepiece's SampleEncode): as encode, but each merge is skipped with
  // probability alpha when its turn comes; a skipped pair is not merged later.
  void sample_encode(const uint8_t* s, size_t n, double alpha, std::mt19937_64& rng, std::vector<uint32_t>& ids) const {
    if (alpha <= 0.0 || n == 0) return encode(s, n, ids);
    if (n >= kEnd) throw std::length_error("text too long for BPE-dropout (4 GB)");
    Pool<Cache>::Lease lease(caches_);
    std::bernoulli_distribution skip(std::min(alpha, 1.0));
    encode_segment(s, n, ids.size(), ids, nullptr, lease.get().merge, [&] { return skip(rng); });
  }

 private:
  struct Symbol {
    uint32_t id;     // a piece, a character found only inside pieces (virtual id), or kNone
    uint32_t start;  // byte offset in the segment
    uint32_t prev, next;
    uint32_t rank;    // of the pair (this, next): its piece's rank, or kNoToken if none
    uint32_t merged;  // that piece
    bool frozen;      // a user-defined symbol: never merges
  };
  // A merge's working state, reused.
  struct MergeState {
    std::vector<Symbol> symbols;
    std::vector<uint64_t> agenda;                                        // (rank << 32) | left symbol, a min-heap
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> splits;  // unused piece -> its last parts
    PieceCache* pairs = nullptr;  // the thread's cache in front of the pair table, if any
  };
  // Per thread: segments seen (keys read with `escape`; a text's ids written to pieces.out), a
  // merge's state and buffers.
  struct Cache {
    PieceCache pieces;
    bool escape = false;
    MergeState merge{{}, {}, {}, &pieces};
    std::string key, normalized;          // a segment's, where it is not the input as it is
    std::vector<uint32_t> lengths;        // the normalized bytes a merged segment's ids cover
    std::vector<uint32_t> input_lengths;  // the input characters a segment's ids cover
    std::vector<uint32_t> cuts;           // a text's segment starts, then its end (PieceAdjacency::cut)
    IdBuffer out_lengths;                 // a text's, in step with pieces.out
    void trim() {                         // after a huge text (see release_if_large)
      pieces.trim();
      out_lengths.trim();
      release_if_large(key);
      release_if_large(normalized);
      release_if_large(lengths);
      release_if_large(input_lengths);
      release_if_large(cuts);
    }
  };
  // The model's input, and how it reads.
  struct Text {
    const uint8_t* s;
    size_t n;
    SpmEscaping how;
  };
  // A segment: its input bytes, and whether the prefix (before p) starts it.
  struct Segment {
    const uint8_t* p;
    size_t len;
    bool prefixed;
  };
  // Where a text's ids go (begin..end of the thread's buffer), and its lengths if wanted.
  struct Out {
    uint32_t* begin;
    uint32_t* end;
    uint32_t* lengths;  // null, or where the next id's length goes
  };
  static constexpr size_t kScanned = 32;  // segments of up to this many symbols merge without a heap
  // piece_characters_ of byte pieces, which may end inside a character: more than any segment has.
  static constexpr uint32_t kSplitsCharacters = 1u << 30;
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

  // Every way to cut a piece in two symbols is a pair that merges into it; segments are cut
  // between characters that are never next to each other in a piece.
  void index_pairs() {
    struct Merge {
      uint32_t left, right, piece;
    };
    std::vector<Merge> merges;  // counted first: the table sized to them stays smaller in cache
    std::vector<std::string_view> pieces;
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const std::string_view t = vocab_.text(id);
      pieces.push_back(t);
      for (size_t i = t.empty() ? 0 : utf8_length(uint8_t(t[0])); i < t.size(); i += utf8_length(uint8_t(t[i]))) {
        const uint32_t left = symbol_id(t.substr(0, i)), right = symbol_id(t.substr(i));
        if (left != SpmVocab::kNone && right != SpmVocab::kNone) merges.push_back(Merge{left, right, id});
      }
    }
    merges_.reserve(merges.size());
    for (const Merge& m : merges) merges_.insert(m.left, m.right, m.piece);
    small_ids_ = vocab_.size() + virtual_texts_.size() <= PieceCache::kPairIdLimit;
    adjacency_ = PieceAdjacency(pieces);
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
    piece_characters_.resize(vocab_.size());
    for (uint32_t id = 0; id < vocab_.size(); ++id) {
      const std::string& t = vocab_.text(id);
      const bool byte = vocab_.type(id) == SpmVocab::kByte;
      piece_bytes_[id] = byte ? 1 : uint32_t(t.size());
      piece_characters_[id] = byte ? kSplitsCharacters : 0;
      for (char c : t) piece_characters_[id] += !byte && (uint8_t(c) & 0xC0) != 0x80;
      if (!SpmVocab::producible(vocab_.type(id))) continue;
      const auto at = std::lower_bound(scores.begin(), scores.end(), vocab_.score(id), std::greater<float>());
      ranks_[id] = uint32_t(at - scores.begin());
    }
  }

  // A segment of one character is mostly a piece: its id comes from one_id() (kNoOne where it
  // is not a single id: byte fallback, unknown).
  void index_one_character_segments() {
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
      if (ids.size() == 1 && ids[0] != vocab_.unk_id()) adjacency_.set_one(c, ids[0]);
    }
  }

  // The id of a segment of character c alone (PieceAdjacency::kNoOne: none, or more than one).
  uint32_t one_id(uint32_t c) const { return adjacency_.info(c) & PieceAdjacency::kNoOne; }

  // The id of the symbol p[0..len) in merges (as below), a character through one_id() where
  // that is its piece.
  uint32_t symbol_id(const uint8_t* p, size_t len) const {
    size_t char_len;
    const uint32_t c = decode_utf8(p, len, char_len);
    const uint32_t id = one_id(c);
    if (char_len == len && id != PieceAdjacency::kNoOne && vocab_.type(id) != SpmVocab::kByte) return id;
    return symbol_id(std::string_view(reinterpret_cast<const char*>(p), len));
  }

  // The id of a symbol with text t in merges: its piece, or the virtual id of a character
  // found only inside pieces; kNone if it never merges.
  uint32_t symbol_id(std::string_view t) const {
    const uint32_t id = vocab_.find(t);
    if (id != SpmVocab::kNone || virtual_ids_.empty()) return id;
    const auto it = virtual_ids_.find(std::string(t));
    return it == virtual_ids_.end() ? SpmVocab::kNone : it->second;
  }

  // Appends a segment: from the table of one-character segments or the thread's tables, else
  // merged (and remembered).
  TF_INLINE void append_segment(const Text& text, const Segment& seg, Out& out, Cache& cache) const {
    const size_t one = seg.prefixed ? 0 : utf8_length(seg.p[0]);  // input bytes of one character
    if (seg.len == one) {
      size_t len;
      const bool escape = text.how.escape;
      const uint32_t id =
          one_id(seg.prefixed ? PieceAdjacency::read_char(' ', escape) : PieceAdjacency::read(seg.p, one, escape, len));
      if (id != PieceAdjacency::kNoOne) {
        *out.end = id;
        const uint32_t characters = !seg.prefixed;
        return commit(1, &characters, out);
      }
    }
    append_remembered(text, seg, out, cache);
  }

  TF_NOINLINE void append_remembered(const Text& text, const Segment& seg, Out& out, Cache& cache) const {
    // The key: the segment's input, after a space where it holds the prefix (" " reads as the
    // prefix reads). Where too long for the tables, the segment is merged each time.
    const uint8_t *k = seg.p, *lo = text.s, *hi = text.s + text.n;
    size_t len = seg.len;
    if (seg.prefixed && len < PieceCache::kMaxBytes) {
      cache.key.assign(1, ' ').append(reinterpret_cast<const char*>(seg.p), seg.len);
      k = lo = reinterpret_cast<const uint8_t*>(cache.key.data());
      hi = k + ++len;
    } else if (seg.prefixed) {
      len = PieceCache::kMaxBytes + 1;
    }
    PieceCache& pieces = cache.pieces;
    std::vector<uint32_t>& ids = pieces.ids;
    cache.lengths.clear();  // (a merge gives them)
    if (len <= kShortPiece) {
      const ShortKey key = short_key(k, len, lo, hi);
      const uint64_t hash = key.hash();
      if (const ShortPieceTable::Entry* e = pieces.shorts.find(key, hash))
        return commit_entry(pieces.shorts, *e, text, seg, out, cache);
      if (merge(text, seg, cache)) pieces.shorts.insert(key, hash, ids.data(), ids.size());
    } else if (len <= kMediumPiece) {
      const MediumKey key = medium_key(k, len);
      const uint64_t hash = key.hash();
      if (const MediumPieceTable::Entry* e = pieces.mediums.find(key, hash))
        return commit_entry(pieces.mediums, *e, text, seg, out, cache);
      if (merge(text, seg, cache)) pieces.mediums.insert(key, hash, ids.data(), ids.size());
    } else if (len <= PieceCache::kMaxBytes) {
      const uint64_t key = bytes_key(k, len);
      ids.clear();
      if (!pieces.get_long(k, len, key, ids) && merge(text, seg, cache))
        pieces.put_long(k, len, key, ids.data(), ids.size());
    } else {
      merge(text, seg, cache);
    }
    std::memcpy(out.end, ids.data(), ids.size() * sizeof(uint32_t));
    commit_segment(ids.size(), text, seg, out, cache);
  }

  // Merges a segment into cache.pieces.ids (and the normalized bytes each covers into
  // cache.lengths). Returns whether they may be remembered: whether the lengths follow from the
  // ids (an unknown id covers what the others leave, known only where it stands alone).
  bool merge(const Text& text, const Segment& seg, Cache& cache) const {
    std::string_view normalized(reinterpret_cast<const char*>(seg.p), seg.len);
    if (seg.prefixed || (text.how.escape && normalized.find(' ') != std::string_view::npos)) {
      const std::string_view space = text.how.escape ? "\xE2\x96\x81" : " ";
      std::string& copy = cache.normalized;
      copy.assign(seg.prefixed ? space : "");
      for (size_t at = 0, next; at < normalized.size(); at = next + 1) {
        next = std::min(normalized.find(' ', at), normalized.size());
        copy.append(normalized.substr(at, next - at));
        if (next < normalized.size()) copy.append(space);
      }
      normalized = copy;
    }
    std::vector<uint32_t>& ids = cache.pieces.ids;
    ids.clear();
    cache.lengths.clear();
    encode_segment(reinterpret_cast<const uint8_t*>(normalized.data()), normalized.size(), 0, ids, &cache.lengths,
                   cache.merge);
    const bool unknown = std::find(ids.begin(), ids.end(), vocab_.unk_id()) != ids.end();
    return !unknown || ids.size() == 1;
  }

  template <class Table>
  void commit_entry(const Table& table, const typename Table::Entry& e, const Text& text, const Segment& seg, Out& out,
                    Cache& cache) const {
    commit_segment(size_t(table.emit(e, out.end) - out.end), text, seg, out, cache);
  }

  // commit() for a segment's `count` ids just written at out.end, the normalized bytes each
  // covers in cache.lengths (if empty: those of their pieces).
  void commit_segment(size_t count, const Text& text, const Segment& seg, Out& out, Cache& cache) const {
    if (!out.lengths) return commit(count, nullptr, out);
    std::vector<uint32_t>& input = cache.input_lengths;
    input.resize(count);
    const uint32_t* ids = out.end;
    // Mostly the ids are pieces, whose characters are the input's (a "▁" of theirs is a space
    // or a "▁"); the prefix is no character of the input.
    uint64_t sum = kSplitsCharacters;
    if (cache.lengths.empty() && ids[0] != vocab_.unk_id()) {
      sum = 0;
      for (size_t i = 0; i < count; ++i) sum += input[i] = piece_characters_[ids[i]];
      input[0] -= seg.prefixed;
    }
    if (sum >= kSplitsCharacters)
      input_characters(text.how, seg, ids, cache.lengths.empty() ? nullptr : cache.lengths.data(), count, input.data());
    commit(count, input.data(), out);
  }

  // The input characters each of a segment's `count` ids covers, from the normalized bytes each
  // covers (`normalized`; null: those of its piece, an unknown id covering all): an id that ends
  // inside a character covers none of it, the one that ends it all of it; the prefix is none.
  void input_characters(SpmEscaping how, const Segment& seg, const uint32_t* ids, const uint32_t* normalized,
                        size_t count, uint32_t* out) const {
    size_t pos = 0;               // input bytes of the segment taken
    uint32_t owed = 0, unit = 0;  // normalized bytes of the current character left; 1 if of the input
    bool prefix = seg.prefixed;
    for (size_t i = 0; i < count; ++i) {
      uint64_t need = normalized ? normalized[i] : ids[i] == vocab_.unk_id() ? ~uint64_t(0) : piece_bytes_[ids[i]];
      uint32_t covered = 0;
      while (need > 0) {
        if (owed == 0) {
          if (prefix) {
            prefix = false;
            owed = how.escape ? 3 : 1;
            unit = 0;
          } else if (pos < seg.len) {
            const size_t bytes = utf8_length(seg.p[pos]);
            owed = how.escape && seg.p[pos] == ' ' ? 3 : uint32_t(bytes);
            unit = 1;
            pos += bytes;
          } else {
            break;
          }
        }
        const uint32_t take = uint32_t(std::min<uint64_t>(need, owed));
        need -= take;
        owed -= take;
        covered += owed == 0 ? unit : 0;
      }
      out[i] = covered;
    }
  }

  // Takes the `count` ids just written at out.end, with the input characters each covers if
  // lengths are wanted.
  TF_INLINE void commit(size_t count, const uint32_t* lengths, Out& out) const {
    if (TF_UNLIKELY(out.end[0] == vocab_.unk_id())) return commit_unknown(count, lengths, out);
    if (out.lengths) {
      std::memcpy(out.lengths, lengths, count * sizeof(uint32_t));
      out.lengths += count;
    }
    out.end += count;
  }
  // commit() where the first id is the unknown id: one that continues a run of them is dropped,
  // what it covers added to the run's.
  TF_NOINLINE void commit_unknown(size_t count, const uint32_t* lengths, Out& out) const {
    uint32_t* ids = out.end;
    const bool skip = out.end > out.begin && vocab_.continues_unknown_run(ids[0], out.end[-1]);
    if (out.lengths) {
      if (skip) out.lengths[-1] += lengths[0];
      for (size_t i = skip; i < count; ++i) *out.lengths++ = lengths[i];
    }
    if (skip) std::memmove(ids, ids + 1, (count - 1) * sizeof(uint32_t));
    out.end += count - skip;
  }

  // The merges of one segment s[0..n) in sentencepiece's order; appends the ids of its final
  // symbols (and with `lengths` the bytes each covers); ids[first..] are this text's. A merge
  // whose turn comes is passed over when skip_merge() says so (BPE-dropout).
  static bool never() { return false; }
  template <class SkipMerge = bool (*)()>
  void encode_segment(const uint8_t* s, size_t n, size_t first, std::vector<uint32_t>& ids,
                      std::vector<uint32_t>* lengths, MergeState& state, SkipMerge&& skip_merge = never) const {
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
      symbols.push_back(Symbol{symbol_id(s + pos, len), uint32_t(pos), i ? i - 1 : kEnd, pos + len < n ? i + 1 : kEnd,
                               kNoToken, kNoToken, frozen});
      pos += len;
    }
    // Ranks the pair (i, next); an unused piece it would make remembers the parts.
    auto rank_pair = [&](uint32_t i) {
      Symbol& l = symbols[i];
      l.rank = l.merged = kNoToken;
      if (l.next == kEnd || l.frozen || symbols[l.next].frozen) return false;
      const Symbol& r = symbols[l.next];
      // (ids below the pair cache's limit: the table's misses are slow, and pairs recur)
      l.merged = state.pairs && small_ids_ ? state.pairs->merged(l.id, r.id, merges_) : merges_.find(l.id, r.id);
      if (l.merged == kNoToken) return false;
      l.rank = ranks_[l.merged];
      if (vocab_.type(l.merged) == SpmVocab::kUnused) state.splits[l.merged] = {l.id, r.id};
      return true;
    };
    // Merges the pair (i, next) and ranks the pairs around the new symbol; `ranked(j)` hears
    // of each pair (j, next) that merges.
    auto merge_at = [&](uint32_t i, auto ranked) {
      Symbol& l = symbols[i];
      Symbol& r = symbols[l.next];
      l.id = l.merged;
      l.next = r.next;
      if (r.next != kEnd) symbols[r.next].prev = i;
      r.rank = kNoToken;
      if (l.prev != kEnd && rank_pair(l.prev)) ranked(l.prev);
      if (rank_pair(i)) ranked(i);
    };
    for (uint32_t i = 0; i + 1 < symbols.size(); ++i) rank_pair(i);
    if (symbols.size() <= kScanned) {
      // Few symbols: a scan finds the leftmost best pair for less than a heap costs.
      for (;;) {
        uint32_t best = kNoToken, at = 0;
        for (uint32_t i = 0; i < symbols.size(); ++i)
          if (symbols[i].rank < best) best = symbols[i].rank, at = i;
        if (best == kNoToken) break;
        if (skip_merge())
          symbols[at].rank = kNoToken;
        else
          merge_at(at, [](uint32_t) {});
      }
    } else {
      for (uint32_t i = 0; i < symbols.size(); ++i)
        if (symbols[i].rank != kNoToken) agenda.push_back((uint64_t(symbols[i].rank) << 32) | i);
      const auto later = std::greater<uint64_t>();
      std::make_heap(agenda.begin(), agenda.end(), later);
      auto push = [&](uint32_t i) {
        agenda.push_back((uint64_t(symbols[i].rank) << 32) | i);
        std::push_heap(agenda.begin(), agenda.end(), later);
      };
      while (!agenda.empty()) {
        std::pop_heap(agenda.begin(), agenda.end(), later);
        const uint64_t top = agenda.back();
        agenda.pop_back();
        // Stale if the pair changed since; a pair of the same rank at the same place goes now anyway.
        const uint32_t at = uint32_t(top);
        if (symbols[at].rank != uint32_t(top >> 32)) continue;
        if (skip_merge())
          symbols[at].rank = kNoToken;
        else
          merge_at(at, push);
      }
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
        const size_t cut =
            left < vocab_.size() ? vocab_.text(left).size() : virtual_texts_[left - vocab_.size()].size();
        emit(left, text.substr(0, cut), state, first, ids, lengths);
        emit(right, text.substr(cut), state, first, ids, lengths);
        return;
      }
    }
    vocab_.emit(id < vocab_.size() ? id : vocab_.unk_id(), text, first, ids, lengths);
  }

  SpmVocab vocab_;
  PairTable merges_;                   // (symbol, symbol) -> the piece they make
  bool small_ids_ = false;             // symbol ids fit the thread's pair cache
  std::vector<uint32_t> ranks_;        // by piece: its score's rank
  std::vector<uint32_t> piece_bytes_;  // by id: the normalized bytes it covers (unknown: see input_characters)
  std::unordered_map<std::string, uint32_t> virtual_ids_;
  std::vector<std::string> virtual_texts_;
  std::vector<uint32_t> piece_characters_;  // by id: its characters (byte pieces: kSplitsCharacters)
  PieceAdjacency adjacency_;                // where texts are cut, and the id of each character alone
  mutable Pool<Cache> caches_;
};

}  // namespace tokenforge
