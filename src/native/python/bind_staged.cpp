// Binding for the staged pipeline (pipelines/staged.h): _core.Staged, built from a description
// of each stage as tokenizer.json spells it ((type name, options) pairs; several make a
// Sequence) plus the model's vocabulary, hosted by PyPipeline (python/py_pipeline.h) for encode,
// batches, template, truncation, padding and the special-token policy; decode runs the decoder
// natively, and pre_tokenize / normalize are test hooks (HF's pre_tokenize_str, normalize_str).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "pipelines/staged.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_pipeline.h"
#include "python/stage_convert.h"

namespace tokenforge::bindings {

namespace {

class PyStaged : public PyPipeline<StagedPipeline> {
 public:
  PyStaged(const StagedDescription& d, std::vector<std::string> names, const std::vector<uint32_t>& special_ids)
      : PyPipeline(std::move(names), SpecialDefault::kAllowAll, d) {
    special_.assign(names_->by_id.size(), 0);
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
    const std::vector<uint32_t> ids = ids_of(ids_seq, size, [size](size_t, nb::handle item) {
      throw nb::value_error(("token id " + std::string(nb::str(item).c_str()) +
                             " is not in this tokenizer's vocabulary (0.." + std::to_string(size - 1) + ")")
                                .c_str());
    });
    std::string text;
    {
      GilReleasedFor nogil(ids.size() * 8);
      std::vector<std::string> tokens;
      tokens.reserve(ids.size());
      for (uint32_t id : ids)
        if (!by_id[id].empty() && !(skip_special && special_[id])) tokens.push_back(by_id[id]);
      text = tok_.decode(std::move(tokens));
    }
    return nb::str(text.data(), text.size());
  }

  std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> pre_tokenize(nb::handle text,
                                                                                  const SpecialMatcher* added) const {
    const Text t = utf8_of(text);
    nb::gil_scoped_release nogil;
    const PreTokenizedText pieces = tok_.pre_tokenized(t.data, t.size, added);
    const CharOffsets chars(t.data, t.size);
    std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> out;
    for (const TextPiece& p : pieces.pieces()) {
      const NormalizedText::Span span = p.text.original();
      out.push_back({p.text.text(), chars.convert(span.start, span.end)});
    }
    return out;
  }

  nb::str normalize(nb::handle text) const {
    const Text t = utf8_of(text);
    std::string out;
    {
      nb::gil_scoped_release nogil;
      out = tok_.normalized(t.data, t.size);
    }
    return nb::str(out.data(), out.size());
  }

 private:
  std::vector<uint8_t> special_;
};

}  // namespace

void bind_staged(nb::module_& m) {
  nb::class_<PyStaged> staged(m, "Staged",
                              "The general staged pipeline: any HF tokenizer.json pipeline (normalizer, "
                              "pre-tokenizer, model, decoder), stage by stage, as HF tokenizers runs it.");
  staged
      .def(
          "__init__",
          [](PyStaged* self, nb::handle normalizer, nb::handle pre_tokenizer, const std::string& model_type,
             nb::handle model_options, const std::vector<std::pair<std::string, uint32_t>>& vocab, nb::handle decoder,
             std::vector<std::string> names, const std::vector<uint32_t>& special_ids, bool trim_offsets,
             bool trim_add_prefix_space) {
            StagedDescription d;
            d.trim_offsets = trim_offsets;
            d.trim_add_prefix_space = trim_add_prefix_space;
            if (trim_offsets) d.names = names;
            d.normalizer = stage_of(normalizer, "normalizer", "normalizers");
            d.pre_tokenizer = stage_of(pre_tokenizer, "pre-tokenizer", "pretokenizers");
            d.decoder = stage_of(decoder, "decoder", "decoders");
            d.model_type = model_type;
            d.model_options = option_of(model_options, "model " + model_type);
            d.vocab = vocab;
            try {
              new (self) PyStaged(d, std::move(names), special_ids);
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("normalizer"), nb::arg("pre_tokenizer"), nb::arg("model_type"), nb::arg("model_options"),
          nb::arg("vocab"), nb::arg("decoder"), nb::arg("names"), nb::arg("special_ids"),
          nb::arg("trim_offsets") = false, nb::arg("trim_add_prefix_space") = false,
          "trim_offsets, trim_add_prefix_space: the ByteLevel post-processor's (spaces come off each token's "
          "offsets). Each stage: [(type, options)] as tokenizer.json spells them (several make a Sequence; [] for "
          "none); model_options without the vocabulary, vocab: [(token, id)]; names: the text shown for each "
          "id (added tokens included); special_ids: what skip_special_tokens drops.")
      .def("decode", &PyStaged::decode, nb::arg("ids"), nb::arg("skip_special_tokens") = true,
           "The decoder's text for ids (HF's decode: ids without a token are skipped).")
      .def("pre_tokenize", &PyStaged::pre_tokenize, nb::arg("text"), nb::arg("added").none() = nb::none(),
           "[(piece, (start, end))]: the pieces the model would see, spans in input code points "
           "(HF's pre_tokenize_str after the normalizer).")
      .def("normalize", &PyStaged::normalize, nb::arg("text"), "The normalizer's text (HF's normalize_str).");
  bind_pipeline(staged, nb::str("all"),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in "
                "the text become their ids when in allowed_special (default all, as HF matches them), raise when "
                "in disallowed_special, and are plain text otherwise.");
}

}  // namespace tokenforge::bindings
