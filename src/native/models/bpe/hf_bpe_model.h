// HF tokenizers' BPE model (tokenizers/src/models/bpe/model.rs and word.rs), the model that
// tokenizer.json files call "type": "BPE": a vocabulary of token strings with ids, and merges
// "a b" whose rank is their place in the list. It is not tiktoken's byte-level BPE
// (models/bpe/bpe_model.h, which merges bytes by the rank of the merged token); HF's byte-level
// models are this one behind the ByteLevel pre-tokenizer, and sentencepiece-style ones (Llama 2)
// this one with byte_fallback.
//
// One piece of text (what the pre-tokenizer made; the staged pipeline, pipelines/staged.h, calls
// tokenize once per piece) becomes tokens in two steps, exactly as HF's BPE::tokenize:
//  1. Characters. Each character is looked up as a token: with continuing_subword_prefix before
//     it unless it is the first, with end_of_word_suffix after it if it is the last. A character
//     that is no token becomes its bytes' "<0xAB>" tokens (byte_fallback, when the vocabulary has
//     every one of them, the prefix's and suffix's bytes included), else the unk token (one for a
//     run of them with fuse_unk), else nothing. A token covers the bytes its parts covered, so
//     offsets are running sums of lengths, as HF's (a dropped character shifts the ones after it;
//     a byte token covers one byte, even one of the prefix's or suffix's, so with byte_fallback
//     and an affix the last tokens may end past the piece, as HF's).
//  2. Merges. HF's priority queue: the pair with the lowest-ranked merge, leftmost on ties, is
//     merged next; a queued pair is still good when the pair now at its place merges into the
//     same token. The queue is the same (rank, place) order and the same check, so the result is
//     HF's on every input, strange vocabularies included; a heap keeps a megabyte of one
//     character at O(n log n). Where no queued pair can be good but stale (regular_ says when),
//     pieces of up to kScanSymbols symbols find the same next pair by a scan (scan_list, over a
//     linked list in arrays on the stack). With dropout each merge is skipped with that
//     probability (the skipped ones are queued again after the next merge that is made, as in
//     HF), drawn from the caller's generator or the thread's own.
// The merged token of "a" "b" is the token a + b, less the first len(prefix) bytes of b (which
// carries the prefix when it continues a word): with a prefix it is not the concatenation.
// merge_plain reads a piece whose characters are all tokens (no prefix, suffix or dropout)
// straight into the scan's arrays: tokenize takes it first, and so do callers with their own
// pair cache (pipelines/spm_hf_bpe.h's new pieces).
// ignore_merges: a piece that is a token whole is that token. Each thread remembers the pieces
// (up to 256 bytes) it has tokenized, as HF's cache does (not with dropout).
//
// Neighbours: models/model_token.h (what tokenize emits), python/bind_bpe_model.cpp (the
// binding), tokenforge/models/bpe.py (the tokenizer.json record).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "base/hash_tables.h"
#include "base/huge_array.h"
#include "base/inline_hints.h"
#include "base/leftmost_min.h"
#include "base/pool.h"
#include "models/model_token.h"

