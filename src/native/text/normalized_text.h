// A piece of the input on its way through the staged pipeline (pipelines/staged.h), as HF
// tokenizers' NormalizedString: the normalized text (UTF-8) and, for each of its bytes, the span
// of input bytes it came from, so that a token found in the normalized text maps back to the
// input. Normalizers (normalizers/normalizer.h) change it through transform() and the operations
// built on it; pre-tokenizers cut it with split() and slice() (text/pre_tokenized_text.h holds
// the pieces), or, where they only cut, into spans that piece_to_original maps back without a
// slice (pipelines/staged.h); models read text().
//
// Alignments are kept in absolute input bytes (HF keeps them relative to the piece and adds the
// piece's shift when it reports offsets: the same numbers). `transform` follows HF's rules
// exactly (tokenizer/normalizer.rs, transform_range): the new text is given as (char, change)
// pairs, change 0 replacing the next old character, +1 inserting (aligned as the byte before it),
// -n replacing the next old character and removing the n after it; `initial_offset` old
// characters are removed before the first pair. Each output byte takes the alignment of the first
// byte of the old character it replaces.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "pre_tokenizers/match_span.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

// HF's SplitDelimiterBehavior: what split() does with the spans that match.
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// One character of a transform: the code point and its change (see the top of the file).
struct CharChange {
  uint32_t cp;
  int32_t change;
};

class NormalizedText {
 public:
  struct Span {
    uint32_t start, end;
  };

  NormalizedText() = default;

  // s[0..n) as it is, the input bytes [shift, shift + n). Its alignments are not written out
  // until an operation needs them (materialize): while the text keeps each character where it
  // was (in-place rewrites of the same length), byte k stands for the input character around
  // shift + k. Without `offsets`, no alignment is kept at all (a caller that wants ids only,
  // and reads no offsets, original spans or slices of the text: asking one is a logic_error).
  NormalizedText(const char* s, size_t n, uint32_t shift, bool offsets = true)
      : text_(s, n), original_{shift, uint32_t(shift + n)}, identity_(true), untracked_(!offsets) {}

  const std::string& text() const { return text_; }
  const std::vector<Span>& alignments() const {
    materialize();
    return alignments_;
  }
  bool empty() const { return text_.empty(); }
  size_t size() const { return text_.size(); }
  // The input bytes this piece stands for (HF's offsets_original).
  Span original() const { return original_; }

  // The input bytes behind normalized bytes [start, end) (HF's convert_offsets from a normalized
  // range, plus the shift): an empty range stays as it is (shifted); one past the text's end
  // (byte-fallback tokens of a continuing_subword_prefix or end_of_word_suffix's bytes) has no
  // alignment, and HF then keeps the model's offsets as they are, unshifted.
  Span to_original(size_t start, size_t end) const {
    return map_to_original(original_.start, 0, text_.size(), start, end);
  }

  // The code points of the text, one call per character: on_char(cp, byte offset, byte length).
  template <class F>
  void for_each_char(F&& on_char) const {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(text_.data());
    for (size_t i = 0; i < text_.size();) {
      size_t len;
      const uint32_t cp = decode_utf8(s + i, text_.size() - i, len);
      on_char(cp, i, len);
      i += len;
    }
  }

