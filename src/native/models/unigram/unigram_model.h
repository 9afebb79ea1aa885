// HF tokenizers' Unigram model (models/unigram/model.rs) for the staged pipeline
// (pipelines/staged.h, interface in models/model.h): the vocabulary is tokenizer.json's
// [[piece, score], ...] (a piece's id is its index), and a piece of text is split along the best
// path of HF's encode_optimized, a Viterbi pass over a double-array byte trie
// (base/double_array_trie.h) that keeps one best node per position, never the whole lattice:
//
//   - sums are f64 from the start of the piece, and a node replaces the best at its end only
//     when strictly better (so among equal sums the first found wins: nodes are found by start,
//     then by length);
//   - a character that no piece covers alone gets an unknown node scored (lowest score - 10);
//     without an unk_id that is an error, raised only where the unknown node would be taken;
//   - consecutive nodes of the unknown id (the unknown piece itself included) are fused into one
//     token, named through the vocabulary when the fused text is a piece; otherwise, with
//     byte_fallback, as the <0xAB> pieces of its bytes (each with the whole run's offsets) when
//     all of them exist, else the unknown id;
//   - a piece listed twice has the id of its last entry (HF's token -> id map), with that score;
//   - scores are the f64s HF reads from tokenizer.json's text (serde_json_f64 below), which are
//     not always the nearest doubles (the option "nearest_scores" takes the nearest ones, as
//     transformers' classes that rebuild the model from Python floats have them).
//
// sentencepiece's own Unigram (models/sentencepiece/spm_unigram.h) differs in what matters for
// ids: float sums rebased as they grow, user-defined pieces scored by length, no fused unknowns,
// so the two are kept apart. As HF, each thread remembers the tokens of the pieces under 256
// bytes it has seen (a Pool of per-thread tables; results never change), so repeated words skip
// the search. Work is linear in the piece times the longest piece's bytes (each position walks
// the trie once), so a megabyte-long piece takes milliseconds.
#pragma once
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/double_array_trie.h"
#include "base/hash_tables.h"
#include "base/pool.h"
#include "models/model.h"
#include "pipelines/stage_options.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class UnigramModel : public Model {
 public:
  struct Entry {
    std::string piece;
    double score;
  };
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr double kUnknownPenalty = 10.0;  // HF's K_UNK_PENALTY
  static constexpr size_t kRememberedBelow = 256;  // HF's cache MAX_LENGTH (bytes)

  // unk_id: kNone for none. Errors as HF's Unigram::from.
  UnigramModel(std::vector<Entry> vocab, uint32_t unk_id, bool byte_fallback)
      : unk_id_(unk_id), byte_fallback_(byte_fallback) {
    if (unk_id != kNone) {
      if (vocab.empty()) throw std::invalid_argument("model Unigram: the vocabulary is empty but <unk> is needed");
      if (unk_id >= vocab.size())
        throw std::invalid_argument("model Unigram: unk_id " + std::to_string(unk_id) +
                                    " is not below the vocabulary size " + std::to_string(vocab.size()));
    }
    if (vocab.size() >= kNone) throw std::invalid_argument("model Unigram: the vocabulary is too large");
    scores_.reserve(vocab.size());
    ids_.reserve(vocab.size());
    double lowest = INFINITY;
    for (uint32_t id = 0; id < vocab.size(); ++id) {
      const double score = vocab[id].score;
      if (!std::isfinite(score))
        throw std::invalid_argument("model Unigram: the score of piece " + std::to_string(id) + " is not finite");
      scores_.push_back(score);
      lowest = std::min(lowest, score);
      ids_[vocab[id].piece] = id;  // the last of equal pieces wins, as in HF's map
    }
    unk_score_ = lowest - kUnknownPenalty;
    // Later entries first: the trie keeps the first it is given, so equal pieces get the last id.
    std::vector<std::pair<std::string_view, uint32_t>> keys;
    keys.reserve(vocab.size());
    for (uint32_t id = uint32_t(vocab.size()); id-- > 0;) keys.emplace_back(vocab[id].piece, id);
    trie_ = DoubleArrayTrie(std::move(keys));
    if (byte_fallback_)
      for (int b = 0; b < 256; ++b) {
        static const char kHex[] = "0123456789ABCDEF";
        const std::string name = std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
        const auto it = ids_.find(name);
        byte_ids_[b] = it == ids_.end() ? kNone : it->second;
      }
  }

  void tokenize(const std::string& piece, std::vector<ModelToken>& out) const override {
    if (piece.empty()) return;
    if (piece.size() >= kNone) throw std::length_error("Unigram: a piece of 4 GB or more");
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    const bool remembered = piece.size() < kRememberedBelow;
    if (remembered && recall(piece, w, out)) return;
    const size_t first = out.size();
    best_path(reinterpret_cast<const uint8_t*>(piece.data()), piece.size(), w);
    emit(std::string_view(piece), w, out);
    if (remembered) remember(piece, out, first, w);
  }

  // The tokens of s[0..n) (n below kRememberedBelow) as tokenize gives them, for a caller that
  // remembers pieces itself (pipelines/unigram_hf.h's tables): this thread's memory is read only
  // where it holds some piece, and given a piece only where held(tokens, count) says the
  // caller cannot keep its tokens (no string made and stored for every new piece).
  template <class Held>
  void tokenize_unheld(const uint8_t* s, size_t n, std::vector<ModelToken>& out, const Held& held) const {
    if (n == 0) return;
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    const std::string_view piece(reinterpret_cast<const char*>(s), n);
    if (!w.seen.empty() && recall(std::string(piece), w, out)) return;
    const size_t first = out.size();
    best_path(s, n, w);
    emit(piece, w, out);
    if (n < kRememberedBelow && !held(out.data() + first, out.size() - first)) remember(piece, out, first, w);
  }

  // The tokens of s[0..n) as tokenize gives them, without the per-thread memory (for a caller
  // that keeps its own: pipelines/unigram_hf.h).
  void tokenize_fresh(const uint8_t* s, size_t n, std::vector<ModelToken>& out) const {
    if (n == 0) return;
    if (n >= kNone) throw std::length_error("Unigram: a piece of 4 GB or more");
    Pool<Scratch>::Lease lease(scratch_);
    Scratch& w = lease.get();
    best_path(s, n, w);
    emit(std::string_view(reinterpret_cast<const char*>(s), n), w, out);
    if (n > (size_t(1) << 20)) w.trim();
  }

  uint32_t unk_id() const { return unk_id_; }  // kNone: none
  // The id of a piece (HF's token_to_ids: the last of equal pieces), or kNone.
  uint32_t id_of(std::string_view piece) const {
    const auto it = ids_.find(std::string(piece));
    return it == ids_.end() ? kNone : it->second;
  }
  // piece -> id, every piece of the vocabulary.
  const std::unordered_map<std::string, uint32_t>& ids() const { return ids_; }

 private:
  // What a thread remembers before it starts over: pieces, and their tokens.
  static constexpr size_t kMostRemembered = size_t(1) << 16, kMostRememberedTokens = size_t(1) << 20;

  // The best path's last node ending at each byte (HF's BestPathNode).
  struct Best {
    double score;
    uint32_t start;  // kNone: no node ends here yet
    uint32_t id;
  };
  struct Scratch {
    std::vector<Best> best;
    std::vector<uint32_t> ends;                                           // the best path's node ends, last first
    std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> seen;  // piece -> (first, count) in seen_tokens
    std::vector<ModelToken> seen_tokens;
    void trim() {  // after a huge piece (see release_if_large)
      release_if_large(best);
      release_if_large(ends);
    }
  };

  // Appends the tokens this thread's memory holds for piece; whether it holds them.
  static bool recall(const std::string& piece, const Scratch& w, std::vector<ModelToken>& out) {
    const auto it = w.seen.find(piece);
    if (it == w.seen.end()) return false;
    const auto from = w.seen_tokens.begin() + it->second.first;
    out.insert(out.end(), from, from + it->second.second);
    return true;
  }
  // Keeps out[first..) as the tokens of piece in this thread's memory (started over when full).
  static void remember(std::string_view piece, const std::vector<ModelToken>& out, size_t first, Scratch& w) {
    if (w.seen.size() >= kMostRemembered || w.seen_tokens.size() >= kMostRememberedTokens) {
      w.seen.clear();
      w.seen_tokens.clear();
    }
    w.seen.emplace(piece, std::make_pair(uint32_t(w.seen_tokens.size()), uint32_t(out.size() - first)));
    w.seen_tokens.insert(w.seen_tokens.end(), out.begin() + first, out.end());
  }

  // HF's encode_optimized over s[0..n): fills w.best for every character boundary.
  void best_path(const uint8_t* s, size_t n, Scratch& w) const {
    w.best.assign(n + 1, Best{0.0, kNone, 0});
    Best* best = w.best.data();
    for (size_t start = 0; start < n;) {
      const double here = best[start].score;
      const size_t char_len = std::min(utf8_length(s[start]), n - start);
      bool single = false;
      uint32_t node = DoubleArrayTrie::kRoot;
      for (size_t end = start; end < n;) {
        node = trie_.child(node, s[end++]);
        if (node == DoubleArrayTrie::kNone) break;
        const uint32_t id = trie_.value(node);
        if (id == kNoToken) continue;
        const double sum = scores_[id] + here;
        Best& b = best[end];
        if (b.start == kNone || sum > b.score) b = Best{sum, uint32_t(start), id};
        single |= end - start == char_len;
      }
      if (!single) {
        Best& b = best[start + char_len];
        const double sum = unk_score_ + here;
        if (b.start == kNone || sum > b.score) {
          if (unk_id_ == kNone)
            throw std::runtime_error("Unigram error: Encountered an unknown token but `unk_id` is missing");
          b = Best{sum, uint32_t(start), unk_id_};
        }
      }
      start += char_len;
    }
  }

  // The tokens of the path in w.best, unknown runs fused (HF's encode, then Model::tokenize).
  void emit(std::string_view piece, Scratch& w, std::vector<ModelToken>& out) const {
    w.ends.clear();
    for (uint32_t end = uint32_t(piece.size()); end > 0; end = w.best[end].start) w.ends.push_back(end);
    uint32_t run_start = kNone, run_end = 0;
    for (size_t k = w.ends.size(); k-- > 0;) {
      const uint32_t end = w.ends[k];
      const Best& b = w.best[end];
      if (b.id == unk_id_) {
        if (run_start == kNone) run_start = b.start;
        run_end = end;
        continue;
      }
      if (run_start != kNone) emit_unknown(piece, run_start, run_end, out);
      run_start = kNone;
      out.push_back(ModelToken{b.id, b.start, end});
    }
    if (run_start != kNone) emit_unknown(piece, run_start, run_end, out);
  }

  // A run of unknown nodes [start, end): its piece if the vocabulary has the text, else its
  // bytes' pieces with byte_fallback when all exist, else the unknown id.
  void emit_unknown(std::string_view piece, uint32_t start, uint32_t end, std::vector<ModelToken>& out) const {
    const auto it = ids_.find(std::string(piece.substr(start, end - start)));
    if (it != ids_.end()) {
      out.push_back(ModelToken{it->second, start, end});
      return;
    }
    if (byte_fallback_) {
      bool all = true;
      for (uint32_t i = start; i < end && all; ++i) all = byte_ids_[uint8_t(piece[i])] != kNone;
      if (all) {
        for (uint32_t i = start; i < end; ++i) out.push_back(ModelToken{byte_ids_[uint8_t(piece[i])], start, end});
        return;
      }
    }
    out.push_back(ModelToken{unk_id_, start, end});
  }

  uint32_t unk_id_;
  bool byte_fallback_;
  double unk_score_ = 0;
  std::vector<double> scores_;                     // by id
  std::unordered_map<std::string, uint32_t> ids_;  // HF's token_to_ids
  DoubleArrayTrie trie_;                           // each piece -> its id
  uint32_t byte_ids_[256] = {};                    // with byte_fallback: the id of <0xAB>, or kNone
  mutable Pool<Scratch> scratch_;
};

