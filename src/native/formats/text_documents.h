// A text file's bytes cut into documents, natively, for the corpus pipeline
// (src/tokenforge/corpus/inputs.py reads the same way in Python; python/bind_corpus.cpp's
// encode_text_unit cuts a work unit here and encodes its documents with no Python str between).
//
// (Whether a file's bytes are UTF-8 at all: base/utf8.h's utf8_error_at.)
// - `cut_documents(s, n, split, out)`: the byte ranges of the documents, in order, exactly those
//   `inputs._documents(text, split)` returns for the same text (each is contiguous in the input):
//   - kLine: the pieces between "\n"s, each less one trailing "\r", empty ones dropped;
//   - kParagraph: the pieces between paragraph breaks ("\n" then one or more lines of only
//     " \t\r\f\v" each ended by "\n", matched leftmost and greedily as re.split does), a leading
//     blank line taken off the first piece and a trailing "\n" plus blanks off the last, each piece
//     less one trailing "\r", and the first and the last dropped when only blanks remain;
//   - kDocument: the whole text, when it is not empty.
// All the characters that matter are ASCII, and no byte of a multi-byte UTF-8 sequence is ASCII,
// so cutting bytes cuts the same places as cutting the decoded str. Linear in n.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/bytes.h"
#include "base/utf8.h"

namespace tokenforge {

enum class TextSplit { kLine, kParagraph, kDocument };

struct ByteSpan {
  size_t start;
  size_t size;
};

namespace text_documents_detail {

inline bool is_blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

inline bool all_blank(const uint8_t* s, size_t from, size_t to) {
  for (; from < to; ++from)
    if (!is_blank(s[from])) return false;
  return true;
}

// The end of a paragraph break starting at the "\n" at s[at] (one or more lines of blanks, each
// ended by "\n", taken greedily), or 0 when none starts there.
inline size_t paragraph_break_end(const uint8_t* s, size_t n, size_t at) {
  size_t end = 0, j = at + 1;
  for (;;) {
    size_t k = j;
    while (k < n && is_blank(s[k])) ++k;
    if (k >= n || s[k] != '\n') return end;
    end = j = k + 1;
  }
}

inline const uint8_t* find_newline(const uint8_t* s, size_t from, size_t n) {
  return static_cast<const uint8_t*>(std::memchr(s + from, '\n', n - from));
}

}  // namespace text_documents_detail

// The documents of s[0..n) (see the prose), appended to `out`.
inline void cut_documents(const uint8_t* s, size_t n, TextSplit split, std::vector<ByteSpan>& out) {
  using namespace text_documents_detail;
  if (split == TextSplit::kDocument) {
    if (n) out.push_back({0, n});
    return;
  }
  auto less_cr = [&](size_t a, size_t b) { return b > a && s[b - 1] == '\r' ? b - 1 : b; };
  if (split == TextSplit::kLine) {
    size_t a = 0;
    while (a <= n) {
      const uint8_t* nl = a < n ? find_newline(s, a, n) : nullptr;
      const size_t b = nl ? size_t(nl - s) : n;
      const size_t e = less_cr(a, b);
      if (e > a) out.push_back({a, e - a});
      a = b + 1;
    }
    return;
  }
  // Paragraphs: the pieces between breaks, as re.split gives them.
  std::vector<ByteSpan> pieces;
  size_t piece = 0, from = 0;
  while (from < n) {
    const uint8_t* nl = find_newline(s, from, n);
    if (!nl) break;
    const size_t at = size_t(nl - s);
    const size_t end = paragraph_break_end(s, n, at);
    if (end) {
      pieces.push_back({piece, at - piece});
      piece = from = end;
    } else {
      from = at + 1;
    }
  }
  pieces.push_back({piece, n - piece});
  {  // a leading blank line off the first piece
    ByteSpan& p = pieces.front();
    size_t k = p.start, end = p.start + p.size;
    while (k < end && is_blank(s[k])) ++k;
    if (k < end && s[k] == '\n') {
      p.size = end - (k + 1);
      p.start = k + 1;
    }
  }
  {  // a trailing "\n" and blanks off the last piece
    ByteSpan& p = pieces.back();
    size_t k = p.start + p.size;
    while (k > p.start && is_blank(s[k - 1])) --k;
    if (k > p.start && s[k - 1] == '\n') p.size = k - 1 - p.start;
  }
  size_t first = 0, last = pieces.size();
  for (ByteSpan& p : pieces) p.size = less_cr(p.start, p.start + p.size) - p.start;
  if (all_blank(s, pieces[0].start, pieces[0].start + pieces[0].size)) first = 1;
  if (last > first && all_blank(s, pieces[last - 1].start, pieces[last - 1].start + pieces[last - 1].size)) --last;
  out.insert(out.end(), pieces.begin() + first, pieces.begin() + last);
}

}  // namespace tokenforge
