// sentencepiece's Unigram trainer: seed pieces from the most frequent substrings of the corpus
// (a suffix array finds every repeated one), then rounds of EM over the lattice of each word
// (expected piece counts, a Bayesian M-step) and pruning of the pieces whose loss costs the
// corpus least likelihood, until the vocabulary is small enough.
//
// Python drives the rounds (progress, options); each step here releases the GIL and runs on
// threads. Words are counted once, so a step costs in distinct words, not in corpus size.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "trainers/spm_training_corpus.h"
#include "trainers/suffix_array.h"
#include "base/byte_trie.h"

namespace tokenforge {

class UnigramTrainer {
 public:
  using Pieces = std::vector<std::pair<std::string, float>>;

  struct Options {
    size_t seed_size = 1000000;
    double shrinking_factor = 0.75;
  };

  UnigramTrainer(SpmTrainingCorpus corpus, Options options) : corpus_(std::move(corpus)), options_(options) {}

  SpmTrainingCorpus& corpus() { return corpus_; }

  // Chooses the alphabet (characters beyond character_coverage become U+2585), counts the
  // words, then makes the seed pieces: every character, and the substrings of the text with the
  // highest frequency * length, scored as log probabilities. Returns the alphabet size.
  size_t make_seeds(size_t meta_count, size_t vocab_size) {
    corpus_.choose_alphabet(meta_count, vocab_size);
    std::vector<int64_t> at_end;
    words_ = corpus_.count_words(&at_end);
    set_pieces(seed_pieces(at_end));
    return corpus_.alphabet().size();
  }

  struct EmStats {
    double objective;
    size_t pieces;
  };

  // One EM iteration: expected counts of each piece over all words' lattices, then the
  // Bayesian M-step (pieces expected less than half a time go; digamma-smoothed log
  // probabilities for the rest).
  EmStats em_iteration() {
    std::vector<std::vector<double>> expected(threads());
    std::vector<double> objectives(threads(), 0.0);
    double total = 0;
    for (const auto& w : words_) total += double(w.second);
    parallel_for(threads(), threads(), [&](size_t t) {
      Lattice lattice;
      expected[t].assign(pieces_.size(), 0.0);
      for (size_t i = t; i < words_.size(); i += threads()) {
        const double z = lattice.expect(*this, words_[i].first, double(words_[i].second), expected[t]);
        objectives[t] -= z * double(words_[i].second) / total;
      }
    });
    for (size_t t = 1; t < threads(); ++t) {
      objectives[0] += objectives[t];
      for (size_t k = 0; k < pieces_.size(); ++k) expected[0][k] += expected[t][k];
    }
    Pieces next;
    double sum = 0;
    for (size_t k = 0; k < pieces_.size(); ++k) {
      if (expected[0][k] < 0.5) continue;
      next.emplace_back(std::move(pieces_[k].first), float(expected[0][k]));
      sum += expected[0][k];
    }
    const double log_sum = digamma(sum);
    for (auto& p : next) p.second = float(digamma(p.second) - log_sum);
    set_pieces(std::move(next));
    return {objectives[0], pieces_.size()};
  }

