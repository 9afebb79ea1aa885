// Bindings for GGUF files' string arrays (formats/gguf_strings.h): gguf_strings, which
// tokenforge/formats/gguf.py calls for each string array of a file's metadata (its reader does
// the rest). python/module.cpp calls bind_gguf after the other parts.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <nanobind/nanobind.h>

#include "formats/gguf_strings.h"
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
}

}  // namespace tokenforge::bindings
