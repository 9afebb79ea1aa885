// Binding for HF tokenizers' BPE model (models/bpe/hf_bpe_model.h): BpeModel, built from a
// tokenizer.json model's vocabulary, merges and options (tokenforge/models/bpe.py reads and checks
// them), tokenizing one piece or a batch of pieces. Offsets come back in code points of the
// piece, converted from the model's byte offsets as HF's char offsets are (each byte token of
// a character covers the whole character). Conversions come from python/convert.h.
#include <Python.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>

#include "base/parallel.h"
#include "base/utf8.h"
#include "models/bpe/hf_bpe_model.h"
#include "models/model_token.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace tokenforge::bindings {

namespace {

std::string py_type_name(nb::handle h) { return Py_TYPE(h.ptr())->tp_name; }

std::string str_of(nb::handle h, const std::string& what) {
  if (!PyUnicode_Check(h.ptr())) throw nb::type_error((what + " must be str, got " + py_type_name(h)).c_str());
  const Text t = utf8_of(h);
  return std::string(reinterpret_cast<const char*>(t.data), t.size);
}

HfBpeModel::Vocab vocab_of(nb::handle vocab) {
  if (!PyDict_Check(vocab.ptr()))
    throw nb::type_error(("vocab must be a dict of str to int, got " + py_type_name(vocab)).c_str());
  HfBpeModel::Vocab out;
  out.reserve(size_t(PyDict_Size(vocab.ptr())));
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(vocab.ptr(), &pos, &key, &value)) {
    std::string token = str_of(key, "vocab keys");
    if (!PyLong_Check(value) || PyBool_Check(value))
      throw nb::type_error(("the id of token `" + token + "` must be an int, got " + py_type_name(value)).c_str());
    int overflow = 0;
    const long long id = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow || id < 0 || id >= (1ll << 32) - 1)
      throw nb::value_error(("the id of token `" + token + "` must be in 0..2**32-2, got " +
                             std::string(nb::str(nb::handle(value)).c_str()))
                                .c_str());
    out.emplace_back(std::move(token), uint32_t(id));
  }
  return out;
}

HfBpeModel::Merges merges_of(nb::handle merges) {
  nb::object fast = nb::steal(PySequence_Fast(merges.ptr(), "merges must be a list of (str, str) pairs"));
  if (!fast) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  HfBpeModel::Merges out;
  out.reserve(size_t(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::handle item(items[i]);
    const std::string where = "merge " + std::to_string(i);
    if (PyUnicode_Check(item.ptr()) || !PySequence_Check(item.ptr()) || PySequence_Size(item.ptr()) != 2) {
      PyErr_Clear();
      throw nb::type_error((where + " must be a pair of str, got " + py_type_name(item)).c_str());
    }
    nb::object a = nb::steal(PySequence_GetItem(item.ptr(), 0)), b = nb::steal(PySequence_GetItem(item.ptr(), 1));
    if (!a || !b) throw nb::python_error();
    out.emplace_back(str_of(a, where + "'s tokens"), str_of(b, where + "'s tokens"));
  }
  return out;
}

// Turns the byte offsets of one piece's tokens (in order, each starting where the one before
// ended) into code points, as HF's char offsets: a token starts at the character that holds its
// first byte and ends after the one that holds its last (so each byte token of a character
// covers the whole character); the piece's end is the number of characters. Byte fallback with a
// continuing prefix or end-of-word suffix gives the affix's bytes a byte each, so tokens may end
// past the piece. HF's converter then does what this does (for a piece that is the whole text):
// a token that starts past the piece keeps its byte offsets, one that starts inside it and ends
// past it covers two characters from where it starts.
void to_code_points(const uint8_t* s, size_t n, ModelToken* tokens, size_t count) {
  size_t at = 0;      // bytes counted so far
  uint32_t seen = 0;  // characters that start in s[0..at)
  const uint32_t total = count_characters(s, 0, n, n);
  auto starts_before = [&](size_t x) -> uint32_t {  // characters that start in s[0..x)
    if (x >= n) return total;
    if (x < at) at = 0, seen = 0;  // not in order (cannot happen): count again
    seen += count_characters(s, at, x, n);
    at = x;
    return seen;
  };
  for (size_t i = 0; i < count; ++i) {
    if (tokens[i].end > n) {  // past the piece (see above)
      if (tokens[i].start < n) {
        tokens[i].start = starts_before(size_t(tokens[i].start) + 1) - 1;
        tokens[i].end = tokens[i].start + 2;
      }
      continue;
    }
    const uint32_t start = starts_before(size_t(tokens[i].start) + 1) - 1;
    tokens[i].end = starts_before(tokens[i].end);
    tokens[i].start = start;
  }
}

nb::object token_list(const ModelToken* tokens, size_t count) {
  nb::object list = nb::steal(PyList_New(Py_ssize_t(count)));
  if (!list) throw nb::python_error();
  for (size_t i = 0; i < count; ++i) {
    PyObject* t = PyTuple_New(3);
    if (!t) throw nb::python_error();
    PyList_SET_ITEM(list.ptr(), i, t);
    const uint32_t v[3] = {tokens[i].id, tokens[i].start, tokens[i].end};
    for (int k = 0; k < 3; ++k) {
      PyObject* o = PyLong_FromUnsignedLong(v[k]);
      if (!o) throw nb::python_error();
      PyTuple_SET_ITEM(t, k, o);
    }
  }
  return list;
}

}  // namespace