// The f64 HF tokenizers has for a score written in tokenizer.json. serde_json (without its
// float_roundtrip feature, as HF builds it) reads a number as its digits in a u64 (digits past
// what fits are dropped, those before the point counted in the exponent), converted to f64 and
// then multiplied or divided by 10^|exponent| (a table up to 1e308; beyond, divided by 1e308
// first): two roundings, so about one score in ten is a unit in the last place off the nearest
// double, enough to flip a tie of sums. The score comes here as the nearest double of its text
// (Python's json); the text is taken to be its shortest form, which is what HF (ryu) and Python
// write, and is read again as serde_json reads it.
inline double serde_json_f64(double x) {
  if (!std::isfinite(x)) return x;
  static const std::vector<double> pow10 = [] {
    std::vector<double> p;
    for (int k = 0; k <= 308; ++k) p.push_back(std::strtod(("1e" + std::to_string(k)).c_str(), nullptr));
    return p;
  }();
  char text[64];
  const std::to_chars_result r = std::to_chars(text, text + sizeof(text), x);  // shortest round trip
  const char* p = text;
  const bool negative = *p == '-';
  p += negative;
  uint64_t significand = 0;
  int exponent = 0;
  bool full = false, point = false;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p == '.') {
      point = true;
      continue;
    }
    const uint64_t digit = uint64_t(*p - '0');
    full = full || significand > (UINT64_MAX - digit) / 10;
    if (full) {
      exponent += !point;  // dropped: an integer digit still counts
      continue;
    }
    significand = significand * 10 + digit;
    exponent -= point;
  }
  if (p < r.ptr) exponent += std::atoi(p + 1);
  double f = double(significand);
  for (;;) {
    const size_t a = size_t(exponent < 0 ? -int64_t(exponent) : exponent);
    if (a < pow10.size()) {
      f = exponent >= 0 ? f * pow10[a] : f / pow10[a];
      break;
    }
    if (f == 0.0 || exponent >= 0) break;  // (a positive one overflows: serde_json refuses it)
    f /= 1e308;
    exponent += 308;
  }
  return negative ? -f : f;
}

