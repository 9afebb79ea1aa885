// Bindings for the module's functions over raw text and files: where the built-in scanners
// (pre_tokenizers/scanner.h) end each piece of a text, for the tests, the tokens of a .tiktoken
// file (formats/tiktoken_file.h), and IdBytes (each id's bytes, joined: ByT5's decode). python/module.cpp calls
// bind_tools last; conversions come from python/convert.h.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>

#include "base/cpu_features.h"
#include "formats/tiktoken_file.h"
#include "pre_tokenizers/scanner.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace tokenforge::bindings {

// The bytes of each id, back to back: id i's are blob[starts[i], starts[i + 1]).
struct IdBytes {
  std::string blob;
  std::vector<size_t> starts{0};
};

void bind_tools(nb::module_& m) {
  nb::class_<IdBytes>(m, "IdBytes",
                      "Each token id's bytes (a list of bytes objects, by id), joined for a sequence of ids: "
                      "the decode of a tokenizer whose tokens are bytes (ByT5's, tokenizer.py's _bytes_decode).")
      .def(
          "__init__",
          [](IdBytes* self, nb::list pieces) {
            new (self) IdBytes();
            for (nb::handle piece : pieces) {
              if (!PyBytes_Check(piece.ptr())) throw nb::type_error("IdBytes takes a list of bytes objects");
              self->blob.append(PyBytes_AS_STRING(piece.ptr()), size_t(PyBytes_GET_SIZE(piece.ptr())));
              self->starts.push_back(self->blob.size());
            }
          },
          nb::arg("pieces"))
      .def(
          "join",
          [](const IdBytes& t, nb::handle ids) {
            // (ValueError for an id without bytes, TypeError for one that is not an int)
            const std::vector<uint32_t> v = vocabulary_ids(ids, t.starts.size() - 1);
            std::string out;
            for (uint32_t i : v) out.append(t.blob, t.starts[i], t.starts[i + 1] - t.starts[i]);
            return nb::bytes(out.data(), out.size());
          },
          nb::arg("ids"), "The bytes of `ids`, joined.");

  m.def(
      "_piece_ends",
      [](nb::handle text, int pattern, bool windowed) {
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
      "Byte offsets where the built-in scanner `pattern` ends each piece of `text`; "
      "windowed=False uses only the character-by-character scanner (for tests).");

  m.def(
      "_avx2_windows", [](std::optional<bool> enable) { return enable ? set_avx2_enabled(*enable) : avx2_enabled(); },
      nb::arg("enable") = nb::none(),
      "Whether the scanners' windows use their AVX2 path (base/cpu_features.h); enable=True or False "
      "turns it on (where the CPU has AVX2) or off for the scans that start after. For tests: "
      "TOKENFORGE_NO_AVX2=1 turns it off from the start.");

  m.def(
      "parse_tiktoken",
      [](nb::bytes data, uint64_t rank_limit) {
        std::string_view view(data.c_str(), data.size());
        return bytes_list(parse_tiktoken(view, rank_limit));
      },
      nb::arg("data"), nb::arg("rank_limit") = ~uint64_t(0),
      "Parse a .tiktoken file's bytes into a list of token bytes indexed by rank.");
}

}  // namespace tokenforge::bindings