void bind_bpe_model(nb::module_& m) {
  nb::class_<HfBpeModel>(m, "BpeModel",
                         "HF tokenizers' BPE model (tokenizer.json's \"type\": \"BPE\"): merges by rank over the "
                         "characters of each piece.")
      .def(
          "__init__",
          [](HfBpeModel* self, nb::handle vocab, nb::handle merges, std::optional<std::string> unk_token,
             std::optional<std::string> continuing_subword_prefix, std::optional<std::string> end_of_word_suffix,
             nb::handle fuse_unk, nb::handle byte_fallback, nb::handle ignore_merges, std::optional<double> dropout) {
            HfBpeOptions o;
            o.unk_token = std::move(unk_token);
            o.continuing_subword_prefix = std::move(continuing_subword_prefix);
            o.end_of_word_suffix = std::move(end_of_word_suffix);
            o.fuse_unk = flag_of(fuse_unk, "fuse_unk");
            o.byte_fallback = flag_of(byte_fallback, "byte_fallback");
            o.ignore_merges = flag_of(ignore_merges, "ignore_merges");
            if (dropout) {
              if (!(*dropout >= 0.0 && *dropout <= 1.0))
                throw nb::value_error(
                    ("dropout must be None or between 0 and 1, inclusive, got " + std::to_string(*dropout)).c_str());
              o.dropout = float(*dropout);
            }
            HfBpeModel::Vocab v = vocab_of(vocab);
            HfBpeModel::Merges ms = merges_of(merges);
            nb::gil_scoped_release nogil;
            new (self) HfBpeModel(v, ms, std::move(o));
          },
          nb::arg("vocab"), nb::arg("merges"), nb::arg("unk_token").none(), nb::arg("continuing_subword_prefix").none(),
          nb::arg("end_of_word_suffix").none(), nb::arg("fuse_unk"), nb::arg("byte_fallback"), nb::arg("ignore_merges"),
          nb::arg("dropout").none(),
          nb::sig("def __init__(self, vocab: dict[str, int], merges: Sequence[tuple[str, str]], unk_token: str | None, "
                  "continuing_subword_prefix: str | None, end_of_word_suffix: str | None, fuse_unk: bool, "
                  "byte_fallback: bool, ignore_merges: bool, dropout: float | None) -> None"),
          "Raises ValueError for a merge naming a token that is not in the vocabulary, or whose merged token is "
          "not.")
      .def(
          "tokenize",
          [](const HfBpeModel& model, nb::handle piece, std::optional<uint64_t> seed) {
            const Text t = utf8_of(piece);
            std::vector<ModelToken> out;
            {
              GilReleasedFor nogil(t.size);
              const char* s = reinterpret_cast<const char*>(t.data);
              if (seed) {
                std::mt19937_64 rng(*seed);
                model.tokenize(s, t.size, out, rng);
              } else {
                model.tokenize(s, t.size, out);
              }
              to_code_points(t.data, t.size, out.data(), out.size());
            }
            return token_list(out.data(), out.size());
          },
          nb::arg("piece"), nb::arg("seed").none() = nb::none(),
          nb::sig("def tokenize(self, piece: str, seed: int | None = None) -> list[tuple[int, int, int]]"),
          "The tokens of one piece as (id, start, end), offsets in code points of the piece. With dropout, "
          "seed= makes the draws repeatable.")
      .def(
          "tokenize_batch",
          [](const HfBpeModel& model, nb::handle pieces, size_t threads) {
            if (PyUnicode_Check(pieces.ptr())) throw nb::type_error("pieces must be a list of str, got one str");
            const std::vector<Text> all = utf8_of_all(pieces);
            std::vector<std::vector<ModelToken>> out(all.size());
            {
              nb::gil_scoped_release nogil;
              parallel_for(
                  all.size(), std::max<size_t>(1, threads),
                  [&](size_t i) {
                    model.tokenize(reinterpret_cast<const char*>(all[i].data), all[i].size, out[i]);
                    to_code_points(all[i].data, all[i].size, out[i].data(), out[i].size());
                  },
                  SignalPoll());
            }
            const CollectorPaused paused;
            nb::object lists = nb::steal(PyList_New(Py_ssize_t(all.size())));
            if (!lists) throw nb::python_error();
            for (size_t i = 0; i < all.size(); ++i)
              PyList_SET_ITEM(lists.ptr(), i, token_list(out[i].data(), out[i].size()).release().ptr());
            return lists;
          },
          nb::arg("pieces"), nb::arg("threads"),
          nb::sig("def tokenize_batch(self, pieces: Sequence[str], threads: int) -> list[list[tuple[int, int, int]]]"),
          "tokenize for each piece, on up to `threads` threads.")
      .def(
          "token_to_id",
          [](const HfBpeModel& model, const std::string& token) -> std::optional<uint32_t> {
            const uint32_t id = model.token_id(token);
            if (id == kNoToken) return std::nullopt;
            return id;
          },
          nb::arg("token"), "The id of a token string, or None.")
      .def_prop_ro("vocab_size", &HfBpeModel::vocab_size)
      .def_prop_ro("merge_count", &HfBpeModel::merge_count);
}

}  // namespace tokenforge::bindings
