// The WordPiece pipeline in one pass: added tokens (those the caller's policy allows) are
// matched in the raw text first (leftmost, longest, as HF's added vocabulary does for tokens that
// are not normalized); the text between
// them goes through the character rules (normalizer + pre-tokenizer) into words, and each word
// through the WordPiece model. Offsets are code-point indices into the input, as Python sees it.
//
// Speed: ASCII characters go through a 128-entry table; while a word's bytes are one input
// character each, in order, their origins are implied rather than stored; and each thread's
// scratch keeps a cache of recent words (up to 16 bytes) with their pieces, since natural text
// repeats words, so most words skip the trie. encode_ids gives the ids alone (the same words,
// no rows): the Tokenizer's ids first.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "normalizers/bert_text.h"
#include "base/bytes.h"
#include "base/hash_tables.h"
#include "base/parallel.h"
#include "trainers/chunk_counts.h"
#include "base/pool.h"
#include "base/utf8.h"
#include "processors/post_processing.h"
#include "added_tokens/special_matcher.h"
#include "unicode/unicode_classes.h"
#include "models/wordpiece/wordpiece.h"

namespace tokenforge {

// Recent words and their pieces, direct-mapped. A word is keyed by its (zero-padded) 16 bytes
// and length; n == 0 marks a word that is [UNK] whole.
class WordCache {
 public:
  static constexpr size_t kMaxBytes = 16, kMaxPieces = 6;
  struct alignas(64) Entry {  // one cache line
    uint64_t k0 = 0, k1 = 0;
    uint8_t len = 0, n = 0;  // len 0: empty slot
    uint8_t ends[kMaxPieces];
    uint32_t ids[kMaxPieces];
  };

  WordCache() : slots_(kSlots) {}

  // w: a word of up to 16 bytes followed by zeros up to 16 (a WordBuffer).
  static void key(const uint8_t* w, uint64_t& k0, uint64_t& k1) {
    k0 = load8(w);
    k1 = load8(w + 8);
  }
  Entry& slot(uint64_t k0, uint64_t k1, size_t len) {
    return slots_[mix64(k0 * 0x9E3779B97F4A7C15ull ^ k1 ^ (uint64_t(len) << 56)) & (kSlots - 1)];
  }

 private:
  static constexpr size_t kSlots = 8192;
  std::vector<Entry> slots_;
};

// Words of 17 to 48 bytes (Cyrillic and Greek words, Hangul as its jamo, long Latin ones):
// one slot each by a hash of their bytes, which the slot keeps and compares whole; a new word
// takes the slot over. The slots are made on first use.
class LongWordCache {
 public:
  static constexpr size_t kMinBytes = WordCache::kMaxBytes + 1, kMaxBytes = 48, kMaxPieces = 12;
  struct alignas(64) Entry {  // two cache lines
    uint8_t bytes[kMaxBytes];
    uint8_t len = 0, n = 0;  // len 0: empty slot
    uint8_t ends[kMaxPieces];
    uint32_t ids[kMaxPieces];
  };

  // The slot of word w[0..len) (kMinBytes <= len <= kMaxBytes).
  Entry& slot(const uint8_t* w, size_t len) {
    if (slots_.empty()) slots_.resize(kSlots);
    return slots_[bytes_key(w, len) & (kSlots - 1)];
  }
  static bool holds(const Entry& e, const uint8_t* w, size_t len) {
    return e.len == len && std::memcmp(e.bytes, w, len) == 0;
  }

 private:
  static constexpr size_t kSlots = 4096;
  std::vector<Entry> slots_;
};

// A word's bytes. Clearing zeroes the first 16 bytes, so a word of up to 16 bytes reads as
// its cache key without copying (the bytes after it are zero).
class WordBuffer {
 public:
  WordBuffer() : storage_(64 + kSlack) {}
  uint8_t* data() { return storage_.data(); }
  const uint8_t* data() const { return storage_.data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    std::memset(storage_.data(), 0, kSlack);
    size_ = 0;
  }
  // Back to the first size after a huge word (see release_if_large).
  void trim() {
    if (storage_.size() > (size_t(1) << 24)) {
      decltype(storage_)(64 + kSlack).swap(storage_);
      size_ = 0;
    }
  }
  TF_INLINE void push(uint8_t b) {
    if (TF_UNLIKELY(size_ + kSlack >= storage_.size())) grow();
    storage_[size_++] = b;
  }
  void append(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) push(p[i]);
  }

