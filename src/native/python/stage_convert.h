// Stage descriptions from Python for the pipelines built from tokenizer.json components
// (python/bind_staged.cpp, python/bind_byte_level_hf_bpe.cpp): option_of turns a Python value into
// an OptionValue (pipelines/stage_options.h), stage_of a stage's [(type, options), ...] into one
// component or a Sequence of them, model_options_of a model's options with a BPE model's merges
// read apart (straight into pairs).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "pipelines/stage_options.h"
#include "python/convert.h"

namespace tokenforge::bindings {

// A Python value (None, bool, int, float, str, list, tuple, dict with str keys) as an OptionValue.
// A str's UTF-8; ValueError naming `where` for one that has none (a lone surrogate).
inline std::string utf8_string(nb::handle h, const std::string& where) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    throw nb::value_error((where + ": a string that is not valid Unicode (a lone surrogate)").c_str());
  }
  return std::string(data, size_t(size));
}

inline OptionValue option_of(nb::handle h, const std::string& where) {
  OptionValue v;
  if (h.is_none()) return v;
  if (PyBool_Check(h.ptr())) {
    v.kind = OptionValue::Kind::kBool;
    v.b = h.ptr() == Py_True;
  } else if (PyLong_Check(h.ptr())) {
    v.kind = OptionValue::Kind::kInt;
    int overflow = 0;
    v.i = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow) throw nb::value_error((where + ": an integer past 64 bits").c_str());
  } else if (PyFloat_Check(h.ptr())) {
    v.kind = OptionValue::Kind::kFloat;
    v.f = nb::cast<double>(h);
  } else if (PyUnicode_Check(h.ptr())) {
    v.kind = OptionValue::Kind::kString;
    v.s = utf8_string(h, where);
  } else if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    v.kind = OptionValue::Kind::kList;
    for (nb::handle item : h) v.list.push_back(option_of(item, where));
  } else if (PyDict_Check(h.ptr())) {
    v.kind = OptionValue::Kind::kDict;
    for (auto [key, value] : nb::cast<nb::dict>(h)) {
      if (!PyUnicode_Check(key.ptr())) throw nb::type_error((where + ": option names must be str").c_str());
      v.dict.emplace_back(utf8_string(key, where), option_of(value, where));
    }
  } else {
    throw nb::type_error((where + ": unsupported option value " + std::string(nb::repr(h).c_str())).c_str());
  }
  return v;
}

// A BPE model's merges (a list of "a b" strings holding one space each, or of [a, b] pairs of
// strings) read straight into pairs, as models/bpe/bpe_stage.h's merges_of reads them from option
// values; false (out left unusable) for any other shape, which merges_of then reads and names.
inline bool read_merges(PyObject* list, std::vector<std::pair<std::string, std::string>>& out) {
  auto utf8 = [](PyObject* s, std::string_view& view) {
    if (!PyUnicode_Check(s)) return false;
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(s, &size);
    if (data == nullptr) {
      PyErr_Clear();
      return false;
    }
    view = std::string_view(data, size_t(size));
    return true;
  };
  const Py_ssize_t n = PyList_GET_SIZE(list);
  out.clear();
  out.reserve(size_t(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* item = PyList_GET_ITEM(list, k);
    std::string_view a, b;
    if (PyUnicode_Check(item)) {
      std::string_view m;
      if (!utf8(item, m)) return false;
      const size_t space = m.find(' ');
      if (space == std::string_view::npos || m.find(' ', space + 1) != std::string_view::npos) return false;
      a = m.substr(0, space);
      b = m.substr(space + 1);
    } else if (PyList_Check(item) && PyList_GET_SIZE(item) == 2) {
      if (!utf8(PyList_GET_ITEM(item, 0), a) || !utf8(PyList_GET_ITEM(item, 1), b)) return false;
    } else if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 2) {
      if (!utf8(PyTuple_GET_ITEM(item, 0), a) || !utf8(PyTuple_GET_ITEM(item, 1), b)) return false;
    } else {
      return false;
    }
    out.emplace_back(a, b);
  }
  return true;
}

// A model's options, a BPE model's merges apart: where `options` is a dict whose "merges" is a
// list read_merges takes, they go into `merges` (merges_given set) and the options hold the rest,
// so that a 150,000-merge list costs no option values; anything else is option_of's.
inline OptionValue model_options_of(nb::handle options, const std::string& model_type,
                                    std::vector<std::pair<std::string, std::string>>& merges, bool& merges_given) {
  const std::string where = "model " + model_type;
  merges_given = false;
  PyObject* list = model_type == "BPE" && PyDict_Check(options.ptr())
                       ? PyDict_GetItemString(options.ptr(), "merges")  // borrowed
                       : nullptr;
  if (list == nullptr || !PyList_Check(list) || !read_merges(list, merges)) {
    merges.clear();
    return option_of(options, where);
  }
  merges_given = true;
  OptionValue v;
  v.kind = OptionValue::Kind::kDict;
  for (auto [key, value] : nb::cast<nb::dict>(options)) {
    if (!PyUnicode_Check(key.ptr())) throw nb::type_error((where + ": option names must be str").c_str());
    std::string name = utf8_string(key, where);
    if (name != "merges") v.dict.emplace_back(std::move(name), option_of(value, where));
  }
  return v;
}

// A stage from [(type, options), ...]: none, one component, or a Sequence of them under
// `list_key` ("normalizers", "pretokenizers", "decoders").
inline OptionValue stage_of(nb::handle components, const char* stage, const char* list_key) {
  std::vector<OptionValue> parts;
  for (nb::handle item : components) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    if (t.size() != 2) throw nb::value_error((std::string(stage) + ": each component is (type, options)").c_str());
    OptionValue part = option_of(t[1], std::string(stage) + " " + utf8_string(t[0], stage));
    if (part.kind == OptionValue::Kind::kNull) part.kind = OptionValue::Kind::kDict;
    if (part.kind != OptionValue::Kind::kDict)
      throw nb::type_error((std::string(stage) + ": options must be a dict").c_str());
    OptionValue type;
    type.kind = OptionValue::Kind::kString;
    type.s = utf8_string(t[0], stage);
    part.dict.insert(part.dict.begin(), {"type", std::move(type)});
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return OptionValue{};
  if (parts.size() == 1) return std::move(parts[0]);
  OptionValue seq, type, list;
  seq.kind = OptionValue::Kind::kDict;
  type.kind = OptionValue::Kind::kString;
  type.s = "Sequence";
  list.kind = OptionValue::Kind::kList;
  list.list = std::move(parts);
  seq.dict.emplace_back("type", std::move(type));
  seq.dict.emplace_back(list_key, std::move(list));
  return seq;
}

}  // namespace tokenforge::bindings
