// Bindings for tokenforge.corpus (src/tokenforge/corpus/worker.py): encode_flat, a work unit's
// documents encoded by a byte-level BPE Encoder (python/py_encoder.h, pipelines/encoder.h) into
// one flat NumPy array, each document followed by the separator id when there is one, with each
// document's token count and UTF-8 size beside it. No Python list is made on the way (a list of
// ids per document cost more than the encoding itself for short documents such as lines), and
// the GIL is released while encoding. Conversions come from python/convert.h; python/module.cpp
// calls bind_corpus after the parts it names (Encoder is bound in python/bind_encoding.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "base/parallel.h"
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

// (ids uint32[], counts uint64[n], sizes uint64[n]): ids holds document i's tokens (special-token
// text encoded as text, as encode_ordinary does) followed by `separator` when it is >= 0;
// counts[i] its tokens without the separator, sizes[i] its UTF-8 bytes. `threads` 1 encodes in
// order into one buffer; more run documents on native threads.
nb::tuple encode_flat(const PyEncoder& encoder, nb::handle texts, int64_t separator, size_t threads) {
  if (separator > int64_t(UINT32_MAX)) throw nb::value_error("separator must be below 2**32 (or -1 for none)");
  std::vector<Text> all = utf8_of_all(texts);
  const size_t n = all.size();
  const bool sep = separator >= 0;
  auto* ids = new std::vector<uint32_t>();
  auto* counts = new std::vector<uint64_t>(n);
  auto* sizes = new std::vector<uint64_t>(n);
  try {
    nb::gil_scoped_release nogil;
    const Encoder& enc = encoder.encoder();
    if (threads <= 1 || n < 2) {
      size_t bytes = 0;
      for (const Text& t : all) bytes += t.size;
      ids->reserve(bytes / 3 + n + 16);  // about 4 bytes a token: grows at most once in most corpora
      for (size_t i = 0; i < n; ++i) {
        const size_t before = ids->size();
        enc.encode(all[i].data, all[i].size, nullptr, *ids);
        (*counts)[i] = ids->size() - before;
        (*sizes)[i] = all[i].size;
        if (sep) ids->push_back(uint32_t(separator));
      }
    } else {
      std::vector<std::vector<uint32_t>> rows(n);
      parallel_for(n, threads, [&](size_t i) { enc.encode(all[i].data, all[i].size, nullptr, rows[i]); }, SignalPoll());
      size_t total = 0;
      for (const auto& r : rows) total += r.size() + (sep ? 1 : 0);
      ids->reserve(total);
      for (size_t i = 0; i < n; ++i) {
        ids->insert(ids->end(), rows[i].begin(), rows[i].end());
        (*counts)[i] = rows[i].size();
        (*sizes)[i] = all[i].size;
        if (sep) ids->push_back(uint32_t(separator));
        std::vector<uint32_t>().swap(rows[i]);
      }
    }
  } catch (...) {
    delete ids;
    delete counts;
    delete sizes;
    throw;
  }
  return nb::make_tuple(owned_array(ids), owned_array(counts), owned_array(sizes));
}

}  // namespace

void bind_corpus(nb::module_& m) {
  m.def("encode_flat", &encode_flat, nb::arg("encoder"), nb::arg("texts"), nb::arg("separator"), nb::arg("threads") = 1,
        "Documents encoded by `encoder` (an Encoder) into one uint32 array, each followed by `separator` "
        "(-1: none), with each one's token count and UTF-8 size (uint64 arrays); for tokenforge.corpus.");
}

}  // namespace tokenforge::bindings