 private:
  static constexpr size_t kSlack = 16;
  TF_NOINLINE void grow() { storage_.resize(storage_.size() * 2); }
  std::vector<uint8_t> storage_;
  size_t size_ = 0;
};

class WordPieceTokenizer {
 public:
  WordPieceTokenizer(WordPieceModel model, const TextRules& rules) : model_(std::move(model)), rules_(rules) {
    for (uint32_t cp = 0; cp < 0x80; ++cp) {
      std::vector<uint32_t> out;
      rules_.expand(cp, out);
      uint16_t entry = kAsciiComplex;  // more than one output: the general path
      if (out.empty()) {
        entry = kAsciiRemoved;
      } else if (out.size() == 1 && (out[0] & CharRules::kCodePoint) < 0x80) {
        entry = uint16_t((out[0] & CharRules::kCodePoint) | ((out[0] >> CharRules::kClassShift) << 8));
      }
      ascii_[cp] = entry;
    }
    // A one-character word is that character's token or [UNK] (nothing shorter to split into).
    isolated_.assign(0x10000, kNoToken);
    for (uint32_t cp = 0x21; cp < 0x10000; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      uint8_t buf[4];
      const size_t len = encode_utf8(cp, buf);
      const uint32_t id = model_.whole_word(buf, len);
      isolated_[cp] = id == kNoToken && model_.word_prefix().empty() ? model_.unk_id() : id;
      if (model_.max_chars() < 1) isolated_[cp] = model_.unk_id();
    }
  }

  // In the calls below, `added` (may be null) finds the added tokens to match in the raw text,
  // and `post` is the post-processor (a snapshot the caller keeps alive: settings change by
  // swapping the whole object, never under a running encode).

