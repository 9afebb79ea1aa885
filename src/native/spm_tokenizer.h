// A sentencepiece model as a Tokenizer pipeline. Allowed special tokens are matched in the raw
// text first; each text between them is encoded as sentencepiece encodes a whole text
// (normalized, then the model), so "A<s>B" gives A's tokens, <s>, then B's. Offsets are
// sentencepiece's (a token spans the input from where its first normalized byte came from to
// where the byte after its last came from), in code points of the input. Then the template
// (bos/eos), truncation and padding.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "parallel.h"
#include "pool.h"
#include "post_processing.h"
#include "special_matcher.h"
#include "spm_normalizer.h"

namespace tokenforge {

// A model behind its normalizer: one text as sentencepiece encodes it.
class SpmEncoder {
 public:
  // Encodes normalized text: appends its ids, and to `lengths` the normalized bytes each covers.
  using Model = std::function<void(const uint8_t*, size_t, std::vector<uint32_t>& ids,
                                    std::vector<uint32_t>* lengths)>;

  // `normalizer` must outlive the encoder (the bindings keep its owner alive).
  SpmEncoder(const SpmNormalizer& normalizer, Model model) : normalizer_(normalizer), model_(std::move(model)) {}

  // Appends the ids of text s[0..n) to ids; with `lengths` also the normalized bytes each covers,
  // with `norm_to_orig` the normalizer's alignment (SpmNormalizer::normalize).
  void encode(const uint8_t* s, size_t n, std::vector<uint32_t>& ids, std::vector<uint32_t>* lengths = nullptr,
              std::vector<uint32_t>* norm_to_orig = nullptr) const {
    Pool<std::string>::Lease normalized(normalized_);
    std::string& text = normalized.get();
    normalizer_.normalize(s, n, text, norm_to_orig);
    model_(reinterpret_cast<const uint8_t*>(text.data()), text.size(), ids, lengths);
  }

 private:
  const SpmNormalizer& normalizer_;
  Model model_;
  mutable Pool<std::string> normalized_;  // reused per thread
};

class SpmPipeline {
 public:
  SpmPipeline(const SpmNormalizer& normalizer, SpmEncoder::Model model) : encoder_(normalizer, std::move(model)) {}

  PostProcessor post;

  // One text, or a pair, through the template; `added` (may be null) finds allowed special tokens.
  Encoded encode(const uint8_t* a, size_t na, const uint8_t* b, size_t nb, bool pair, bool add_special,
                 const SpecialMatcher* added) const {
    Pool<Scratch>::Lease lease(scratch_);
    Encoded first = encode_sequence(a, na, added, lease.get());
    if (!pair) return post.process(std::move(first), nullptr, add_special);
    Encoded second = encode_sequence(b, nb, added, lease.get());
    return post.process(std::move(first), &second, add_special);
  }

  // Many texts (or pairs: b non-null) on up to `threads` threads.
  template <class Texts>
  void encode_many(const Texts& a, const Texts* b, bool add_special, const SpecialMatcher* added, size_t threads,
                   std::vector<Encoded>& out) const {
    out.resize(a.size());
    parallel_for(a.size(), threads, [&](size_t i) {
      out[i] = encode(a[i].data, a[i].size, b ? (*b)[i].data : nullptr, b ? (*b)[i].size : 0, b != nullptr,
                      add_special, added);
    });
  }

 private:
  struct Scratch {
    std::vector<uint32_t> norm_to_orig, ids, lengths;
  };

  Encoded encode_sequence(const uint8_t* s, size_t n, const SpecialMatcher* added, Scratch& scratch) const {
    Encoded e;
    size_t pos = 0;
    uint32_t chars = 0;  // code points before pos
    for (;;) {
      const SpecialMatch m = added ? added->find(s, n, pos) : SpecialMatch{n, 0, 0};
      chars = encode_text(s + pos, m.pos - pos, chars, scratch, e.rows);
      if (m.pos >= n) break;
      const uint32_t end = chars + count_chars(s + m.pos, m.len);
      push_row(e.rows, m.id, 0, chars, end, false);
      chars = end;
      pos = m.pos + m.len;
    }
    return e;
  }

  // Rows for s[0..n), whose first character is number `chars` of the input; returns the number
  // after its last.
  uint32_t encode_text(const uint8_t* s, size_t n, uint32_t chars, Scratch& scratch, TokenRows& rows) const {
    std::vector<uint32_t>& to_orig = scratch.norm_to_orig;
    scratch.ids.clear();
    scratch.lengths.clear();
    encoder_.encode(s, n, scratch.ids, &scratch.lengths, &to_orig);
    // Input byte offsets only grow along the tokens: one cursor turns them into code points.
    size_t byte = 0;
    auto char_at = [&](uint32_t target) {
      for (; byte < target; ++byte) chars += (s[byte] & 0xC0) != 0x80;
      return chars;
    };
    const size_t count = scratch.ids.size(), at = rows.size();
    if (count == 0) return char_at(uint32_t(n));
    if (at == 0) rows.reserve(count + 2);  // a whole text, mostly: room for bos and eos too
    rows.resize(at + count);
    size_t norm = 0;  // normalized bytes before the token
    uint32_t start = char_at(to_orig[0]);
    for (size_t i = 0; i < count; ++i) {
      norm += scratch.lengths[i];
      const uint32_t end = char_at(to_orig[norm]);
      rows[at + i] = Row{scratch.ids[i], 0, start, end, 0, 1};
      start = end;
    }
    return char_at(uint32_t(n));
  }

  static uint32_t count_chars(const uint8_t* s, size_t n) {
    uint32_t k = 0;
    for (size_t i = 0; i < n; ++i) k += (s[i] & 0xC0) != 0x80;
    return k;
  }

  SpmEncoder encoder_;
  mutable Pool<Scratch> scratch_;
};

}  // namespace tokenforge