namespace tokenforge {

// HF's BPE options (tokenizer.json's names). A missing string option is the same as an empty one.
struct HfBpeOptions {
  std::optional<std::string> unk_token;
  std::optional<std::string> continuing_subword_prefix;
  std::optional<std::string> end_of_word_suffix;
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::optional<float> dropout;  // probability of skipping a merge, in [0, 1]
};

namespace hf_bpe {

inline uint64_t hash_bytes(const uint8_t* p, size_t n) { return mix64(bytes_key(p, n) ^ (n * 0x9E3779B97F4A7C15ull)); }

// The code point of the UTF-8 character at p[0..n) and its length; an invalid byte is a
// character of its own with no code point (kNoToken), which no token is.
inline std::pair<uint32_t, size_t> next_char(const uint8_t* p, size_t n) {
  const uint8_t b = p[0];
  if (b < 0x80) return {b, 1};
  auto cont = [&](size_t i) { return i < n && (p[i] & 0xC0) == 0x80; };
  if (b >= 0xC2 && b < 0xE0 && cont(1)) return {uint32_t(b & 0x1F) << 6 | (p[1] & 0x3F), 2};
  if (b >= 0xE0 && b < 0xF0 && cont(1) && cont(2)) {
    const uint32_t c = uint32_t(b & 0x0F) << 12 | uint32_t(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
    if (c >= 0x800 && (c < 0xD800 || c > 0xDFFF)) return {c, 3};
  } else if (b >= 0xF0 && b < 0xF5 && cont(1) && cont(2) && cont(3)) {
    const uint32_t c =
        uint32_t(b & 0x07) << 18 | uint32_t(p[1] & 0x3F) << 12 | uint32_t(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
    if (c >= 0x10000 && c <= 0x10FFFF) return {c, 4};
  }
  return {kNoToken, 1};
}

// Token string -> id; a string inserted again takes the later id (as HF's vocabulary map).
class TokenIds {
 public:
  void build(const std::vector<std::pair<std::string, uint32_t>>& vocab) {
    size_t cap = 16;
    while (cap < vocab.size() * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    size_t bytes = 0;
    for (const auto& [token, id] : vocab) bytes += token.size();
    if (bytes >= kEmpty) throw std::invalid_argument("the vocabulary's tokens take more than 4 GiB");
    arena_.reserve(bytes);
    // The hashes first, so that each insert can ask for the slot of one kAhead tokens later (a
    // large vocabulary's table is far larger than the caches: each insert would wait for memory).
    constexpr size_t kAhead = 8;
    std::vector<uint64_t> hashes(vocab.size());
    for (size_t k = 0; k < vocab.size(); ++k)
      hashes[k] = hash_bytes(reinterpret_cast<const uint8_t*>(vocab[k].first.data()), vocab[k].first.size());
    for (size_t k = 0; k < vocab.size(); ++k) {
      if (k + kAhead < vocab.size()) __builtin_prefetch(&slots_[hashes[k + kAhead] & mask_]);
      const auto& [token, id] = vocab[k];
      const auto* p = reinterpret_cast<const uint8_t*>(token.data());
      Slot& s = probe(p, token.size(), hashes[k]);
      if (s.off == kEmpty) {
        s = Slot{hashes[k], head(p, token.size()), uint32_t(arena_.size()), uint32_t(token.size()), id};
        arena_ += token;
        ++size_;
      } else {
        s.id = id;
      }
    }
  }
  uint32_t find(const uint8_t* p, size_t n) const { return find_hashed(p, n, hash_bytes(p, n)); }
  uint32_t find(std::string_view t) const { return find(reinterpret_cast<const uint8_t*>(t.data()), t.size()); }
  // The same with h = hash_bytes(p, n), as computed for a prefetch.
  uint32_t find_hashed(const uint8_t* p, size_t n, uint64_t h) const {
    const Slot& s = const_cast<TokenIds*>(this)->probe(p, n, h);
    return s.off == kEmpty ? kNoToken : s.id;
  }
  // Asks the memory for the slot where a find of the bytes with hash h starts.
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  size_t size() const { return size_; }
  // Calls f(token, id) for each token.
  template <class F>
  void each(F f) const {
    for (size_t i = 0; i < slots_.size(); ++i)
      if (const Slot& s = slots_[i]; s.off != kEmpty) f(std::string_view(arena_.data() + s.off, s.len), s.id);
  }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  // A token's first 8 bytes (zero-padded) are kept in its slot: most tokens are no longer, and
  // their finds then compare without reading the arena (which a large vocabulary's finds miss in
  // the caches, loading merges by the hundred thousand).
  struct Slot {
    uint64_t hash = 0, head = 0;
    uint32_t off = kEmpty, len = 0, id = 0;
  };
  static uint64_t head(const uint8_t* p, size_t n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n < 8 ? n : 8);
    return w;
  }
  Slot& probe(const uint8_t* p, size_t n, uint64_t h) {
    const uint64_t first = head(p, n);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.off == kEmpty) return s;
      if (s.hash == h && s.len == n && s.head == first &&
          (n <= 8 || std::memcmp(arena_.data() + s.off + 8, p + 8, n - 8) == 0))
        return s;
    }
  }
  HugeArray<Slot> slots_;  // huge pages: a large vocabulary's lookups would miss the TLB
  size_t mask_ = 0, size_ = 0;
  std::string arena_;
};

// Code point -> id of the token that is that character (with a given prefix and suffix).
class CharIds {
 public:
  CharIds() : bmp_(size_t(1) << 16, kNoToken) {}
  void set(uint32_t c, uint32_t id) {
    if (c < bmp_.size())
      bmp_[c] = id;
    else
      rest_[c] = id;
  }
  TF_INLINE uint32_t get(uint32_t c) const {
    if (TF_LIKELY(c < bmp_.size())) return bmp_[c];
    if (rest_.empty()) return kNoToken;
    const auto it = rest_.find(c);
    return it == rest_.end() ? kNoToken : it->second;
  }

 private:
  std::vector<uint32_t> bmp_;
  std::unordered_map<uint32_t, uint32_t> rest_;
};

// (left id, right id) -> (rank, merged id); a pair listed again takes the later rank and merged
// token (as HF's merge map).
class MergeTable {
 public:
  struct Merge {
    uint32_t rank, merged;
  };
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{kEmptyKey, {0, 0}});
    mask_ = cap - 1;
  }
  void insert(uint32_t a, uint32_t b, Merge m) {
    const uint64_t key = uint64_t(a) << 32 | b;
    size_t i = mix64(key) & mask_;
    for (; slots_[i].key != kEmptyKey; i = (i + 1) & mask_)
      if (slots_[i].key == key) break;
    slots_[i] = Slot{key, m};
  }
  // Asks the memory for the slot of (a, b) ahead of a find.
  TF_INLINE void prefetch(uint32_t a, uint32_t b) const {
    __builtin_prefetch(&slots_[mix64(uint64_t(a) << 32 | b) & mask_]);
  }
  // The merge of (a, b), or nullptr.
  TF_INLINE const Merge* find(uint32_t a, uint32_t b) const {
    const uint64_t key = uint64_t(a) << 32 | b;
    for (size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.merge;
      if (s.key == kEmptyKey) return nullptr;
    }
  }

