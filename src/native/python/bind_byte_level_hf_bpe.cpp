// Binding for the fused byte-level BPE of tokenizer.json files (pipelines/byte_level_hf_bpe.h):
// _core.ByteLevelHfBpe, built from the staged pipeline's description (python/stage_convert.h
// converts the stages) plus the split the fused pass runs, hosted by PyPipeline
// (python/py_pipeline.h) for encode, batches, template, truncation, padding and the
// special-token policy; decode is HF's (the ByteLevel decoder over the ids' tokens);
// pre_tokenize and normalize answer as _core.Staged's (the staged pipeline of the same file);
// pieces and _hf_split_ends are test hooks (the pieces the fused pass cuts; a built-in scanner's
// piece ends).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "pipelines/byte_level_hf_bpe.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_json_pipeline.h"
#include "python/py_pipeline.h"
#include "python/stage_convert.h"

namespace tokenforge::bindings {

namespace {

class PyByteLevelHfBpe : public PyJsonPipeline<ByteLevelHfBpePipeline> {
 public:
  PyByteLevelHfBpe(ByteLevelHfBpeDescription d, std::vector<std::string> names,
                   const std::vector<uint32_t>& special_ids)
      : PyJsonPipeline(std::move(names), special_ids, std::move(d)) {}

  std::vector<std::pair<nb::bytes, size_t>> pieces(nb::handle text) const {
    return this->cut_into_bytes(text, [](const auto& tok, const uint8_t* s, size_t n) { return tok.pieces(s, n); });
  }
};

}  // namespace

void bind_byte_level_hf_bpe(nb::module_& m) {
  nb::class_<PyByteLevelHfBpe> c(m, "ByteLevelHfBpe",
                                 "A byte-level BPE tokenizer.json (GPT-2, Llama 3, Qwen2 shapes) in one fused pass, "
                                 "exact to HF tokenizers and to the staged pipeline.");
  c.def(
       "__init__",
       [](PyByteLevelHfBpe* self, nb::handle normalizer, nb::handle pre_tokenizer, const std::string& model_type,
          nb::handle model_options, std::vector<std::pair<std::string, uint32_t>> vocab, nb::handle decoder,
          std::vector<std::string> names, const std::vector<uint32_t>& special_ids, int split,
          const std::string& pattern, bool add_prefix_space, bool prefix_each_piece, bool nfc,
          std::vector<int> pre_splits, HiddenTokens hidden, bool trim_offsets, bool trim_add_prefix_space, bool clip) {
         ByteLevelHfBpeDescription d;
         d.staged.normalizer = stage_of(normalizer, "normalizer", "normalizers");
         d.staged.pre_tokenizer = stage_of(pre_tokenizer, "pre-tokenizer", "pretokenizers");
         d.staged.decoder = stage_of(decoder, "decoder", "decoders");
         d.staged.model_type = model_type;
         d.staged.model_options = model_options_of(model_options, model_type, d.staged.merges, d.staged.merges_given);
         d.staged.vocab = std::move(vocab);
         d.split = split;
         d.pattern = pattern;
         d.add_prefix_space = add_prefix_space;
         d.prefix_each_piece = prefix_each_piece;
         d.nfc = nfc;
         d.pre_splits = std::move(pre_splits);
         d.hidden = std::move(hidden);
         d.clip = clip;
         d.staged.trim_offsets = trim_offsets;
         d.staged.trim_add_prefix_space = trim_add_prefix_space;
         if (trim_offsets) d.staged.names = names;  // (the spaces around each token's text)
         try {
           new (self) PyByteLevelHfBpe(std::move(d), std::move(names), special_ids);
         } catch (const std::invalid_argument& e) {
           throw nb::value_error(e.what());
         }
       },
       nb::arg("normalizer"), nb::arg("pre_tokenizer"), nb::arg("model_type"), nb::arg("model_options"),
       nb::arg("vocab"), nb::arg("decoder"), nb::arg("names"), nb::arg("special_ids"), nb::arg("split"),
       nb::arg("pattern"), nb::arg("add_prefix_space"), nb::arg("prefix_each_piece"), nb::arg("nfc"),
       nb::arg("pre_splits") = std::vector<int>(), nb::arg("hidden") = HiddenTokens(), nb::arg("trim_offsets") = false,
       nb::arg("trim_add_prefix_space") = false, nb::arg("clip") = false,
       "The staged pipeline's description (as _core.Staged takes it; its stages run texts the fused pass "
       "does not: NFC texts that fail the quick check) and the fused pass's split: split, a built-in "
       "scanner (0 GPT-2, 1 cl100k, 2 o200k, 3 Llama 3, 4 Qwen2, 5 tekken, 6 and 7 CLIP's with clip), -1 for `pattern` "
       "through Oniguruma or -2 "
       "for none (the pre-splits' pieces are the pieces); add_prefix_space before each stretch, or before "
       "each piece with prefix_each_piece; nfc: the NFC normalizer; pre_splits: built-in stages run first, "
       "in order (pre_tokenizers/split_sequence.h's PreSplit ids: 1 \\p{N}{1,3}, 2 DeepSeek V3's CJK and "
       "kana runs, 3 its main pattern, 4..11 DeepSeek LLM's and Coder's stages, 12 BLOOM's Split, 13..16 Falcon's); "
       "hidden: (id, the "
       "model's "
       "token) where an added token took a vocabulary token's id (the model's tokens show the model's text; "
       "the file must not have nfc); trim_offsets, trim_add_prefix_space: the ByteLevel or RobertaProcessing "
       "post-processor's (spaces come off each token's offsets, but the one add_prefix_space put first); "
       "clip: CLIP's files (NFC, whitespace Replace and Lowercase, its Split, the end_of_word_suffix; "
       "split 6, or 7 with the special tokens first in the Split).")
      .def("decode", &PyByteLevelHfBpe::decode, nb::arg("ids"), nb::arg("skip_special_tokens") = true,
           "The decoder's text for ids (HF's decode: ids without a token are skipped).")
      .def("pre_tokenize", &PyByteLevelHfBpe::pre_tokenize, nb::arg("text"), nb::arg("added").none() = nb::none(),
           "[(piece, (start, end))]: the pieces the model would see, spans in input code points "
           "(HF's pre_tokenize_str after the normalizer).")
      .def("normalize", &PyByteLevelHfBpe::normalize, nb::arg("text"), "The normalizer's text (HF's normalize_str).")
      .def("pieces", &PyByteLevelHfBpe::pieces, nb::arg("text"),
           "[(piece bytes, first input byte)]: the pieces of a text without added tokens as the model sees "
           "them, the prefix space included (a test hook).");
  bind_pipeline(c, nb::str("all"),
                "Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in "
                "the text become their ids when in allowed_special (default all, as HF matches them), raise when "
                "in disallowed_special, and are plain text otherwise.");

  m.def(
      "_hf_split_ends",
      [](nb::handle text, int pattern, bool windowed) {
        if (pattern < 0 || pattern > int(Pattern::kTekken)) throw nb::value_error("no built-in scanner has that id");
        Text t = utf8_of(text);
        const Pattern pat = Pattern(pattern);
        Scanner scan(t.data, t.size);
        std::vector<size_t> ends;
        for (size_t p = 0; p < t.size;) {
          p = windowed ? scan.next(pat, p) : scan.scalar(pat, p);
          ends.push_back(p);
        }
        return ends;
      },
      nb::arg("text"), nb::arg("pattern"), nb::arg("windowed"),
      "Byte offsets where the built-in scanner `pattern` (0 GPT-2, 1 cl100k, 2 o200k, 3 Llama 3, 4 Qwen2, 5 tekken) "
      "ends "
      "each piece of `text`; windowed=False uses only the character-by-character scanner (for tests).");
}

}  // namespace tokenforge::bindings
