// Finds added-token text (e.g. "<|endoftext|>", "<mask>", user words) in a string, as HF's
// AddedVocabulary (tokenizer/added_vocabulary.rs) does: leftmost occurrence, longest token on
// ties, matches never overlapping. Each token carries HF's flags: single_word (kept only where
// no word character touches it), lstrip and rstrip (the whitespace before / after it joins its
// span), normalized (matched by its normalized text in the normalized text, after the others:
// the second of HF's two passes), and skip (found, so that it hides what overlaps it, but left
// as text: HF's split_special_tokens, and tokenforge's allowed_special). What lstrip and rstrip
// take is HF's whitespace (Unicode's White_Space), or by a flag Python's (str.isspace, which
// adds \x1c-\x1f: transformers' Python classes strip with it), with ASCII punctuation and U+2581
// too by another (SiglipTokenizer's canonicalized text). A set whose tokens carry
// kAddedLlama is partitioned as llama.cpp partitions a text instead (find_added_by_length):
// longest token first, lstrip and rstrip taking C's isspace whitespace. Built once per set of
// tokens and reused across calls; split_at_matches cuts a text at them for the fused pipelines,
// and pipelines/staged.h runs find_added's two passes around its normalizer.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/byte_trie.h"
#include "base/inline_hints.h"
#include "unicode/hf_chars.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

struct SpecialMatch {
  size_t pos, len;
  uint32_t id;
  // Whether lstrip or rstrip took whitespace into the span: HF's token is then the text the
  // span covers, not the token's content (Encoded::names).
  bool grown = false;
};

// An added token's flags (HF's AddedToken fields, plus kSkip).
enum AddedTokenFlags : uint8_t {
  kAddedSingleWord = 1,
  kAddedLstrip = 2,
  kAddedRstrip = 4,
  kAddedNormalized = 8,
  kAddedSkip = 16,
  kAddedPythonSpaces = 32,  // lstrip and rstrip take str.isspace's whitespace
  kAddedLlama = 64,         // the set is partitioned as llama.cpp's (see find_added_by_length)
  // lstrip and rstrip also take ASCII punctuation and U+2581 (SiglipTokenizer: the text after a
  // special token has its punctuation removed and is stripped, each U+2581 read as a space)
  kAddedStripPunctuation = 128,
};

struct AddedTokenSpec {
  std::string text;  // what is searched for: the content, or for a normalized token its normalized content
  uint32_t id = 0;
  uint8_t flags = 0;
};

// One set of token texts: leftmost-longest search (HF's Aho-Corasick in MatchKind::LeftmostLongest).
class AddedTokenSet {
 public:
  struct Found {
    size_t pos, len;
    const AddedTokenSpec* token;  // null: none
  };

  explicit AddedTokenSet(std::vector<AddedTokenSpec> tokens) : tokens_(std::move(tokens)) {
    rank_llama();
    for (uint32_t i = 0; i < tokens_.size(); ++i) {
      const std::string& t = tokens_[i].text;
      if (t.empty()) continue;
      // The first of equal texts wins (insert refuses the later ones).
      if (trie_.insert(reinterpret_cast<const uint8_t*>(t.data()), t.size(), i)) ++count_;
      first_[uint8_t(t[0])] = true;
      shared_first_ = (shared_first_ == -1 || shared_first_ == uint8_t(t[0])) ? uint8_t(t[0]) : -2;
    }
    for (int b = 0; b < 256; ++b) {
      if (!first_[b]) continue;
      if (few_count_ < kFew)
        few_[few_count_++] = uint8_t(b);
      else
        few_count_ = kFew + 1;  // too many for next_first's compares
    }
  }
  AddedTokenSet(const AddedTokenSet&) = delete;
  AddedTokenSet& operator=(const AddedTokenSet&) = delete;

  bool empty() const { return count_ == 0; }
  // Whether the set is partitioned as llama.cpp's (its tokens carry kAddedLlama).
  bool by_length() const { return !llama_rank_.empty(); }
  const std::vector<AddedTokenSpec>& tokens() const { return tokens_; }
  // With by_length(): the place of tokens()[i] in llama.cpp's order of its special tokens.
  uint32_t llama_rank(uint32_t i) const { return llama_rank_[i]; }

