// The text sentencepiece's trainers learn from: sentences normalized with the model's rule,
// user-defined and control symbols cut out, the alphabet chosen by character coverage, and the
// distinct words counted. Shared by the Unigram and BPE trainers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "normalizers/spm_normalizer.h"
#include "trainers/spm_piece_rules.h"
#include "unicode/unicode_classes.h"
#include "base/byte_trie.h"

namespace tokenforge {

class SpmTrainingCorpus {
 public:
  struct Options {
    SpmPieceRules rules;
    double character_coverage = 0.9995;
    size_t threads = 1;
  };

  SpmTrainingCorpus(SpmNormalizer normalizer, const std::vector<std::string>& meta_pieces, Options options)
      : normalizer_(std::move(normalizer)), options_(options) {
    for (const std::string& piece : meta_pieces)
      if (!piece.empty()) meta_pieces_.insert(reinterpret_cast<const uint8_t*>(piece.data()), piece.size(), 0);
  }

  const Options& options() const { return options_; }

  // Normalizes raw sentences and keeps the non-empty ones, user-defined and control symbols
  // cut out (they may not be inside learned pieces).
  void add_sentences(const std::vector<std::string_view>& raw) {
    std::vector<std::string> normalized(raw.size());
    parallel_for(raw.size(), options_.threads, [&](size_t i) {
      normalized[i] =
          cut_meta_pieces(normalizer_.normalize(reinterpret_cast<const uint8_t*>(raw[i].data()), raw[i].size()));
    });
    for (const std::string& s : normalized) {
      if (s.empty()) continue;
      if (s.find(' ') != std::string::npos)
        throw std::invalid_argument("a normalized sentence still holds a space: training needs escape_whitespaces");
      sentences_ += s;
      sentences_ += '\0';
      ++sentence_count_;
    }
  }

  size_t sentence_count() const { return sentence_count_; }

  // The most frequent characters covering character_coverage of the text, most frequent first
  // (ties by code point); the others will read as U+2585. Raises when that and the special
  // pieces do not fit in vocab_size.
  void choose_alphabet(size_t meta_count, size_t vocab_size) {
    if (sentence_count_ == 0) throw std::invalid_argument("no training text: every sentence was empty");
    // Characters counted by code point on every thread, over shares of the text cut at sentence ends.
    const size_t threads = options_.threads;
    const std::vector<size_t> cuts = sentence_cuts(threads);
    std::vector<std::vector<int64_t>> per_thread(threads);
    parallel_for(threads, threads, [&](size_t t) {
      per_thread[t].assign(0x110000, 0);
      for_each_char(std::string_view(sentences_).substr(cuts[t], cuts[t + 1] - cuts[t]),
                    [&](uint32_t cp) { per_thread[t][std::min<uint32_t>(cp, 0x10FFFF)] += 1; });
    });
    std::vector<std::pair<uint32_t, int64_t>> by_count;
    int64_t all = 0;
    for (uint32_t cp = 1; cp < 0x110000; ++cp) {
      int64_t n = 0;
      for (const auto& counts : per_thread) n += counts[cp];
      if (n) by_count.emplace_back(cp, n);
      all += n;
    }
    std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    int64_t covered = 0;
    for (const auto& [cp, count] : by_count) {
      if (double(covered) / double(all) >= options_.character_coverage) break;
      covered += count;
      if (cp != kSpmBoundary && cp != kSpmUnknown) alphabet_.emplace_back(cp, count);
    }
    in_alphabet_.assign(0x110000, 0);
    for (const auto& [cp, count] : alphabet_) in_alphabet_[cp] = 1;
    if (alphabet_.size() + meta_count > vocab_size)
      throw std::invalid_argument("vocab_size " + std::to_string(vocab_size) + " is smaller than the " +
                                  std::to_string(alphabet_.size() + meta_count) +
                                  " characters and special pieces it must hold; raise vocab_size or lower "
                                  "character_coverage");
  }

  const std::vector<std::pair<uint32_t, int64_t>>& alphabet() const { return alphabet_; }

  // cp, or U+2585 when it is outside the alphabet.
  uint32_t kept(uint32_t cp) const { return cp < in_alphabet_.size() && in_alphabet_[cp] ? cp : kSpmUnknown; }

  // The normalized sentences, each ended by '\0' (released by count_words).
  const std::string& sentences() const { return sentences_; }