// The model from tokenizer.json's options: "vocab" [[piece, score], ...] (required), "unk_id"
// (an index, or null), "byte_fallback", and tokenforge's "nearest_scores": true where the scores
// are to be the nearest doubles of their text, as Python's json reads them (transformers'
// classes that rebuild Unigram(vocab=...) from a parsed tokenizer.json: T5, XLM-RoBERTa), not
// serde_json's reading (HF's Tokenizer.from_file). `pairs`, the staged pipeline's (token, id)
// list, may be empty; if given it must be each piece with its index.
inline std::unique_ptr<Model> make_unigram(OptionReader& o, const Vocabulary& pairs) {
  const bool nearest = o.get_bool("nearest_scores", false);
  const OptionValue& v = o.get("vocab", true);
  if (v.kind != OptionValue::Kind::kList) o.fail("option 'vocab' must be a list of [piece, score]");
  std::vector<UnigramModel::Entry> vocab;
  vocab.reserve(v.list.size());
  for (size_t i = 0; i < v.list.size(); ++i) {
    const OptionValue& e = v.list[i];
    const bool number = e.list.size() == 2 &&
                        (e.list[1].kind == OptionValue::Kind::kFloat || e.list[1].kind == OptionValue::Kind::kInt);
    if (e.kind != OptionValue::Kind::kList || !number || e.list[0].kind != OptionValue::Kind::kString)
      o.fail("option 'vocab': entry " + std::to_string(i) + " is not [piece, score]");
    const double score = e.list[1].kind != OptionValue::Kind::kFloat ? double(e.list[1].i)
                         : nearest                                   ? e.list[1].f
                                                                     : serde_json_f64(e.list[1].f);
    vocab.push_back(UnigramModel::Entry{e.list[0].s, score});
  }
  if (!pairs.empty()) {
    bool same = pairs.size() == vocab.size();
    for (size_t i = 0; i < pairs.size() && same; ++i) same = pairs[i].second == i && pairs[i].first == vocab[i].piece;
    if (!same) o.fail("the (token, id) list must be empty or each piece of 'vocab' with its index");
  }
  const int64_t unk = o.get_int("unk_id", -1);
  if (unk >= int64_t(UnigramModel::kNone)) o.fail("option 'unk_id' is too large");
  const bool byte_fallback = o.get_bool("byte_fallback", false);
  return std::make_unique<UnigramModel>(std::move(vocab), unk < 0 ? UnigramModel::kNone : uint32_t(unk), byte_fallback);
}

}  // namespace tokenforge