 private:
  // Ids are below kNoToken, so no pair has this key.
  static constexpr uint64_t kEmptyKey = ~uint64_t(0);
  struct Slot {
    uint64_t key;
    Merge merge;
  };
  HugeArray<Slot> slots_;  // huge pages: a new piece's pair lookups would miss the TLB too
  size_t mask_ = 0;
};

// A thread's small direct-mapped memory of pair lookups in front of the MergeTable (which for a
// large vocabulary lies beyond the core's caches): text looks up the same pairs again and again.
class PairCache {
 public:
  // The merge of (a, b); rank kNoToken if none.
  template <class Table>
  TF_INLINE MergeTable::Merge find(uint32_t a, uint32_t b, const Table& table) {
    const uint64_t key = uint64_t(a) << 32 | b;
    Entry& e = entries_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kLog)];
    if (e.key != key) {
      const MergeTable::Merge* m = table.find(a, b);
      e.key = key;
      e.merge = m ? *m : MergeTable::Merge{kNoToken, kNoToken};
    }
    return e.merge;
  }
  // Asks the memory for (a, b)'s entry here and its slot in the table, ahead of a find: the
  // lookups of a new piece's pairs then wait for the memory together, not one after another.
  template <class Table>
  TF_INLINE void prefetch(uint32_t a, uint32_t b, const Table& table) const {
    const uint64_t key = uint64_t(a) << 32 | b;
    const Entry& e = entries_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kLog)];
    __builtin_prefetch(&e);
    table.prefetch(a, b);
  }

 private:
  static constexpr int kLog = 14;
  struct Entry {
    uint64_t key = ~uint64_t(0);  // no pair: ids are below kNoToken
    MergeTable::Merge merge;
  };
  std::vector<Entry> entries_ = std::vector<Entry>(size_t(1) << kLog);
};

// A thread's memory of pieces and their tokens, keyed by the piece's exact bytes; it forgets
// everything when full (it only saves time).
class PieceMemo {
 public:
  static constexpr size_t kMaxBytes = 256;  // HF's MAX_LENGTH: longer pieces are not remembered

  bool get(const uint8_t* p, size_t n, uint64_t h, std::vector<ModelToken>& out) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.count == kEmpty) return false;
      if (s.hash == h && s.len == n && std::memcmp(keys_.data() + s.key, p, n) == 0) {
        out.insert(out.end(), tokens_.begin() + s.tokens, tokens_.begin() + s.tokens + s.count);
        return true;
      }
    }
  }
  void put(const uint8_t* p, size_t n, uint64_t h, const ModelToken* tokens, size_t count) {
    if ((size_ + 1) * 2 > slots_.size()) {
      if (slots_.size() < kMaxSlots) {
        grow();
      } else {
        slots_.assign(slots_.size(), Slot{});
        keys_.clear();
        tokens_.clear();
        size_ = 0;
      }
    }
    size_t i = h & mask_;
    while (slots_[i].count != kEmpty) i = (i + 1) & mask_;
    slots_[i] = Slot{h, uint32_t(keys_.size()), uint32_t(n), uint32_t(tokens_.size()), uint32_t(count)};
    keys_.append(reinterpret_cast<const char*>(p), n);
    tokens_.insert(tokens_.end(), tokens, tokens + count);
    ++size_;
  }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  static constexpr size_t kMinSlots = size_t(1) << 10, kMaxSlots = size_t(1) << 17;
  struct Slot {
    uint64_t hash = 0;
    uint32_t key = 0, len = 0, tokens = 0, count = kEmpty;
  };
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kMinSlots : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.count == kEmpty) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].count != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  std::string keys_;
  std::vector<ModelToken> tokens_;
};

}  // namespace hf_bpe

class HfBpeModel {
 public:
  using Vocab = std::vector<std::pair<std::string, uint32_t>>;
  using Merges = std::vector<std::pair<std::string, std::string>>;  // in rank order

  // Throws std::invalid_argument, as HF's builder fails: dropout outside [0, 1], a merge naming
  // a token that is not in the vocabulary, or whose merged token is not. Ids must be below
  // 2^32 - 1. An unk_token missing from the vocabulary is an error only when a piece needs it.
  HfBpeModel(const Vocab& vocab, const Merges& merges, HfBpeOptions options)
      : options_(std::move(options)), scratch_(std::make_unique<Pool<Scratch>>()) {
    if (options_.dropout && !(*options_.dropout >= 0.0f && *options_.dropout <= 1.0f))
      throw std::invalid_argument("dropout should be between 0 and 1, inclusive, got " +
                                  std::to_string(*options_.dropout));
    for (const auto& [token, id] : vocab)
      if (id == kNoToken) throw std::invalid_argument("token id 4294967295 (of `" + token + "`) is too large");
    tokens_.build(vocab);
    prefix_ = options_.continuing_subword_prefix.value_or("");
    suffix_ = options_.end_of_word_suffix.value_or("");
    index_characters();
    std::fill(std::begin(byte_ids_), std::end(byte_ids_), kNoToken);
    if (options_.byte_fallback) {
      for (int b = 0; b < 256; ++b) {
        static const char* kHex = "0123456789ABCDEF";
        const char name[7] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>', 0};
        byte_ids_[b] = tokens_.find(std::string_view(name, 6));
      }
    }
    if (options_.unk_token) unk_id_ = tokens_.find(*options_.unk_token);
    dropout_ = options_.dropout.value_or(0.0f);
    index_merges(merges);
    plain_ = regular_ && dropout_ <= 0.0f && prefix_.empty() && suffix_.empty() && chars_[0];
    suffixed_scan_ = regular_ && dropout_ <= 0.0f && prefix_.empty() && !suffix_.empty();
  }

