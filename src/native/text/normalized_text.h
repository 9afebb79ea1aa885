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

  // s[0..n) as it is, the input bytes [shift, shift + n).
  NormalizedText(const char* s, size_t n, uint32_t shift) : text_(s, n), original_{shift, uint32_t(shift + n)} {
    alignments_.resize(n);
    Span* al = alignments_.data();
    for (size_t i = 0; i < n;) {
      if (uint8_t(s[i]) < 0x80) {  // (most text: a byte a character)
        al[i] = Span{uint32_t(shift + i), uint32_t(shift + i + 1)};
        ++i;
        continue;
      }
      const size_t len = std::min(char_length(i), n - i);
      for (size_t k = 0; k < len; ++k) al[i + k] = Span{uint32_t(shift + i), uint32_t(shift + i + len)};
      i += len;
    }
  }

  const std::string& text() const { return text_; }
  const std::vector<Span>& alignments() const { return alignments_; }
  bool empty() const { return text_.empty(); }
  size_t size() const { return text_.size(); }
  // The input bytes this piece stands for (HF's offsets_original).
  Span original() const { return original_; }

  // The input bytes behind normalized bytes [start, end) (HF's convert_offsets from a normalized
  // range, plus the shift): an empty range stays as it is (shifted); one past the text's end
  // (byte-fallback tokens of a continuing_subword_prefix or end_of_word_suffix's bytes) has no
  // alignment, and HF then keeps the model's offsets as they are, unshifted.
  Span to_original(size_t start, size_t end) const {
    return map_to_original(original_.start, alignments_.size(), alignments_.data(), start, end);
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

  // HF's transform_range over the normalized bytes [start, end) (character boundaries). The new
  // text and alignments are written through pointers into buffers sized for the longest result
  // (four bytes a character), then cut to length.
  void transform_range(size_t start, size_t end, const std::vector<CharChange>& changes, size_t initial_offset) {
    const size_t tail = text_.size() - end;
    std::string text(start + 4 * changes.size() + tail, '\0');
    std::vector<Span> alignments(text.size());
    char* out = text.data();
    Span* al = alignments.data();
    std::copy(text_.data(), text_.data() + start, out);
    std::copy(alignments_.data(), alignments_.data() + start, al);
    size_t n = start;
    size_t offset = start;  // the next old byte to replace
    for (size_t k = 0; k < initial_offset && offset < end; ++k) offset += char_length(offset);
    for (const CharChange& c : changes) {
      Span align;
      if (c.change > 0)
        align = offset < 1 ? Span{original_.start, original_.start} : alignments_[offset - 1];
      else
        align = alignments_[std::min(offset, alignments_.size() - 1)];
      if (c.change <= 0 && offset < end) offset += char_length(offset);
      for (int32_t r = 0; r < -c.change && offset < end; ++r) offset += char_length(offset);
      const size_t len = encode_utf8(c.cp, reinterpret_cast<uint8_t*>(out + n));
      for (size_t b = 0; b < len; ++b) al[n + b] = align;
      n += len;
    }
    std::copy(text_.data() + end, text_.data() + text_.size(), out + n);
    std::copy(alignments_.data() + end, alignments_.data() + alignments_.size(), al + n);
    n += tail;
    text.resize(n);
    alignments.resize(n);
    text_ = std::move(text);
    alignments_ = std::move(alignments);
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
  // against the kept one before it, or against the start).
  template <class F>
  void filter(F&& keep) {
    // Where every character stays, the text does too (each byte aligned as its character's
    // first, as transform would leave it).
    bool all_kept = true;
    for_each_char([&](uint32_t cp, size_t, size_t) { all_kept = all_kept && keep(cp); });
    if (all_kept) {
      for (size_t i = 0; i < text_.size(); i += char_length(i)) same_alignment(i, char_length(i));
      return;
    }
    std::vector<CharChange> changes;
    changes.reserve(text_.size());
    int32_t removed = 0;
    size_t removed_start = 0;
    bool have_last = false;
    uint32_t last = 0;
    for_each_char([&](uint32_t cp, size_t, size_t) {
      if (keep(cp)) {
        if (have_last)
          changes.push_back(CharChange{last, -removed});
        else
          removed_start = size_t(removed);
        have_last = true;
        last = cp;
        removed = 0;
      } else {
        ++removed;
      }
    });
    if (have_last) changes.push_back(CharChange{last, -removed});
    transform(changes, removed_start);
  }

  // Each character replaced by the characters expand(cp, out) appends (the first replaces it,
  // the others are inserted after it), as HF's lowercase and NFD do. While each character
  // becomes one of the same UTF-8 length (ASCII and most cased scripts under lowercase), the text
  // is rewritten in place; from the first that does not, through transform.
  template <class F>
  void expand(F&& expand_one) {
    std::vector<uint32_t> out;
    uint8_t* s = reinterpret_cast<uint8_t*>(text_.data());
    const size_t n = text_.size();
    size_t i = 0;
    for (; i < n;) {
      size_t len;
      const uint32_t cp = decode_utf8(s + i, n - i, len);
      out.clear();
      expand_one(cp, out);
      uint8_t buf[4];
      if (out.size() != 1 || encode_utf8(out[0], buf) != len) break;
      std::copy(buf, buf + len, s + i);
      same_alignment(i, len);
      i += len;
    }
    if (i == n) return;
    std::vector<CharChange> changes;
    changes.reserve(n);
    for_each_char([&](uint32_t cp, size_t at, size_t) {
      if (at < i) {  // rewritten in place already
        changes.push_back(CharChange{cp, 0});
        return;
      }
      out.clear();
      expand_one(cp, out);
      for (size_t k = 0; k < out.size(); ++k) changes.push_back(CharChange{out[k], k > 0 ? 1 : 0});
    });
    transform(changes, 0);
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
    if (text_.empty()) return;
    const uint32_t s = alignments_.front().start, e = alignments_.back().end;
    original_ = Span{s, e >= s ? e : s};
  }

  // The piece of normalized bytes [start, end) (character boundaries), as HF's slice.
  NormalizedText slice(size_t start, size_t end) const {
    NormalizedText out;
    out.text_.assign(text_, start, end - start);
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
    const uint32_t base = own ? uint32_t(original_.start + from) : alignments_[from].start;
    return map_to_original(base, to - from, alignments_.data() + from, start, end);
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
  // to_original of a piece whose first input byte is `base`, of `size` bytes aligned by `al`.
  static Span map_to_original(uint32_t base, size_t size, const Span* al, size_t start, size_t end) {
    if (start == end) return Span{uint32_t(base + start), uint32_t(base + end)};
    if (start > end || end > size) return Span{uint32_t(start), uint32_t(end)};
    return Span{al[start].start, al[end - 1].end};
  }
  size_t char_length(size_t at) const { return utf8_length(uint8_t(text_[at])); }
  // The bytes of the character at [at, at + len) aligned as its first byte (what transform gives
  // a character it replaces with one of the same length).
  void same_alignment(size_t at, size_t len) {
    for (size_t k = 1; k < len; ++k) alignments_[at + k] = alignments_[at];
  }

  std::string text_;
  std::vector<Span> alignments_;  // per byte of text_: the input bytes it came from
  Span original_{0, 0};
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
