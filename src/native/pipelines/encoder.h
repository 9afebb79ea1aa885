// A byte-level BPE encoder: a built-in pre-tokenizer, the merge model, and special tokens.
#pragma once
#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "models/bpe/bpe_model.h"
#include "base/parallel.h"
#include "base/utf8.h"
#include "pre_tokenizers/scanner.h"
#include "added_tokens/special_matcher.h"

namespace tokenforge {

class Encoder {
 public:
  // pattern < 0: no built-in scanner; the caller splits text and uses encode_piece().
  Encoder(std::vector<std::string> tokens, std::vector<std::pair<std::string, uint32_t>> specials, int pattern)
      : model_(std::move(tokens)), pattern_(pattern) {
    for (const auto& [text, id] : specials) {
      if (model_.has(id) && model_.bytes_of(id) != text)
        throw std::invalid_argument("special token id " + std::to_string(id) + " is already an ordinary token");
      special_bytes_[id] = text;
    }
  }

  const BytePairModel& model() const { return model_; }

  // One past the largest id it can produce, leaving out special ids far above the vocabulary.
  size_t id_limit() const {
    size_t limit = model_.size();
    for (const auto& special : special_bytes_)
      if (special.first < model_.size() + 65536) limit = std::max(limit, size_t(special.first) + 1);
    return limit;
  }
  bool has_scanner() const { return pattern_ >= 0; }

  // Ordinary text only: special-token text is encoded like any other text.
  void encode_ordinary(const uint8_t* s, size_t n, std::vector<uint32_t>& out, PieceCache& cache) const {
    run_pattern<false>(s, n, out, cache, nullptr, 0);
  }

  // Text with the allowed special tokens (if any) turned into their ids.
  void encode(const uint8_t* s, size_t n, const SpecialMatcher* allowed, std::vector<uint32_t>& out) const {
    PieceCachePool::Lease cache(caches_);
    split_at_matches(
        allowed, s, n, [&](size_t from, size_t to) { encode_ordinary(s + from, to - from, out, cache.get()); },
        [&](const SpecialMatch& m) { out.push_back(m.id); });
  }

  // encode(), and where each piece ends in the same scan (input bytes, appended to ends): the
  // pattern's pieces of each stretch between allowed special tokens, and each special token.
  // (A token never crosses a piece, so a token's piece is HF's word id: pipelines/byte_level_bpe.h.)
  // encode() itself is compiled without this bookkeeping (run's kEnds).
  void encode_with_ends(const uint8_t* s, size_t n, const SpecialMatcher* allowed, std::vector<uint32_t>& out,
                        std::vector<size_t>& ends) const {
    PieceCachePool::Lease cache(caches_);
    split_at_matches(
        allowed, s, n,
        [&](size_t from, size_t to) { run_pattern<true>(s + from, to - from, out, cache.get(), &ends, from); },
        [&](const SpecialMatch& m) {
          out.push_back(m.id);
          ends.push_back(m.pos + m.len);
        });
  }
  // Raw bytes, not split and not necessarily UTF-8: tiktoken's byte_pair_encode.
  void encode_bytes(const uint8_t* p, size_t n, std::vector<uint32_t>& out) const { model_.encode_bytes(p, n, out); }
  // Pieces already split by the caller (patterns without a built-in scanner).
  void encode_pieces(const std::vector<std::pair<const uint8_t*, size_t>>& pieces, std::vector<uint32_t>& out) const {
    PieceCachePool::Lease cache(caches_);
    for (const auto& [p, n] : pieces) model_.encode_piece(p, n, out, cache.get());
  }

  // Bytes of a token (ordinary or special); nullptr if the id is unknown.
  const std::string* token_bytes(uint32_t id) const {
    if (model_.has(id)) return &model_.bytes_of(id);
    auto it = special_bytes_.find(id);
    return it == special_bytes_.end() ? nullptr : &it->second;
  }

  // Whether id is a special token (not an ordinary one).
  bool is_special(uint32_t id) const { return !model_.has(id) && special_bytes_.count(id) != 0; }