  const HfBpeOptions& options() const { return options_; }
  size_t vocab_size() const { return tokens_.size(); }
  size_t merge_count() const { return merge_count_; }
  // The id of a token string, or kNoToken.
  uint32_t token_id(std::string_view token) const { return tokens_.find(token); }
  // Whether tokenize's result is random (dropout above 0).
  bool random() const { return dropout_ > 0.0f; }

  // Appends the tokens of the piece s[0..n) (UTF-8), with byte offsets into it. Thread-safe.
  // With dropout, the draws come from this thread's generator (seeded from std::random_device).
  void tokenize(const char* s, size_t n, std::vector<ModelToken>& out) const { run(s, n, out, nullptr); }
  // The merges alone, even with ignore_merges (for a part of a piece that no merge crosses into
  // or out of: pipelines/byte_level_hf_bpe.h cuts long pieces so). Without dropout. remember:
  // whether the thread's memory of pieces is asked and fed (a caller with its own may say no).
  void tokenize_merges(const char* s, size_t n, std::vector<ModelToken>& out, bool remember = true) const {
    run(s, n, out, nullptr, /*whole_token=*/false, remember);
  }
  // The same, drawing from rng: the same seed gives the same tokens.
  void tokenize(const char* s, size_t n, std::vector<ModelToken>& out, std::mt19937_64& rng) const {
    run(s, n, out, &rng);
  }

  // Longest piece (in symbols) merged by a scan; longer ones go through the queue (the scan is
  // quadratic, the queue n log n).
  static constexpr size_t kScanSymbols = 128;

  // tokenize_merges' tokens of the piece s[0..n) (n > 0) for a caller that keeps its own
  // per-thread pair cache (pipelines/spm_hf_bpe.h, whose new pieces then take no lease of the
  // pool and build no symbol list): ids[0..k) and the bytes each covers, lens[0..k) (both with
  // room for kScanSymbols), k returned. 0 where this path does not apply and the caller calls
  // tokenize_merges: a character that is no token, over kScanSymbols characters, a continuing
  // prefix or word suffix, dropout, or a vocabulary that is not regular_ (see merge_by_scan).
  size_t merge_plain(const uint8_t* s, size_t n, uint32_t* ids, uint32_t* lens, hf_bpe::PairCache& pairs) const {
    if (!plain_) return 0;
    const hf_bpe::CharIds& chars = *chars_[0];
    size_t count = 0;
    for (size_t i = 0; i < n;) {
      if (count == kScanSymbols) return 0;
      const auto [c, len] = hf_bpe::next_char(s + i, n - i);
      const uint32_t id = chars.get(c);
      if (id == kNoToken) return 0;
      ids[count] = id;
      lens[count++] = uint32_t(len);
      i += len;
    }
    return scan_list(ids, lens, count, pairs);
  }

  // merge_plain's merge over symbols the caller read itself: ids[0..count) (each a token of a
  // character of the model's text) covering lens[0..count) bytes of the caller's text, merged
  // in place; the number left, or 0 where merge_plain would not apply (or count is 0 or over
  // kScanSymbols).
  size_t merge_symbols(uint32_t* ids, uint32_t* lens, size_t count, hf_bpe::PairCache& pairs) const {
    if (!plain_ || count > kScanSymbols) return 0;
    return scan_list(ids, lens, count, pairs);
  }
  // merge_symbols where the caller knows the merges of the first pairs already: first[k] is
  // merge_of(ids[k], ids[k + 1]) for k + 1 < count (pipelines/byte_level_hf_bpe.h keeps those
  // of every two bytes in a table of its own, so a new piece's first round of pairs, half of
  // its lookups, takes neither the pair cache nor the merge table).
  size_t merge_symbols(uint32_t* ids, uint32_t* lens, size_t count, const hf_bpe::MergeTable::Merge* first,
                       hf_bpe::PairCache& pairs) const {
    if (!plain_ || count > kScanSymbols) return 0;
    return scan_list(ids, lens, count, pairs, first);
  }
  // merge_symbols for a model with an end_of_word_suffix (no prefix, no dropout, regular_): the
  // caller put the suffixed character's token last itself (pipelines/byte_level_hf_bpe.h, CLIP's
  // files); merges go by ids, so the scan is the same. 0 where it does not apply.
  size_t merge_suffixed(uint32_t* ids, uint32_t* lens, size_t count, const hf_bpe::MergeTable::Merge* first,
                        hf_bpe::PairCache& pairs) const {
    if (!suffixed_scan_ || count > kScanSymbols) return 0;
    return scan_list(ids, lens, count, pairs, first);
  }
  // Whether merge_suffixed applies.
  bool suffixed_scan() const { return suffixed_scan_; }
  // The merge of the pair (a, b): its rank and merged token, both kNoToken if none.
  hf_bpe::MergeTable::Merge merge_of(uint32_t a, uint32_t b) const {
    const hf_bpe::MergeTable::Merge* m = merge_table_.find(a, b);
    return m ? *m : hf_bpe::MergeTable::Merge{kNoToken, kNoToken};
  }
  // Asks the memory for the merge table's slot of (a, b) ahead of merge_of.
  void prefetch_merge(uint32_t a, uint32_t b) const { merge_table_.prefetch(a, b); }
  // Whether merge_plain and merge_symbols apply.
  bool plain() const { return plain_; }
  bool ignores_merges() const { return options_.ignore_merges; }