  // The model's tokens for one text (UTF-8), before post-processing.
  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added) const {
    Pool<Scratch>::Lease lease(scratch_);
    return encode_sequence(s, n, added, lease.get());
  }
  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post) const {
    Pool<Scratch>::Lease lease(scratch_);
    return encode(a, na, b, nb, pair, add_special, added, post, lease.get());
  }

  // Ids first: the ids encode_sequence's rows would hold, appended to `out`, without their
  // offsets and words (python/py_pipeline.h builds the rows by encode when they are read).
  bool encode_ids(const uint8_t* s, size_t n, const SpecialMatcher* added, std::vector<uint32_t>& out) const {
    Pool<Scratch>::Lease lease(scratch_);
    Words<std::vector<uint32_t>> words(*this, lease.get(), out);
    run(words, s, n, added, [&](uint32_t id, uint32_t, uint32_t, const uint8_t*, size_t, bool) {
      out.push_back(id);
      ++words.word;
    });
    return true;
  }

  // The words the normalizer and pre-tokenizer make of s (UTF-8, without the word prefix), each
  // with its span of input code points; added tokens are words too.
  std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> words(const uint8_t* s, size_t n,
                                                                           const SpecialMatcher* added) const {
    TokenRows unused;
    Pool<Scratch>::Lease lease(scratch_);
    Words<TokenRows> words(*this, lease.get(), unused);
    words.collect = true;
    run(words, s, n, added, [&](uint32_t, uint32_t start, uint32_t end, const uint8_t* text, size_t len, bool) {
      words.collected.push_back({std::string(reinterpret_cast<const char*>(text), len), {start, end}});
    });
    return std::move(words.collected);
  }

  // Adds the words of s (see words()) to a table of word counts (added tokens are not words here).
  void count_words(const uint8_t* s, size_t n, ChunkCounts& counts) const {
    for (auto& [word, span] : words(s, n, nullptr)) ++counts[word];
  }

  // The same for many texts, spread over up to `threads` threads (a table per thread, added up
  // at the end).
  void count_words(const std::vector<std::pair<const uint8_t*, size_t>>& texts, ChunkCounts& counts,
                   size_t threads) const {
    threads = std::max<size_t>(1, std::min(threads, texts.size()));
    std::vector<ChunkCounts> parts(threads);
    parallel_for(threads, threads, [&](size_t part) {
      for (size_t i = part; i < texts.size(); i += threads) count_words(texts[i].first, texts[i].second, parts[part]);
    });
    for (ChunkCounts& part : parts)
      for (const auto& [word, n] : part) counts[word] += n;
  }

 private:
  struct Scratch;

  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added, const PostProcessor& post, Scratch& scratch) const {
    Encoded first = encode_sequence(a, na, added, scratch);
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added, scratch);
    return post.process(std::move(first), &second, add_special);
  }

  static constexpr uint16_t kAsciiRemoved = 0xFFFF, kAsciiComplex = 0xFFFE;

  // Per-thread working buffers, kept between calls.
  struct Scratch {
    WordBuffer word;
    std::vector<uint32_t> origin;
    std::vector<WordPieceModel::Piece> pieces;
    WordCache cache;
    LongWordCache long_cache;
    void trim() {
      word.trim();
      release_if_large(origin);
      release_if_large(pieces);
    }
  };

  // Builds words from character-rule outputs and turns each finished word into rows (Out:
  // TokenRows), or into ids alone (Out: std::vector<uint32_t>, encode_ids).
  template <class Out>
  class Words {
   public:
    Words(const WordPieceTokenizer& t, Scratch& scratch, Out& out)
        : t_(t),
          rows_(out),
          word_(scratch.word),
          origin_(scratch.origin),
          pieces_(scratch.pieces),
          cache_(scratch.cache),
          long_cache_(scratch.long_cache) {
      word_.clear();
      origin_.clear();
    }

    bool collect = false;  // keep the words (for words()) instead of splitting them
    uint32_t word = 0;     // the next word's index (HF's word id; added tokens count as words)
    std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> collected;

    // Processes s[0..n) whose first character is number `chars`; returns the count after it.
    uint32_t text(const uint8_t* s, size_t n, uint32_t chars) {
      const CharRules& rules = t_.rules_;
      const uint32_t first_char = chars;
      rows_start_ = rows_.size();
      collected_start_ = collected.size();
      word_start_ = word;
      for (size_t i = 0; i < n;) {
        const uint8_t b = s[i];
        if (b < 0x80) {
          uint16_t e = t_.ascii_[b];
          if (TF_LIKELY(e < 0x100)) {  // ASCII that is part of a word: take the whole run
            if (word_.empty()) start_word(chars);
            if (implied_ && chars == first_origin_ + word_.size()) {
              const size_t run_start = i;
              do {
                word_.push(uint8_t(e));
              } while (++i < n && s[i] < 0x80 && (e = t_.ascii_[s[i]]) < 0x100);
              chars += uint32_t(i - run_start);
              word_chars_ += i - run_start;
              continue;
            }
            append_ascii(uint8_t(e), chars);
          } else if (e != kAsciiRemoved) {
            if (e == kAsciiComplex)
              rules.apply(b, [&](uint32_t out, WordClass c) { take(out, c, chars); });
            else
              take(e & 0xFF, WordClass(e >> 8), chars);
          }
          ++i;
          ++chars;
          continue;
        }
        size_t len;
        const uint32_t cp = decode_utf8(s + i, n - i, len);
        if (TF_UNLIKELY(rules.needs_exact(cp))) return exact(s, n, first_char);
        rules.apply(cp, [&](uint32_t out, WordClass c) { take(out, c, chars); });
        i += len;
        ++chars;
      }
      finish();
      return chars;
    }

   private:
    // Redoes the whole span (its words so far are undone) with the exact rules.
    uint32_t exact(const uint8_t* s, size_t n, uint32_t first_char) {
      rows_.resize(rows_start_);
      collected.resize(collected_start_);
      word = word_start_;
      word_.clear();
      std::vector<uint32_t> cps, out, origin;
      for (size_t i = 0; i < n;) {
        size_t len;
        cps.push_back(decode_utf8(s + i, n - i, len));
        i += len;
      }
      t_.rules_.expand_exact(cps, out, origin);
      for (size_t k = 0; k < out.size(); ++k)
        take(out[k] & CharRules::kCodePoint, WordClass(out[k] >> CharRules::kClassShift), first_char + origin[k]);
      finish();
      return first_char + uint32_t(cps.size());
    }

    void take(uint32_t cp, WordClass c, uint32_t origin) {
      if (c == WordClass::kWord) {
        if (cp < 0x80)
          append_ascii(uint8_t(cp), origin);
        else
          append(cp, origin);
      } else {
        finish();
        if (c == WordClass::kIsolated) {
          // A word of one character (punctuation, CJK): its token comes from a table.
          const uint32_t id = cp < 0x10000 && !collect ? t_.isolated_[cp] : kNoToken;
          if (id != kNoToken) {
            emit(id, origin, origin + 1);
            ++word;
            return;
          }
          if (cp < 0x80)
            append_ascii(uint8_t(cp), origin);
          else
            append(cp, origin);
          finish();
        }
      }
    }

    void start_word(uint32_t origin) {
      const std::string& prefix = t_.model_.word_prefix();
      word_.append(reinterpret_cast<const uint8_t*>(prefix.data()), prefix.size());
      first_origin_ = origin;
      word_chars_ = 0;
      implied_ = prefix.empty();
      if (!implied_) origin_.assign(prefix.size(), origin);
    }
    // Byte i of the word came from input character first_origin_ + i while implied_ holds.
    TF_INLINE void append_ascii(uint8_t b, uint32_t origin) {
      if (word_.empty()) start_word(origin);
      if (implied_ && origin == first_origin_ + word_.size()) {
        word_.push(b);
      } else {
        store_origins();
        word_.push(b);
        origin_.push_back(origin);
      }
      ++word_chars_;
    }
    void append(uint32_t cp, uint32_t origin) {
      if (word_.empty()) start_word(origin);
      store_origins();
      uint8_t buf[4];
      const size_t len = encode_utf8(cp, buf);
      word_.append(buf, len);
      origin_.insert(origin_.end(), len, origin);
      ++word_chars_;
    }
    void store_origins() {
      if (!implied_) return;
      origin_.resize(word_.size());
      for (size_t i = 0; i < origin_.size(); ++i) origin_[i] = first_origin_ + uint32_t(i);
      implied_ = false;
    }
    uint32_t origin(size_t byte) const { return implied_ ? first_origin_ + uint32_t(byte) : origin_[byte]; }

    void finish() {
      if (word_.empty()) return;
      const WordPieceModel& model = t_.model_;
      const size_t n = word_.size();
      if (collect) {
        const size_t skip = model.word_prefix().size();
        collected.push_back({std::string(reinterpret_cast<const char*>(word_.data()) + skip, n - skip),
                             {origin(0), origin(n - 1) + 1}});
      } else if (word_chars_ > model.max_chars()) {
        emit_bytes(model.unk_id(), 0, n);
      } else {
        split(model, n);
      }
      ++word;
      word_.clear();
      origin_.clear();
    }

    void split(const WordPieceModel& model, size_t n) {
      uint64_t k0 = 0, k1 = 0;
      WordCache::Entry* slot = nullptr;
      if (n <= WordCache::kMaxBytes) {
        WordCache::key(word_.data(), k0, k1);
        slot = &cache_.slot(k0, k1, n);
        if (slot->len == n && slot->k0 == k0 && slot->k1 == k1) return emit_remembered(*slot, model, n);
      }
      LongWordCache::Entry* long_slot = nullptr;
      if (n >= LongWordCache::kMinBytes && n <= LongWordCache::kMaxBytes) {
        long_slot = &long_cache_.slot(word_.data(), n);
        if (LongWordCache::holds(*long_slot, word_.data(), n)) return emit_remembered(*long_slot, model, n);
      }
      pieces_.clear();
      const bool ok = model.split(word_.data(), n, pieces_);
      if (!ok) emit_bytes(model.unk_id(), 0, n);
      for (const auto& p : pieces_) emit_bytes(p.id, p.start, p.end);
      if (slot && remember(*slot, ok, n)) {
        slot->k0 = k0;
        slot->k1 = k1;
      }
      if (long_slot && remember(*long_slot, ok, n)) std::memcpy(long_slot->bytes, word_.data(), n);
    }

    // The rows of a word of n bytes from its cache entry (no pieces: the unknown token).
    template <class Entry>
    void emit_remembered(const Entry& e, const WordPieceModel& model, size_t n) {
      if (e.n == 0) return emit_bytes(model.unk_id(), 0, n);
      uint32_t start = 0;
      for (uint8_t i = 0; i < e.n; ++i) {
        emit_bytes(e.ids[i], start, e.ends[i]);
        start = e.ends[i];
      }
    }
    // Writes the pieces just split (none where not `ok`) and the length into a cache entry, where
    // they fit; whether they did (the caller then writes the entry's key).
    template <class Entry>
    bool remember(Entry& e, bool ok, size_t n) {
      if (pieces_.size() > std::size(e.ids)) return false;
      e.len = uint8_t(n);
      e.n = uint8_t(ok ? pieces_.size() : 0);
      for (size_t i = 0; i < pieces_.size(); ++i) {
        e.ids[i] = pieces_[i].id;
        e.ends[i] = uint8_t(pieces_[i].end);
      }
      return true;
    }

    // Token `id` of the current word over input characters [start, end); over bytes [from, to)
    // of the word (their origins: the rows alone read them).
    TF_INLINE void emit(uint32_t id, uint32_t start, uint32_t end) {
      if constexpr (std::is_same_v<Out, TokenRows>)
        push_row(rows_, id, start, end, word);
      else
        rows_.push_back(id);
    }
    TF_INLINE void emit_bytes(uint32_t id, size_t from, size_t to) {
      if constexpr (std::is_same_v<Out, TokenRows>)
        push_row(rows_, id, origin(from), origin(to - 1) + 1, word);
      else
        rows_.push_back(id);
    }

    const WordPieceTokenizer& t_;
    Out& rows_;  // rows or ids
    WordBuffer& word_;
    std::vector<uint32_t>& origin_;  // per byte of word_, unless implied_
    std::vector<WordPieceModel::Piece>& pieces_;
    WordCache& cache_;
    LongWordCache& long_cache_;
    uint32_t first_origin_ = 0;
    bool implied_ = true;
    size_t word_chars_ = 0;
    size_t rows_start_ = 0, collected_start_ = 0;  // rows and words before the current span
    uint32_t word_start_ = 0;                      // `word` at the current span's start
  };

  // Splits s at added tokens: the text between goes to `words`, each added token to on_added
  // (id, its span in code points and bytes, whether lstrip / rstrip grew it).
  template <class W, class OnAdded>
  void run(W& words, const uint8_t* s, size_t n, const SpecialMatcher* added, OnAdded on_added) const {
    uint32_t chars = 0;  // code points in s[0..at)
    size_t at = 0;
    // Code points before byte p (a match may start before the previous one ends: an rstrip
    // token's span can take the whitespace a next token starts with, as in HF).
    auto chars_at = [&](size_t p) {
      return p >= at ? chars + uint32_t(count_characters(s, at, p, n))
                     : chars - uint32_t(count_characters(s, p, at, n));
    };
    split_at_matches(
        added, s, n,
        [&](size_t from, size_t to) {
          chars = words.text(s + from, to - from, chars_at(from));
          at = to;
        },
        [&](const SpecialMatch& m) {
          const uint32_t start = chars_at(m.pos), end = start + count_characters(s, m.pos, m.pos + m.len, n);
          on_added(m.id, start, end, s + m.pos, m.len, m.grown);
          chars = end;
          at = m.pos + m.len;
        });
  }

  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added, Scratch& scratch) const {
    Encoded e;
    e.rows.reserve(n / 5 + 8);  // ~ the tokens of typical text; rows grow past it when needed
    Words<TokenRows> words(*this, scratch, e.rows);
    run(words, s, n, added,
        [&](uint32_t id, uint32_t start, uint32_t end, const uint8_t* text, size_t len, bool grown) {
          push_row(e.rows, id, start, end, words.word++);
          if (grown) e.rows.back().name = e.name_slot(std::string(reinterpret_cast<const char*>(text), len));
        });
    return e;
  }

  WordPieceModel model_;
  CharRules rules_;
  std::array<uint16_t, 128> ascii_;  // output byte | class << 8, or kAsciiRemoved / kAsciiComplex
  std::vector<uint32_t> isolated_;   // BMP code point -> token of a word that is just it
  mutable Pool<Scratch> scratch_;
};

}  // namespace tokenforge
