// HF's Split pre-tokenizer (pre_tokenizers/split.rs): the pattern's matches handled by the
// behaviour, the matches and the stretches between swapped first with invert. The pattern is a
// function giving MatchSpans: a string's leftmost occurrences (find_string_matches), or any
// matcher with find_matches(s, n, out) such as the regex of pre_tokenizers/regex.h.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pre_tokenizers/pre_tokenizer.h"

namespace tokenforge {

class SplitPreTokenizer : public Cutter {
 public:
  using Matcher = std::function<void(const char* s, size_t n, std::vector<MatchSpan>& out)>;

  SplitPreTokenizer(Matcher matcher, SplitBehavior behavior, bool invert)
      : matcher_(std::move(matcher)), behavior_(behavior), invert_(invert) {}

  // A matcher for a literal string.
  static Matcher string_matcher(std::string pattern) {
    return [pattern = std::move(pattern)](const char* s, size_t n, std::vector<MatchSpan>& out) {
      find_string_matches(std::string_view(s, n), pattern, out);
    };
  }
  // A matcher for any object with find_matches(const char*, size_t, std::vector<MatchSpan>&).
  template <class M>
  static Matcher matcher_of(std::shared_ptr<const M> m) {
    return [m = std::move(m)](const char* s, size_t n, std::vector<MatchSpan>& out) {
      out.clear();
      if (n == 0) {
        out.push_back(MatchSpan{0, 0, false});
        return;
      }
      m->find_matches(s, n, out);
    };
  }

  void cut(std::string_view text, std::vector<Cut>& out) const override {
    cut_by(
        text, behavior_,
        [this](std::string_view s, std::vector<MatchSpan>& spans) {
          matcher_(s.data(), s.size(), spans);
          if (invert_)
            for (MatchSpan& m : spans) m.is_match = !m.is_match;
        },
        out);
  }

 private:
  Matcher matcher_;
  SplitBehavior behavior_;
  bool invert_;
};

}  // namespace tokenforge