  // Drops the pieces whose removal loses least likelihood, down to max(desired, shrinking
  // factor * size). A piece's loss assumes its occurrences in the best segmentations are
  // replaced by its own best segmentation without it; pieces never used, or which segment
  // better without themselves, go first; single characters always stay.
  size_t prune(size_t desired) {
    const size_t n = pieces_.size();
    std::vector<uint8_t> keep(n, 1);
    std::vector<std::vector<uint32_t>> alternatives(n);
    parallel_for(threads(), threads(), [&](size_t t) {
      Lattice lattice;
      std::vector<uint32_t> path;
      for (size_t i = t; i < n; i += threads()) {
        const std::string& text = pieces_[i].first;
        lattice.best(*this, text, kNoExclusion, path);
        if (path.size() >= 2) {
          keep[i] = 0;  // splits better without itself
        } else if (utf8_length(uint8_t(text[0])) < text.size()) {
          lattice.best(*this, text, uint32_t(i), path);
          alternatives[i] = path;
        }
      }
    });
    std::vector<std::vector<double>> freqs(threads());
    parallel_for(threads(), threads(), [&](size_t t) {
      Lattice lattice;
      std::vector<uint32_t> path;
      freqs[t].assign(n, 0.0);
      for (size_t i = t; i < words_.size(); i += threads()) {
        lattice.best(*this, words_[i].first, kNoExclusion, path);
        for (uint32_t id : path)
          if (id != kUnknownPiece) freqs[t][id] += double(words_[i].second);
      }
    });
    std::vector<double>& freq = freqs[0];
    for (size_t t = 1; t < threads(); ++t)
      for (size_t k = 0; k < n; ++k) freq[k] += freqs[t][k];
    double corpus = 0;
    for (const auto& w : words_) corpus += double(w.second);
    double sum = 0;
    for (double f : freq) sum += f;
    const double log_sum = std::log(sum);

    Pieces next;
    std::vector<std::pair<double, uint32_t>> candidates;  // (loss, piece)
    for (size_t i = 0; i < n; ++i) {
      if (freq[i] == 0 || !keep[i]) continue;
      if (alternatives[i].empty()) {
        next.push_back(pieces_[i]);
        continue;
      }
      const double log_prob = std::log(freq[i]) - log_sum;
      const double log_sum_alt = std::log(sum + freq[i] * (double(alternatives[i].size()) - 1));
      double log_prob_alt = 0;
      for (uint32_t a : alternatives[i])  // an unknown character in it counts as never seen
        log_prob_alt += std::log((a == kUnknownPiece ? 0.0 : freq[a]) + freq[i]) - log_sum_alt;
      candidates.emplace_back(freq[i] / corpus * (log_prob - log_prob_alt), uint32_t(i));
    }
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    const size_t target = std::max(desired, size_t(options_.shrinking_factor * double(n)));
    for (const auto& c : candidates) {
      if (next.size() >= target) break;
      next.push_back(pieces_[c.second]);
    }
    set_pieces(std::move(next));
    return pieces_.size();
  }

  // The final pieces: the whole alphabet (characters EM dropped get scores just above the
  // lowest), then the best-scoring pieces up to `size`, ordered by score.
  Pieces finalize(size_t size) const {
    std::unordered_map<std::string, float> have(pieces_.begin(), pieces_.end()), chosen;
    float penalty = 0;
    for (const auto& [cp, count] : corpus_.alphabet()) {
      std::string c = SpmTrainingCorpus::utf8(&cp, 1);
      if (auto it = have.find(c); it != have.end()) {
        chosen[c] = it->second;
      } else {
        chosen[c] = min_score_ + penalty;
        penalty += 0.0001f;
      }
    }
    for (const auto& p : sorted(pieces_)) {
      if (chosen.size() >= size) break;
      chosen.emplace(p.first, p.second);
    }
    return sorted(Pieces(chosen.begin(), chosen.end()));
  }

  size_t size() const { return pieces_.size(); }

 private:
  static constexpr uint32_t kUnknownPiece = 0xFFFFFFFFu, kNoExclusion = 0xFFFFFFFEu;
  static constexpr float kUnknownPenalty = 10.0f;