 private:
  // Longest piece: symbols are counted in int32 and offsets (the prefix's bytes may count with
  // byte_fallback) in uint32.
  static constexpr size_t kMaxPiece = size_t(1) << 30;
  static_assert(kScanSymbols < 255, "scan_list keeps its places in bytes");
  struct Symbol {
    uint32_t id;
    int32_t prev, next;
    uint32_t len;  // bytes covered; 0: merged into the symbol before it
  };
  struct Queued {
    uint64_t key;  // rank << 32 | place: the smallest comes out first
    uint32_t merged;
    bool operator>(const Queued& o) const { return key > o.key; }
  };
  struct Scratch {
    std::vector<Symbol> symbols;
    std::vector<Queued> queue, skipped;
    std::vector<ModelToken> tokens;
    hf_bpe::PieceMemo memo;
    hf_bpe::PairCache pairs;
    std::mt19937_64 rng{std::random_device{}()};
    void trim() {
      release_if_large(symbols);
      release_if_large(queue);
      release_if_large(skipped);
      release_if_large(tokens);
    }
  };

  // Index of the character table for a character that is (not) first and (not) last.
  int table_of(bool first, bool last) const { return (!first && !prefix_.empty()) * 2 + (last && !suffix_.empty()); }

  void index_characters() {
    for (int t = 0; t < 4; ++t) {
      const bool prefixed = t & 2, suffixed = t & 1;
      if ((prefixed && prefix_.empty()) || (suffixed && suffix_.empty())) continue;
      const std::string_view pre = prefixed ? std::string_view(prefix_) : std::string_view();
      const std::string_view suf = suffixed ? std::string_view(suffix_) : std::string_view();
      chars_[t] = std::make_unique<hf_bpe::CharIds>();
      tokens_.each([&](std::string_view token, uint32_t id) {
        if (token.size() <= pre.size() + suf.size()) return;
        if (token.substr(0, pre.size()) != pre || token.substr(token.size() - suf.size()) != suf) return;
        const std::string_view middle = token.substr(pre.size(), token.size() - pre.size() - suf.size());
        const auto [c, len] = hf_bpe::next_char(reinterpret_cast<const uint8_t*>(middle.data()), middle.size());
        if (c != kNoToken && len == middle.size()) chars_[t]->set(c, id);
      });
    }
  }

