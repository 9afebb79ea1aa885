// Bindings for tiktoken's side of tokenforge._core: SpecialMatcher (special-token text in a
// string, added_tokens/special_matcher.h), Encoder (python/py_encoder.h over pipelines/encoder.h:
// built from tokens or a .tiktoken file, encode, batches on threads, NumPy, offsets, decode) and
// the test hook of the character classes (unicode/unicode_classes.h). Conversions come from
// python/convert.h; python/module.cpp calls bind_encoding first. parse_tiktoken and the scanner's
// test hook are in python/bind_tools.cpp.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "added_tokens/special_matcher.h"
#include "base/parallel.h"
#include "formats/tiktoken_file.h"
#include "pipelines/encoder.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/py_encoder.h"
#include "unicode/unicode_classes.h"

namespace tokenforge::bindings {

nb::object PyEncoder::encode(nb::handle text, const SpecialMatcher* allowed) const {
  Text t = utf8_of(text);
  return ids_list(t.size, [&](std::vector<uint32_t>& ids) { enc_.encode(t.data, t.size, allowed, ids); });
}

nb::object PyEncoder::encode_batch(nb::handle texts, const SpecialMatcher* allowed, size_t threads) const {
  std::vector<Text> all = utf8_of_all(texts);
  std::vector<std::vector<uint32_t>> out(all.size());
  threads = threads_for_text(threads, all);
  {
    nb::gil_scoped_release nogil;
    parallel_for(
        all.size(), threads, [&](size_t i) { enc_.encode(all[i].data, all[i].size, allowed, out[i]); }, SignalPoll());
  }
  return ints_.lists(out, threads);
}

nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>> PyEncoder::encode_to_numpy(nb::handle text,
                                                                         const SpecialMatcher* allowed) const {
  Text t = utf8_of(text);
  auto* ids = new std::vector<uint32_t>();
  {
    nb::gil_scoped_release nogil;
    try {
      enc_.encode(t.data, t.size, allowed, *ids);
    } catch (...) {
      delete ids;
      throw;
    }
  }
  nb::capsule owner(ids, [](void* p) noexcept { delete static_cast<std::vector<uint32_t>*>(p); });
  return nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>(ids->data(), {ids->size()}, owner);
}

// A batch as a model takes it: ids[n, width] and mask[n, width] (1 for a token, 0 for padding),
// each row the text's first `max_length` ids (0: no limit) padded with pad_id on the right, or on
// the left; width is the longest row. lengths[n] holds each row's tokens. The arrays are made and
// filled here, with the GIL released: no Python list on the way.
nb::tuple PyEncoder::encode_batch_padded(nb::handle texts, const SpecialMatcher* allowed, size_t threads,
                                         size_t max_length, uint32_t pad_id, bool pad_left) const {
  std::vector<Text> all = utf8_of_all(texts);
  const size_t n = all.size();
  threads = threads_for_text(threads, all);
  std::vector<std::vector<uint32_t>> rows(n);
  auto* lengths = new std::vector<uint32_t>(n);
  auto* ids = new std::vector<uint32_t>();
  auto* mask = new std::vector<uint8_t>();
  size_t width = 0;
  try {
    nb::gil_scoped_release nogil;
    parallel_for(
        n, threads,
        [&](size_t i) {
          enc_.encode(all[i].data, all[i].size, allowed, rows[i]);
          if (max_length && rows[i].size() > max_length) rows[i].resize(max_length);
        },
        SignalPoll());
    for (size_t i = 0; i < n; ++i) {
      (*lengths)[i] = uint32_t(rows[i].size());
      width = std::max(width, rows[i].size());
    }
    ids->assign(n * width, pad_id);
    mask->assign(n * width, 0);
    for (size_t i = 0; i < n; ++i) {
      const size_t at = i * width + (pad_left ? width - rows[i].size() : 0);
      std::copy(rows[i].begin(), rows[i].end(), ids->begin() + ptrdiff_t(at));
      std::fill(mask->begin() + ptrdiff_t(at), mask->begin() + ptrdiff_t(at + rows[i].size()), uint8_t(1));
      std::vector<uint32_t>().swap(rows[i]);
    }
  } catch (...) {
    delete lengths;
    delete ids;
    delete mask;
    throw;
  }
  nb::capsule own_ids(ids, [](void* p) noexcept { delete static_cast<std::vector<uint32_t>*>(p); });
  nb::capsule own_mask(mask, [](void* p) noexcept { delete static_cast<std::vector<uint8_t>*>(p); });
  nb::capsule own_lengths(lengths, [](void* p) noexcept { delete static_cast<std::vector<uint32_t>*>(p); });
  return nb::make_tuple(nb::ndarray<nb::numpy, uint32_t, nb::ndim<2>>(ids->data(), {n, width}, own_ids),
                        nb::ndarray<nb::numpy, uint8_t, nb::ndim<2>>(mask->data(), {n, width}, own_mask),
                        nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>(lengths->data(), {n}, own_lengths));
}

nb::tuple PyEncoder::encode_with_offsets(nb::handle text, const SpecialMatcher* allowed) const {
  Text t = utf8_of(text);
  std::vector<uint32_t> ids;
  {
    GilReleasedFor nogil(t.size);
    enc_.encode(t.data, t.size, allowed, ids);
  }
  const Py_ssize_t size = Py_ssize_t(ids.size() * sizeof(uint32_t));
  nb::object out[3];
  for (nb::object& o : out)
    if (!(o = nb::steal(PyBytes_FromStringAndSize(nullptr, size)))) throw nb::python_error();
  uint32_t* id_out = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(out[0].ptr()));
  uint32_t* chars = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(out[1].ptr()));
  uint32_t* bytes = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(out[2].ptr()));
  {
    GilReleasedFor nogil(t.size);
    if (!ids.empty()) std::memcpy(id_out, ids.data(), size_t(size));
    enc_.token_starts(t.data, t.size, ids.data(), ids.size(), chars, bytes);
  }
  return nb::make_tuple(out[0], out[1], out[2]);
}