  // The distinct words of all sentences (characters outside the alphabet as U+2585), with
  // counts, most frequent first; the sentences are let go. at_end, when given, gets how many of
  // each word's occurrences end their sentence.
  std::vector<std::pair<std::string, int64_t>> count_words(std::vector<int64_t>* at_end = nullptr) {
    replace_unknown_characters();
    // Each thread counts the words of a share of the sentences, by views into the text.
    using Counts = std::unordered_map<std::string_view, std::pair<int64_t, int64_t>>;  // (all, at an end)
    const size_t threads = options_.threads;
    const std::vector<size_t> cuts = sentence_cuts(threads);
    std::vector<Counts> counts(threads);
    parallel_for(threads, threads, [&](size_t t) {
      const std::string_view text = std::string_view(sentences_).substr(cuts[t], cuts[t + 1] - cuts[t]);
      for (size_t start = 0; start < text.size();) {
        const size_t end = text.find('\0', start);
        const std::string_view sentence = text.substr(start, end - start);
        if (options_.rules.split_by_whitespace) {
          const std::vector<std::string_view> words = options_.rules.words(sentence);
          for (size_t i = 0; i < words.size(); ++i) {
            auto& c = counts[t][words[i]];
            ++c.first;
            c.second += i + 1 == words.size();
          }
        } else {
          auto& c = counts[t][sentence];
          ++c.first;
          ++c.second;
        }
        start = end + 1;
      }
    });
    for (size_t t = 1; t < threads; ++t) {
      for (const auto& [word, c] : counts[t]) {
        auto& total = counts[0][word];
        total.first += c.first;
        total.second += c.second;
      }
      Counts().swap(counts[t]);
    }
    std::vector<std::pair<std::string_view, std::pair<int64_t, int64_t>>> sorted(counts[0].begin(), counts[0].end());
    Counts().swap(counts[0]);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second.first != b.second.first ? a.second.first > b.second.first : a.first < b.first;
    });
    std::vector<std::pair<std::string, int64_t>> words;
    words.reserve(sorted.size());
    if (at_end) at_end->clear();
    for (const auto& [word, c] : sorted) {
      words.emplace_back(std::string(word), c.first);
      if (at_end) at_end->push_back(c.second);
    }
    std::string().swap(sentences_);
    return words;
  }

  template <class Fn>
  static void for_each_char(std::string_view s, Fn fn) {
    for (size_t i = 0; i < s.size();) {
      size_t len;
      const uint32_t cp = decode_utf8(reinterpret_cast<const uint8_t*>(s.data()) + i, s.size() - i, len);
      fn(cp);
      i += len;
    }
  }

  static std::string utf8(const uint32_t* cps, size_t n) {
    std::string out;
    uint8_t buf[4];
    for (size_t i = 0; i < n; ++i) out.append(reinterpret_cast<char*>(buf), encode_utf8(cps[i], buf));
    return out;
  }

 private:
  // Where to cut the text into `parts` shares of whole sentences: parts + 1 offsets.
  std::vector<size_t> sentence_cuts(size_t parts) const {
    std::vector<size_t> cuts{0};
    for (size_t t = 1; t < parts; ++t) {
      const size_t cut = sentences_.find('\0', std::max(cuts.back(), sentences_.size() * t / parts));
      cuts.push_back(cut == std::string::npos ? sentences_.size() : cut + 1);
    }
    cuts.push_back(sentences_.size());
    return cuts;
  }

  // Rewrites the text with U+2585 for every character outside the alphabet (when there is one).
  void replace_unknown_characters() {
    bool all_kept = true;
    for_each_char(sentences_, [&](uint32_t cp) { all_kept = all_kept && (cp == 0 || kept(cp) == cp); });
    if (all_kept) return;
    std::string out;
    out.reserve(sentences_.size());
    uint8_t buf[4];
    for_each_char(sentences_, [&](uint32_t cp) {  // '\0' ends a sentence
      out.append(reinterpret_cast<char*>(buf), encode_utf8(cp == 0 ? 0 : kept(cp), buf));
    });
    sentences_.swap(out);
  }

  // Replaces each special piece's text (the longest at each position) with the boundary character.
  std::string cut_meta_pieces(const std::string& s) const {
    std::string out;
    const auto* b = reinterpret_cast<const uint8_t*>(s.data());
    for (size_t i = 0; i < s.size();) {
      size_t best = 0;
      uint32_t node = ByteTrie::kRoot;
      for (size_t end = i; end < s.size();) {
        node = meta_pieces_.child(node, b[end++]);
        if (node == ByteTrie::kNone) break;
        if (meta_pieces_.value(node) != kNoToken) best = end - i;
      }
      if (best) {
        out += char(kSpmBoundary);
        i += best;
      } else {
        out += s[i++];
      }
    }
    return out;
  }

  SpmNormalizer normalizer_;
  ByteTrie meta_pieces_;
  Options options_;
  std::string sentences_;  // normalized, each ended by '\0'
  size_t sentence_count_ = 0;
  std::vector<std::pair<uint32_t, int64_t>> alphabet_;  // kept characters, most frequent first
  std::vector<uint8_t> in_alphabet_;                    // by code point
};

}  // namespace tokenforge