  void index_merges(const Merges& merges) {
    if (merges.size() >= kNoToken) throw std::invalid_argument("too many merges");
    // Each merge's three tokens are looked up with their hashes computed kAhead ranks before,
    // when their slots are asked for (a large vocabulary's table is far larger than the caches);
    // the merges found are then inserted, each table slot asked for kAhead merges before too.
    constexpr size_t kAhead = 8, kRing = 16;
    struct Ahead {
      std::string merged;            // a + b less the prefix's bytes of b (empty if b is shorter)
      uint64_t a = 0, b = 0, m = 0;  // the hashes
    };
    Ahead ring[kRing];
    auto prefetch = [&](size_t rank) {
      const auto& [a, b] = merges[rank];
      Ahead& h = ring[rank % kRing];
      h.a = hf_bpe::hash_bytes(reinterpret_cast<const uint8_t*>(a.data()), a.size());
      h.b = hf_bpe::hash_bytes(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      tokens_.prefetch(h.a);
      tokens_.prefetch(h.b);
      h.merged.clear();
      if (b.size() >= prefix_.size()) {
        h.merged.assign(a).append(b, prefix_.size());
        h.m = hf_bpe::hash_bytes(reinterpret_cast<const uint8_t*>(h.merged.data()), h.merged.size());
        tokens_.prefetch(h.m);
      }
    };
    struct Found {
      uint32_t a, b, rank, merged;
    };
    std::vector<Found> found(merges.size());
    for (size_t rank = 0; rank < std::min(kAhead, merges.size()); ++rank) prefetch(rank);
    for (size_t rank = 0; rank < merges.size(); ++rank) {
      if (rank + kAhead < merges.size()) prefetch(rank + kAhead);
      const auto& [a, b] = merges[rank];
      const Ahead& h = ring[rank % kRing];
      auto fail = [&](const std::string& what) {
        throw std::invalid_argument("merge " + std::to_string(rank) + " (`" + a + "` `" + b + "`): " + what);
      };
      const uint32_t a_id = tokens_.find_hashed(reinterpret_cast<const uint8_t*>(a.data()), a.size(), h.a);
      if (a_id == kNoToken) fail("token `" + a + "` out of vocabulary");
      const uint32_t b_id = tokens_.find_hashed(reinterpret_cast<const uint8_t*>(b.data()), b.size(), h.b);
      if (b_id == kNoToken) fail("token `" + b + "` out of vocabulary");
      if (b.size() < prefix_.size())
        fail("the right token is shorter than continuing_subword_prefix `" + prefix_ + "`");
      const uint32_t m = tokens_.find_hashed(reinterpret_cast<const uint8_t*>(h.merged.data()), h.merged.size(), h.m);
      if (m == kNoToken) fail("the merged token `" + h.merged + "` out of vocabulary");
      found[rank] = {a_id, b_id, uint32_t(rank), m};
      regular_ &= b.size() > prefix_.size();
    }
    merge_table_.reserve(merges.size());
    for (size_t k = 0; k < found.size(); ++k) {
      if (k + kAhead < found.size()) merge_table_.prefetch(found[k + kAhead].a, found[k + kAhead].b);
      const Found& f = found[k];
      merge_table_.insert(f.a, f.b, {f.rank, f.merged});  // in rank order: a pair listed again takes the later
    }
    merge_count_ = merges.size();
    // Whether two tokens share an id: a bit per id where the ids are of the vocabulary's size
    // (they are in every file), else by sorting them.
    uint32_t top = 0;
    tokens_.each([&](std::string_view, uint32_t id) { top = std::max(top, id); });
    if (top / 8 <= tokens_.size() + 65536) {
      std::vector<bool> seen(size_t(top) + 1, false);
      tokens_.each([&](std::string_view, uint32_t id) {
        regular_ &= !seen[id];
        seen[id] = true;
      });
    } else {
      std::vector<uint32_t> ids;
      ids.reserve(tokens_.size());
      tokens_.each([&](std::string_view, uint32_t id) { ids.push_back(id); });
      std::sort(ids.begin(), ids.end());
      regular_ &= std::adjacent_find(ids.begin(), ids.end()) == ids.end();
    }
  }

  [[noreturn]] TF_NOINLINE void missing_unk() const {
    throw std::invalid_argument("unk token `" + *options_.unk_token + "` not found in the vocabulary");
  }

  void run(const char* text, size_t n, std::vector<ModelToken>& out, std::mt19937_64* rng, bool whole_token = true,
           bool memo = true) const {
    if (n == 0) return;
    if (n >= kMaxPiece) throw std::length_error("a piece of 1 GiB or more");
    const auto* s = reinterpret_cast<const uint8_t*>(text);
    if (options_.ignore_merges && whole_token) {
      const uint32_t id = tokens_.find(s, n);
      if (id != kNoToken) {
        out.push_back({id, 0, uint32_t(n)});
        return;
      }
    }
    Pool<Scratch>::Lease lease(*scratch_);
    Scratch& w = lease.get();
    const bool remember = memo && dropout_ <= 0.0f && n <= hf_bpe::PieceMemo::kMaxBytes;
    uint64_t h = 0;
    if (remember) {
      h = hf_bpe::hash_bytes(s, n);
      if (w.memo.get(s, n, h, out)) return;
    }
    const size_t first = out.size();
    if (plain_ && n <= 4 * kScanSymbols) {
      // (the characters read straight into the scan's arrays; 0: one is no token, or too many)
      uint32_t ids[kScanSymbols], lens[kScanSymbols];
      if (const size_t m = merge_plain(s, n, ids, lens, w.pairs)) {
        uint32_t at = 0;
        for (size_t k = 0; k < m; ++k) {
          out.push_back({ids[k], at, at + lens[k]});
          at += lens[k];
        }
        if (remember) w.memo.put(s, n, h, out.data() + first, m);
        return;
      }
    }
    split_characters(s, n, w.symbols);
    if (dropout_ > 0.0f)
      merge(w, rng ? rng : &w.rng);
    else if (regular_ && w.symbols.size() <= kScanSymbols)
      merge_by_scan(w);
    else
      merge(w, nullptr);
    uint32_t at = 0;
    for (const Symbol& sym : w.symbols) {
      if (sym.len == 0) continue;
      out.push_back({sym.id, at, at + sym.len});
      at += sym.len;
    }
    if (remember) w.memo.put(s, n, h, out.data() + first, out.size() - first);
  }

  // Step 1: the piece's characters as symbols (HF's BPE::merge_word before merge_all).
  void split_characters(const uint8_t* s, size_t n, std::vector<Symbol>& symbols) const {
    symbols.clear();
    auto add = [&](uint32_t id, uint32_t len) {
      const int32_t k = int32_t(symbols.size());
      if (k > 0) symbols.back().next = k;
      symbols.push_back({id, k - 1, -1, len});
    };
    bool pending = false;  // an unk token not yet added (fuse_unk extends it)
    uint32_t unk_id = 0, unk_len = 0;
    for (size_t i = 0; i < n;) {
      const auto [c, len] = hf_bpe::next_char(s + i, n - i);
      const bool first = i == 0, last = i + len >= n;
      const uint32_t id = chars_[table_of(first, last)]->get(c);
      if (TF_LIKELY(id != kNoToken)) {
        if (pending) {
          add(unk_id, unk_len);
          pending = false;
        }
        add(id, uint32_t(len));
        i += len;
        continue;
      }
      if (options_.byte_fallback && add_bytes(s + i, len, first, last, add)) {
        i += len;
        continue;
      }
      if (options_.unk_token) {
        if (pending && options_.fuse_unk) {
          unk_len += uint32_t(len);
        } else {
          if (pending) add(unk_id, unk_len);
          if (unk_id_ == kNoToken) missing_unk();
          unk_id = unk_id_;
          unk_len = uint32_t(len);
          pending = true;
        }
      }
      i += len;
    }
    if (pending) add(unk_id, unk_len);
  }

  // Byte fallback: adds the "<0xAB>" tokens of the character's bytes (the prefix's and suffix's
  // too, one byte each, as HF) if the vocabulary has every one.
  template <class Add>
  bool add_bytes(const uint8_t* c, size_t len, bool first, bool last, Add& add) const {
    const std::string_view pre = first ? std::string_view() : std::string_view(prefix_);
    const std::string_view suf = last ? std::string_view(suffix_) : std::string_view();
    auto each = [&](auto f) {
      for (char b : pre) f(uint8_t(b));
      for (size_t k = 0; k < len; ++k) f(c[k]);
      for (char b : suf) f(uint8_t(b));
    };
    bool all = true;
    each([&](uint8_t b) { all &= byte_ids_[b] != kNoToken; });
    if (!all) return false;
    each([&](uint8_t b) { add(byte_ids_[b], 1); });
    return true;
  }

  // Step 2 for a regular vocabulary (see index_merges) and a short piece, without dropout: the
  // pair with the lowest rank, leftmost on ties, merges next, found by a scan over the pairs'
  // ranks (scan_list) instead of a queue.
  void merge_by_scan(Scratch& w) const {
    std::vector<Symbol>& sym = w.symbols;
    const size_t count = sym.size();
    if (count < 2) return;
    uint32_t ids[kScanSymbols], lens[kScanSymbols];
    for (size_t k = 0; k < count; ++k) ids[k] = sym[k].id, lens[k] = sym[k].len;
    const size_t m = scan_list(ids, lens, count, w.pairs);
    sym.resize(m);
    for (size_t k = 0; k < m; ++k) sym[k] = {ids[k], int32_t(k) - 1, -1, lens[k]};
  }

  // merge_by_scan's merges (the same order: the lowest rank, leftmost on ties) over symbols
  // ids[0..count) covering lens[0..count) bytes, in place, for merge_plain: the merged symbols
  // are unlinked rather than moved (no memmove per merge), and only the pairs a merge makes new
  // are asked for ahead. The number of symbols left is returned. first, if not null: the
  // merges of the pairs (ids[k], ids[k + 1]), known to the caller, so not looked up.
  size_t scan_list(uint32_t* ids, uint32_t* lens, size_t count, hf_bpe::PairCache& pairs,
                   const hf_bpe::MergeTable::Merge* first = nullptr) const {
    if (count < 2) return count;
    constexpr uint8_t kNone = 0xFF;
    // rank[k], merged[k]: the merge of live symbol k with the live symbol after it (rank kNoToken
    // if none, or if k was merged away).
    uint32_t rank[kScanSymbols + 3], merged[kScanSymbols];  // rank: whole groups of 4 for the min-scan
    uint8_t next[kScanSymbols], prev[kScanSymbols];
    const size_t last = count - 1;
    const size_t padded = (last + 3) & ~size_t(3);
    if (!first)
      for (size_t k = 0; k < last; ++k) pairs.prefetch(ids[k], ids[k + 1], merge_table_);
    for (size_t k = 0; k < last; ++k) {
      const auto m = first ? first[k] : pairs.find(ids[k], ids[k + 1], merge_table_);
      rank[k] = m.rank;
      merged[k] = m.merged;
      next[k] = uint8_t(k + 1);
      prev[k + 1] = uint8_t(k);
    }
    for (size_t k = last; k < padded; ++k) rank[k] = kNoToken;
    next[last] = kNone;
    prev[0] = kNone;
    // The pairs that merging pair k would make, asked for ahead (a new piece's pairs lie beyond
    // the core's caches for a large vocabulary): the left one and the right one.
    auto ahead_left = [&](size_t k) {
      if (rank[k] != kNoToken && prev[k] != kNone) pairs.prefetch(ids[prev[k]], merged[k], merge_table_);
    };
    auto ahead_right = [&](size_t k) {
      if (rank[k] == kNoToken) return;
      const uint8_t after = next[next[k]];
      if (after != kNone) pairs.prefetch(merged[k], ids[after], merge_table_);
    };
    for (size_t k = 0; k < last; ++k) ahead_left(k), ahead_right(k);
    for (;;) {
      size_t k;
      if (leftmost_min(rank, padded, k) == kNoToken) break;
      const size_t right = next[k];
      const uint8_t after = next[right];
      const uint8_t before = prev[k];
      ids[k] = merged[k];
      lens[k] += lens[right];
      lens[right] = 0;
      rank[right] = kNoToken;
      next[k] = after;
      if (after != kNone) prev[after] = uint8_t(k);
      // The two pairs looked up next were asked for when pair k's rank was last found
      // (ahead_left(k) and ahead_right(k)): no second prefetch here.
      if (before != kNone) {
        const auto m = pairs.find(ids[before], ids[k], merge_table_);
        rank[before] = m.rank;
        merged[before] = m.merged;
        ahead_left(before), ahead_right(before);
        if (prev[before] != kNone) ahead_right(prev[before]);  // its right neighbour is new
      }
      if (after != kNone) {
        const auto m = pairs.find(ids[k], ids[after], merge_table_);
        rank[k] = m.rank;
        merged[k] = m.merged;
        ahead_left(k), ahead_right(k);
        ahead_left(after);  // its left neighbour is new
      } else {
        rank[k] = kNoToken;
      }
    }
    size_t m = 0;
    for (size_t k = 0; k != kNone; k = next[k]) ids[m] = ids[k], lens[m++] = lens[k];
    return m;
  }

  // Step 2: HF's Word::merge_all.
  void merge(Scratch& w, std::mt19937_64* rng) const {
    std::vector<Symbol>& sym = w.symbols;
    std::vector<Queued>& queue = w.queue;
    queue.clear();
    w.skipped.clear();
    for (size_t i = 0; i + 1 < sym.size(); ++i)
      if (const auto m = w.pairs.find(sym[i].id, sym[i + 1].id, merge_table_); m.rank != kNoToken)
        queue.push_back({uint64_t(m.rank) << 32 | i, m.merged});
    std::make_heap(queue.begin(), queue.end(), std::greater<Queued>());
    auto push = [&](uint32_t place, const hf_bpe::MergeTable::Merge& m) {
      queue.push_back({uint64_t(m.rank) << 32 | place, m.merged});
      std::push_heap(queue.begin(), queue.end(), std::greater<Queued>());
    };
    while (!queue.empty()) {
      std::pop_heap(queue.begin(), queue.end(), std::greater<Queued>());
      const Queued top = queue.back();
      queue.pop_back();
      if (rng) {
        const float draw = float((*rng)() >> 40) * (1.0f / 16777216.0f);  // uniform in [0, 1)
        if (draw < dropout_) {
          w.skipped.push_back(top);
          continue;
        }
        for (const Queued& q : w.skipped) {
          queue.push_back(q);
          std::push_heap(queue.begin(), queue.end(), std::greater<Queued>());
        }
        w.skipped.clear();
      }
      const uint32_t at = uint32_t(top.key);
      Symbol& left = sym[at];
      if (left.len == 0 || left.next < 0) continue;
      const Symbol right = sym[size_t(left.next)];
      const auto now = w.pairs.find(left.id, right.id, merge_table_);
      if (now.rank == kNoToken || now.merged != top.merged) continue;  // the pair there has changed
      left.id = top.merged;
      left.len += right.len;
      sym[size_t(left.next)].len = 0;
      left.next = right.next;
      if (right.next >= 0) sym[size_t(right.next)].prev = int32_t(at);
      if (left.prev >= 0)
        if (const auto m = w.pairs.find(sym[size_t(left.prev)].id, left.id, merge_table_); m.rank != kNoToken)
          push(uint32_t(left.prev), m);
      if (left.next >= 0)
        if (const auto m = w.pairs.find(left.id, sym[size_t(left.next)].id, merge_table_); m.rank != kNoToken)
          push(at, m);
    }
  }

  HfBpeOptions options_;
  std::string prefix_, suffix_;
  hf_bpe::TokenIds tokens_;
  std::unique_ptr<hf_bpe::CharIds> chars_[4];  // by table_of(first, last)
  uint32_t byte_ids_[256] = {};
  uint32_t unk_id_ = kNoToken;
  float dropout_ = 0.0f;
  // No two tokens share an id and every merge's right token is longer than the continuing prefix.
  // Then a merge makes the pair at a place merge into a longer token than before, so a queued
  // pair is still good exactly when it is the pair there now: HF's queue merges the
  // lowest-ranked pair, leftmost on ties, and a scan finds the same (merge_by_scan).
  bool regular_ = true;
  bool plain_ = false;          // merge_plain applies: regular_, no prefix, suffix or dropout
  bool suffixed_scan_ = false;  // merge_suffixed applies: regular_, a suffix, no prefix or dropout
  hf_bpe::MergeTable merge_table_;
  size_t merge_count_ = 0;
  std::unique_ptr<Pool<Scratch>> scratch_;  // per-thread working state (a pointer: the model can move)
};

}  // namespace tokenforge
