// Bindings for Unicode normalization (unicode/normalization.h): unicode_normalize, a text in NFC,
// NFD, NFKC or NFKD as HF tokenizers' normalizers give it, and unicode_normalize_changes, the
// (character, change) pairs HF's NormalizedString::transform reads, for the tests. python/module.cpp
// calls bind_unicode_normalization after the other parts; conversions come from python/convert.h.
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string_view.h>

#include "python/bindings.h"
#include "python/convert.h"
#include "unicode/normalization.h"

namespace tokenforge::bindings {

namespace {

NormalForm form_of(std::string_view name) {
  if (name == "NFC") return NormalForm::kNFC;
  if (name == "NFD") return NormalForm::kNFD;
  if (name == "NFKC") return NormalForm::kNFKC;
  if (name == "NFKD") return NormalForm::kNFKD;
  throw nb::value_error(
      ("unknown normalization form " + std::string(name) + " (expected NFC, NFD, NFKC or NFKD)").c_str());
}

}  // namespace

void bind_unicode_normalization(nb::module_& m) {
  m.def(
      "unicode_normalize",
      [](std::string_view form, const nb::str& text) {
        const NormalForm f = form_of(form);
        const Text t = utf8_of(text);
        std::string out;
        {
          GilReleasedFor nogil(t.size);
          out = normalize_utf8(f, std::string_view(reinterpret_cast<const char*>(t.data), t.size));
        }
        return nb::str(out.data(), out.size());
      },
      nb::arg("form"), nb::arg("text"),
      "`text` in Unicode normalization form `form` (\"NFC\", \"NFD\", \"NFKC\" or \"NFKD\"), as HF "
      "tokenizers' normalizers give it (Unicode 9.0.0).");

  m.def(
      "unicode_normalize_changes",
      [](std::string_view form, const nb::str& text) {
        const NormalForm f = form_of(form);
        const Text t = utf8_of(text);
        std::vector<std::pair<char32_t, int>> pairs;
        {
          GilReleasedFor nogil(t.size);
          const std::vector<char32_t> cps =
              code_points_of(std::string_view(reinterpret_cast<const char*>(t.data), t.size));
          normalize_with_changes(f, cps.data(), cps.size(), pairs);
        }
        nb::list out;
        for (const auto& [cp, change] : pairs) {
          nb::object ch = nb::steal(PyUnicode_FromOrdinal(int(cp)));
          if (!ch) throw nb::python_error();
          out.append(nb::make_tuple(ch, change));
        }
        return nb::typed<nb::list, std::pair<nb::str, int>>(std::move(out));
      },
      nb::arg("form"), nb::arg("text"),
      "The (character, change) pairs of `text` in form `form`, as unicode-normalization-alignments "
      "yields them for HF's NormalizedString: change 0 replaces one input character, +1 is "
      "inserted, -n replaces one and removes the n after it (a test hook).");
}

}  // namespace tokenforge::bindings
