// Bindings for tokenforge.corpus (src/tokenforge/corpus/worker.py): encode_flat, a work unit's
// documents (a list of str) encoded by a byte-level BPE Encoder (python/py_encoder.h, pipelines/encoder.h) into
// one flat NumPy array, each document followed by the separator id when there is one, with each
// document's token count and UTF-8 size beside it. No Python list is made on the way (a list of
// ids per document cost more than the encoding itself for short documents such as lines), and
// the GIL is released while encoding. encode_text_unit does the same from a text unit's bytes,
// cutting its documents natively (formats/text_documents.h), so no Python str is made at all and
// the decoding and splitting run without the GIL too. Conversions come from python/convert.h; python/module.cpp
// calls bind_corpus after the parts it names (Encoder is bound in python/bind_encoding.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "base/parallel.h"
#include "formats/text_documents.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_encoder.h"

namespace tokenforge::bindings {

namespace {

template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> owned_array(std::vector<T>* v) {
  nb::capsule owner(v, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(v->data(), {v->size()}, owner);
}

// (ids uint32[], counts uint64[n], sizes uint64[n]) for documents all[0..n): ids holds document
// i's tokens (special-token text encoded as text, as encode_ordinary does) followed by
// `separator` when it is >= 0; counts[i] its tokens without the separator, sizes[i] its UTF-8
// bytes. `threads` 1 encodes in order into one buffer; more run documents on native threads.
// Runs without the GIL (the caller has released it).
struct FlatIds {
  std::vector<uint32_t>* ids = new std::vector<uint32_t>();
  std::vector<uint64_t>* counts = new std::vector<uint64_t>();
  std::vector<uint64_t>* sizes = new std::vector<uint64_t>();
  FlatIds() = default;
  FlatIds(const FlatIds&) = delete;
  FlatIds& operator=(const FlatIds&) = delete;
  ~FlatIds() {  // what was not handed to NumPy
    delete ids;
    delete counts;
    delete sizes;
  }
  nb::tuple release() {  // each vector is NumPy's once its array is made
    auto a = owned_array(ids);
    ids = nullptr;
    auto b = owned_array(counts);
    counts = nullptr;
    auto c = owned_array(sizes);
    sizes = nullptr;
    return nb::make_tuple(a, b, c);
  }
};

void encode_flat_into(const Encoder& enc, const std::vector<Text>& all, int64_t separator, size_t threads,
                      FlatIds& out) {
  const size_t n = all.size();
  const bool sep = separator >= 0;
  std::vector<uint32_t>& ids = *out.ids;
  std::vector<uint64_t>& counts = *out.counts;
  std::vector<uint64_t>& sizes = *out.sizes;
  counts.resize(n);
  sizes.resize(n);
  if (threads <= 1 || n < 2) {
    size_t bytes = 0;
    for (const Text& t : all) bytes += t.size;
    ids.reserve(bytes / 3 + n + 16);  // about 4 bytes a token: grows at most once in most corpora
    for (size_t i = 0; i < n; ++i) {
      const size_t before = ids.size();
      enc.encode(all[i].data, all[i].size, nullptr, ids);
      counts[i] = ids.size() - before;
      sizes[i] = all[i].size;
      if (sep) ids.push_back(uint32_t(separator));
    }
    return;
  }
  std::vector<std::vector<uint32_t>> rows(n);
  parallel_for(n, threads, [&](size_t i) { enc.encode(all[i].data, all[i].size, nullptr, rows[i]); }, SignalPoll());
  size_t total = 0;
  for (const auto& r : rows) total += r.size() + (sep ? 1 : 0);
  ids.reserve(total);
  for (size_t i = 0; i < n; ++i) {
    ids.insert(ids.end(), rows[i].begin(), rows[i].end());
    counts[i] = rows[i].size();
    sizes[i] = all[i].size;
    if (sep) ids.push_back(uint32_t(separator));
    std::vector<uint32_t>().swap(rows[i]);
  }
}

void check_separator(int64_t separator) {
  if (separator > int64_t(UINT32_MAX)) throw nb::value_error("separator must be below 2**32 (or -1 for none)");
}

nb::tuple encode_flat(const PyEncoder& encoder, nb::handle texts, int64_t separator, size_t threads) {
  check_separator(separator);
  std::vector<Text> all = utf8_of_all(texts);
  FlatIds out;
  {
    nb::gil_scoped_release nogil;
    encode_flat_into(encoder.encoder(), all, separator, threads, out);
  }
  return out.release();
}

// A text work unit's bytes (tokenforge.corpus.inputs: a byte range of a text file) cut into
// documents natively (formats/text_documents.h, the cut inputs._documents makes) and encoded as
// encode_flat encodes them, all without the GIL; None when the bytes are not strict UTF-8 (the
// caller then reads the unit in Python, which reports the bad documents).
nb::object encode_text_unit(const PyEncoder& encoder, nb::bytes data, const std::string& split, int64_t separator,
                            size_t threads) {
  check_separator(separator);
  TextSplit how;
  if (split == "line")
    how = TextSplit::kLine;
  else if (split == "paragraph")
    how = TextSplit::kParagraph;
  else if (split == "document")
    how = TextSplit::kDocument;
  else
    throw nb::value_error(("split must be line, paragraph or document, got '" + split + "'").c_str());
  const auto* s = reinterpret_cast<const uint8_t*>(data.c_str());
  const size_t n = data.size();
  FlatIds out;
  bool valid;
  {
    nb::gil_scoped_release nogil;  // `data` (immutable bytes) stays alive: the caller holds it
    valid = utf8_error_at(s, n) == n;
    if (valid) {
      std::vector<ByteSpan> spans;
      cut_documents(s, n, how, spans);
      std::vector<Text> docs;
      docs.reserve(spans.size());
      for (const ByteSpan& d : spans) docs.push_back({s + d.start, d.size});
      encode_flat_into(encoder.encoder(), docs, separator, threads, out);
    }
  }
  if (!valid) return nb::none();
  return out.release();
}

}  // namespace

void bind_corpus(nb::module_& m) {
  m.def("encode_flat", &encode_flat, nb::arg("encoder"), nb::arg("texts"), nb::arg("separator"), nb::arg("threads") = 1,
        "Documents encoded by `encoder` (an Encoder) into one uint32 array, each followed by `separator` "
        "(-1: none), with each one's token count and UTF-8 size (uint64 arrays); for tokenforge.corpus.");
  m.def("encode_text_unit", &encode_text_unit, nb::arg("encoder"), nb::arg("data"), nb::arg("split"),
        nb::arg("separator"), nb::arg("threads") = 1,
        "The documents of `data` (the UTF-8 bytes of a text file's work unit), cut as `split` says "
        "(line, paragraph or document) and encoded as encode_flat encodes them; None when `data` is not "
        "strict UTF-8; for tokenforge.corpus.");
}

}  // namespace tokenforge::bindings
