// What the pipelines built from tokenizer.json components share in Python (python/bind_staged.cpp's
// Staged, python/bind_byte_level_hf_bpe.cpp's ByteLevelHfBpe, python/bind_spm_hf_bpe.cpp's SpmHfBpe): on top of
// PyPipeline (python/py_pipeline.h), HF's decode (the ids named, the pipeline's decoder over them), and the test hooks
// pre_tokenize and normalize (HF's pre_tokenize_str and normalize_str), answered by the staged pipeline
// (pipelines/staged.h) of the file: Pipeline::staged() gives it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "pipelines/staged.h"
#include "python/convert.h"
#include "python/py_pipeline.h"

namespace tokenforge::bindings {

// Whether Pipeline decodes ids by their names in one pass (decode_names(ids, by_id, special,
// skip_special), pipelines/byte_level_hf_bpe.h's) rather than over a string per token.
template <class P, class = void>
struct HasDecodeNames : std::false_type {};
template <class P>
struct HasDecodeNames<P,
                      std::void_t<decltype(std::declval<const P&>().decode_names(
                          std::declval<const std::vector<uint32_t>&>(), std::declval<const std::vector<std::string>&>(),
                          std::declval<const std::vector<uint8_t>&>(), false))>> : std::true_type {};

template <class Pipeline>
class PyJsonPipeline : public PyPipeline<Pipeline> {
 public:
  // special_ids: what skip_special_tokens drops; pipeline_args build the Pipeline.
  template <class... Args>
  PyJsonPipeline(std::vector<std::string> names, const std::vector<uint32_t>& special_ids, Args&&... pipeline_args)
      : PyPipeline<Pipeline>(std::move(names), SpecialDefault::kAllowAll, std::forward<Args>(pipeline_args)...) {
    special_.assign(this->names_->by_id.size(), 0);
    for (uint32_t id : special_ids)
      if (id < special_.size()) special_[id] = 1;
  }

  // HF's decode: ids without a token (gaps in the vocabulary) are skipped, special ones too with
  // skip_special. An id outside the vocabulary raises ValueError, as every tokenforge decode
  // does (HF skips it silently).
  nb::str decode(nb::handle ids_seq, bool skip_special) const {
    const std::shared_ptr<const TokenNames> names = this->names();
    const std::vector<std::string>& by_id = names->by_id;
    const size_t size = by_id.size();
    const std::vector<uint32_t> ids = vocabulary_ids(ids_seq, size);
    std::string text;
    {
      GilReleasedFor nogil(ids.size() * 8);
      if constexpr (HasDecodeNames<Pipeline>::value) {
        text = this->tok_.decode_names(ids, by_id, special_, skip_special);
      } else {
        std::vector<std::string> tokens;
        tokens.reserve(ids.size());
        for (uint32_t id : ids)
          if (!by_id[id].empty() && !(skip_special && special_[id])) tokens.push_back(by_id[id]);
        text = this->tok_.decode(std::move(tokens));
      }
    }
    return nb::str(text.data(), text.size());
  }

  // [(piece, (start, end))]: the pieces the model would see, spans in input code points.
  std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> pre_tokenize(nb::handle text,
                                                                                  const SpecialMatcher* added) const {
    const Text t = utf8_of(text);
    nb::gil_scoped_release nogil;
    const PreTokenizedText pieces = this->tok_.staged().pre_tokenized(t.data, t.size, added);
    const CharOffsets chars(t.data, t.size);
    std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> out;
    for (const TextPiece& p : pieces.pieces()) {
      const NormalizedText::Span span = p.text.original();
      out.push_back({p.text.text(), chars.convert(span.start, span.end)});
    }
    return out;
  }

  // A fused kernel's test hook: [(bytes, first byte)] of what `cut` (the pipeline's pieces or
  // segments of one text, found without the GIL) returns.
  template <class Cut>
  std::vector<std::pair<nb::bytes, size_t>> cut_into_bytes(nb::handle text, Cut cut) const {
    const Text t = utf8_of(text);
    std::vector<std::pair<std::string, size_t>> found;
    {
      nb::gil_scoped_release nogil;
      found = cut(this->tok_, t.data, t.size);
    }
    std::vector<std::pair<nb::bytes, size_t>> out;
    for (const auto& [bytes, at] : found) out.emplace_back(nb::bytes(bytes.data(), bytes.size()), at);
    return out;
  }

  // The normalizer's text.
  nb::str normalize(nb::handle text) const {
    const Text t = utf8_of(text);
    std::string out;
    {
      nb::gil_scoped_release nogil;
      out = this->tok_.staged().normalized(t.data, t.size);
    }
    return nb::str(out.data(), out.size());
  }

 private:
  std::vector<uint8_t> special_;
};

}  // namespace tokenforge::bindings