  // Calls found(pos, len, index into tokens()) for every token that occurs in s[0..n), each
  // occurrence, at each position shorter tokens first.
  template <class Found>
  void each_occurrence(const uint8_t* s, size_t n, Found&& found) const {
    if (count_ == 0) return;
    for (size_t p = 0; p < n; ++p) {
      if (!first_[s[p]]) {
        p = next_first(s, n, p);
        if (p >= n) break;
      }
      tokens_at(s, n, p, [&](size_t len, uint32_t token) { found(p, len, token); });
    }
  }

  // The first match starting at or after `from`; pos == n when there is none. At each position
  // that starts a token, one walk down the trie finds the longest token there (files such as
  // Gemma's hold thousands of added tokens: the walk costs what the matched text is long, not
  // a lookup per distinct token length).
  Found find(const uint8_t* s, size_t n, size_t from) const {
    if (count_ == 0) return {n, 0, nullptr};
    for (size_t p = from; p < n; ++p) {
      if (shared_first_ >= 0) {
        const void* hit = std::memchr(s + p, shared_first_, n - p);
        if (!hit) break;
        p = static_cast<const uint8_t*>(hit) - s;
      } else if (!first_[s[p]]) {
        p = next_first(s, n, p);
        if (p >= n) break;
      }
      uint32_t best = kNoToken;
      size_t best_len = 0;
      tokens_at(s, n, p, [&](size_t len, uint32_t token) { best = token, best_len = len; });
      if (best != kNoToken) return {p, best_len, &tokens_[best]};
    }
    return {n, 0, nullptr};
  }

 private:
  // Calls found(len, index into tokens_) for each token s[p..n) starts with, shorter first: one
  // walk down the trie.
  template <class Found>
  TF_INLINE void tokens_at(const uint8_t* s, size_t n, size_t p, Found&& found) const {
    uint32_t node = ByteTrie::kRoot;
    for (size_t q = p; q < n; ++q) {
      node = trie_.child(node, s[q]);
      if (node == ByteTrie::kNone) return;
      const uint32_t v = trie_.value(node);
      if (v != kNoToken) found(q + 1 - p, v);
    }
  }

  // The first position at or after p whose byte starts a token, or n. Where the tokens start with
  // a few distinct bytes (Gemma's thousands of added tokens start with "<", "\n", "\t", "[" or
  // the first byte of "▁"), 16 bytes at a time.
  size_t next_first(const uint8_t* s, size_t n, size_t p) const {
#if defined(__SSE2__)
    if (few_count_ <= kFew) {
      __m128i want[kFew];
      for (int k = 0; k < few_count_; ++k) want[k] = _mm_set1_epi8(char(few_[k]));
      for (; p + 16 <= n; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + p));
        __m128i hit = _mm_cmpeq_epi8(v, want[0]);
        for (int k = 1; k < few_count_; ++k) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, want[k]));
        if (const unsigned mask = unsigned(_mm_movemask_epi8(hit))) return p + unsigned(__builtin_ctz(mask));
      }
    }
#endif
    for (; p < n; ++p)
      if (first_[s[p]]) return p;
    return n;
  }

  // llama.cpp's order of its special tokens (cache_special_tokens): the ids in increasing order,
  // then std::sort by decreasing text length (the same sort on the same input: equal lengths
  // fall as they fall there, with the same standard library).
  // The flag is the set's (the rules of one tokenizer): on every token or on none.
  void rank_llama() {
    const bool llama = !tokens_.empty() && (tokens_[0].flags & kAddedLlama);
    for (const AddedTokenSpec& t : tokens_)
      if (bool(t.flags & kAddedLlama) != llama)
        throw std::invalid_argument("added tokens: the llama flag (64) is on some tokens of the set, not all");
    if (!llama) return;
    std::vector<uint32_t> order(tokens_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return tokens_[a].id < tokens_[b].id; });
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return tokens_[a].text.size() > tokens_[b].text.size(); });
    llama_rank_.resize(order.size());
    for (uint32_t r = 0; r < order.size(); ++r) llama_rank_[order[r]] = r;
  }

  static constexpr int kFew = 8;
  std::vector<AddedTokenSpec> tokens_;  // the trie's values index it
  std::vector<uint32_t> llama_rank_;    // by token: llama_rank(); empty unless by_length()
  ByteTrie trie_;
  size_t count_ = 0;  // distinct non-empty texts
  bool first_[256] = {};
  int shared_first_ = -1;   // the one first byte all tokens share, or -2
  uint8_t few_[kFew] = {};  // the distinct first bytes, if at most kFew (few_count_ is more if not)
  int few_count_ = 0;
};

