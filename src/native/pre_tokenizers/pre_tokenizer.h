// A pre-tokenizer of the staged pipeline (pipelines/staged.h): cuts the pieces of a
// PreTokenizedText (text/pre_tokenized_text.h) further, as HF tokenizers' PreTokenizer trait.
// Most only cut: each piece by a pattern's MatchSpans (pre_tokenizers/match_span.h) and a
// SplitBehavior, every new piece a slice of the old one found from its text alone. Those derive
// from Cutter and give their pieces as byte spans of a text (cut(); cut_by() is the loop), which
// the staged pipeline reads straight from one normalized text; their pre_tokenize is those cuts
// made slices. The others (ByteLevel, Metaspace, UnicodeScripts) change or read more than the
// text. One header per HF type beside this one; pre_tokenizers/pre_tokenizer_factory.h builds
// them by name.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pre_tokenizers/match_span.h"
#include "text/pre_tokenized_text.h"

namespace tokenforge {

// A piece of a text: its bytes [start, end).
struct Cut {
  uint32_t start, end;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(PreTokenizedText& pieces) const = 0;
  // Whether this one only cuts (a Cutter, or a Sequence of them): then cut() gives its pieces.
  virtual bool only_cuts() const { return false; }
  // The non-empty pieces of `text` (spans of it, in order) appended to out (only_cuts()).
  virtual void cut(std::string_view text, std::vector<Cut>& out) const {
    (void)text;
    (void)out;
  }
};

// A pre-tokenizer that only cuts: its pieces are the spans cut() gives.
class Cutter : public PreTokenizer {
 public:
  bool only_cuts() const final { return true; }
  void pre_tokenize(PreTokenizedText& pieces) const final {
    std::vector<Cut> cuts;
    pieces.split([&](NormalizedText&& text, std::vector<NormalizedText>& out) {
      cuts.clear();
      cut(text.text(), cuts);
      for (const Cut& c : cuts) out.push_back(text.slice(c.start, c.end));
    });
  }
};

// The non-empty pieces of text that the spans find(text, spans) gives (covering it, in order)
// leave by behavior, appended to out (HF's split of one piece by a pattern).
template <class Find>
void cut_by(std::string_view text, SplitBehavior behavior, Find&& find, std::vector<Cut>& out) {
  thread_local std::vector<MatchSpan> spans;
  spans.clear();
  find(text, spans);
  NormalizedText::split_pieces(spans, behavior, [&](uint32_t start, uint32_t end) {
    if (start < end) out.push_back(Cut{start, end});
  });
}

// Each piece of out[from..] (spans of text) cut again by cut_one(piece's text, out), in place: the
// next pass of a pre-tokenizer that cuts twice, or of a Sequence.
template <class CutOne>
void cut_again(std::string_view text, std::vector<Cut>& out, size_t from, CutOne&& cut_one) {
  const std::vector<Cut> before(out.begin() + std::ptrdiff_t(from), out.end());  // (passes may nest)
  out.resize(from);
  for (const Cut& piece : before) {
    const size_t first = out.size();
    cut_one(text.substr(piece.start, piece.end - piece.start), out);
    for (size_t k = first; k < out.size(); ++k) {
      out[k].start += piece.start;
      out[k].end += piece.start;
    }
  }
}

// The behaviour named as tokenizer.json spells it; false if it is none.
inline bool split_behavior_of(const std::string& name, SplitBehavior& out) {
  static const std::pair<const char*, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::kRemoved},
      {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext},
      {"Contiguous", SplitBehavior::kContiguous}};
  for (const auto& [n, b] : kNames)
    if (name == n) {
      out = b;
      return true;
    }
  return false;
}

}  // namespace tokenforge
