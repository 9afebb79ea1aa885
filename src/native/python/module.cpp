// Python bindings: coarse calls (a whole text or a whole batch), the GIL released inside. This
// file makes the module tokenforge._core: its docstring, its constants, and the parts declared in
// python/bindings.h, each in a python/bind_*.cpp of its own (they compile in parallel) converting
// with python/convert.h.
#include <Python.h>

#include <nanobind/nanobind.h>

#include "processors/post_processing.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "unicode/unicode_classes.h"

using namespace tokenforge;
using namespace tokenforge::bindings;

NB_MODULE(_core, m) {
  m.doc() = "tokenforge's native core: pre-tokenizers and the BPE merge.";
  m.attr("UNICODE_VERSION") = TOKENFORGE_UNICODE_VERSION;
  m.attr("MAX_TYPE_ID") = kMaxTypeId;
  SignalPoll::main_thread_ident() =
      nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));

  // The module's attributes come in this order; each part comes after the parts whose classes its
  // signatures name (Encoder in the trainers' and ByteLevelBpe's, the sentencepiece models in
  // SpmTokenizer's).
  bind_encoding(m);
  bind_trainers(m);
  bind_sentencepiece(m);
  bind_pipelines(m);
  bind_tools(m);
  bind_staged(m);
  bind_unicode_normalization(m);
  bind_bpe_model(m);
  bind_regex(m);
  bind_byte_level_hf_bpe(m);
  bind_graphemes(m);
  bind_spm_hf_bpe(m);
  bind_unigram_hf(m);
  bind_gguf(m);
  bind_cluster(m);
  bind_corpus(m);
  bind_split_sequence(m);
}