nb::object PyEncoder::encode_pieces(nb::handle pieces) const {
  std::vector<std::pair<const uint8_t*, size_t>> all;
  for (const Text& t : utf8_of_all(pieces)) all.emplace_back(t.data, t.size);
  std::vector<uint32_t> ids;
  {
    nb::gil_scoped_release nogil;
    enc_.encode_pieces(all, ids);
  }
  return ints_.list(ids);
}

nb::object PyEncoder::encode_byte_piece(nb::bytes piece) const {
  std::vector<uint32_t> ids;
  enc_.encode_bytes(reinterpret_cast<const uint8_t*>(piece.c_str()), piece.size(), ids);
  return ints_.list(ids);
}

nb::bytes PyEncoder::decode_bytes(nb::handle ids_seq) const {
  std::vector<uint32_t> ids = ids_of(ids_seq);
  std::string out;
  size_t bad;  // the first id without a token
  {
    GilReleasedFor nogil(ids.size() * 4);
    bad = enc_.decode(ids.data(), ids.size(), out);
  }
  if (bad < ids.size())
    throw nb::key_error(
        ("invalid token id " + std::to_string(ids[bad]) + " at position " + std::to_string(bad)).c_str());
  return nb::bytes(out.data(), out.size());
}

nb::object PyEncoder::token_bytes(uint32_t id) const {
  const std::string* b = enc_.token_bytes(id);
  if (!b) return nb::none();
  return nb::bytes(b->data(), b->size());
}

nb::object PyEncoder::find(nb::bytes b) const {
  const uint32_t id = enc_.model().find(reinterpret_cast<const uint8_t*>(b.c_str()), b.size());
  if (id == kNoToken) return nb::none();
  return nb::int_(id);
}