  // Builds the text anew from left to right, for the operations below and the normalizers' fast
  // paths: runs of old bytes kept as they are, old ranges replaced by (char, change) pairs as HF's
  // transform_range replaces them, old ranges dropped; each step starts where the last one
  // ended, at character boundaries. finish() keeps the rest and puts the result in place. Every
  // byte of a character shares the character's alignment (each operation here leaves it so), so
  // a kept run is what a transform with change 0 for each of its characters would write, and a
  // dropped run is what a transform removing those characters (counted against the kept
  // character before them, or as its initial offset) would write.
  class Rewrite {
   public:
    explicit Rewrite(NormalizedText& t) : t_(t) {
      const size_t n = t.text_.size();
      text_.reserve(n + n / 8 + 16);
      alignments_.reserve(n + n / 8 + 16);
    }
    // Old bytes [at_, end) as they are.
    void keep(size_t end) {
      text_.append(t_.text_, at_, end - at_);
      if (t_.untracked_) {
        // (no alignments)
      } else if (t_.identity_) {
        t_.append_identity(at_, end, alignments_);
      } else {
        alignments_.insert(alignments_.end(), t_.alignments_.begin() + at_, t_.alignments_.begin() + end);
      }
      at_ = end;
    }
    // Old bytes [at_, end) left out.
    void drop(size_t end) { at_ = end; }
    // Old bytes [at_, end) replaced by changes[0..count) (HF's transform_range over them, its
    // initial_offset first characters removed).
    void replace(size_t end, const CharChange* changes, size_t count, size_t initial_offset) {
      const size_t old_size = t_.text_.size();
      size_t offset = at_;  // the next old byte to replace
      for (size_t k = 0; k < initial_offset && offset < end; ++k) offset += t_.char_length(offset);
      if (t_.untracked_) {  // (the characters alone)
        for (size_t i = 0; i < count; ++i) {
          uint8_t buf[4];
          text_.append(reinterpret_cast<const char*>(buf), encode_utf8(changes[i].cp, buf));
        }
        at_ = end;
        return;
      }
      for (size_t i = 0; i < count; ++i) {
        const CharChange& c = changes[i];
        Span align;
        if (c.change > 0)
          align = offset < 1 ? Span{t_.original_.start, t_.original_.start} : t_.span_at(offset - 1);
        else
          align = t_.span_at(std::min(offset, old_size - 1));
        if (c.change <= 0 && offset < end) offset += t_.char_length(offset);
        for (int32_t r = 0; r < -c.change && offset < end; ++r) offset += t_.char_length(offset);
        uint8_t buf[4];
        const size_t len = encode_utf8(c.cp, buf);
        text_.append(reinterpret_cast<const char*>(buf), len);
        alignments_.insert(alignments_.end(), len, align);
      }
      at_ = end;
    }
    // Old bytes [at_, end), one character, replaced by the UTF-8 characters `chars`, each
    // aligned as that character (what replace() writes for them with the first change 0 and
    // the others 1).
    void replace_char(size_t end, std::string_view chars) {
      text_.append(chars.data(), chars.size());
      if (!t_.untracked_) alignments_.insert(alignments_.end(), chars.size(), t_.span_at(at_));
      at_ = end;
    }
    void finish() {
      keep(t_.text_.size());
      t_.text_.swap(text_);
      t_.alignments_.swap(alignments_);
      t_.identity_ = t_.untracked_;
    }

   private:
    NormalizedText& t_;
    size_t at_ = 0;
    std::string text_;
    std::vector<Span> alignments_;
  };

  // HF's transform_range over the normalized bytes [start, end) (character boundaries).
  void transform_range(size_t start, size_t end, const std::vector<CharChange>& changes, size_t initial_offset) {
    Rewrite r(*this);
    r.keep(start);
    r.replace(end, changes.data(), changes.size(), initial_offset);
    r.finish();
  }
  void transform(const std::vector<CharChange>& changes, size_t initial_offset) {
    transform_range(0, text_.size(), changes, initial_offset);
  }

  // Each character through map(cp) -> cp (HF's map).
  template <class F>
  void map(F&& f) {
    expand([&](uint32_t cp, std::vector<uint32_t>& out) { out.push_back(f(cp)); });
  }

  // Keeps the characters for which keep(cp) holds (HF's filter: a removed character counts
  // against the kept one before it, or against the start, so the kept ones keep their
  // alignments and the removed ones' bytes go).
  template <class F>
  void filter(F&& keep) {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(text_.data());
    const size_t n = text_.size();
    size_t i = 0, len = 0;
    while (i < n && keep(decode_utf8(s + i, n - i, len))) i += len;
    if (i == n) return;  // every character stays
    Rewrite r(*this);
    for (; i < n; i += len) {
      if (keep(decode_utf8(s + i, n - i, len))) continue;
      r.keep(i);
      r.drop(i + len);
    }
    r.finish();
  }

  // Each character replaced by the characters expand(cp, out) appends, one or more (the first
  // replaces it, the others are inserted after it), as HF's lowercase does. in_place(s, n)
  // rewrites a first part of the bytes in place and returns its end (each character there one of
  // the same length: the alignments stay); a character it stops at is expanded alone, in place
  // where it keeps its length, and in_place goes on after it; from the first character that
  // does not keep its length, the text goes through a Rewrite.
  template <class F>
  void expand(F&& expand_one) {
    expand([](uint8_t*, size_t) { return size_t(0); }, expand_one);
  }
  template <class InPlace, class F>
  void expand(InPlace&& in_place, F&& expand_one) {
    std::vector<uint32_t> out;
    uint8_t* s = reinterpret_cast<uint8_t*>(text_.data());
    const size_t n = text_.size();
    size_t i = in_place(s, n);
    for (; i < n;) {
      size_t len;
      const uint32_t cp = decode_utf8(s + i, n - i, len);
      out.clear();
      expand_one(cp, out);
      uint8_t buf[4];
      if (out.size() != 1 || encode_utf8(out[0], buf) != len) break;
      std::copy(buf, buf + len, s + i);
      i += len;
      i += in_place(s + i, n - i);
    }
    if (i == n) return;
    Rewrite r(*this);
    r.keep(i);
    std::vector<CharChange> changes;
    for (; i < n;) {
      size_t len;
      const uint32_t cp = decode_utf8(s + i, n - i, len);
      out.clear();
      expand_one(cp, out);
      changes.clear();
      for (size_t k = 0; k < out.size(); ++k) changes.push_back(CharChange{out[k], k > 0 ? 1 : 0});
      i += len;
      r.replace(i, changes.data(), changes.size(), 0);
    }
    r.finish();
  }