  // The largest id with a token (ordinary or special).
  uint32_t max_token_id() const {
    uint32_t top = model_.size() ? uint32_t(model_.size() - 1) : 0;
    for (const auto& special : special_bytes_) top = std::max(top, special.first);
    return top;
  }

  // Where each of ids[0..count), the ids of s[0..n), starts: chars[i], the index of the
  // character that holds its first byte; bytes[i], that byte's offset.
  void token_starts(const uint8_t* s, size_t n, const uint32_t* ids, size_t count, uint32_t* chars,
                    uint32_t* bytes) const {
    size_t byte = 0, counted_to = 0, chars_before = 0;  // chars_before: characters starting in s[0..counted_to)
    for (size_t i = 0; i < count; ++i) {
      const size_t to = std::min(byte + 1, n);
      if (counted_to < to) {
        chars_before += count_characters(s, counted_to, to, n);
        counted_to = to;
      }
      chars[i] = uint32_t(chars_before ? chars_before - 1 : 0);
      bytes[i] = uint32_t(byte);
      byte += token_bytes(ids[i])->size();
    }
  }

  // Appends the bytes of ids[0..n) to out, up to the first id without a token; returns that
  // id's position (n if every id has one).
  size_t decode(const uint32_t* ids, size_t n, std::string& out) const {
    for (size_t i = 0; i < n; ++i) {
      const std::string* b = token_bytes(ids[i]);
      if (!b) return i;
      out += *b;
    }
    return n;
  }

  // The number of ordinary tokens (ranks with bytes).
  size_t token_count() const {
    size_t n = 0;
    for (const auto& t : model_.tokens()) n += !t.empty();
    return n;
  }

 private:
  // Pieces are found a batch at a time. Warm (the last batch stored no piece new to the thread),
  // each piece's key is read, hashed and looked up in one pass (warm_batch): the lookups of
  // neighbouring pieces are independent, so the CPU overlaps their cache misses by itself.
  // Otherwise (new text) the keys of the next batch are computed and their short-table slots
  // prefetched while this one is encoded (batch_keys), and the model's slots of the pieces the
  // thread lacks are prefetched together before any is merged.
  static constexpr size_t kBatch = 32;
  struct Batch {
    size_t count = 0;
    size_t bounds[kBatch + 1];      // piece i is [bounds[i], bounds[i + 1])
    bool keyed = false;             // whether batch_keys has filled what follows
    ShortKey keys[kBatch];          // of pieces up to 15 bytes
    MediumKey medium_keys[kBatch];  // of pieces of 16..31 bytes
    uint64_t hashes[kBatch];
  };

  // run() for this encoder's pattern.
  template <bool kEnds>
  void run_pattern(const uint8_t* s, size_t n, std::vector<uint32_t>& out, PieceCache& cache, std::vector<size_t>* ends,
                   size_t base) const {
    switch (Pattern(pattern_)) {
      case Pattern::kGpt2:
        return run<Pattern::kGpt2, kEnds>(s, n, out, cache, ends, base);
      case Pattern::kCl100k:
        return run<Pattern::kCl100k, kEnds>(s, n, out, cache, ends, base);
      case Pattern::kO200k:
        return run<Pattern::kO200k, kEnds>(s, n, out, cache, ends, base);
      case Pattern::kTekken:
        return run<Pattern::kTekken, kEnds>(s, n, out, cache, ends, base);
      default:  // the tokenizer.json patterns (pipelines/byte_level_hf_bpe.h)
        break;
    }
    throw std::logic_error("no built-in pre-tokenizer for this pattern");
  }