class SpecialMatcher {
 public:
  // Tokens without flags: all matched in the raw text (tiktoken's special tokens, and checks).
  explicit SpecialMatcher(const std::vector<std::pair<std::string, uint32_t>>& tokens)
      : SpecialMatcher(with_no_flags(tokens)) {}
  explicit SpecialMatcher(const std::vector<AddedTokenSpec>& tokens)
      : raw_(select(tokens, false)), normalized_(select(tokens, true)) {}
  SpecialMatcher(const SpecialMatcher&) = delete;
  SpecialMatcher& operator=(const SpecialMatcher&) = delete;

  bool empty() const { return raw_.empty() && normalized_.empty(); }
  // The tokens matched in the raw text (HF's first pass), and those matched in the normalized
  // text between them (the second).
  const AddedTokenSet& raw() const { return raw_; }
  const AddedTokenSet& normalized() const { return normalized_; }

  // The first text of any token (either set, flags ignored) at or after `from`, leftmost then
  // longest; pos == n when there is none.
  SpecialMatch find(const uint8_t* s, size_t n, size_t from) const {
    AddedTokenSet::Found a = raw_.find(s, n, from), b = normalized_.find(s, n, from);
    if (b.pos < a.pos || (b.pos == a.pos && b.len > a.len)) a = b;
    return {a.pos, a.len, a.token ? a.token->id : 0};
  }

 private:
  static std::vector<AddedTokenSpec> with_no_flags(const std::vector<std::pair<std::string, uint32_t>>& tokens) {
    std::vector<AddedTokenSpec> out;
    for (const auto& [text, id] : tokens) out.push_back({text, id, 0});
    return out;
  }
  static std::vector<AddedTokenSpec> select(const std::vector<AddedTokenSpec>& tokens, bool normalized) {
    std::vector<AddedTokenSpec> out;
    for (const AddedTokenSpec& t : tokens)
      if (bool(t.flags & kAddedNormalized) == normalized) out.push_back(t);
    return out;
  }
  AddedTokenSet raw_, normalized_;
};