  // Where the text is all ASCII: each byte through f (ASCII to ASCII), in place, and true (the
  // alignments stay, one byte a character); else false, the text untouched.
  template <class F>
  bool map_ascii(F&& f) {
    for (char c : text_)
      if (uint8_t(c) >= 0x80) return false;
    for (char& c : text_) c = char(f(uint8_t(c)));
    return true;
  }

  // Every match in `matches` (spans of the text, as a pattern gives them) replaced by `content`
  // (HF's replace: the new characters are all inserted, aligned as the match's last byte).
  void replace(const std::vector<MatchSpan>& matches, const std::string& content) {
    if (untracked_) {
      std::string text;
      text.reserve(text_.size());
      size_t last_end = 0;
      for (const MatchSpan& m : matches) {
        if (!m.is_match) continue;
        text.append(text_, last_end, m.start - last_end);
        text += content;
        last_end = m.end;
      }
      text.append(text_, last_end, std::string::npos);
      text_ = std::move(text);
      return;
    }
    materialize();
    std::string text;
    std::vector<Span> alignments;
    text.reserve(text_.size());
    alignments.reserve(alignments_.size());
    size_t last_end = 0;
    for (const MatchSpan& m : matches) {
      if (!m.is_match) continue;
      text.append(text_, last_end, m.start - last_end);
      alignments.insert(alignments.end(), alignments_.begin() + last_end, alignments_.begin() + m.start);
      const Span align = m.end < 1 ? Span{original_.start, original_.start} : alignments_[m.end - 1];
      text += content;
      alignments.insert(alignments.end(), content.size(), align);
      last_end = m.end;
    }
    text.append(text_, last_end, std::string::npos);
    alignments.insert(alignments.end(), alignments_.begin() + last_end, alignments_.end());
    text_ = std::move(text);
    alignments_ = std::move(alignments);
  }

  // s in front of the text (HF's prepend; nothing when the text is empty).
  void prepend(const std::string& s) {
    if (text_.empty()) return;
    std::vector<CharChange> changes;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
    for (size_t i = 0; i < s.size();) {
      size_t len;
      changes.push_back(CharChange{decode_utf8(p + i, s.size() - i, len), i > 0 ? 1 : 0});
      i += len;
    }
    size_t first_len;
    const uint32_t first = decode_utf8(reinterpret_cast<const uint8_t*>(text_.data()), text_.size(), first_len);
    changes.push_back(CharChange{first, 1});
    transform_range(0, first_len, changes, 0);
  }

  // Drops the whitespace characters (is_space) at the start and/or end (HF's lrstrip).
  template <class IsSpace>
  void strip(bool left, bool right, IsSpace&& is_space) {
    std::vector<std::pair<uint32_t, size_t>> chars;  // code point, byte offset
    for_each_char([&](uint32_t cp, size_t at, size_t) { chars.emplace_back(cp, at); });
    size_t leading = 0, trailing = 0;
    if (left)
      while (leading < chars.size() && is_space(chars[leading].first)) ++leading;
    if (right)
      while (trailing < chars.size() && is_space(chars[chars.size() - 1 - trailing].first)) ++trailing;
    if (leading == 0 && trailing == 0) return;
    std::vector<CharChange> changes;
    const size_t count = chars.size();
    for (size_t i = 0; i < count; ++i) {
      if (i < leading || i + trailing >= count) continue;
      // HF compares with the byte length here; the change only differs on the last kept one
      const bool last = text_.size() >= trailing + 1 && i == text_.size() - trailing - 1;
      changes.push_back(CharChange{chars[i].first, last ? -int32_t(trailing) : 0});
    }
    transform(changes, leading);
  }

