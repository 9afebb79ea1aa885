// Bindings for Regex (pre_tokenizers/regex.h), the Oniguruma-run patterns of tokenizer files: a
// test hook giving its spans of a str in code points, to compare with HF tokenizers' Split and
// Replace. python/module.cpp calls bind_regex after bind_tools; conversions come from
// python/convert.h.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>

#include "base/utf8.h"
#include "pre_tokenizers/regex.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace tokenforge::bindings {

namespace {

// The spans in code points (they are in order, so one pass counts the characters).
std::vector<std::tuple<size_t, size_t, bool>> in_code_points(const Text& t, const std::vector<MatchSpan>& spans) {
  std::vector<std::tuple<size_t, size_t, bool>> out;
  out.reserve(spans.size());
  size_t byte = 0, chars = 0;
  auto to = [&](size_t b) {
    if (b < byte) byte = chars = 0;  // never for find_matches' spans; kept for safety
    chars += count_characters(t.data, byte, b, t.size);
    byte = b;
    return chars;
  };
  for (const MatchSpan& m : spans) {
    const size_t start = to(m.start);
    out.emplace_back(start, to(m.end), m.is_match);
  }
  return out;
}

template <bool kMatchesOnly>
std::vector<std::tuple<size_t, size_t, bool>> spans_of(const Regex& re, const nb::str& text) {
  const Text t = utf8_of(text);
  std::vector<MatchSpan> spans;
  {
    GilReleasedFor nogil(t.size);
    const char* s = reinterpret_cast<const char*>(t.data);
    if (kMatchesOnly)
      re.find_iter(s, t.size, spans);
    else
      re.find_matches(s, t.size, spans);
  }
  return in_code_points(t, spans);
}

}  // namespace

void bind_regex(nb::module_& m) {
  nb::class_<Regex>(m, "Regex",
                    "A regex as HF tokenizers runs it (Oniguruma, its syntax and Unicode tables): the general "
                    "path for Split and Replace patterns. A pattern Oniguruma rejects raises ValueError.")
      .def(
          "__init__", [](Regex* self, const std::string& pattern) { new (self) Regex(pattern); }, nb::arg("pattern"))
      .def_prop_ro("pattern", [](const Regex& re) { return re.pattern(); })
      .def("find_matches", &spans_of<false>, nb::arg("text"),
           "The spans (start, end, is_match) of `text` in code points, in order and covering it, as HF's "
           "Pattern::find_matches gives them (an empty text gives [(0, 0, False)]). A search past Oniguruma's "
           "retry limits raises RuntimeError.")
      .def("find_iter", &spans_of<true>, nb::arg("text"),
           "The matches alone, as find_matches finds them: the spans HF's Replace normalizer rewrites.");
}

}  // namespace tokenforge::bindings
