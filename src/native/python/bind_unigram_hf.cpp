// Binding for the fused Unigram of tokenizer.json files (pipelines/unigram_hf.h): _core.UnigramHf,
// built from the staged pipeline's description (python/stage_convert.h converts the stages) plus
// Metaspace's prepend scheme and split and the normalizer's probes, hosted by PyPipeline
// (python/py_pipeline.h) for encode, batches, template, truncation, padding and the special-token
// policy; decode is HF's (the file's decoder over the ids' tokens); pre_tokenize and normalize
// answer as _core.Staged's (the staged pipeline of the same file); untouched is a test hook.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "pipelines/unigram_hf.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_json_pipeline.h"
#include "python/py_pipeline.h"
#include "python/stage_convert.h"

namespace tokenforge::bindings {

namespace {

class PyUnigramHf : public PyJsonPipeline<UnigramHfPipeline> {
 public:
  PyUnigramHf(UnigramHfDescription d, std::vector<std::string> names, const std::vector<uint32_t>& special_ids)
      : PyJsonPipeline(std::move(names), special_ids, std::move(d)) {}

  bool untouched(nb::handle text) const {
    const Text t = utf8_of(text);
    return this->tok_.untouched(t.data, t.size);
  }
};

}  // namespace

void bind_unigram_hf(nb::module_& m) {
  nb::class_<PyUnigramHf> c(m, "UnigramHf",
                            "A Unigram tokenizer.json (T5, ALBERT, XLNet shapes) in one fused pass, exact to HF "
                            "tokenizers and to the staged pipeline.");
  c.def(
       "__init__",
       [](PyUnigramHf* self, nb::handle normalizer, nb::handle pre_tokenizer, const std::string& model_type,
          nb::handle model_options, const std::vector<std::pair<std::string, uint32_t>>& vocab, nb::handle decoder,
          std::vector<std::string> names, const std::vector<uint32_t>& special_ids, int prepend, bool split,
          std::vector<std::pair<std::string, std::string>> probes) {
         UnigramHfDescription d;
         d.staged.normalizer = stage_of(normalizer, "normalizer", "normalizers");
         d.staged.pre_tokenizer = stage_of(pre_tokenizer, "pre-tokenizer", "pretokenizers");
         d.staged.decoder = stage_of(decoder, "decoder", "decoders");
         d.staged.model_type = model_type;
         d.staged.model_options = option_of(model_options, "model " + model_type);
         d.staged.vocab = vocab;
         d.prepend = prepend;
         d.split = split;
         d.probes = std::move(probes);
         try {
           new (self) PyUnigramHf(std::move(d), std::move(names), special_ids);
         } catch (const std::invalid_argument& e) {
           throw nb::value_error(e.what());
         }
       },
       nb::arg("normalizer"), nb::arg("pre_tokenizer"), nb::arg("model_type"), nb::arg("model_options"),
       nb::arg("vocab"), nb::arg("decoder"), nb::arg("names"), nb::arg("special_ids"), nb::arg("prepend"),
       nb::arg("split"), nb::arg("probes"),
       "The staged pipeline's description (as _core.Staged takes it: the model, normalizer and decoder run here, "
       "the stages answer the hooks), Metaspace's rules: prepend (0 never, 1 first, 2 always) and split; and one "
       "probe per normalizer part, (kind, argument): precompiled (base64 map), contains, strip_left, strip_right, "
       "space_edge, non_ascii, lowercase.")
      .def("decode", &PyUnigramHf::decode, nb::arg("ids"), nb::arg("skip_special_tokens") = true,
           "The decoder's text for ids (HF's decode: ids without a token are skipped).")
      .def("pre_tokenize", &PyUnigramHf::pre_tokenize, nb::arg("text"), nb::arg("added").none() = nb::none(),
           "[(piece, (start, end))]: the pieces the model would see, spans in input code points "
           "(HF's pre_tokenize_str after the normalizer).")
      .def("normalize", &PyUnigramHf::normalize, nb::arg("text"), "The normalizer's text (HF's normalize_str).")
      .def("untouched", &PyUnigramHf::untouched, nb::arg("text"),
           "Whether the probes find that the normalizer at most strips whitespace at the ends of text (it then "
           "runs without alignments; a test hook).");
  bind_pipeline(c, nb::str("all"),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in "
                "the text become their ids when in allowed_special (default all, as HF matches them), raise when "
                "in disallowed_special, and are plain text otherwise.");
}

}  // namespace tokenforge::bindings
