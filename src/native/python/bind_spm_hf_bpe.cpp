// Binding for the fused sentencepiece-style BPE of tokenizer.json files (pipelines/spm_hf_bpe.h):
// _core.SpmHfBpe, built from the staged pipeline's description (python/stage_convert.h converts
// the stages) plus where the "▁" prefix goes and whether Metaspace splits, hosted by PyPipeline
// (python/py_pipeline.h) for encode, batches, template, truncation, padding and the special-token
// policy; decode is HF's (the file's decoder over the ids' tokens); pre_tokenize and normalize
// answer as _core.Staged's (the staged pipeline of the same file); segments is a test hook.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "pipelines/spm_hf_bpe.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_json_pipeline.h"
#include "python/py_pipeline.h"
#include "python/stage_convert.h"

namespace tokenforge::bindings {

namespace {

class PySpmHfBpe : public PyJsonPipeline<SpmHfBpePipeline> {
 public:
  PySpmHfBpe(SpmHfBpeDescription d, std::vector<std::string> names, const std::vector<uint32_t>& special_ids)
      : PyJsonPipeline(std::move(names), special_ids, std::move(d)) {}

  std::vector<std::pair<nb::bytes, size_t>> segments(nb::handle text) const {
    return this->cut_into_bytes(text, [](const auto& tok, const uint8_t* s, size_t n) { return tok.segments(s, n); });
  }
};

}  // namespace

void bind_spm_hf_bpe(nb::module_& m) {
  nb::class_<PySpmHfBpe> c(m, "SpmHfBpe",
                           "A sentencepiece-style BPE tokenizer.json (Llama 2, Mistral, Gemma shapes) in one fused "
                           "pass, exact to HF tokenizers and to the staged pipeline.");
  c.def(
       "__init__",
       [](PySpmHfBpe* self, nb::handle normalizer, nb::handle pre_tokenizer, const std::string& model_type,
          nb::handle model_options, std::vector<std::pair<std::string, uint32_t>> vocab, nb::handle decoder,
          std::vector<std::string> names, const std::vector<uint32_t>& special_ids, int prepend, bool split,
          HiddenTokens hidden) {
         SpmHfBpeDescription d;
         d.staged.normalizer = stage_of(normalizer, "normalizer", "normalizers");
         d.staged.pre_tokenizer = stage_of(pre_tokenizer, "pre-tokenizer", "pretokenizers");
         d.staged.decoder = stage_of(decoder, "decoder", "decoders");
         d.staged.model_type = model_type;
         d.staged.model_options = model_options_of(model_options, model_type, d.staged.merges, d.staged.merges_given);
         d.staged.vocab = std::move(vocab);
         d.prepend = prepend;
         d.split = split;
         d.hidden = std::move(hidden);
         try {
           new (self) PySpmHfBpe(std::move(d), std::move(names), special_ids);
         } catch (const std::invalid_argument& e) {
           throw nb::value_error(e.what());
         }
       },
       nb::arg("normalizer"), nb::arg("pre_tokenizer"), nb::arg("model_type"), nb::arg("model_options"),
       nb::arg("vocab"), nb::arg("decoder"), nb::arg("names"), nb::arg("special_ids"), nb::arg("prepend"),
       nb::arg("split"), nb::arg("hidden") = HiddenTokens(),
       "The staged pipeline's description (as _core.Staged takes it: the model and decoder run here, the "
       "stages answer the hooks) and the fused pass's text rules: prepend, where the \"\u2581\" prefix goes (0 "
       "never, 1 Metaspace first, 2 Metaspace always, 3 the Prepend normalizer); split, Metaspace's split; "
       "hidden: (id, the model's token) where an added token took a vocabulary token's id (the model's tokens "
       "show the model's text).")
      .def("decode", &PySpmHfBpe::decode, nb::arg("ids"), nb::arg("skip_special_tokens") = true,
           "The decoder's text for ids (HF's decode: ids without a token are skipped).")
      .def("pre_tokenize", &PySpmHfBpe::pre_tokenize, nb::arg("text"), nb::arg("added").none() = nb::none(),
           "[(piece, (start, end))]: the pieces the model would see, spans in input code points "
           "(HF's pre_tokenize_str after the normalizer).")
      .def("normalize", &PySpmHfBpe::normalize, nb::arg("text"), "The normalizer's text (HF's normalize_str).")
      .def("segments", &PySpmHfBpe::segments, nb::arg("text"),
           "[(segment bytes, first model byte)]: the segments the fused pass merges apart for a text without "
           "added tokens, in the model's text (spaces as \"\u2581\", the prefix included; a test hook).");
  bind_pipeline(c, nb::str("all"),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in "
                "the text become their ids when in allowed_special (default all, as HF matches them), raise when "
                "in disallowed_special, and are plain text otherwise.");
}

}  // namespace tokenforge::bindings