  // slice(0, size()) in place: the input bytes the normalized text came from become its
  // original span (HF slices every normalized text so, in AddedVocabulary::split_with_indices,
  // where no added token matches too; Metaspace's prepend_scheme "first" reads the span).
  void reslice() {
    if (text_.empty() || identity_) return;  // (the identity's span is its original one; untracked: none)
    const uint32_t s = alignments_.front().start, e = alignments_.back().end;
    original_ = Span{s, e >= s ? e : s};
  }

  // The piece of normalized bytes [start, end) (character boundaries), as HF's slice.
  NormalizedText slice(size_t start, size_t end) const {
    NormalizedText out;
    out.text_.assign(text_, start, end - start);
    if (identity_ && is_boundary(start) && is_boundary(end)) {  // (the identity of its input bytes)
      out.identity_ = true;
      out.untracked_ = untracked_;
      out.original_ = Span{uint32_t(original_.start + start), uint32_t(original_.start + end)};
      return out;
    }
    materialize();
    out.alignments_.assign(alignments_.begin() + start, alignments_.begin() + end);
    if (start < end) {
      const uint32_t s = alignments_[start].start, e = alignments_[end - 1].end;
      out.original_ = Span{s, e >= s ? e : s};  // HF: the original text is empty when they cross
    } else {
      out.original_ = Span{uint32_t(original_.start + start), uint32_t(original_.start + end)};
    }
    return out;
  }

  // The pieces of the text that `matches` (covering it, in order) leave by `behavior` (HF's
  // NormalizedString::split), appended to out; empty pieces are kept (the caller drops them).
  void split(const std::vector<MatchSpan>& matches, SplitBehavior behavior, std::vector<NormalizedText>& out) const {
    split_pieces(matches, behavior, [&](uint32_t start, uint32_t end) { out.push_back(slice(start, end)); });
  }

  // The input bytes behind bytes [start, end) of the piece [from, to) of this text, as
  // slice(from, to).to_original(start, end) gives them (without making the slice), or
  // to_original(start, end) where the piece is all of the text: the staged pipeline's pieces
  // are such spans of one normalized text (pipelines/staged.h).
  Span piece_to_original(size_t from, size_t to, size_t start, size_t end) const {
    const bool own = from >= to || (from == 0 && to == text_.size());  // (an empty slice: as the text's)
    const uint32_t base = own ? uint32_t(original_.start + from) : span_at(from).start;
    return map_to_original(base, from, to - from, start, end);
  }

  // The pieces [start, end) that `matches` (covering a text, in order) leave by `behavior`, in
  // order, each given to on_piece(start, end) (empty ones too): HF's NormalizedString::split
  // without the slicing, which split() and the pre-tokenizers' cuts (pre_tokenizers/pre_tokenizer.h) share.
  template <class F>
  static void split_pieces(const std::vector<MatchSpan>& matches, SplitBehavior behavior, F&& on_piece) {
    struct Piece {
      uint32_t start, end;
    };
    thread_local std::vector<Piece> pieces;  // (merged ones, before they are given)
    pieces.clear();
    bool previous_match = false;
    switch (behavior) {
      case SplitBehavior::kIsolated:
        for (const MatchSpan& m : matches) on_piece(m.start, m.end);
        return;
      case SplitBehavior::kRemoved:
        for (const MatchSpan& m : matches)
          if (!m.is_match) on_piece(m.start, m.end);
        return;
      case SplitBehavior::kContiguous:
        for (const MatchSpan& m : matches) {
          if (m.is_match == previous_match && !pieces.empty())
            pieces.back().end = m.end;
          else
            pieces.push_back(Piece{m.start, m.end});
          previous_match = m.is_match;
        }
        break;
      case SplitBehavior::kMergedWithPrevious:
        for (const MatchSpan& m : matches) {
          if (m.is_match && !previous_match && !pieces.empty())
            pieces.back().end = m.end;
          else
            pieces.push_back(Piece{m.start, m.end});
          previous_match = m.is_match;
        }
        break;
      case SplitBehavior::kMergedWithNext:
        for (size_t i = matches.size(); i-- > 0;) {
          const MatchSpan& m = matches[i];
          if (m.is_match && !previous_match && !pieces.empty())
            pieces.back().start = m.start;
          else
            pieces.push_back(Piece{m.start, m.end});
          previous_match = m.is_match;
        }
        std::reverse(pieces.begin(), pieces.end());
        break;
    }
    for (const Piece& p : pieces) on_piece(p.start, p.end);
  }

