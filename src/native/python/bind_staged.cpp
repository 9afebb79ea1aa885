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
#include "python/py_json_pipeline.h"
#include "python/py_pipeline.h"
#include "python/stage_convert.h"

namespace tokenforge::bindings {

namespace {

class PyStaged : public PyJsonPipeline<StagedPipeline> {
 public:
  PyStaged(const StagedDescription& d, std::vector<std::string> names, const std::vector<uint32_t>& special_ids)
      : PyJsonPipeline(std::move(names), special_ids, d) {}
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
             nb::handle model_options, std::vector<std::pair<std::string, uint32_t>> vocab, nb::handle decoder,
             std::vector<std::string> names, const std::vector<uint32_t>& special_ids, bool trim_offsets,
             bool trim_add_prefix_space) {
            StagedDescription d;
            d.trim_offsets = trim_offsets;
            d.trim_add_prefix_space = trim_add_prefix_space;
            d.names = names;  // the pipeline reads them as it is built (trimming, model tokens a name hides)
            d.normalizer = stage_of(normalizer, "normalizer", "normalizers");
            d.pre_tokenizer = stage_of(pre_tokenizer, "pre-tokenizer", "pretokenizers");
            d.decoder = stage_of(decoder, "decoder", "decoders");
            d.model_type = model_type;
            d.model_options = model_options_of(model_options, model_type, d.merges, d.merges_given);
            d.vocab = std::move(vocab);
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
