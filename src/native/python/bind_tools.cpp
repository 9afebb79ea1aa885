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
#include <nanobind/stl/vector.h>

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

// CTC's join (Wav2Vec2CTCTokenizer's decode): each id's key (its token: ids of one token share
// one), a key's bytes; runs of one key are one, keys `none` are left out (the run goes on past
// them), keys `blank` end a run and show nothing.
struct RunJoin {
  IdBytes texts;                          // by key
  std::vector<uint32_t> keys;             // by id
  uint32_t far = 0, none = 0, blank = 0;  // the key of an id past `keys`; the two left out
};

void bind_tools(nb::module_& m) {
  nb::class_<RunJoin>(m, "RunJoin",
                      "CTC's decode at C speed (tokenizer.py's _ctc_decode): each id's key (ids of one token "
                      "share it), each key's bytes; join(ids) gives the bytes of the runs of one key, once each, "
                      "keys `none` left out, keys `blank` (CTC's pad) ending a run and showing nothing.")
      .def(
          "__init__",
          [](RunJoin* self, nb::list texts, std::vector<uint32_t> keys, uint32_t far, uint32_t none, uint32_t blank) {
            new (self) RunJoin();
            for (nb::handle piece : texts) {
              if (!PyBytes_Check(piece.ptr())) throw nb::type_error("RunJoin takes a list of bytes objects");
              self->texts.blob.append(PyBytes_AS_STRING(piece.ptr()), size_t(PyBytes_GET_SIZE(piece.ptr())));
              self->texts.starts.push_back(self->texts.blob.size());
            }
            const size_t n = self->texts.starts.size() - 1;
            for (uint32_t k : keys)
              if (k >= n && k != none && k != blank) throw nb::value_error("RunJoin: a key without bytes");
            if (far >= n && far != none) throw nb::value_error("RunJoin: the far key has no bytes");
            self->keys = std::move(keys);
            self->far = far, self->none = none, self->blank = blank;
          },
          nb::arg("texts"), nb::arg("keys"), nb::arg("far"), nb::arg("none"), nb::arg("blank"))
      .def(
          "join",
          [](const RunJoin& t, nb::handle ids) {
            // (any Python int: one past the keys, negative or not, is `far`; TypeError for others)
            nb::sequence seq = nb::borrow<nb::sequence>(ids);
            std::string out;
            uint32_t previous = t.none;
            for (nb::handle item : seq) {
              if (!PyLong_Check(item.ptr())) throw nb::type_error("RunJoin.join takes a sequence of ints");
              int overflow = 0;
              const long long id = PyLong_AsLongLongAndOverflow(item.ptr(), &overflow);
              const uint32_t key =
                  overflow == 0 && id >= 0 && uint64_t(id) < t.keys.size() ? t.keys[size_t(id)] : t.far;
              if (key == t.none || key == previous) continue;
              previous = key;
              if (key == t.blank) continue;
              out.append(t.texts.blob, t.texts.starts[key], t.texts.starts[key + 1] - t.texts.starts[key]);
            }
            return nb::bytes(out.data(), out.size());
          },
          nb::arg("ids"), "The bytes of the runs of `ids`' keys, joined.");

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