 private:
  // to_original of the piece of `size` bytes at `from`, whose first input byte is `base`.
  Span map_to_original(uint32_t base, size_t from, size_t size, size_t start, size_t end) const {
    if (start == end) return Span{uint32_t(base + start), uint32_t(base + end)};
    if (start > end || end > size) return Span{uint32_t(start), uint32_t(end)};
    return Span{span_at(from + start).start, span_at(from + end - 1).end};
  }
  bool is_boundary(size_t at) const { return at >= text_.size() || (uint8_t(text_[at]) & 0xC0) != 0x80; }
  // The alignment of byte k (the input character around it, while the text is the identity).
  Span span_at(size_t k) const {
    if (untracked_) untracked_error();
    if (!identity_) return alignments_[k];
    size_t a = k, b = k + 1;
    while (a > 0 && !is_boundary(a)) --a;
    while (b < text_.size() && !is_boundary(b)) ++b;
    return Span{uint32_t(original_.start + a), uint32_t(original_.start + b)};
  }
  // The identity's alignments of bytes [from, to) (character boundaries), appended to out.
  void append_identity(size_t from, size_t to, std::vector<Span>& out) const {
    const uint32_t shift = original_.start;
    const size_t n = text_.size();
    for (size_t i = from; i < to;) {
      if (uint8_t(text_[i]) < 0x80) {  // (most text: a byte a character)
        out.push_back(Span{uint32_t(shift + i), uint32_t(shift + i + 1)});
        ++i;
        continue;
      }
      const size_t len = std::min(char_length(i), n - i);
      for (size_t k = 0; k < len; ++k) out.push_back(Span{uint32_t(shift + i), uint32_t(shift + i + len)});
      i += len;
    }
  }
  [[noreturn]] static void untracked_error() {
    throw std::logic_error("NormalizedText: offsets asked of a text normalized without them");
  }
  // Writes the identity's alignments out.
  void materialize() const {
    if (untracked_) untracked_error();
    if (!identity_) return;
    alignments_.clear();
    alignments_.reserve(text_.size());
    append_identity(0, text_.size(), alignments_);
    identity_ = false;
  }
  size_t char_length(size_t at) const { return utf8_length(uint8_t(text_[at])); }

  std::string text_;
  mutable std::vector<Span> alignments_;  // per byte of text_: the input bytes it came from
  Span original_{0, 0};
  mutable bool identity_ = false;  // alignments_ not written yet (see the constructor)
  bool untracked_ = false;         // no alignments kept (see the constructor)
};

// HF's Pattern::find_matches for a predicate on characters: each matching character is a match
// of its own, the runs between them are not.
template <class F>
void find_char_matches(std::string_view s, F&& is_match, std::vector<MatchSpan>& out) {
  out.clear();
  if (s.empty()) {
    out.push_back(MatchSpan{0, 0, false});
    return;
  }
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
  uint32_t last = 0;
  for (size_t i = 0; i < s.size();) {
    size_t len;
    const uint32_t cp = decode_utf8(p + i, s.size() - i, len);
    if (is_match(cp)) {
      if (last < i) out.push_back(MatchSpan{last, uint32_t(i), false});
      out.push_back(MatchSpan{uint32_t(i), uint32_t(i + len), true});
      last = uint32_t(i + len);
    }
    i += len;
  }
  if (last < s.size()) out.push_back(MatchSpan{last, uint32_t(s.size()), false});
}

// HF's find_matches for a literal string (a regex of the escaped string): leftmost matches that
// do not overlap; an empty pattern matches the empty string at each character boundary.
inline void find_string_matches(std::string_view s, const std::string& pattern, std::vector<MatchSpan>& out) {
  out.clear();
  if (s.empty()) {
    out.push_back(MatchSpan{0, 0, false});
    return;
  }
  uint32_t prev = 0;
  auto push_match = [&](uint32_t start, uint32_t end) {
    if (prev != start) out.push_back(MatchSpan{prev, start, false});
    out.push_back(MatchSpan{start, end, true});
    prev = end;
  };
  if (pattern.empty()) {
    for (size_t i = 0; i <= s.size(); i += i < s.size() ? utf8_length(uint8_t(s[i])) : 1)
      push_match(uint32_t(i), uint32_t(i));
  } else {
    for (size_t at = s.find(pattern); at != std::string::npos; at = s.find(pattern, at + pattern.size()))
      push_match(uint32_t(at), uint32_t(at + pattern.size()));
  }
  if (prev != s.size()) out.push_back(MatchSpan{prev, uint32_t(s.size()), false});
}

}  // namespace tokenforge