  // Encodes s[0..n) with pattern P; with kEnds, also appends base + the end of each piece to
  // *ends (the bounds the scan finds anyway, a batch at a time).
  template <Pattern P, bool kEnds>
  void run(const uint8_t* s, size_t n, std::vector<uint32_t>& out, PieceCache& cache, std::vector<size_t>* ends,
           size_t base) const {
    Scanner scan(s, n);
    // Pieces of one byte have short keys too (their ids are stored in the thread's table like
    // any short piece's), so that nearly every piece takes the same path, whatever its length.
    auto find_batch = [&](size_t p, Batch& b, bool keyed) {
      b.bounds[0] = p;
      b.count = p < n ? scan.ends<P>(p, b.bounds + 1, kBatch) : 0;
      b.keyed = keyed;
      if (keyed) batch_keys(s, n, b, cache);
    };
    // Ids go to a reused buffer (the output is never zero-filled ahead) and are appended to
    // out when it is full. A piece of k bytes gives at most k ids, and a hit in a piece table
    // writes its inline slots and the word after them whole, so a batch of pieces of k bytes in
    // all needs k + 4 slots (a medium hit writes 8, within its at least 16 bytes).
    IdBuffer& buf = cache.out;
    uint32_t* w = buf.begin();
    Batch batches[2];
    bool probe = false;  // whether the last batch met pieces new to this thread
    find_batch(0, batches[0], probe);
    for (int cur = 0; batches[cur].count; cur ^= 1) {
      Batch& b = batches[cur];
      const size_t room = b.bounds[b.count] - b.bounds[0] + 4;
      if (size_t(buf.end() - w) < room) {
        out.insert(out.end(), buf.begin(), w);
        buf.reserve(room);
        w = buf.begin();
      }
      find_batch(b.bounds[b.count], batches[cur ^ 1], probe);
      if constexpr (kEnds)
        for (size_t i = 1; i <= b.count; ++i) ends->push_back(base + b.bounds[i]);
      const size_t stored = cache.shorts.size();
      if (!probe) {
        w = n - b.bounds[b.count] >= 16 ? warm_batch<true>(s, n, b, w, cache) : warm_batch<false>(s, n, b, w, cache);
        probe = cache.shorts.size() != stored;
        continue;
      }
      // Text new to this thread (the last batch stored pieces): the batch's short pieces are
      // looked up first, all of them, and the model's slots of those the thread lacks are
      // prefetched, so that their lookups overlap instead of waiting one by one. Storing a
      // piece may move the table; then the later pieces look up again.
      if (!b.keyed) batch_keys(s, n, b, cache);
      const ShortPieceTable::Entry* found[kBatch];
      for (size_t i = 0; i < b.count; ++i) {
        const size_t len = b.bounds[i + 1] - b.bounds[i];
        if (len > kShortPiece) continue;
        found[i] = cache.shorts.find(b.keys[i], b.hashes[i]);
        if (!found[i] && len > 1) model_.prefetch_short_token(b.hashes[i]);
      }
      const uint32_t generation = cache.shorts.generation();
      const size_t count = b.count;
      for (size_t i = 0, from = b.bounds[0]; i < count; ++i) {
        const size_t to = b.bounds[i + 1], len = to - from;
        const uint8_t* piece = s + from;
        from = to;
        if (len <= kShortPiece) {
          const ShortPieceTable::Entry* e =
              cache.shorts.generation() == generation ? found[i] : cache.shorts.find(b.keys[i], b.hashes[i]);
          if (e)
            w = cache.shorts.emit(*e, w);
          else
            w = short_miss(piece, len, b.keys[i], b.hashes[i], w, cache);
        } else if (len <= kMediumPiece) {
          w = model_.encode_medium(piece, len, b.medium_keys[i], b.hashes[i], w, cache);
        } else {
          w = long_piece(piece, len, w, cache);
        }
      }
      probe = cache.shorts.size() != stored;
    }
    out.insert(out.end(), buf.begin(), w);
  }

  // The keys and hashes of a batch's pieces (once the bounds are in), their slots prefetched.
  TF_NOINLINE static void batch_keys(const uint8_t* s, size_t n, Batch& b, PieceCache& cache) {
    for (size_t i = 0, from = b.bounds[0]; i < b.count; ++i) {  // from: bounds[i], kept in a register
      const size_t to = b.bounds[i + 1], len = to - from;
      if (len <= kShortPiece) {
        b.keys[i] = short_key(s + from, len, s, s + n);
        b.hashes[i] = b.keys[i].hash();
        cache.shorts.prefetch(b.hashes[i]);
      } else if (len <= kMediumPiece) {
        b.medium_keys[i] = medium_key(s + from, len);
        b.hashes[i] = b.medium_keys[i].hash();
        cache.mediums.prefetch(b.hashes[i]);
      }
      from = to;
    }
  }

