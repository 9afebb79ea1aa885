// Binding for the built-in stages of DeepSeek's pre-tokenizer Sequences
// (pre_tokenizers/split_sequence.h, pre_tokenizers/deepseek_scanner.h): _pre_split_ends, a test
// hook giving the pieces a run of stages cuts a text into, so each stage is checked against HF's
// own Split and Digits pre-tokenizers on its own (the fused pass, pipelines/byte_level_hf_bpe.h,
// runs them).
#include <cstddef>
#include <string>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include "pre_tokenizers/split_sequence.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace tokenforge::bindings {

void bind_split_sequence(nb::module_& m) {
  m.def(
      "_pre_split_ends",
      [](nb::handle text, const std::vector<int>& stages) {
        for (int kind : stages)
          if (!is_pre_split(kind))
            throw nb::value_error(("no built-in stage has the id " + std::to_string(kind)).c_str());
        const Text t = utf8_of(text);
        std::vector<size_t> ends;
        auto last = [&](size_t, size_t to) { ends.push_back(to); };
        {
          nb::gil_scoped_release release;
          run_pre_splits(stages, 0, t.data, 0, t.size, last);
        }
        return ends;
      },
      nb::arg("text"), nb::arg("stages"),
      "Byte offsets where the built-in stages `stages` (PreSplit ids, run in order as a pre-tokenizer "
      "Sequence) end each piece of `text` (a test hook).");
}

}  // namespace tokenforge::bindings
