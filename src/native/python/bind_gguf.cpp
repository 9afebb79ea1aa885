// Bindings for reading GGUF tokenizers: gguf_strings (formats/gguf_strings.h), which
// tokenforge/formats/gguf.py calls for each string array of a file's metadata (its reader does
// the rest), and the whole-vocabulary passes of formats/gguf_vocab.h (gguf_check_merges,
// gguf_spm_merges). python/module.cpp calls bind_gguf after the other parts.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include "formats/gguf_strings.h"
#include "formats/gguf_vocab.h"
#include "python/bindings.h"

namespace nb = nanobind;

namespace tokenforge::bindings {

namespace {

// A read-only view of a bytes-like object (bytes, mmap), released on scope exit.
class BufferView {
 public:
  explicit BufferView(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_SIMPLE) != 0) throw nb::python_error();
  }
  ~BufferView() { PyBuffer_Release(&view_); }
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_{};
};

// The strings of a GGUF string array's raw bytes (each a 64-bit length, then the bytes), as
// views into the buffer; ValueError where one runs past the end.
std::vector<std::string_view> array_views(const BufferView& raw, uint64_t count, bool big_endian) {
  GgufStringSpans spans;
  try {
    spans = gguf_string_spans(raw.data(), raw.size(), 0, count, big_endian, true);
  } catch (const std::out_of_range& e) {
    throw nb::value_error(e.what());
  }
  std::vector<std::string_view> out;
  out.reserve(spans.spans.size());
  const char* base = reinterpret_cast<const char*>(raw.data());
  for (const auto& [start, length] : spans.spans) out.emplace_back(base + start, length);
  return out;
}

}  // namespace

void bind_gguf(nb::module_& m) {
  m.def(
      "gguf_strings",
      [](nb::handle data, size_t pos, uint64_t count, bool big_endian, bool keep) {
        const BufferView buffer(data);
        GgufStringSpans spans;
        try {
          spans = gguf_string_spans(buffer.data(), buffer.size(), pos, count, big_endian, keep);
        } catch (const std::out_of_range& e) {
          throw nb::value_error(e.what());
        }
        nb::object strings = nb::none();
        if (keep) {
          nb::list out;
          const char* base = reinterpret_cast<const char*>(buffer.data());
          for (size_t i = 0; i < spans.spans.size(); ++i) {
            const auto [start, length] = spans.spans[i];
            PyObject* s = PyUnicode_DecodeUTF8(base + start, static_cast<Py_ssize_t>(length), nullptr);
            if (s == nullptr) {
              PyErr_Clear();
              throw nb::value_error(
                  ("string " + std::to_string(i) + " at byte " + std::to_string(start) + " is not UTF-8").c_str());
            }
            out.append(nb::steal(s));
          }
          strings = std::move(out);
        }
        return nb::make_tuple(strings, spans.end);
      },
      nb::arg("data"), nb::arg("pos"), nb::arg("count"), nb::arg("big_endian"), nb::arg("keep") = true,
      "The `count` strings (64-bit length, then UTF-8 bytes) of a GGUF array starting at byte `pos` "
      "of `data`, and the byte after them; ValueError saying which string where one runs past the "
      "end or is not UTF-8. keep=False: only the end.");
  m.def(
      "gguf_check_merges",
      [](nb::handle tokens, uint64_t n_tokens, nb::handle merges, uint64_t n_merges, bool big_endian) {
        const BufferView token_bytes(tokens), merge_bytes(merges);
        const std::vector<std::string_view> t = array_views(token_bytes, n_tokens, big_endian);
        const std::vector<std::string_view> mv = array_views(merge_bytes, n_merges, big_endian);
        GgufMergesCheck check;
        {
          nb::gil_scoped_release release;
          check = gguf_check_merges(t, mv);
        }
        return nb::make_tuple(check.first_bad, check.one_space_each);
      },
      nb::arg("tokens"), nb::arg("n_tokens"), nb::arg("merges"), nb::arg("n_merges"), nb::arg("big_endian"),
      "(first bad merge or -1, every merge has one space) for the raw bytes of a GGUF file's token "
      "and merge arrays: each merge split at its first space after the first byte (llama.cpp's "
      "split) must give two tokens whose join is a token.");
  m.def(
      "gguf_spm_merges",
      [](nb::handle raw, nb::list tokens, bool big_endian, const std::vector<double>& scores) {
        const BufferView token_bytes(raw);
        const std::vector<std::string_view> t = array_views(token_bytes, nb::len(tokens), big_endian);
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        {
          nb::gil_scoped_release release;
          pairs = gguf_spm_merges(t, scores);
        }
        // [left, right] lists of the tokens' own str objects (no new strings)
        nb::list out;
        for (const auto& [l, r] : pairs) {
          nb::list pair;
          pair.append(tokens[l]);
          pair.append(tokens[r]);
          out.append(pair);
        }
        return out;
      },
      nb::arg("raw"), nb::arg("tokens"), nb::arg("big_endian"), nb::arg("scores"),
      "llama.cpp's SPM merges as BPE merges, [[left, right], ...] of `tokens` (the str of the raw "
      "token array `raw`): every split of a token into two tokens, by the token's score (highest "
      "first), then id, then the cut.");
}

}  // namespace tokenforge::bindings
