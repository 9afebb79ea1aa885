// Stage descriptions from Python for the pipelines built from tokenizer.json components
// (python/bind_staged.cpp, python/bind_byte_level_hf_bpe.cpp): option_of turns a Python value into
// an OptionValue (pipelines/stage_options.h), stage_of a stage's [(type, options), ...] into one
// component or a Sequence of them.
#pragma once
#include <string>
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
