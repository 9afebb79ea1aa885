// BERT's normalizer and pre-tokenizer, and llama.cpp's WPM preprocessing, as one pass over
// the code points of a text that hands out words.
//
// Both are context-free per code point: each input code point becomes zero or more output
// code points (removed, mapped, decomposed, lowercased), and each output code point is a
// space (ends the word), isolated (a word of its own: punctuation, CJK ideographs) or part of
// a word. So a rule table per configuration gives, for every code point, its outputs with
// their classes; the words carry, per byte, the input character each byte came from, for
// offsets.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/inline_hints.h"

namespace tokenforge {

namespace bert_data {
#include "normalizers/bert_tables.inc"
}  // namespace bert_data

// Lookups in the tables above, one home for the fused BERT rules (CharRules below) and the
// staged pipeline's components (unicode/hf_chars.h).
namespace bert_chars {

inline uint16_t flags(uint32_t cp) {
  if (cp >= 0x110000) return 0;
  return bert_data::kFlags[(size_t(bert_data::kFlagBlocks[cp >> 8]) << 8) | (cp & 0xFF)];
}

// Appends the mapping of cp in a sorted {cp, offset, length} table, or cp itself.
template <class Entry>
void append_mapped(const Entry* table, size_t n, const uint32_t* data, uint32_t cp, std::vector<uint32_t>& out) {
  const Entry* e = std::lower_bound(table, table + n, cp, [](const Entry& x, uint32_t c) { return x.cp < c; });
  if (e == table + n || e->cp != cp) {
    out.push_back(cp);
    return;
  }
  out.insert(out.end(), data + e->offset, data + e->offset + e->length);
}

// Canonical decomposition (Unicode 9.0, as HF's NFD): Hangul syllables by formula.
inline void decompose(uint32_t cp, std::vector<uint32_t>& out) {
  if (cp >= 0xAC00 && cp <= 0xD7A3) {
    const uint32_t s = cp - 0xAC00;
    out.push_back(0x1100 + s / 588);
    out.push_back(0x1161 + (s % 588) / 28);
    if (s % 28) out.push_back(0x11A7 + s % 28);
    return;
  }
  append_mapped(bert_data::kNfd, std::size(bert_data::kNfd), bert_data::kNfdData, cp, out);
}

inline uint32_t combining_class(uint32_t cp) {
  const auto* e = std::lower_bound(std::begin(bert_data::kCcc), std::end(bert_data::kCcc), cp,
                                   [](const bert_data::Pair& x, uint32_t c) { return x.cp < c; });
  return e != std::end(bert_data::kCcc) && e->cp == cp ? e->to : 0;
}

// BERT's "Chinese character" ranges (CJK ideograph blocks), as HF and llama.cpp list them.
inline bool is_cjk(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

}  // namespace bert_chars

enum class WordClass : uint8_t { kWord = 0, kSpace = 1, kIsolated = 2 };

struct TextRules {
  // BERT (HF BertNormalizer + BertPreTokenizer) switches.
  bool clean_text = true, cjk_spaces = true, strip_accents = true, lowercase = true;
  bool wpm = false;  // llama.cpp's WPM preprocessing instead (the switches above are unused)
};

class CharRules {
  // (the table lookups, by their short names)
  static uint16_t flags(uint32_t cp) { return bert_chars::flags(cp); }
  static bool is_cjk(uint32_t cp) { return bert_chars::is_cjk(cp); }

 public:
  static constexpr uint32_t kCodePoint = 0x1FFFFF;
  static constexpr int kClassShift = 24;

  explicit CharRules(const TextRules& rules) : rules_(rules) {
    bmp_.resize(0x10000);
    std::vector<uint32_t> out;
    for (uint32_t cp = 0; cp < 0x10000; ++cp) {
      out.clear();
      expand(cp, out);
      if (out.size() == 1) {
        bmp_[cp] = out[0];
      } else {
        bmp_[cp] = kPooled | uint32_t(pool_.size());
        pool_.push_back(uint32_t(out.size()));
        pool_.insert(pool_.end(), out.begin(), out.end());
      }
    }
  }

