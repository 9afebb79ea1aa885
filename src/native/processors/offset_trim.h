// The ByteLevel (or RobertaProcessing) post-processor's trim_offsets, as HF tokenizers'
// process_offsets (processors/byte_level.rs): each token's offsets leave out the spaces its text
// starts and ends with ("Ġ", GPT-2's byte-level space, or Unicode whitespace), except the single
// space add_prefix_space put before the first token.
//
// HF trims after truncation, each part on its own, so a pipeline that trims encodes its texts
// untrimmed, truncates (processors/post_processing.h), trims every part and then applies the
// template: `process_trimming_parts`. The staged pipeline (pipelines/staged.h), the fused
// byte-level BPE (pipelines/byte_level_hf_bpe.h) and pre-tokenized input (python/py_pipeline.h)
// all trim through this one class.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "processors/post_processing.h"
#include "unicode/unicode_classes.h"

namespace tokenforge {

class OffsetTrim {
 public:
  OffsetTrim() = default;
  // names: each id's token text; keep_prefix_space: the post-processor's add_prefix_space.
  OffsetTrim(const std::vector<std::string>& names, bool keep_prefix_space) : keep_prefix_space_(keep_prefix_space) {
    spaces_.resize(names.size());
    for (size_t id = 0; id < names.size(); ++id) spaces_[id] = spaces_around(names[id]);
    on_ = true;
  }

  // Whether offsets are trimmed at all.
  bool on() const { return on_; }

  // Trims one sequence's rows (or one part of them; nothing where trimming is off). A row's text is its id's name, or
  // what the row shows instead (Row::name: an added token's match that lstrip / rstrip grew, a hidden model token). (HF
  // counts those characters against byte offsets; each is one byte and one code point here.)
  void apply(Encoded& e) const {
    if (!on_) return;
    // The spaces around each name, counted at its first row (many rows may share one name).
    constexpr uint32_t kNotCounted = ~uint32_t(0);
    std::vector<std::pair<uint32_t, uint32_t>> named(e.names.size(), {kNotCounted, 0});
    for (size_t i = 0; i < e.rows.size(); ++i) {
      Row& r = e.rows[i];
      std::pair<uint32_t, uint32_t> spaces;
      if (r.name) {
        std::pair<uint32_t, uint32_t>& counted = named[r.name - 1];
        if (counted.first == kNotCounted) counted = spaces_around(e.names[r.name - 1]);
        spaces = counted;
      } else if (r.id < spaces_.size())
        spaces = spaces_[r.id];
      else
        continue;
      uint32_t lead = spaces.first, trail = spaces.second;
      if (lead > 0) {
        if ((i == 0 || r.start == 0) && keep_prefix_space_ && lead == 1) lead = 0;
        r.start = std::min(r.start + lead, r.end);
      }
      if (trail > 0 && r.end >= trail) r.end = std::max(r.end - trail, r.start);
    }
  }

  // One text or a pair through `post`, which truncates: each sequence encoded untrimmed
  // (pipeline.encode_sequence(s, n, added, false)), then process_trimming_parts. The staged
  // pipeline and the fused byte-level kernel encode so wherever they trim and truncate.
  template <class Pipeline, class Added>
  Encoded encode_truncated(const Pipeline& pipeline, const uint8_t* a, size_t na, const uint8_t* b, size_t nb,
                           bool pair, bool add_special, const Added* added, const PostProcessor& post) const {
    Encoded first = pipeline.encode_sequence(a, na, added, false), second;
    if (pair) second = pipeline.encode_sequence(b, nb, added, false);
    return process_trimming_parts(post, std::move(first), pair ? &second : nullptr, add_special);
  }

  // The template around one text or a pair whose rows are untrimmed: truncated first (where
  // post truncates), then each part trimmed on its own, as HF.
  Encoded process_trimming_parts(const PostProcessor& post, Encoded first, Encoded* second, bool add_special) const {
    if (post.truncate) post.truncate_pair(first, second, add_special);
    for (Encoded* e : {&first, second}) {
      if (!e) continue;
      apply(*e);
      for (Encoded& part : e->overflowing) apply(part);
    }
    return process_keeping_texts(post, std::move(first), second, add_special, true);
  }

 private:
  // Rust's char::is_whitespace (Unicode White_Space).
  static bool is_white_space(uint32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
  }

  // How many characters of `token` are spaces at its start and at its end.
  static std::pair<uint32_t, uint32_t> spaces_around(std::string_view token) {
    std::vector<uint32_t> cps;
    const auto* p = reinterpret_cast<const uint8_t*>(token.data());
    for (size_t i = 0; i < token.size();) {
      size_t len;
      cps.push_back(decode_utf8(p + i, token.size() - i, len));
      i += len;
    }
    auto space = [](uint32_t c) { return c == 0x120 || is_white_space(c); };
    uint32_t lead = 0, trail = 0;
    while (lead < cps.size() && space(cps[lead])) ++lead;
    while (trail < cps.size() && space(cps[cps.size() - 1 - trail])) ++trail;
    return {lead, trail};
  }

  std::vector<std::pair<uint32_t, uint32_t>> spaces_;  // per id
  bool keep_prefix_space_ = false;
  bool on_ = false;
};

}  // namespace tokenforge