namespace added_tokens_detail {

// The code point that ends at s[end) (end > 0), and where it starts.
inline uint32_t code_point_before(const uint8_t* s, size_t end, size_t& start) {
  start = end - 1;
  while (start > 0 && (s[start] & 0xC0) == 0x80 && end - start < 4) --start;
  size_t len;
  return decode_utf8(s + start, end - start, len);
}

// Rust regex's \w$ on s[0..end): the last character is a word character.
inline bool ends_with_word(const uint8_t* s, size_t end) {
  size_t start;
  return end > 0 && hf_is_regex_word(code_point_before(s, end, start));
}

// Rust regex's ^\w on s[0..n).
inline bool starts_with_word(const uint8_t* s, size_t n) {
  size_t len;
  return n > 0 && hf_is_regex_word(decode_utf8(s, n, len));
}

// Whether lstrip and rstrip take c, by a token's flags (see AddedTokenFlags).
inline bool strip_space(uint32_t c, uint8_t flags) {
  if (flags & kAddedLlama) return c == ' ' || (c >= '\t' && c <= '\r');
  if (flags & kAddedStripPunctuation) {
    // Python's string.punctuation: the printable ASCII characters that are neither letters,
    // digits nor the space
    const bool punctuation =
        (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
    if (punctuation || c == 0x2581) return true;
  }
  return hf_is_regex_space(c) || ((flags & kAddedPythonSpaces) && c >= 0x1c && c <= 0x1f);
}

// Where the whitespace (strip_space by `flags`) that ends s[0..end) starts.
inline size_t space_run_start(const uint8_t* s, size_t end, uint8_t flags) {
  while (end > 0) {
    size_t start;
    if (!strip_space(code_point_before(s, end, start), flags)) break;
    end = start;
  }
  return end;
}

// How many bytes of whitespace (strip_space by `flags`) start s[0..n).
inline size_t space_run_length(const uint8_t* s, size_t n, uint8_t flags) {
  size_t i = 0;
  while (i < n) {
    size_t len;
    if (!strip_space(decode_utf8(s + i, n - i, len), flags)) break;
    i += len;
  }
  return i;
}

// Whether a word character touches the match s[start..stop) of s[0..n) (single_word drops it then).
inline bool touches_word(const uint8_t* s, size_t n, size_t start, size_t stop) {
  return (start > 0 && ends_with_word(s, start)) || (stop < n && starts_with_word(s + stop, n - stop));
}

}  // namespace added_tokens_detail

// HF's AddedVocabulary::find_matches: cuts s[0..n) at the matches of `set`. on_text(from, to)
// for each non-empty stretch between them, on_match(match) for each kept match (its span grown
// by lstrip and rstrip), in text order. A match of a skipped token, or of a single_word token
// inside a word, is dropped but still hides the matches that overlap it (the search goes on
// after it), as HF's. (As HF's, an rstrip token's span may reach into the next match's, which
// then starts before the previous one ends; only a token that starts with whitespace does that.)
template <class OnText, class OnMatch>
void find_added_by_length(const AddedTokenSet& set, const uint8_t* s, size_t n, OnText&& on_text, OnMatch&& on_match);

template <class OnText, class OnMatch>
void find_added(const AddedTokenSet& set, const uint8_t* s, size_t n, OnText&& on_text, OnMatch&& on_match) {
  using namespace added_tokens_detail;
  if (set.by_length()) return find_added_by_length(set, s, n, on_text, on_match);
  size_t start_offset = 0, at = 0;
  if (!set.empty()) {
    while (at < n) {
      const AddedTokenSet::Found m = set.find(s, n, at);
      if (m.pos >= n) break;
      at = m.pos + m.len;
      const uint8_t flags = m.token->flags;
      if (flags & kAddedSkip) continue;
      size_t start = m.pos, stop = m.pos + m.len;
      if ((flags & kAddedSingleWord) && touches_word(s, n, start, stop)) continue;
      if (flags & kAddedLstrip) start = std::max(space_run_start(s, start, flags), start_offset);
      if (flags & kAddedRstrip) {
        stop += space_run_length(s + stop, n - stop, flags);
        // (punctuation may begin the next match: the strip ends there, as the class strips the
        // text between two tokens)
        if (flags & kAddedStripPunctuation) stop = std::min(stop, set.find(s, n, at).pos);
      }
      if (start_offset < start) on_text(start_offset, start);
      // lstrip may move the start up to where an rstrip token before it ended, past this
      // match's own end: HF's split is then empty, and HF drops empty splits.
      if (stop > start) {
        on_match(SpecialMatch{start, stop - start, m.token->id, start != m.pos || stop != m.pos + m.len});
        start_offset = stop;
      } else {
        start_offset = std::max(start_offset, stop);
      }
    }
  }
  if (start_offset < n) on_text(start_offset, n);
}

// llama.cpp's tokenizer_st_partition of s[0..n): for each of its special tokens, longest first
// (AddedTokenSet::llama_rank), each occurrence left to right inside the text no token took yet
// (llama.cpp's raw fragments) becomes the token; lstrip and rstrip then take the ASCII spaces
// (C's isspace) before and after it inside that fragment, out of the text. A skipped token is
// not looked for (parse_special off). A single_word token (llama.cpp has no such flag, but a
// user may add one) is kept, as HF's, only where no word character touches it. Calls on_text
// and on_match as find_added does, the strip in the match's span.
template <class OnText, class OnMatch>
void find_added_by_length(const AddedTokenSet& set, const uint8_t* s, size_t n, OnText&& on_text, OnMatch&& on_match) {
  using namespace added_tokens_detail;
  struct Occurrence {
    uint32_t rank;
    size_t pos, len;
    uint32_t token;
  };
  std::vector<Occurrence> found;
  set.each_occurrence(s, n, [&](size_t pos, size_t len, uint32_t token) {
    if (!(set.tokens()[token].flags & kAddedSkip)) found.push_back({set.llama_rank(token), pos, len, token});
  });
  if (found.empty()) {
    if (n > 0) on_text(size_t(0), n);
    return;
  }
  std::sort(found.begin(), found.end(), [](const Occurrence& a, const Occurrence& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.pos < b.pos;
  });
  std::vector<uint8_t> taken(n, 0);  // by byte: a token's, or stripped
  std::vector<SpecialMatch> matches;
  for (const Occurrence& o : found) {
    if (std::find(taken.begin() + o.pos, taken.begin() + (o.pos + o.len), 1) != taken.begin() + (o.pos + o.len))
      continue;
    const AddedTokenSpec& token = set.tokens()[o.token];
    size_t start = o.pos, stop = o.pos + o.len;
    if ((token.flags & kAddedSingleWord) && touches_word(s, n, start, stop)) continue;
    if (token.flags & kAddedLstrip)
      while (start > 0 && !taken[start - 1] && strip_space(s[start - 1], token.flags)) --start;
    if (token.flags & kAddedRstrip)
      while (stop < n && !taken[stop] && strip_space(s[stop], token.flags)) ++stop;
    std::fill(taken.begin() + start, taken.begin() + stop, 1);
    matches.push_back(SpecialMatch{start, stop - start, token.id, start != o.pos || stop != o.pos + o.len});
  }
  std::sort(matches.begin(), matches.end(), [](const SpecialMatch& a, const SpecialMatch& b) { return a.pos < b.pos; });
  size_t at = 0;
  for (const SpecialMatch& m : matches) {
    if (at < m.pos) on_text(at, m.pos);
    on_match(m);
    at = m.pos + m.len;
  }
  if (at < n) on_text(at, n);
}

// Cuts s[0..n) at the matches of `added` (null: none) as HF does where the normalizer leaves
// the text as it is (no normalizer; pipeline/compile.py sends a file whose normalized tokens
// need a real normalizer to the staged pipeline): the raw tokens first, then the normalized
// tokens in each stretch between them. on_text(from, to) for each non-empty stretch of text
// and on_match(match) for each match, in text order. The one split loop of the fused pipelines
// (pipelines/): what lies between matches is encoded as a text of its own.
template <class OnText, class OnMatch>
void split_at_matches(const SpecialMatcher* added, const uint8_t* s, size_t n, OnText&& on_text, OnMatch&& on_match) {
  split_at_matches(added, s, s, n, on_text, on_match);
}
// The same where the normalized tokens are looked for in `normalized` instead, the normalizer's
// text of s when it keeps every byte in place (pipelines/byte_level_hf_bpe.h's CLIP files: a
// lowercase of the same length; the raw tokens are found in s).
template <class OnText, class OnMatch>
void split_at_matches(const SpecialMatcher* added, const uint8_t* s, const uint8_t* normalized, size_t n,
                      OnText&& on_text, OnMatch&& on_match) {
  if (!added || added->empty()) {
    if (n > 0) on_text(size_t(0), n);
    return;
  }
  const AddedTokenSet& second = added->normalized();
  find_added(
      added->raw(), s, n,
      [&](size_t from, size_t to) {
        if (second.empty()) {
          on_text(from, to);
          return;
        }
        find_added(
            second, normalized + from, to - from, [&](size_t a, size_t b) { on_text(from + a, from + b); },
            [&](SpecialMatch m) {
              m.pos += from;
              on_match(m);
            });
      },
      on_match);
}

}  // namespace tokenforge