  const TextRules& rules() const { return rules_; }

  // Whether input cp can make the per-character rules inexact: with accents stripped, NFD's
  // canonical reordering may move a non-starter that stays (rare scripts' combining marks).
  bool needs_exact(uint32_t cp) const {
    return !rules_.wpm && rules_.strip_accents && (flags(cp) & bert_data::kReorder);
  }

  // The exact path for a whole text: input code points with their indices in, outputs
  // (code point | class << kClassShift) with the index each came from out. As HF: clean, CJK
  // spaces, NFD with canonical reordering over the whole text, strip Mn, lowercase, class.
  void expand_exact(const std::vector<uint32_t>& cps, std::vector<uint32_t>& out, std::vector<uint32_t>& origin) const {
    std::vector<uint32_t> seq, from, ccc;
    for (uint32_t i = 0; i < cps.size(); ++i) {
      const uint32_t cp = cps[i];
      const uint16_t f = flags(cp);
      const size_t before = seq.size();
      if (rules_.clean_text && (cp == 0 || cp == 0xFFFD || (f & bert_data::kOther))) continue;
      if (rules_.clean_text && (f & bert_data::kSpace)) {
        seq.push_back(' ');
      } else {
        const bool cjk = rules_.cjk_spaces && is_cjk(cp);
        if (cjk) seq.push_back(' ');
        bert_chars::decompose(cp, seq);
        if (cjk) seq.push_back(' ');
      }
      from.insert(from.end(), seq.size() - before, i);
    }
    for (uint32_t c : seq) ccc.push_back(bert_chars::combining_class(c));
    for (size_t i = 0; i < seq.size();) {  // stable sort of each run of non-starters by class
      if (!ccc[i]) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < seq.size() && ccc[j]) ++j;
      std::vector<size_t> order(j - i);
      for (size_t k = 0; k < order.size(); ++k) order[k] = i + k;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ccc[a] < ccc[b]; });
      // The marks move; the input positions stay where they were, as HF's alignments do.
      std::vector<uint32_t> sorted;
      for (size_t k : order) sorted.push_back(seq[k]);
      std::copy(sorted.begin(), sorted.end(), seq.begin() + i);
      i = j;
    }
    std::vector<uint32_t> one;
    for (size_t i = 0; i < seq.size(); ++i) {
      if (flags(seq[i]) & bert_data::kMn) continue;
      one.assign(1, seq[i]);
      if (rules_.lowercase) lowercase(one, 0);
      for (uint32_t c : one) {
        out.push_back(c | uint32_t(bert_class(c)) << kClassShift);
        origin.push_back(from[i]);
      }
    }
  }

  // Calls on_char(output code point, its class) for each output of input code point cp.
  template <class OnChar>
  TF_INLINE void apply(uint32_t cp, OnChar&& on_char) const {
    if (TF_LIKELY(cp < 0x10000)) {
      const uint32_t e = bmp_[cp];
      if (TF_LIKELY(!(e & kPooled))) {
        on_char(e & kCodePoint, WordClass(e >> kClassShift));
        return;
      }
      const uint32_t* p = &pool_[e & ~kPooled];
      for (uint32_t i = 1; i <= p[0]; ++i) on_char(p[i] & kCodePoint, WordClass(p[i] >> kClassShift));
      return;
    }
    std::vector<uint32_t> out;
    expand(cp, out);
    for (uint32_t o : out) on_char(o & kCodePoint, WordClass(o >> kClassShift));
  }

  // The outputs of one input code point, each `code point | class << kClassShift`.
  void expand(uint32_t cp, std::vector<uint32_t>& out) const {
    const size_t first = out.size();
    if (rules_.wpm) {
      expand_wpm(cp, out);
      return;
    }
    expand_bert(cp, out);
    // HF's pre-tokenizer runs on the normalized text: class each output.
    for (size_t i = first; i < out.size(); ++i) out[i] |= uint32_t(bert_class(out[i])) << kClassShift;
  }

 private:
  static constexpr uint32_t kPooled = 0x80000000u;

  void expand_wpm(uint32_t cp, std::vector<uint32_t>& out) const {
    // llama.cpp: the NFD table's first code point is classed; whitespace ends the word; NUL,
    // U+FFFD, controls and marks (Mn, Mc, Me) go; punctuation, ASCII symbols and CJK ideographs
    // are words of their own; the rest is lowercased (simple mapping) into the word.
    const uint32_t base = wpm_nfd(cp);
    const uint16_t f = flags(base);
    if (f & bert_data::kWpmSpace) {
      out.push_back(' ' | uint32_t(WordClass::kSpace) << kClassShift);
      return;
    }
    if (base == 0 || base == 0xFFFD || (f & (bert_data::kWpmControl | bert_data::kWpmMark))) return;
    const bool isolated = (f & bert_data::kWpmPunct) || (base < 0x7F && (f & bert_data::kWpmSymbol)) || is_cjk(base);
    out.push_back(wpm_lower(base) | uint32_t(isolated ? WordClass::kIsolated : WordClass::kWord) << kClassShift);
  }

  void expand_bert(uint32_t cp, std::vector<uint32_t>& out) const {
    const uint16_t f = flags(cp);
    if (rules_.clean_text) {
      if (cp == 0 || cp == 0xFFFD || (f & bert_data::kOther)) return;
      if (f & bert_data::kSpace) {
        out.push_back(' ');
        return;
      }
    }
    const bool cjk = rules_.cjk_spaces && is_cjk(cp);
    if (cjk) out.push_back(' ');
    const size_t first = out.size();
    if (rules_.strip_accents) {
      bert_chars::decompose(cp, out);
      out.erase(
          std::remove_if(out.begin() + first, out.end(), [&](uint32_t c) { return (flags(c) & bert_data::kMn) != 0; }),
          out.end());
    } else {
      out.push_back(cp);
    }
    if (rules_.lowercase) lowercase(out, first);
    if (cjk) out.push_back(' ');
  }

  void lowercase(std::vector<uint32_t>& out, size_t first) const {
    std::vector<uint32_t> lowered;
    for (size_t i = first; i < out.size(); ++i)
      bert_chars::append_mapped(bert_data::kLower, std::size(bert_data::kLower), bert_data::kLowerData, out[i],
                                lowered);
    out.resize(first);
    out.insert(out.end(), lowered.begin(), lowered.end());
  }

  static WordClass bert_class(uint32_t cp) {
    const uint16_t f = flags(cp);
    if (f & bert_data::kSpace) return WordClass::kSpace;
    if (f & bert_data::kPunct) return WordClass::kIsolated;
    return WordClass::kWord;
  }

  static uint32_t wpm_nfd(uint32_t cp) {
    const auto* r = std::upper_bound(std::begin(bert_data::kWpmNfd), std::end(bert_data::kWpmNfd), cp,
                                     [](uint32_t c, const bert_data::Range& x) { return c < x.first; });
    if (r == std::begin(bert_data::kWpmNfd)) return cp;
    --r;
    return cp <= r->last ? r->nfd : cp;
  }
  static uint32_t wpm_lower(uint32_t cp) {
    const auto* e = std::lower_bound(std::begin(bert_data::kWpmLower), std::end(bert_data::kWpmLower), cp,
                                     [](const bert_data::Pair& x, uint32_t c) { return x.cp < c; });
    return e != std::end(bert_data::kWpmLower) && e->cp == cp ? e->to : cp;
  }

  TextRules rules_;
  std::vector<uint32_t> bmp_;   // output cp | class << 24, or kPooled | index into pool_
  std::vector<uint32_t> pool_;  // count, then the output code points
};

}  // namespace tokenforge