  // A batch of pieces where the last batch met none new to this thread (so most likely this
  // one has none either), in one pass: a short piece's key (two loads and masks where kInside,
  // the batch ending 16 bytes or more before the text does), its hash, and a probe of the
  // thread's table through a View kept in registers; a hit's ids are written with one vector
  // move. A piece the table lacks goes to short_miss, which may move the table: the View is
  // read again.
  template <bool kInside>
  TF_NOINLINE uint32_t* warm_batch(const uint8_t* s, size_t n, const Batch& b, uint32_t* w, PieceCache& cache) const {
    ShortPieceTable::View shorts = cache.shorts.view();
    for (const size_t *bound = b.bounds, *last = b.bounds + b.count; bound != last; ++bound) {
      const size_t from = bound[0], len = bound[1] - from;
      const uint8_t* piece = s + from;
      if (TF_LIKELY(len <= kShortPiece)) {
        const ShortKey key = kInside ? short_key_inside(piece, len) : short_key(piece, len, s, s + n);
        const uint64_t hash = key.hash();
        if (const ShortPieceTable::Entry* e = shorts.find(key, hash); TF_LIKELY(e != nullptr)) {
          w = cache.shorts.emit_whole(*e, w);
          continue;
        }
        w = short_miss(piece, len, key, hash, w, cache);
        shorts = cache.shorts.view();
      } else if (len <= kMediumPiece) {
        const MediumKey key = medium_key(piece, len);
        const uint64_t hash = key.hash();
        if (const MediumPieceTable::Entry* e = cache.mediums.find(key, hash); TF_LIKELY(e != nullptr)) {
          w = cache.mediums.emit_whole(*e, w);
          continue;
        }
        w = medium_miss(piece, len, key, hash, w, cache);
        shorts = cache.shorts.view();
      } else {
        w = long_piece(piece, len, w, cache);
        shorts = cache.shorts.view();
      }
    }
    return w;
  }

  // A short piece the thread's table lacks: its ids at w (room for len + 3), remembered there.
  TF_NOINLINE uint32_t* short_miss(const uint8_t* piece, size_t len, ShortKey key, uint64_t hash, uint32_t* w,
                                   PieceCache& cache) const {
    if (len == 1) {
      *w = first_byte(piece[0], key, hash, cache);
      return w + 1;
    }
    return model_.encode_short(piece, len, key, hash, w, cache);
  }
  // A piece of 16..31 bytes the thread's table lacks: its ids at w (room for len + 3).
  TF_NOINLINE uint32_t* medium_miss(const uint8_t* piece, size_t len, const MediumKey& key, uint64_t hash, uint32_t* w,
                                    PieceCache& cache) const {
    return model_.encode_medium(piece, len, key, hash, w, cache);
  }
  // A piece of more than 31 bytes: its ids at w (room for len).
  TF_NOINLINE uint32_t* long_piece(const uint8_t* piece, size_t len, uint32_t* w, PieceCache& cache) const {
    std::vector<uint32_t>& ids = cache.ids;
    ids.clear();
    model_.encode_long(piece, len, ids, cache);
    std::memcpy(w, ids.data(), ids.size() * sizeof(uint32_t));
    return w + ids.size();
  }

  // A one-byte piece not found in this thread's table (a batch probed ahead may have stored
  // it since): its token, remembered there.
  TF_NOINLINE uint32_t first_byte(uint8_t byte, const ShortKey& key, uint64_t hash, PieceCache& cache) const {
    if (const ShortPieceTable::Entry* e = cache.shorts.find(key, hash)) return e->ids[0];
    const uint32_t id = model_.byte_token(byte);
    cache.shorts.insert(key, hash, &id, 1);
    return id;
  }

  BytePairModel model_;
  int pattern_;
  std::unordered_map<uint32_t, std::string> special_bytes_;
  mutable PieceCachePool caches_;
};

}  // namespace tokenforge
