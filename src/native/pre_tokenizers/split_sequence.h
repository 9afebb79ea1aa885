// The first Splits of a pre-tokenizer Sequence of Isolated Splits, as built-in scanners: the
// splits DeepSeek V3 / R1 tokenizer.json files run before their main pattern,
//   Split(Regex "\p{N}{1,3}", Isolated), Split(Regex "[一-龥\u3040-ゟ゠-ヿ]+", Isolated),
// then Split(Regex <main pattern>, Isolated), ByteLevel(use_regex=false). HF runs a Sequence
// stage by stage: each Split cuts every piece the previous one left, a match and the text
// between matches each a piece (Isolated), empty ones dropped. A stage here does the same on one
// piece: it calls the next stage for each of its pieces, in order, so the whole sequence is one
// pass with no piece list (pipelines/byte_level_hf_bpe.h calls it, the main pattern last).
//
// The stages (PreSplit) compute their patterns exactly as Oniguruma reads them:
//  kDigits3:     \p{N}{1,3}: leftmost-first greedy, so a run of N numbers is cut in threes from
//                its start (\p{N} is unicode/unicode_classes.h's kNumber, as the scanners use);
//  kDeepSeekCjk: [一-龥\u3040-ゟ゠-ヿ]+: maximal runs of U+4E00..U+9FA5 and U+3040..U+30FF
//                (the two kana ranges meet).
// tokenforge/pipeline/fused_hf_bpe.py recognises the stages by their exact regex strings;
// anything else stays on the staged pipeline.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "unicode/unicode_classes.h"

namespace tokenforge {

enum class PreSplit : int { kDigits3 = 1, kDeepSeekCjk = 2 };

constexpr bool is_pre_split(int kind) { return kind == int(PreSplit::kDigits3) || kind == int(PreSplit::kDeepSeekCjk); }

TF_INLINE bool is_deepseek_cjk(uint32_t cp) { return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF); }

// Calls last(from, to) for each piece of t[from..to) that the stages stages[k..] leave, in
// order (no empty piece).
template <class Last>
void run_pre_splits(const std::vector<int>& stages, size_t k, const uint8_t* t, size_t from, size_t to, Last& last) {
  if (from >= to) return;
  if (k == stages.size()) return last(from, to);
  // A stage: [gap_start, p) is text between matches, [p, e) a match.
  const bool digits = stages[k] == int(PreSplit::kDigits3);
  size_t gap_start = from;
  for (size_t p = from; p < to;) {
    size_t len;
    uint32_t cp = decode_utf8(t + p, to - p, len);
    const bool in = digits ? (class_of(cp) & kNumber) != 0 : is_deepseek_cjk(cp);
    if (!in) {
      p += len;
      continue;
    }
    size_t e = p + len;
    for (int count = 1; e < to && (!digits || count < 3); ++count) {
      cp = decode_utf8(t + e, to - e, len);
      if (digits ? (class_of(cp) & kNumber) == 0 : !is_deepseek_cjk(cp)) break;
      e += len;
    }
    run_pre_splits(stages, k + 1, t, gap_start, p, last);
    run_pre_splits(stages, k + 1, t, p, e, last);
    gap_start = p = e;
  }
  run_pre_splits(stages, k + 1, t, gap_start, to, last);
}

}  // namespace tokenforge