  // Highest score first, then by text: sentencepiece's order of final pieces.
  static Pieces sorted(Pieces p) {
    std::sort(p.begin(), p.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    return p;
  }

  static double digamma(double x) {
    double result = 0;
    for (; x < 7; ++x) result -= 1 / x;
    x -= 0.5;
    const double xx = 1 / x, xx2 = xx * xx, xx4 = xx2 * xx2;
    return result + std::log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064 - 127 * xx4 * xx4 / 30720;
  }

  // Seed candidates are the substrings at which the text's suffix tree branches: those followed
  // by at least two different characters (sentencepiece takes them from a suffix array over the
  // whole text). A valid piece never spans two words (only a word starts with "▁"; without
  // whitespace splitting the words are whole sentences), so the suffix array is built over the
  // distinct words instead, each occurrence weighted by its word's count: the same frequencies
  // at a fraction of the size. What follows a word in running text is the next word's "▁" or
  // the sentence's end, so each word goes in once for each: followed by "▁" (weighted by its
  // occurrences inside sentences) and by the separator (those at a sentence's end).
  Pieces seed_pieces(const std::vector<int64_t>& at_end) {
    // Symbols: 0 ends the text, 1 separates entries, characters follow in code point order.
    const int32_t max_length = corpus_.options().rules.max_piece_length;
    std::vector<uint32_t> chars;  // symbol - 2 -> code point
    for (const auto& [cp, count] : corpus_.alphabet()) chars.push_back(cp);
    chars.push_back(kSpmUnknown);
    chars.push_back(kSpmSpace);  // as a follower, even where the alphabet lacks it
    std::sort(chars.begin(), chars.end());
    chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
    std::vector<int32_t> symbol(0x110000, -1);  // by code point
    for (size_t i = 0; i < chars.size(); ++i) symbol[chars[i]] = int32_t(i) + 2;
    std::vector<int32_t> text;
    std::vector<int64_t> weight;  // by position: how many times it occurs in the corpus
    const auto add = [&](const std::string& word, int64_t count, bool space_follows) {
      SpmTrainingCorpus::for_each_char(word, [&](uint32_t cp) {
        text.push_back(symbol[cp]);
        weight.push_back(count);
      });
      if (space_follows) {
        text.push_back(symbol[kSpmSpace]);
        weight.push_back(count);
      }
      text.push_back(1);
      weight.push_back(0);
      if (text.size() >= size_t(std::numeric_limits<int32_t>::max()))
        throw std::invalid_argument(
            "the distinct words hold over 2^31 characters; sample the text with "
            "input_sentence_size");
    };
    for (size_t w = 0; w < words_.size(); ++w) {
      const auto& [word, count] = words_[w];
      if (count > at_end[w]) add(word, count - at_end[w], true);
      if (at_end[w] > 0) add(word, at_end[w], false);
    }
    text.push_back(0);
    weight.push_back(0);
    const std::vector<int32_t> sa = suffix_array(text, int32_t(chars.size()) + 2);
    std::vector<int64_t> weight_before(sa.size() + 1, 0);  // in suffix array order
    for (size_t i = 0; i < sa.size(); ++i) weight_before[i + 1] = weight_before[i] + weight[sa[i]];
    std::vector<int64_t>().swap(weight);

    struct Candidate {
      int64_t score;
      int32_t offset, length;
    };
    std::vector<Candidate> best;
    const size_t keep = options_.seed_size;
    const auto by_score = [](const Candidate& a, const Candidate& b) {
      return a.score != b.score ? a.score > b.score : a.offset < b.offset;
    };
    std::vector<uint32_t> cps;
    suffix_tree_nodes(capped_lcp(text, sa, uint16_t(max_length + 1)), max_length,
                      [&](int32_t depth, int32_t first, int32_t count) {
                        if (depth < 2) return;
                        const int32_t offset = sa[first];
                        cps.clear();
                        for (int32_t k = offset; k < offset + depth; ++k) {
                          if (text[k] < 2) return;  // crosses into the next entry
                          cps.push_back(chars[text[k] - 2]);
                        }
                        if (!corpus_.options().rules.valid(cps.data(), cps.size())) return;
                        best.push_back({(weight_before[first + count] - weight_before[first]) * depth, offset, depth});
                        if (best.size() >= 4 * keep + 1024) {
                          std::nth_element(best.begin(), best.begin() + keep, best.end(), by_score);
                          best.resize(keep);
                        }
                      });
    std::sort(best.begin(), best.end(), by_score);
    if (best.size() > keep) best.resize(keep);

    Pieces seeds;
    for (const auto& [cp, count] : corpus_.alphabet())
      seeds.emplace_back(SpmTrainingCorpus::utf8(&cp, 1), float(count));
    for (const Candidate& c : best) {
      cps.clear();
      for (int32_t k = c.offset; k < c.offset + c.length; ++k) cps.push_back(chars[text[k] - 2]);
      seeds.emplace_back(SpmTrainingCorpus::utf8(cps.data(), cps.size()), float(c.score));
    }
    double sum = 0;
    for (const auto& s : seeds) sum += s.second;
    const double log_sum = std::log(sum);
    for (auto& s : seeds) s.second = float(std::log(double(s.second)) - log_sum);
    return seeds;
  }

  void set_pieces(Pieces pieces) {
    pieces_ = std::move(pieces);
    trie_ = ByteTrie();
    min_score_ = std::numeric_limits<float>::max();
    probs_.resize(pieces_.size());
    for (size_t i = 0; i < pieces_.size(); ++i) {
      const std::string& s = pieces_[i].first;
      trie_.insert(reinterpret_cast<const uint8_t*>(s.data()), s.size(), uint32_t(i));
      min_score_ = std::min(min_score_, pieces_[i].second);
      probs_[i] = std::exp(double(pieces_[i].second));
    }
  }

  // The lattice of one text: an edge for each piece that matches at each character, and an
  // unknown edge where no piece covers a single character.
  class Lattice {
   public:
    // Adds count * (posterior of each piece's edges) to expected; returns log Z. Sums run over
    // probabilities, not their logs (no exp or log per edge); a text so long or unlikely that
    // its total probability nears the bottom of the double range takes the log-domain path.
    double expect(const UnigramTrainer& t, std::string_view s, double count, std::vector<double>& expected) {
      build(t, s, kNoExclusion);
      const size_t n = s.size();
      alpha_.assign(n + 1, 0.0);
      beta_.assign(n + 1, 0.0);
      alpha_[0] = 1;
      for (const Edge& e : edges_) alpha_[e.end] += alpha_[e.start] * e.prob;
      const double z = alpha_[n];
      if (z > 1e-250) {
        beta_[n] = 1;
        for (auto it = edges_.rbegin(); it != edges_.rend(); ++it) beta_[it->start] += it->prob * beta_[it->end];
        const double scale = count / z;
        for (const Edge& e : edges_)
          if (e.id != kUnknownPiece) expected[e.id] += scale * alpha_[e.start] * e.prob * beta_[e.end];
        return std::log(z);
      }
      constexpr double kNegInf = -std::numeric_limits<double>::infinity();
      alpha_.assign(n + 1, kNegInf);
      beta_.assign(n + 1, kNegInf);
      alpha_[0] = 0;
      for (const Edge& e : edges_) alpha_[e.end] = log_add(alpha_[e.end], alpha_[e.start] + e.score);
      beta_[n] = 0;
      for (auto it = edges_.rbegin(); it != edges_.rend(); ++it)
        beta_[it->start] = log_add(beta_[it->start], it->score + beta_[it->end]);
      const double log_z = alpha_[n];
      for (const Edge& e : edges_)
        if (e.id != kUnknownPiece) expected[e.id] += count * std::exp(alpha_[e.start] + e.score + beta_[e.end] - log_z);
      return log_z;
    }

    // The best segmentation's pieces (kUnknownPiece for unknown characters), without using
    // piece `excluded` across the whole text.
    void best(const UnigramTrainer& t, std::string_view s, uint32_t excluded, std::vector<uint32_t>& path) {
      build(t, s, excluded);
      constexpr double kNegInf = -std::numeric_limits<double>::infinity();
      alpha_.assign(s.size() + 1, kNegInf);
      back_.assign(s.size() + 1, nullptr);
      alpha_[0] = 0;
      for (const Edge& e : edges_) {
        const double v = alpha_[e.start] + e.score;
        if (v > alpha_[e.end]) {
          alpha_[e.end] = v;
          back_[e.end] = &e;
        }
      }
      path.clear();
      for (size_t end = s.size(); end > 0 && back_[end]; end = back_[end]->start) path.push_back(back_[end]->id);
      std::reverse(path.begin(), path.end());
    }

   private:
    struct Edge {
      uint32_t start, end, id;
      float score;
      double prob;  // exp(score)
    };

    static double log_add(double x, double y) {
      if (x < y) std::swap(x, y);
      if (y == -std::numeric_limits<double>::infinity() || x > y + 50) return x;
      return x + std::log1p(std::exp(y - x));
    }

    void build(const UnigramTrainer& t, std::string_view s, uint32_t excluded) {
      edges_.clear();
      const auto* b = reinterpret_cast<const uint8_t*>(s.data());
      for (size_t start = 0; start < s.size();) {
        const size_t char_len = std::min(utf8_length(b[start]), s.size() - start);
        bool single = false;
        uint32_t node = ByteTrie::kRoot;
        for (size_t end = start; end < s.size();) {
          node = t.trie_.child(node, b[end++]);
          if (node == ByteTrie::kNone) break;
          const uint32_t id = t.trie_.value(node);
          if (id == kNoToken || (id == excluded && start == 0 && end == s.size())) continue;
          edges_.push_back({uint32_t(start), uint32_t(end), id, t.pieces_[id].second, t.probs_[id]});
          single = single || end - start == char_len;
        }
        if (!single)
          edges_.push_back({uint32_t(start), uint32_t(start + char_len), kUnknownPiece, t.min_score_ - kUnknownPenalty,
                            std::exp(double(t.min_score_ - kUnknownPenalty))});
        start += char_len;
      }
    }

    std::vector<Edge> edges_;
    std::vector<double> alpha_, beta_;
    std::vector<const Edge*> back_;
  };

  size_t threads() const { return corpus_.options().threads; }

  SpmTrainingCorpus corpus_;
  Options options_;
  std::vector<std::pair<std::string, int64_t>> words_;
  Pieces pieces_;
  ByteTrie trie_;
  std::vector<double> probs_;  // exp(score) of each piece
  float min_score_ = 0;
};

}  // namespace tokenforge
