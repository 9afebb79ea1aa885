// A byte-level BPE encoder: a built-in pre-tokenizer, the merge model, and special tokens.
#pragma once
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "bpe_model.h"
#include "scanner.h"
#include "special_matcher.h"

namespace tokenforge {

class Encoder {
 public:
  // pattern < 0: no built-in scanner; the caller splits text and uses encode_piece().
  Encoder(std::vector<std::string> tokens, std::vector<std::pair<std::string, uint32_t>> specials,
          int pattern)
      : model_(std::move(tokens)), pattern_(pattern) {
    for (const auto& [text, id] : specials) {
      if (model_.has(id) && model_.bytes_of(id) != text)
        throw std::invalid_argument("special token id " + std::to_string(id) +
                                    " is already an ordinary token");
      special_bytes_[id] = text;
    }
  }

  const BytePairModel& model() const { return model_; }
  bool has_scanner() const { return pattern_ >= 0; }

  // Ordinary text only: special-token text is encoded like any other text.
  void encode_ordinary(const uint8_t* s, size_t n, std::vector<uint32_t>& out, PieceCache* cache) const {
    switch (Pattern(pattern_)) {
      case Pattern::kGpt2: return run<Pattern::kGpt2>(s, n, out, cache);
      case Pattern::kCl100k: return run<Pattern::kCl100k>(s, n, out, cache);
      case Pattern::kO200k: return run<Pattern::kO200k>(s, n, out, cache);
    }
    throw std::logic_error("no built-in pre-tokenizer for this pattern");
  }

  // Text with the allowed special tokens (if any) turned into their ids.
  void encode(const uint8_t* s, size_t n, const SpecialMatcher* allowed,
              std::vector<uint32_t>& out) const {
    PieceCachePool::Lease cache(caches_);
    size_t start = 0;
    while (allowed && !allowed->empty()) {
      const SpecialMatch m = allowed->find(s, n, start);
      if (m.pos >= n) break;
      encode_ordinary(s + start, m.pos - start, out, cache.get());
      out.push_back(m.id);
      start = m.pos + m.len;
    }
    encode_ordinary(s + start, n - start, out, cache.get());
  }

  // Pieces already split by the caller (patterns without a built-in scanner).
  void encode_pieces(const std::vector<std::pair<const uint8_t*, size_t>>& pieces,
                     std::vector<uint32_t>& out) const {
    PieceCachePool::Lease cache(caches_);
    for (const auto& [p, n] : pieces)
      if (n) model_.encode_piece(p, n, out, cache.get());
  }

  // Bytes of a token (ordinary or special); nullptr if the id is unknown.
  const std::string* token_bytes(uint32_t id) const {
    if (model_.has(id)) return &model_.bytes_of(id);
    auto it = special_bytes_.find(id);
    return it == special_bytes_.end() ? nullptr : &it->second;
  }

 private:
  template <Pattern P>
  void run(const uint8_t* s, size_t n, std::vector<uint32_t>& out, PieceCache* cache) const {
    Scanner scan(s, n);
    auto next = [&](size_t p) {
      if constexpr (P == Pattern::kGpt2) return scan.gpt2(p);
      else if constexpr (P == Pattern::kCl100k) return scan.cl100k(p);
      else return scan.o200k(p);
    };
    // One piece of lookahead: the next piece's cache entry is prefetched while this one is
    // encoded, so cache misses overlap with work instead of stalling it.
    size_t p = 0, e = n ? next(0) : 0;
    uint64_t key = bytes_key(s, e);
    while (p < n) {
      const size_t e2 = e < n ? next(e) : n;
      const uint64_t key2 = bytes_key(s + e, e2 - e);
      if (cache && e2 > e + 1) cache->prefetch(e2 - e, key2);
      model_.encode_piece(s + p, e - p, key, out, cache);
      p = e;
      e = e2;
      key = key2;
    }
  }

  BytePairModel model_;
  int pattern_;
  std::unordered_map<uint32_t, std::string> special_bytes_;
  mutable PieceCachePool caches_;
};

// Runs fn(i) for i in [0, n) on up to `threads` threads; rethrows the first exception.
template <class Fn>
void parallel_for(size_t n, size_t threads, Fn fn) {
  threads = std::max<size_t>(1, std::min(threads, n));
  if (threads == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_lock;
  auto worker = [&] {
    try {
      for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> g(error_lock);
      if (!error) error = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tokenforge
