// Bindings for extended grapheme clusters (unicode/graphemes.h, unicode-segmentation's clusters,
// which HF's Precompiled normalizer reads): grapheme_clusters, a test hook that cuts a text as
// the staged pipeline's Precompiled normalizer does. python/module.cpp calls bind_graphemes
// after the other parts; conversions come from python/convert.h.
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "python/bindings.h"
#include "python/convert.h"
#include "unicode/graphemes.h"

namespace tokenforge::bindings {

void bind_graphemes(nb::module_& m) {
  m.def(
      "grapheme_clusters",
      [](const nb::str& text) {
        const Text t = utf8_of(text);
        std::vector<size_t> ends;
        {
          GilReleasedFor nogil(t.size);
          GraphemeCursor cursor(t.data, t.size);
          while (!cursor.done()) ends.push_back(cursor.next());
        }
        nb::list out;
        size_t start = 0;
        for (const size_t end : ends) {
          out.append(nb::str(reinterpret_cast<const char*>(t.data) + start, end - start));
          start = end;
        }
        return nb::typed<nb::list, nb::str>(std::move(out));
      },
      nb::arg("text"),
      "The extended grapheme clusters of `text`, as the Rust crate unicode-segmentation (HF "
      "tokenizers' Precompiled normalizer) cuts them (Unicode " TOKENFORGE_GRAPHEME_UNICODE_VERSION "; a test hook).");
}

}  // namespace tokenforge::bindings