void bind_encoding(nb::module_& m) {
  nb::class_<SpecialMatcher>(m, "SpecialMatcher")
      .def(
          "__init__",
          [](SpecialMatcher* self, nb::handle tokens) { new (self) SpecialMatcher(added_token_list(tokens)); },
          nb::arg("tokens"),
          "tokens: [(utf-8 bytes, id), ...] or [(utf-8 bytes, id, flags), ...]; flags: single_word 1, lstrip 2, "
          "rstrip 4, normalized 8 (the bytes are the normalized content), skip 16 (found but left as text), "
          "python spaces 32 (lstrip and rstrip take str.isspace's whitespace), llama 64 (the set is partitioned "
          "as llama.cpp's: longest token first, lstrip and rstrip taking C isspace's whitespace)")
      .def(
          "find",
          [](const SpecialMatcher& self, nb::handle text) -> nb::object {
            Text t = utf8_of(text);
            SpecialMatch match = self.find(t.data, t.size, 0);
            if (match.pos >= t.size) return nb::none();
            return nb::bytes(reinterpret_cast<const char*>(t.data + match.pos), match.len);
          },
          "The first special-token text found in `text` (as UTF-8 bytes), or None.")
      .def(
          "split",
          [](const SpecialMatcher& self, nb::handle text) {
            // [str, id, str, id, ..., str]: the text around each special token, in one pass.
            Text t = utf8_of(text);
            nb::list out;
            auto text_part = [&](size_t from, size_t to) {
              PyObject* part =
                  PyUnicode_DecodeUTF8(reinterpret_cast<const char*>(t.data + from), Py_ssize_t(to - from), "strict");
              if (!part) throw nb::python_error();
              out.append(nb::steal(part));
            };
            size_t start = 0;
            for (SpecialMatch m; (m = self.find(t.data, t.size, start)).pos < t.size;) {
              text_part(start, m.pos);
              out.append(nb::int_(m.id));
              start = m.pos + m.len;
            }
            text_part(start, t.size);
            return out;
          },
          nb::arg("text"), "Split `text` around special tokens: [str, id, str, ..., str].");

  nb::class_<PyEncoder>(m, "Encoder")
      .def(
          "__init__",
          [](PyEncoder* self, nb::handle tokens, nb::handle specials, int pattern) {
            new (self) PyEncoder(token_list(tokens), special_list(specials), pattern);
          },
          nb::arg("tokens"), nb::arg("specials"), nb::arg("pattern"),
          "tokens: bytes indexed by rank (b'' for unused); specials: [(bytes, id)]; pattern: "
          "native scanner id or -1")
      .def_static(
          "from_tiktoken",
          [](nb::bytes data, uint64_t rank_limit, nb::handle specials, int pattern) {
            std::string_view view(data.c_str(), data.size());
            return new PyEncoder(parse_tiktoken(view, rank_limit), special_list(specials), pattern);
          },
          nb::arg("data"), nb::arg("rank_limit"), nb::arg("specials"), nb::arg("pattern"),
          "Build straight from a .tiktoken file's bytes (no Python objects per token).")
      .def("encode", &PyEncoder::encode, nb::arg("text"), nb::arg("allowed").none())
      .def("encode_batch", &PyEncoder::encode_batch, nb::arg("texts"), nb::arg("allowed").none(), nb::arg("threads"))
      .def("encode_to_numpy", &PyEncoder::encode_to_numpy, nb::arg("text"), nb::arg("allowed").none())
      .def("encode_batch_padded", &PyEncoder::encode_batch_padded, nb::arg("texts"), nb::arg("allowed").none(),
           nb::arg("threads"), nb::arg("max_length"), nb::arg("pad_id"), nb::arg("pad_left"),
           "(ids[n, width] uint32, mask[n, width] uint8, lengths[n] uint32): each text's ids (its first "
           "max_length; 0: all) padded with pad_id to the longest row, on the left if pad_left.")
      .def("encode_with_offsets", &PyEncoder::encode_with_offsets, nb::arg("text"), nb::arg("allowed").none())
      .def("encode_pieces", &PyEncoder::encode_pieces, nb::arg("pieces"))
      .def("encode_byte_piece", &PyEncoder::encode_byte_piece, nb::arg("piece"),
           "The merges of one piece of raw bytes (any bytes, not split by the pattern): "
           "tiktoken's byte_pair_encode.")
      .def("decode_bytes", &PyEncoder::decode_bytes, nb::arg("ids"))
      .def("token_bytes", &PyEncoder::token_bytes, nb::arg("id"))
      .def("find", &PyEncoder::find, nb::arg("token"))
      .def("ordinary_tokens", &PyEncoder::ordinary_tokens)
      .def_prop_ro("rank_count", &PyEncoder::rank_count, "one more than the largest ordinary rank")
      .def_prop_ro("token_count", &PyEncoder::token_count, "number of ordinary tokens")
      .def_prop_ro("has_scanner", &PyEncoder::has_scanner);

  m.def(
      "char_classes",
      [](uint32_t first, uint32_t last) {
        std::string out;
        for (uint32_t cp = first; cp <= last; ++cp) out.push_back(char(class_of(cp)));
        return nb::bytes(out.data(), out.size());
      },
      nb::arg("first"), nb::arg("last"),
      "Class flags (1 letter, 2 number, 4 space, 8 o200k-upper, 16 o200k-lower) of code points "
      "first..last, for testing the generated tables.");
}

}  // namespace tokenforge::bindings
